//! `contio-engine sysbench fileio`: prepare, every test mode in every io mode,
//! direct I/O, the time limit, the text output, and cleanup (fsync rules:
//! `sysbench_sync`).

use super::mounts::{both, io_uring_works, Mounted};
use super::text_outputs::check_sysbench;
use super::{count, engine, engine_ok, read_json, stderr};

pub const BLOCK: u64 = 16384;
pub const FILES: u64 = 4;
const TOTAL: u64 = 8 << 20;

/// Options every run of these tests shares: 4 files, 8 MiB, 16 KiB blocks in `fs`.
pub fn common(fs: &Mounted) -> Vec<String> {
    vec![
        "sysbench".into(),
        "fileio".into(),
        format!("--file-num={FILES}"),
        "--file-total-size=8M".into(),
        "--file-block-size=16K".into(),
        format!("--file-dir={}", fs.path().display()),
    ]
}

/// `common` followed by `extra`.
pub fn args<'a>(common: &'a [String], extra: &'a [&'a str]) -> Vec<&'a str> {
    common
        .iter()
        .map(String::as_str)
        .chain(extra.iter().copied())
        .collect()
}

/// Expected (reads, writes, fsyncs) of `events` events of a mode with 4 files
/// and sysbench's default fsync-freq 100: each cycle is 100 requests + 4 fsyncs.
fn expected(mode: &str, events: u64) -> (u64, u64, u64) {
    let writes = mode != "seqrd" && mode != "rndrd";
    let (rw, syncs) = if writes {
        let cycles = events / (100 + FILES);
        let rest = events % (100 + FILES);
        (
            cycles * 100 + rest.min(100),
            cycles * FILES + rest.saturating_sub(100),
        )
    } else {
        (events, 0)
    };
    match mode {
        "seqrd" | "rndrd" => (rw, 0, syncs),
        "rndrw" => {
            let reads = (rw as f64 * 0.6).floor() as u64;
            (reads, rw - reads, syncs)
        }
        _ => (0, rw, syncs),
    }
}

/// `prepare`, checking what it wrote.
pub fn prepare(fs: &Mounted, common: &[String]) {
    let json = fs.join("prepare.json");
    let out = engine_ok(&args(common, &["prepare", "-json", json.to_str().unwrap()]));
    assert!(out.contains("Creating file test_file.3"), "{out}");
    let doc = read_json(&json);
    assert_eq!(doc["kind"], "sysbench");
    assert_eq!(doc["phase"], "prepare");
    assert_eq!(count(&doc, "WRITE"), TOTAL / BLOCK);
    assert_eq!(doc["io"]["bytes_written"], TOTAL);
    for i in 0..FILES {
        let len = std::fs::metadata(fs.join(&format!("test_file.{i}")))
            .unwrap()
            .len();
        assert_eq!(len, TOTAL / FILES);
    }
}

#[test]
fn every_mode_and_io_mode_does_the_configured_operations() {
    let uring = io_uring_works("sysbench-modes");
    for fs in both("sysbench-modes") {
        let common = common(&fs);
        prepare(&fs, &common);
        let json = fs.join("run.json");
        let io_modes: &[&str] = if uring {
            &["sync", "async", "mmap"]
        } else {
            &["sync", "mmap"]
        };
        for &io_mode in io_modes {
            for mode in ["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"] {
                let io = format!("--file-io-mode={io_mode}");
                let test = format!("--file-test-mode={mode}");
                let extra = [
                    io.as_str(),
                    test.as_str(),
                    "--threads=2",
                    "--events=520",
                    "--time=0",
                    "--file-async-backlog=8",
                    "run",
                    "-json",
                    json.to_str().unwrap(),
                ];
                engine_ok(&args(&common, &extra));
                let doc = read_json(&json);
                let what = format!("{} {io_mode} {mode}", fs.kind);
                let (reads, writes, syncs) = expected(mode, 520);
                assert_eq!(doc["status"], "ok", "{what}");
                assert_eq!(doc["operations"], 520, "{what}");
                assert_eq!(count(&doc, "READ"), reads, "{what}");
                assert_eq!(count(&doc, "WRITE"), writes, "{what}");
                assert_eq!(count(&doc, "FSYNC"), syncs, "{what}");
                assert_eq!(doc["io"]["bytes_read"], reads * BLOCK, "{what}");
                assert_eq!(doc["io"]["bytes_written"], writes * BLOCK, "{what}");
                assert_eq!(doc["threads"], 2, "{what}");
                if mode == "seqwr" {
                    // seqwr's run recreated the files, shorter: prepare them again.
                    for i in 0..FILES {
                        std::fs::remove_file(fs.join(&format!("test_file.{i}"))).unwrap();
                    }
                    prepare(&fs, &common);
                }
            }
        }
        let json_path = json.to_str().unwrap().to_string();
        // O_DIRECT: XFS takes it; tmpfs has no O_DIRECT (before Linux 6.6) and
        // must be refused before the run, or may take it (6.6 and later).
        let direct_mode = if uring {
            "--file-io-mode=async"
        } else {
            "--file-io-mode=sync"
        };
        let direct = engine(&args(
            &common,
            &[
                "--file-extra-flags=direct",
                "--file-test-mode=rndrw",
                direct_mode,
                "--events=208",
                "--time=0",
                "run",
                "-json",
                &json_path,
            ],
        ));
        if fs.kind == "xfs" || direct.status.code() == Some(0) {
            assert_eq!(direct.status.code(), Some(0), "{}", stderr(&direct));
            let doc = read_json(&json);
            assert_eq!(doc["io"]["direct"], true);
            assert_eq!(count(&doc, "READ") + count(&doc, "WRITE"), 200);
        } else {
            assert_eq!(direct.status.code(), Some(2), "{}", stderr(&direct));
            assert!(stderr(&direct).contains("O_DIRECT"), "{}", stderr(&direct));
        }
        engine_ok(&args(&common, &["cleanup"]));
        assert!(!fs.join("test_file.0").exists());
    }
}

#[test]
fn time_limit_ends_the_run_and_the_text_matches_the_document() {
    for fs in both("sysbench-time") {
        let common = common(&fs);
        prepare(&fs, &common);
        let json = fs.join("run.json");
        let text = engine_ok(&args(
            &common,
            &[
                "--file-test-mode=rndrw",
                "--threads=2",
                "--time=1",
                "run",
                "-json",
                json.to_str().unwrap(),
            ],
        ));
        let doc = read_json(&json);
        let what = format!("{} rndrw --time=1", fs.kind);
        assert_eq!(doc["status"], "ok", "{what}");
        let runtime_ms = doc["runtime_ms"].as_f64().unwrap();
        assert!(runtime_ms >= 1000.0, "{what}: ran {runtime_ms} ms");
        let seconds = doc["timeseries"].as_array().unwrap();
        assert!(!seconds.is_empty(), "{what}: no time series");
        assert!(
            count(&doc, "READ") > 0 && count(&doc, "WRITE") > 0,
            "{what}"
        );
        // No request limit: the mix and the bytes still follow the rules.
        let (reads, writes) = (count(&doc, "READ"), count(&doc, "WRITE"));
        assert_eq!(doc["io"]["bytes_read"], reads * BLOCK, "{what}");
        assert_eq!(doc["io"]["bytes_written"], writes * BLOCK, "{what}");
        let rw = reads + writes;
        assert!(reads.abs_diff(rw * 3 / 5) <= 2, "{what}: {reads} of {rw}");
        check_sysbench(&text, &doc, &what);
    }
}
