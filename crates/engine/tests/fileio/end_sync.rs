//! The final sync (`file-fsync-end`, fio's `end_fsync`) is part of the run:
//! when it fails, the run fails (exit 1, the error names the file) and no
//! verification pass reads back data that never reached the file system.
//!
//! The failure is real: XFS on a loop device whose image lies on a full tmpfs
//! (a thin-provisioned disk that ran out). Writes into holes of sparse files
//! land in the page cache; their writeback, forced by the final fsync, cannot
//! allocate space in the image and fails with ENOSPC.

use super::mounts::thin_xfs;
use super::{count, engine, read_json, sparse, stderr, OutDir};

#[test]
fn a_failing_final_sync_fails_the_run() {
    let Some(fs) = thin_xfs("end-sync") else {
        return;
    };
    let out_dir = OutDir::new("end-sync");
    let json = out_dir.join("run.json");

    // fio: a verifying sequential write of a sparse file, synced at the end.
    let data = fs.join("data");
    sparse(&data, 1 << 20);
    let job = fs.join("job.fio");
    std::fs::write(
        &job,
        format!(
            "[w]\nfilename={}\nrw=write\nbs=64k\nsize=1M\nend_fsync=1\nverify=crc32c\n",
            data.display()
        ),
    )
    .unwrap();
    let out = engine(&[
        "fio",
        "--contio-core",
        job.to_str().unwrap(),
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "fio: {}", stderr(&out));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "failed");
    let error = doc["error"].as_str().unwrap();
    assert!(error.contains("final sync"), "{error}");
    assert!(error.contains(data.to_str().unwrap()), "{error}");
    assert!(error.contains("No space left"), "{error}");
    assert_eq!(
        count(&doc, "WRITE"),
        16,
        "every write reached the page cache"
    );
    assert!(
        doc["io"]["verify"].is_null(),
        "no read-back of unsynced data"
    );
    assert_eq!(doc["io"]["end_syncs"], 0, "no file was synced");

    // sysbench: random writes into sparse files; file-fsync-end is on by default.
    let sysbench = |extra: &str| {
        let dir = format!("--file-dir={}", fs.path().display());
        engine(&[
            "sysbench",
            "fileio",
            "--file-num=2",
            "--file-total-size=2M",
            "--file-test-mode=rndwr",
            "--file-fsync-freq=0",
            "--events=32",
            "--time=0",
            &dir,
            extra,
            "run",
            "-json",
            json.to_str().unwrap(),
        ])
    };
    for i in 0..2 {
        sparse(&fs.join(&format!("test_file.{i}")), 1 << 20);
    }
    let out = sysbench("--file-fsync-end=on");
    assert_eq!(out.status.code(), Some(1), "sysbench: {}", stderr(&out));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "failed");
    let error = doc["error"].as_str().unwrap();
    assert!(
        error.contains("final sync") && error.contains("test_file."),
        "{error}"
    );
    assert_eq!(count(&doc, "WRITE"), 32);
    // Without the final sync the same writes end "ok": nothing forced them out.
    let out = sysbench("--file-fsync-end=off");
    assert_eq!(out.status.code(), Some(0), "sysbench: {}", stderr(&out));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "ok");
    assert!(doc["io"]["end_syncs"].is_null());
}
