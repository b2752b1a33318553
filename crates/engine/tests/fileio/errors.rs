//! Bad input exits 2 before anything runs and names what to fix; a disk that
//! fills mid-run and an interrupt stop cleanly, keeping what was measured.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::mounts::tmpfs;
use crate::{engine, read_json, stderr, ENGINE};

fn refused(args: &[&str], mentions: &[&str]) {
    let out = engine(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    for m in mentions {
        assert!(
            stderr(&out).contains(m),
            "{args:?}: '{m}' not in {}",
            stderr(&out)
        );
    }
}

#[test]
fn bad_input_exits_2_naming_the_field() {
    let fs = tmpfs("errors", 8);
    let dir = format!("--file-dir={}", fs.path().display());
    let json = fs.join("never.json");
    let json = json.to_str().unwrap();
    refused(
        &[
            "sysbench",
            "fileio",
            "--file-dir=/nonexistent/contio",
            "prepare",
        ],
        &["--file-dir", "does not exist"],
    );
    refused(
        &["sysbench", "fileio", "--file-totl-size=1M", &dir, "prepare"],
        &["did you mean '--file-total-size'"],
    );
    refused(
        &["sysbench", "fileio", "--file-test-mode=random", &dir, "run"],
        &["--file-test-mode", "rndrw"],
    );
    refused(
        &[
            "sysbench",
            "fileio",
            "--file-block-size=1000",
            "--file-extra-flags=direct",
            &dir,
            "prepare",
        ],
        &["--file-block-size", "512"],
    );
    refused(
        &[
            "sysbench",
            "fileio",
            "--file-total-size=1M",
            "--file-test-mode=rndrd",
            &dir,
            "run",
        ],
        &["prepare"],
    );
    // A full disk: 64 MiB do not fit in an 8 MiB tmpfs; nothing is created.
    refused(
        &[
            "sysbench",
            "fileio",
            "--file-total-size=64M",
            &dir,
            "prepare",
            "-json",
            json,
        ],
        &["--file-total-size", "free"],
    );
    assert!(!fs.join("test_file.0").exists());
    assert!(!fs.join("never.json").exists());

    let job = fs.join("job.fio");
    let job = job.to_str().unwrap();
    let cases: [(&str, &[&str]); 4] = [
        (
            "[j]\ndirectory=/nonexistent/contio\nsize=1M\n",
            &["does not exist"],
        ),
        ("[j]\nbss=4k\nsize=1M\n", &["bss", "did you mean 'bs'"]),
        ("[j]\nbs=1000\ndirect=1\nsize=1M\n", &["bs", "512"]),
        ("[j]\nrw=trim\nsize=1M\n", &["rw", "randrw"]),
    ];
    for (text, mentions) in cases {
        std::fs::write(job, text).unwrap();
        refused(&["fio", job, "-json", json], mentions);
    }
    refused(&["fio", "/nonexistent/job.fio"], &["job file"]);
    assert!(!fs.join("never.json").exists());
}

#[test]
fn a_disk_filling_mid_run_stops_cleanly_with_what_was_measured() {
    let fs = tmpfs("enospc", 4);
    let data = fs.join("data");
    // A sparse 16 MiB file: writing it needs space the 4 MiB tmpfs does not have.
    std::fs::File::create(&data)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let job = fs.join("job.fio");
    // The document goes elsewhere: the full file system could not hold it.
    let out_dir = OutDir(
        std::env::temp_dir().join(format!("contio-fileio-{}-enospc-json", std::process::id())),
    );
    std::fs::create_dir_all(&out_dir.0).unwrap();
    let json = out_dir.0.join("run.json");
    std::fs::write(
        &job,
        format!(
            "[w]\nfilename={}\nrw=write\nbs=64k\nsize=16M\n",
            data.display()
        ),
    )
    .unwrap();
    let out = engine(&[
        "fio",
        job.to_str().unwrap(),
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "failed");
    let error = doc["error"].as_str().unwrap();
    assert!(error.contains("No space left"), "{error}");
    assert!(
        doc["operations_by_type"]["WRITE"]["count"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(
        doc["operations_by_type"]["WRITE-FAILED"]["count"]
            .as_u64()
            .unwrap()
            >= 1
    );
}

/// A directory outside the test's file system, removed even when the test fails.
struct OutDir(std::path::PathBuf);

impl Drop for OutDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn interrupt_keeps_what_was_measured() {
    let fs = tmpfs("interrupt", 16);
    let job = fs.join("job.fio");
    let json = fs.join("run.json");
    std::fs::write(
        &job,
        format!(
            "[r]\nfilename={}\nrw=randread\nsize=1M\ntime_based\nruntime=120\n",
            fs.join("data").display()
        ),
    )
    .unwrap();
    let mut child = Command::new(ENGINE)
        .args([
            "fio",
            job.to_str().unwrap(),
            "-s",
            "-json",
            json.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let status_line = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains(" sec: ") && l.contains("operations;"));
    assert!(status_line.is_some(), "no status line");
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid with a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let _rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert_eq!(child.wait().unwrap().code(), Some(1));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "interrupted");
    assert!(doc["operations"].as_u64().unwrap() > 0);
}
