//! Verification: a verifying write, then a verify-only pass that finds blocks
//! corrupted on purpose and names their offsets and what is wrong.

use std::io::{Read, Seek, SeekFrom, Write};

use super::mounts::{both, can_drop_caches, io_uring_works, xfs};
use super::{engine, engine_ok, read_json, stderr};

const BS: u64 = 4096;

/// io_uring where it works (reads complete out of order), else psync.
fn engine_for(test: &str) -> &'static str {
    if io_uring_works(test) {
        "io_uring"
    } else {
        "psync"
    }
}

fn job(path: &std::path::Path, data: &std::path::Path, rw: &str, extra: &[&str]) {
    let engine_name = engine_for("verify");
    let mut lines = vec![
        "[v]".to_string(),
        format!("filename={}", data.display()),
        format!("rw={rw}"),
        "bs=4k".into(),
        "size=1M".into(),
        format!("ioengine={engine_name}"),
        "iodepth=4".into(),
        "verify=crc32c".into(),
    ];
    lines.extend(extra.iter().map(|s| s.to_string()));
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn verify_names_the_offsets_of_corrupted_blocks() {
    for fs in both("verify") {
        let data = fs.join("data");
        let write_job = fs.join("write.fio");
        let check_job = fs.join("check.fio");
        let json = fs.join("v.json");
        job(&write_job, &data, "randwrite", &[]);
        engine_ok(&[
            "fio",
            "--contio-core",
            write_job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(read_json(&json)["io"]["verify"]["mismatches"], 0);
        job(&check_job, &data, "read", &["verify_only=1"]);
        engine_ok(&[
            "fio",
            "--contio-core",
            check_job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(read_json(&json)["io"]["verify"]["blocks_checked"], 256);

        // Flip a byte inside block 37; copy block 3 over block 5 (a misplaced write).
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&data)
            .unwrap();
        f.seek(SeekFrom::Start(37 * BS + 200)).unwrap();
        let mut byte = [0u8; 1];
        f.read_exact(&mut byte).unwrap();
        f.seek(SeekFrom::Start(37 * BS + 200)).unwrap();
        f.write_all(&[byte[0] ^ 0xff]).unwrap();
        let mut block = vec![0u8; BS as usize];
        f.seek(SeekFrom::Start(3 * BS)).unwrap();
        f.read_exact(&mut block).unwrap();
        f.seek(SeekFrom::Start(5 * BS)).unwrap();
        f.write_all(&block).unwrap();
        f.sync_all().unwrap();
        drop(f);

        let out = engine(&[
            "fio",
            "--contio-core",
            check_job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let doc = read_json(&json);
        assert_eq!(doc["status"], "failed");
        let v = &doc["io"]["verify"];
        assert_eq!(v["mismatches"], 2, "{v}");
        let first = v["first_mismatches"].as_array().unwrap();
        assert_eq!(first[0]["offset"], 5 * BS);
        assert!(
            first[0]["reason"]
                .as_str()
                .unwrap()
                .contains("offset 12288"),
            "{v}"
        );
        assert_eq!(first[1]["offset"], 37 * BS);
        assert!(
            first[1]["reason"].as_str().unwrap().contains("checksum"),
            "{v}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(&format!("at offset {}", 37 * BS)), "{text}");

        // Another generation is expected: every block is stale.
        job(
            &check_job,
            &data,
            "read",
            &["verify_only=1", "verify_generation=2"],
        );
        let out = engine(&[
            "fio",
            "--contio-core",
            check_job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(read_json(&json)["io"]["verify"]["mismatches"], 256);
    }
}

/// Dropping the page cache matters only where data lives on a device: on
/// tmpfs the page cache *is* the data and is never dropped, so XFS only.
#[test]
fn drop_caches_before_a_verify_pass() {
    if !can_drop_caches("verify-drop") {
        return;
    }
    let Some(fs) = xfs("verify-drop") else {
        return;
    };
    let data = fs.join("data");
    let write_job = fs.join("write.fio");
    let check_job = fs.join("check.fio");
    let json = fs.join("v.json");
    job(&write_job, &data, "write", &[]);
    engine_ok(&["fio", "--contio-core", write_job.to_str().unwrap()]);
    job(&check_job, &data, "read", &["verify_only=1"]);
    engine_ok(&[
        "fio",
        "--contio-core",
        check_job.to_str().unwrap(),
        "--drop-caches",
        "-json",
        json.to_str().unwrap(),
    ]);
    let doc = read_json(&json);
    assert_eq!(doc["io"]["cache_dropped"], true);
    assert_eq!(doc["io"]["verify"]["mismatches"], 0);
}
