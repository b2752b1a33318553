//! The `ycsb` launcher as a user runs it: from a directory outside the
//! checkout, with a relative workload path, in `bin/ycsb`'s forms.

use std::path::PathBuf;
use std::process::{Command, Output};

const YCSB: &str = env!("CARGO_BIN_EXE_ycsb");

/// A directory outside the checkout holding `workloads/workloada`.
struct Elsewhere(PathBuf);

impl Drop for Elsewhere {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn elsewhere(name: &str) -> Elsewhere {
    let dir = std::env::temp_dir().join(format!("contio-launcher-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("workloads")).unwrap();
    let workloada = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/contio/workload/ycsb/workloada");
    std::fs::copy(workloada, dir.join("workloads/workloada")).unwrap();
    Elsewhere(dir)
}

fn ycsb(dir: &Elsewhere, args: &str) -> Output {
    Command::new(YCSB)
        .args(args.split_whitespace())
        .current_dir(&dir.0)
        // The engine is found beside the launcher, as in an installed wheel.
        .env_remove("CONTIO_ENGINE")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn load_and_run_basic_from_another_directory() {
    let dir = elsewhere("basic");
    let load = ycsb(&dir, "load basic -P workloads/workloada -s");
    let stderr = text(&load.stderr);
    assert!(load.status.success(), "{stderr}");
    assert!(
        stderr.contains("\nCommand line: -db site.ycsb.BasicDB -P workloads/workloada -s -load\n"),
        "{stderr}"
    );
    assert!(text(&load.stdout).contains("[INSERT], Operations, 1000\n"));
    let run = ycsb(
        &dir,
        "run basic -P workloads/workloada -threads 2 -p measurementtype=histogram -target 5000",
    );
    let stderr = text(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("Command line:"))
        .unwrap();
    assert!(line.ends_with(" -t"), "{line}");
    assert!(text(&run.stdout).contains("[READ], LatencyVariance(us), "));
}

#[test]
fn jvm_options_are_accepted_and_unknown_bindings_refused() {
    let dir = elsewhere("refused");
    let ok = ycsb(
        &dir,
        "load basic -cp /opt/conf -P workloads/workloada -p recordcount=10",
    );
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stderr).contains("-cp /opt/conf: ignored"));
    let hbase = ycsb(&dir, "load hbase10 -P workloads/workloada");
    assert_eq!(hbase.status.code(), Some(2));
    let stderr = text(&hbase.stderr);
    assert!(
        stderr.contains("hbase10") && stderr.contains("basic, redis, jdbc"),
        "{stderr}"
    );
    let shell = ycsb(&dir, "shell basic");
    assert_eq!(shell.status.code(), Some(2));
    // A JDBC run without db.url is refused by the engine, naming the property.
    let jdbc = ycsb(&dir, "run jdbc -P workloads/workloada");
    assert_eq!(jdbc.status.code(), Some(2));
    assert!(
        text(&jdbc.stderr).contains("db.url"),
        "{}",
        text(&jdbc.stderr)
    );
}
