//! `contio-engine fio JOBFILE`: every `rw` in every engine, N-to-N files,
//! N-to-1 regions, direct I/O, time_based with ramp_time, and the text output
//! parsed and compared with the document (sync options: `fio_sync`).

use std::path::Path;

use super::mounts::{both, io_uring_works};
use super::text_outputs::check_fio;
use super::{count, engine, engine_ok, read_json, stderr};

const BS: u64 = 4096;
const SIZE: u64 = 1 << 20;

/// Writes a job file of `lines`.
pub fn write_job(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// (reads, writes) per job instance of `size / BS` requests.
fn expected(rw: &str, requests: u64) -> (u64, u64) {
    match rw {
        "read" | "randread" => (requests, 0),
        "write" | "randwrite" => (0, requests),
        "randrw" => {
            let reads = (requests as f64 * 0.7).floor() as u64;
            (reads, requests - reads)
        }
        _ => (requests / 2, requests - requests / 2),
    }
}

#[test]
fn every_rw_in_every_engine_does_the_configured_io() {
    let uring = io_uring_works("fio-modes");
    for fs in both("fio-modes") {
        let job = fs.join("job.fio");
        let json = fs.join("run.json");
        for (engine_name, direct) in [
            ("psync", false),
            ("io_uring", false),
            ("mmap", false),
            ("psync", true),
            ("io_uring", true),
        ] {
            if engine_name == "io_uring" && !uring {
                continue;
            }
            for rw in ["read", "write", "randread", "randwrite", "randrw", "rw"] {
                let mix = if rw == "randrw" { 70 } else { 50 };
                write_job(
                    &job,
                    &[
                        "[global]".into(),
                        format!("directory={}", fs.path().display()),
                        format!("ioengine={engine_name}"),
                        "iodepth=8".into(),
                        format!("direct={}", u8::from(direct)),
                        format!("bs={BS}"),
                        format!("size={SIZE}"),
                        "numjobs=2".into(),
                        "fsync=16".into(),
                        format!("rwmixread={mix}"),
                        "[j]".into(),
                        format!("rw={rw}"),
                    ],
                );
                let out = engine(&[
                    "fio",
                    "--contio-core",
                    job.to_str().unwrap(),
                    "-json",
                    json.to_str().unwrap(),
                ]);
                let what = format!("{} {engine_name} direct={direct} {rw}", fs.kind);
                // tmpfs takes O_DIRECT only since Linux 6.6; before, it is refused up front.
                if direct && fs.kind == "tmpfs" && out.status.code() == Some(2) {
                    assert!(
                        stderr(&out).contains("O_DIRECT"),
                        "{what}: {}",
                        stderr(&out)
                    );
                    continue;
                }
                assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
                let doc = read_json(&json);
                let (reads, writes) = expected(rw, SIZE / BS);
                assert_eq!(doc["kind"], "fio", "{what}");
                assert_eq!(doc["operations"], 2 * (reads + writes), "{what}");
                assert_eq!(count(&doc, "READ"), 2 * reads, "{what}");
                assert_eq!(count(&doc, "WRITE"), 2 * writes, "{what}");
                assert_eq!(count(&doc, "FSYNC"), 2 * (writes / 16), "{what}");
                assert_eq!(doc["io"]["bytes_read"], 2 * reads * BS, "{what}");
                assert_eq!(doc["io"]["bytes_written"], 2 * writes * BS, "{what}");
                for instance in 0..2 {
                    let file = fs.join(&format!("j.{instance}.0"));
                    assert_eq!(std::fs::metadata(&file).unwrap().len(), SIZE, "{what}");
                }
                check_fio(&String::from_utf8_lossy(&out.stdout), &doc, &what);
            }
        }
    }
}

#[test]
fn n_to_1_regions_never_overlap() {
    let engine_name = if io_uring_works("fio-n-to-1") {
        "io_uring"
    } else {
        "psync"
    };
    for fs in both("fio-n-to-1") {
        let job = fs.join("job.fio");
        let json = fs.join("run.json");
        let data = fs.join("shared");
        let lines = |increment: &str, verify: bool| {
            vec![
                "[w]".to_string(),
                format!("filename={}", data.display()),
                "rw=randwrite".into(),
                format!("ioengine={engine_name}"),
                "iodepth=4".into(),
                "bs=4k".into(),
                "size=256k".into(),
                format!("offset_increment={increment}"),
                "numjobs=4".into(),
                format!("verify={}", if verify { "crc32c" } else { "0" }),
            ]
        };
        write_job(&job, &lines("256k", true));
        engine_ok(&[
            "fio",
            "--contio-core",
            job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        let doc = read_json(&json);
        let streams = doc["io"]["streams"].as_array().unwrap();
        assert_eq!(streams.len(), 4);
        let mut spans: Vec<(u64, u64)> = streams
            .iter()
            .map(|s| {
                let r = &s["regions"][0];
                assert_eq!(r["file"], 0, "one shared file");
                let offset = r["offset"].as_u64().unwrap();
                (offset, offset + r["length"].as_u64().unwrap())
            })
            .collect();
        spans.sort_unstable();
        for pair in spans.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "regions overlap: {spans:?}");
        }
        assert_eq!(std::fs::metadata(&data).unwrap().len(), 1 << 20);
        assert_eq!(doc["io"]["verify"]["blocks_checked"], 256);
        assert_eq!(doc["io"]["verify"]["mismatches"], 0);
        write_job(&job, &lines("128k", true));
        let refused = engine(&["fio", "--contio-core", job.to_str().unwrap()]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(
            stderr(&refused).contains("offset_increment"),
            "{}",
            stderr(&refused)
        );
        write_job(&job, &lines("128k", false));
        let warned = engine(&["fio", "--contio-core", job.to_str().unwrap()]);
        assert_eq!(warned.status.code(), Some(0), "{}", stderr(&warned));
        assert!(
            stderr(&warned).contains("overlapping"),
            "{}",
            stderr(&warned)
        );
    }
}

#[test]
fn time_based_runs_measure_after_the_ramp() {
    for fs in both("fio-time") {
        let job = fs.join("job.fio");
        let json = fs.join("run.json");
        write_job(
            &job,
            &[
                "[r]".into(),
                format!("filename={}", fs.join("data").display()),
                "rw=randrw".into(),
                "rwmixread=80".into(),
                "bs=4k".into(),
                "size=2M".into(),
                "time_based".into(),
                "runtime=500ms".into(),
                "ramp_time=500ms".into(),
                "invalidate=0".into(),
            ],
        );
        let text = engine_ok(&[
            "fio",
            "--contio-core",
            job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        let doc = read_json(&json);
        let what = format!("{} time_based", fs.kind);
        assert_eq!(doc["status"], "ok", "{what}");
        assert_eq!(doc["io"]["ramp_ms"], 500.0, "{what}");
        let runtime = doc["runtime_ms"].as_f64().unwrap();
        assert!(runtime >= 500.0, "{what}: {runtime}");
        let (reads, writes) = (count(&doc, "READ"), count(&doc, "WRITE"));
        // More I/Os than the file has blocks: the run went on for its time, not its size.
        assert!(reads + writes > 512, "{what}");
        assert_eq!(doc["operations"], reads + writes, "{what}");
        // The mix holds over the measured part (which starts mid-sequence, after the ramp).
        let share = reads as f64 / (reads + writes) as f64;
        assert!((share - 0.8).abs() < 0.01, "{what}: read share {share}");
        assert_eq!(doc["io"]["bytes_read"], reads * 4096, "{what}");
        assert_eq!(doc["io"]["bytes_written"], writes * 4096, "{what}");
        assert!(!doc["timeseries"].as_array().unwrap().is_empty(), "{what}");
        check_fio(&text, &doc, &what);
    }
}
