//! fio's sync and mix options on both file systems: `fsync`, `fdatasync` and
//! `end_fsync` in every engine, `rwmixwrite`, and `buffered`. Counts of reads,
//! writes and syncs, bytes, and the final sync (`io.end_syncs`) must match the
//! job; the text report must agree with the document.

use super::fio_jobs::write_job;
use super::mounts::{both, io_uring_works, Mounted};
use super::text_outputs::check_fio;
use super::{count, engine, read_json, stderr};

/// Requests per job instance: size 256k / bs 4k.
const REQUESTS: u64 = 64;
const INSTANCES: u64 = 2;

/// Runs a two-instance N-to-N job of `options` on `fs`; None when tmpfs refuses O_DIRECT.
fn run(fs: &Mounted, options: &[&str], what: &str) -> Option<serde_json::Value> {
    let job = fs.join("sync.fio");
    let json = fs.join("sync.json");
    let mut lines = vec![
        "[s]".to_string(),
        format!("directory={}", fs.path().display()),
        "bs=4k".into(),
        "size=256k".into(),
        format!("numjobs={INSTANCES}"),
        "iodepth=4".into(),
    ];
    lines.extend(options.iter().map(|o| o.to_string()));
    write_job(&job, &lines);
    let out = engine(&[
        "fio",
        "--contio-core",
        job.to_str().unwrap(),
        "-json",
        json.to_str().unwrap(),
    ]);
    // tmpfs takes O_DIRECT only since Linux 6.6; before, it is refused up front.
    if fs.kind == "tmpfs" && out.status.code() == Some(2) && stderr(&out).contains("O_DIRECT") {
        return None;
    }
    assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "ok", "{what}");
    check_fio(&String::from_utf8_lossy(&out.stdout), &doc, what);
    Some(doc)
}

/// (reads, writes) of one instance with read share `share`.
fn mix(share: f64) -> (u64, u64) {
    let reads = (REQUESTS as f64 * share).floor() as u64;
    (reads, REQUESTS - reads)
}

fn assert_io(doc: &serde_json::Value, (reads, writes): (u64, u64), syncs: u64, what: &str) {
    assert_eq!(count(doc, "READ"), INSTANCES * reads, "{what}: reads");
    assert_eq!(count(doc, "WRITE"), INSTANCES * writes, "{what}: writes");
    assert_eq!(count(doc, "FSYNC"), INSTANCES * syncs, "{what}: syncs");
    assert_eq!(
        doc["operations"],
        INSTANCES * (reads + writes),
        "{what}: syncs are not I/Os"
    );
    assert_eq!(doc["io"]["bytes_read"], INSTANCES * reads * 4096, "{what}");
    assert_eq!(
        doc["io"]["bytes_written"],
        INSTANCES * writes * 4096,
        "{what}"
    );
}

#[test]
fn sync_and_mix_options_match_the_job() {
    let uring = io_uring_works("fio-sync");
    let engines: &[&str] = if uring {
        &["psync", "io_uring", "mmap"]
    } else {
        &["psync", "mmap"]
    };
    for fs in both("fio-sync") {
        let kind = fs.kind;
        for engine_name in engines {
            let ioengine = format!("ioengine={engine_name}");
            let what = format!("{kind} {engine_name} randwrite fsync=8 end_fsync=1");
            let doc = run(
                &fs,
                &[&ioengine, "rw=randwrite", "fsync=8", "end_fsync=1"],
                &what,
            )
            .unwrap();
            assert_io(&doc, (0, REQUESTS), REQUESTS / 8, &what);
            assert_eq!(
                doc["io"]["end_syncs"], INSTANCES,
                "{what}: one file per instance"
            );

            let what = format!("{kind} {engine_name} write fdatasync=5 end_fsync=0");
            let doc = run(
                &fs,
                &[&ioengine, "rw=write", "fdatasync=5", "end_fsync=0"],
                &what,
            )
            .unwrap();
            assert_io(&doc, (0, REQUESTS), REQUESTS / 5, &what);
            assert!(doc["io"]["end_syncs"].is_null(), "{what}");
            assert_eq!(doc["properties"]["s.fdatasync"], "5", "{what}");
        }

        // rwmixwrite gives the write share; end_fsync is off by default.
        let what = format!("{kind} randrw rwmixwrite=25");
        let doc = run(&fs, &["rw=randrw", "rwmixwrite=25"], &what).unwrap();
        assert_io(&doc, mix(1.0 - 0.25), 0, &what);
        assert!(doc["io"]["end_syncs"].is_null(), "{what}");

        // buffered=0 is direct=1; buffered=1 is the page cache.
        let what = format!("{kind} rw rwmixwrite=80 buffered=0");
        if let Some(doc) = run(&fs, &["rw=rw", "rwmixwrite=80", "buffered=0"], &what) {
            assert_io(&doc, mix(1.0 - 0.8), 0, &what);
            assert_eq!(doc["io"]["direct"], true, "{what}");
        } else {
            assert_eq!(kind, "tmpfs", "only tmpfs may lack O_DIRECT");
        }
        let what = format!("{kind} read buffered=1");
        let doc = run(&fs, &["rw=read", "buffered=1"], &what).unwrap();
        assert_io(&doc, (REQUESTS, 0), 0, &what);
        assert_eq!(doc["io"]["direct"], false, "{what}");
    }
}
