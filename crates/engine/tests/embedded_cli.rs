//! The embedded engines through the real `contio-engine` binary: bad target
//! properties exit 2 naming the property, and a run phase finds what a separate
//! load process stored.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ENGINE: &str = env!("CARGO_BIN_EXE_contio-engine");
const TARGETS: [&str; 2] = ["lsm", "btree"];

fn workload(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/contio/workload/ycsb")
        .join(name)
        .display()
        .to_string()
}

fn engine(args: &[&str]) -> Output {
    Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test, removed when the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir =
        std::env::temp_dir().join(format!("contio-embedded-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn bad_target_properties_exit_2_naming_the_property() {
    let dir = scratch("bad");
    let file = dir.0.join("plain-file");
    std::fs::write(&file, b"").unwrap();
    let ok_dir = dir.0.display().to_string();
    for t in TARGETS {
        let cases: Vec<(Vec<String>, String, &str)> = vec![
            (vec![], format!("{t}.dir"), "required"),
            (
                vec![format!("{t}.dir=/nonexistent/contio")],
                format!("{t}.dir"),
                "/nonexistent/contio",
            ),
            (
                vec![format!("{t}.dir={}", file.display())],
                format!("{t}.dir"),
                "not a directory",
            ),
            // Creating a file in /proc fails even for root: an unwritable directory.
            (
                vec![format!("{t}.dir=/proc")],
                format!("{t}.dir"),
                "not writable",
            ),
            (
                vec![format!("{t}.dir={ok_dir}"), format!("{t}.cache_bytes=lots")],
                format!("{t}.cache_bytes"),
                "byte count",
            ),
            (
                vec![format!("{t}.dir={ok_dir}"), format!("{t}.sync=always")],
                format!("{t}.sync"),
                "periodic, op, close",
            ),
            (
                vec![
                    format!("{t}.dir={ok_dir}"),
                    format!("{t}.sync_interval_ms=0"),
                ],
                format!("{t}.sync_interval_ms"),
                "positive",
            ),
            (
                vec![format!("{t}.dir={ok_dir}"), format!("{t}.cahce_bytes=0")],
                format!("{t}.cahce_bytes"),
                "did you mean",
            ),
        ];
        for (props, named, says) in cases {
            let mut args = vec!["load".to_string(), t.to_string()];
            for p in &props {
                args.extend(["-p".to_string(), p.clone()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = engine(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(&named) && err.contains(says),
                "{args:?}: {err}"
            );
        }
    }
    let o = engine(&[
        "load",
        "lsm",
        "-p",
        &format!("lsm.dir={ok_dir}"),
        "-p",
        "lsm.memtable_bytes=1K",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("lsm.memtable_bytes"), "{}", stderr(&o));
}

#[test]
fn run_phase_finds_what_the_load_process_stored() {
    for t in TARGETS {
        let dir = scratch(&format!("phases-{t}"));
        let data = dir.0.join("data");
        std::fs::create_dir(&data).unwrap();
        let dir_prop = format!("{t}.dir={}", data.display());
        let phase = |phase: &str, threads: &str| {
            let json = dir.0.join(format!("{phase}.json"));
            let o = engine(&[
                phase,
                t,
                "-P",
                &workload("workloadb"),
                "-p",
                "recordcount=500",
                "-p",
                "operationcount=2000",
                "-p",
                &dir_prop,
                "-threads",
                threads,
                "-json",
                json.to_str().unwrap(),
            ]);
            assert_eq!(o.status.code(), Some(0), "{t} {phase}: {}", stderr(&o));
            read_json(&json)
        };
        let load = phase("load", "2");
        assert_eq!(load["operations_by_type"]["INSERT"]["returns"]["OK"], 500);
        let run = phase("run", "4");
        let reads = &run["operations_by_type"]["READ"]["returns"];
        assert!(reads["OK"].as_u64().unwrap() > 0, "{t}: {reads}");
        assert!(
            reads.get("NOT_FOUND").is_none(),
            "{t}: every loaded key is found: {reads}"
        );
        assert_eq!(run["operations"], 2000);
        let described = &run["target_description"];
        assert_eq!(described["sync"], "periodic", "{t}: {described}");
        if t == "btree" {
            assert_eq!(described["files"], 1, "btree keeps one file: {described}");
        }
    }
}
