//! sysbench's sync options on both file systems: a non-default
//! `--file-fsync-freq` and `--file-rw-ratio`, `--file-fsync-all` with
//! `--file-fsync-mode=fdatasync` in every io mode, and `--file-fsync-end`
//! on and off. Counts of reads, writes and fsyncs, bytes, and the final
//! sync (`io.end_syncs`) must match the options.

use serde_json::Value;

use super::mounts::{both, io_uring_works, Mounted};
use super::sysbench_fileio::{args, common, prepare, BLOCK, FILES};
use super::{count, engine_ok, read_json};

/// Runs `extra` + `run` on `fs` and returns the document.
fn run(fs: &Mounted, common: &[String], extra: &[&str]) -> Value {
    let json = fs.join("sync.json");
    let mut all: Vec<&str> = extra.to_vec();
    all.extend(["run", "-json", json.to_str().unwrap()]);
    engine_ok(&args(common, &all));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "ok", "{extra:?}");
    doc
}

/// (reads, writes, fsyncs) of `events` events: after every `freq` read/write
/// requests one fsync per file; reads are ⌊k·r/(r+1)⌋ of the first k requests.
fn expected(events: u64, freq: u64, ratio: f64) -> (u64, u64, u64) {
    let (rw, syncs) = match freq {
        0 => (events, 0),
        f => {
            let cycle = f + FILES;
            let (n, rest) = (events / cycle, events % cycle);
            (n * f + rest.min(f), n * FILES + rest.saturating_sub(f))
        }
    };
    let reads = (rw as f64 * (ratio / (ratio + 1.0))).floor() as u64;
    (reads, rw - reads, syncs)
}

fn assert_counts(doc: &Value, (reads, writes, syncs): (u64, u64, u64), what: &str) {
    assert_eq!(count(doc, "READ"), reads, "{what}: reads");
    assert_eq!(count(doc, "WRITE"), writes, "{what}: writes");
    assert_eq!(count(doc, "FSYNC"), syncs, "{what}: fsyncs");
    assert_eq!(doc["io"]["bytes_read"], reads * BLOCK, "{what}");
    assert_eq!(doc["io"]["bytes_written"], writes * BLOCK, "{what}");
}

#[test]
fn fsync_options_and_rw_ratio_match_the_configuration() {
    let uring = io_uring_works("sysbench-sync");
    for fs in both("sysbench-sync") {
        let common = common(&fs);
        prepare(&fs, &common);
        let kind = fs.kind;

        // fsync every 10 requests (4 files → cycles of 14 events), 3 reads per write.
        let doc = run(
            &fs,
            &common,
            &[
                "--file-test-mode=rndrw",
                "--file-fsync-freq=10",
                "--file-rw-ratio=3",
                "--threads=2",
                "--events=300",
                "--time=0",
            ],
        );
        let what = format!("{kind} rndrw fsync-freq=10 rw-ratio=3");
        assert_eq!(doc["operations"], 300, "{what}");
        assert_counts(&doc, expected(300, 10, 3.0), &what);
        assert_eq!(expected(300, 10, 3.0), (162, 54, 84));
        assert_eq!(
            doc["io"]["end_syncs"], FILES,
            "{what}: fsync-end is on by default"
        );

        // One fdatasync after every write (not an event), in every io mode.
        let modes: &[&str] = if uring {
            &["sync", "async", "mmap"]
        } else {
            &["sync", "mmap"]
        };
        for mode in modes {
            let io_mode = format!("--file-io-mode={mode}");
            let doc = run(
                &fs,
                &common,
                &[
                    "--file-test-mode=rndwr",
                    "--file-fsync-all=on",
                    "--file-fsync-mode=fdatasync",
                    &io_mode,
                    "--file-async-backlog=4",
                    "--events=100",
                    "--time=0",
                ],
            );
            let what = format!("{kind} {mode} rndwr fsync-all fdatasync");
            assert_counts(&doc, (0, 100, 100), &what);
            assert_eq!(doc["operations"], 100, "{what}: syncs are not events");
            assert_eq!(doc["properties"]["file-fsync-mode"], "fdatasync");
        }

        // Reading modes never sync, whatever fsync-end says.
        let doc = run(
            &fs,
            &common,
            &["--file-test-mode=rndrd", "--events=50", "--time=0"],
        );
        assert_counts(&doc, (50, 0, 0), &format!("{kind} rndrd"));
        assert!(doc["io"]["end_syncs"].is_null());

        // No periodic fsync, no final fsync.
        let doc = run(
            &fs,
            &common,
            &[
                "--file-test-mode=seqwr",
                "--file-fsync-freq=0",
                "--file-fsync-end=off",
                "--events=50",
                "--time=0",
            ],
        );
        let what = format!("{kind} seqwr fsync-freq=0 fsync-end=off");
        assert_counts(&doc, (0, 50, 0), &what);
        assert!(doc["io"]["end_syncs"].is_null(), "{what}");
        // seqwr starts from new files, as sysbench: 50 blocks land in the first.
        let len = |i: u64| {
            std::fs::metadata(fs.join(&format!("test_file.{i}")))
                .unwrap()
                .len()
        };
        assert_eq!((len(0), len(1)), (50 * BLOCK, 0), "{what}: files recreated");
    }
}
