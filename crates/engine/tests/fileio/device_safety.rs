//! Block devices the engine did not create keep every byte: read jobs never
//! lay out or write them, a device is sized with its real size, and a write
//! job that names a device writes it only when nothing uses it. Each case
//! compares the device's SHA-256 before and after the engine ran.

use std::os::unix::fs::{FileExt as _, OpenOptionsExt as _};
use std::process::Output;

use super::fio_jobs::write_job;
use super::loop_device::{user_bytes, LoopDevice, DEVICE_BYTES};
use super::mounts::io_uring_works;
use super::{engine, read_json, stderr};

/// Runs a job file of `lines` (with `filename=` the device) and returns the output.
fn fio_on(dev: &LoopDevice, lines: &[&str]) -> (Output, serde_json::Value) {
    fio_on_with(dev, lines, &[])
}

/// `fio_on` on contio's own core (`--contio-core`).
fn fio_on_core(dev: &LoopDevice, lines: &[&str]) -> (Output, serde_json::Value) {
    fio_on_with(dev, lines, &["--contio-core"])
}

fn fio_on_with(dev: &LoopDevice, lines: &[&str], flags: &[&str]) -> (Output, serde_json::Value) {
    let job = dev.scratch().join("job.fio");
    let json = dev.scratch().join("run.json");
    let _ = std::fs::remove_file(&json);
    let mut all: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    all.push(format!("filename={}", dev.device));
    write_job(&job, &all);
    let mut args = vec!["fio"];
    args.extend_from_slice(flags);
    args.extend([job.to_str().unwrap(), "-json", json.to_str().unwrap()]);
    let out = engine(&args);
    let doc = if json.exists() {
        read_json(&json)
    } else {
        serde_json::Value::Null
    };
    (out, doc)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The reproduction and every other way to read a device: nothing
/// laid out, nothing written.
#[test]
fn read_jobs_leave_a_block_device_unchanged() {
    let Some(dev) = LoopDevice::with_data("device-reads") else {
        return;
    };
    let uring = io_uring_works("device-reads");
    let before = dev.digest();
    let mut cases: Vec<(Vec<&str>, i32)> = vec![
        (
            vec![
                "[r]",
                "rw=randread",
                "bs=4k",
                "size=16m",
                "runtime=1",
                "time_based",
            ],
            0,
        ),
        (vec!["[r]", "rw=read", "bs=64k"], 0),
        (vec!["[r]", "rw=read", "ioengine=mmap", "size=4m"], 0),
        (
            vec![
                "[r]",
                "rw=randread",
                "size=8m",
                "numjobs=2",
                "offset_increment=8m",
                "fsync=4",
                "end_fsync=1",
            ],
            0,
        ),
        // Checks blocks the user's data never had: mismatches (exit 1), no writes.
        (
            vec![
                "[r]",
                "rw=read",
                "verify=crc32c",
                "verify_only=1",
                "size=1m",
            ],
            1,
        ),
    ];
    if uring {
        cases.push((
            vec![
                "[r]",
                "rw=randread",
                "ioengine=io_uring",
                "iodepth=8",
                "direct=1",
                "size=8m",
            ],
            0,
        ));
    }
    for (lines, code) in cases {
        let (out, _) = fio_on(&dev, &lines);
        assert_eq!(out.status.code(), Some(code), "{lines:?}: {}", text(&out));
        assert!(
            !text(&out).contains("Laying out"),
            "{lines:?}: {}",
            text(&out)
        );
        assert_eq!(dev.digest(), before, "{lines:?} changed the device");
    }
}

/// A read job beside a write job on a regular file: the device is opened
/// read-only, the regular file is written.
#[test]
fn a_read_job_beside_a_write_job_does_not_write_the_device() {
    let Some(dev) = LoopDevice::with_data("device-beside") else {
        return;
    };
    let before = dev.digest();
    let other = dev.scratch().join("scratch.dat");
    let job = dev.scratch().join("job.fio");
    write_job(
        &job,
        &[
            "[global]".into(),
            "bs=4k".into(),
            "size=1m".into(),
            "end_fsync=1".into(),
            "[reader]".into(),
            "rw=randread".into(),
            format!("filename={}", dev.device),
            "[writer]".into(),
            "rw=randwrite".into(),
            format!("filename={}", other.display()),
        ],
    );
    let out = engine(&["fio", job.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(dev.digest(), before);
    assert_eq!(std::fs::metadata(&other).unwrap().len(), 1 << 20);
}

#[test]
fn a_block_device_is_sized_by_its_real_size() {
    let Some(dev) = LoopDevice::with_data("device-size") else {
        return;
    };
    let before = dev.digest();
    // No size: the whole device, as fio.
    let (out, doc) = fio_on_core(&dev, &["[r]", "rw=read", "bs=1m"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(doc["io"]["bytes_read"].as_u64(), Some(DEVICE_BYTES));
    assert_eq!(doc["io"]["files"][0]["size"].as_u64(), Some(DEVICE_BYTES));
    // No size after an offset: the rest of the device.
    let (out, doc) = fio_on_core(&dev, &["[r]", "rw=read", "bs=1m", "offset=16m"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        doc["io"]["bytes_read"].as_u64(),
        Some(DEVICE_BYTES - (16 << 20))
    );
    // More than the device holds: refused, naming size and the device's size.
    for lines in [
        vec!["[r]", "rw=randread", "size=64m"],
        vec!["[w]", "rw=write", "size=16m", "offset=24m"],
    ] {
        let (out, doc) = fio_on_core(&dev, &lines);
        assert_eq!(out.status.code(), Some(2), "{lines:?}: {}", text(&out));
        let err = stderr(&out);
        assert!(err.contains("size:"), "{err}");
        assert!(err.contains(&DEVICE_BYTES.to_string()), "{err}");
        assert!(doc.is_null(), "no document for refused input");
    }
    assert_eq!(dev.digest(), before);
}

/// A write job that names an unused device writes it (fio semantics: the user
/// asked), exactly its region: the rest of the user's data stays.
#[test]
fn a_write_job_writes_only_its_region_of_an_unused_device() {
    let Some(dev) = LoopDevice::with_data("device-write") else {
        return;
    };
    let before = dev.digest();
    let (out, doc) = fio_on(&dev, &["[w]", "rw=write", "bs=4k", "size=1m"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("Laying out"), "{}", text(&out));
    assert_eq!(doc["io"]["bytes_written"].as_u64(), Some(1 << 20));
    assert_ne!(dev.digest(), before, "the job wrote its region");
    let device = std::fs::File::open(dev.path()).unwrap();
    for at in [DEVICE_BYTES / 2, DEVICE_BYTES - (1 << 20)] {
        let mut got = vec![0; 1 << 20];
        device.read_exact_at(&mut got, at).unwrap();
        assert!(got == user_bytes(1 << 20, 0x11), "data at {at} changed");
    }
}

#[test]
fn a_write_job_on_a_mounted_device_is_refused() {
    let Some(dev) = LoopDevice::mounted("device-mounted") else {
        return;
    };
    let before = dev.digest();
    for lines in [
        vec!["[w]", "rw=write", "size=1m"],
        vec!["[w]", "rw=randrw", "size=1m"],
        vec!["[w]", "rw=randwrite", "size=1m", "verify=crc32c"],
        vec!["[w]", "rw=write", "size=1m", "ioengine=mmap"],
    ] {
        let (out, doc) = fio_on(&dev, &lines);
        assert_eq!(out.status.code(), Some(2), "{lines:?}: {}", text(&out));
        let err = stderr(&out);
        assert!(err.contains("filename:"), "{err}");
        assert!(err.contains("mounted at"), "{err}");
        assert!(doc.is_null());
        assert_eq!(dev.digest(), before, "{lines:?} changed the device");
    }
    // Reading a mounted device is harmless, and allowed (as fio).
    let (out, _) = fio_on(&dev, &["[r]", "rw=randread", "size=1m"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(dev.digest(), before);
}

/// A device another program holds exclusively (as device mapper, RAID or a
/// file system this namespace cannot see would) is not written either.
#[test]
fn a_write_job_on_a_claimed_device_is_refused() {
    let Some(dev) = LoopDevice::with_data("device-claimed") else {
        return;
    };
    let before = dev.digest();
    let claim = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(dev.path())
        .unwrap();
    let (out, _) = fio_on(&dev, &["[w]", "rw=write", "size=1m"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = stderr(&out);
    assert!(err.contains("filename:") && err.contains("in use"), "{err}");
    drop(claim);
    assert_eq!(dev.digest(), before);
}

/// Jobs without `filename` work on `DIRECTORY/NAME.I.0`, names nobody chose:
/// a link to a device planted under one is refused, read or write.
#[test]
fn a_device_under_a_generated_name_is_refused() {
    let Some(dev) = LoopDevice::with_data("device-generated") else {
        return;
    };
    let before = dev.digest();
    let dir = dev.scratch().join("jobs");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(dev.path(), dir.join("j.0.0")).unwrap();
    let job = dev.scratch().join("job.fio");
    for rw in ["write", "randread"] {
        write_job(
            &job,
            &[
                "[j]".into(),
                format!("rw={rw}"),
                "size=1m".into(),
                format!("directory={}", dir.display()),
            ],
        );
        let out = engine(&["fio", "--contio-core", job.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{rw}: {}", text(&out));
        let err = stderr(&out);
        assert!(
            err.contains("directory:") && err.contains("block device"),
            "{err}"
        );
    }
    assert_eq!(dev.digest(), before);
}
