//! A user's regular files and the system's character devices: read jobs keep
//! a file's bytes (a shorter one is extended, and says so), character devices
//! are never laid out or synced, and sysbench works only on regular
//! `test_file.N` files, leaving everything else in its folder as it was.

use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;

use super::fio_jobs::write_job;
use super::loop_device::{sha256, user_bytes, LoopDevice};
use super::mounts::io_uring_works;
use super::{engine, stderr, OutDir};

fn fio(job: &Path, lines: &[String]) -> std::process::Output {
    write_job(job, lines);
    engine(&["fio", job.to_str().unwrap()])
}

/// The job on contio's own core (`--contio-core`), whose wording these tests read.
fn fio_core(job: &Path, lines: &[String]) -> std::process::Output {
    write_job(job, lines);
    engine(&["fio", "--contio-core", job.to_str().unwrap()])
}

fn lines(of: &[&str], filename: &Path) -> Vec<String> {
    let mut all: Vec<String> = of.iter().map(|l| l.to_string()).collect();
    all.push(format!("filename={}", filename.display()));
    all
}

#[test]
fn read_jobs_keep_a_users_file() {
    let dir = OutDir::new("user-file-reads");
    let file = dir.join("users.dat");
    std::fs::write(&file, user_bytes(1 << 20, 0x33)).unwrap();
    let before = sha256(&file);
    let job = dir.join("job.fio");
    let mut cases = vec![
        vec!["[r]", "rw=read", "bs=4k"],
        vec![
            "[r]",
            "rw=randread",
            "size=1m",
            "runtime=200ms",
            "time_based",
        ],
        vec!["[r]", "rw=read", "ioengine=mmap", "end_fsync=1"],
        vec!["[r]", "rw=read", "verify=crc32c", "verify_only=1"],
    ];
    if io_uring_works("user-file-reads") {
        cases.push(vec!["[r]", "rw=randread", "ioengine=io_uring", "iodepth=4"]);
    }
    for case in cases {
        let out = fio(&job, &lines(&case, &file));
        let code = if case.contains(&"verify_only=1") {
            1
        } else {
            0
        };
        assert_eq!(out.status.code(), Some(code), "{case:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("extending"), "{}", stderr(&out));
        assert_eq!(sha256(&file), before, "{case:?} changed the file");
    }
}

/// By design, as fio: a read job lays out a missing file and extends a
/// shorter one, and says so on stderr; the bytes that were there are kept.
#[test]
fn a_read_job_extends_a_shorter_file_and_says_so() {
    let dir = OutDir::new("user-file-extend");
    let file = dir.join("users.dat");
    let data = user_bytes(1 << 20, 0x44);
    std::fs::write(&file, &data).unwrap();
    let job = dir.join("job.fio");
    let out = fio_core(&job, &lines(&["[r]", "rw=read", "size=2m"], &file));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = format!(
        "extending '{}' from 1048576 to 2097152 bytes",
        file.display()
    );
    assert!(stderr(&out).contains(&said), "{}", stderr(&out));
    let now = std::fs::read(&file).unwrap();
    assert_eq!(now.len(), 2 << 20);
    assert!(now[..1 << 20] == data[..], "the first MiB changed");

    let missing = dir.join("new.dat");
    let out = fio_core(&job, &lines(&["[r]", "rw=randread", "size=1m"], &missing));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = format!(
        "laying out '{}' (1048576 bytes): it does not exist",
        missing.display()
    );
    assert!(stderr(&out).contains(&said), "{}", stderr(&out));
}

#[test]
fn character_devices_are_never_laid_out_or_synced() {
    let dir = OutDir::new("char-devices");
    let job = dir.join("job.fio");
    for dev in ["/dev/null", "/dev/zero"] {
        let dev = Path::new(dev);
        for (case, option) in [
            (vec!["[r]", "rw=read"], "size:"),
            (vec!["[w]", "rw=write"], "size:"),
            (vec!["[w]", "rw=write", "size=1m", "fsync=1"], "fsync:"),
            (vec!["[w]", "rw=write", "size=1m", "end_fsync=1"], "fsync:"),
            (
                vec!["[w]", "rw=write", "size=1m", "verify=crc32c"],
                "verify:",
            ),
            (
                vec![
                    "[r]",
                    "rw=read",
                    "size=1m",
                    "verify=crc32c",
                    "verify_only=1",
                ],
                "verify:",
            ),
            (vec!["[w]", "rw=write", "size=1m", "direct=1"], "direct:"),
            (
                vec!["[r]", "rw=read", "size=1m", "ioengine=mmap"],
                "ioengine:",
            ),
        ] {
            let out = fio_core(&job, &lines(&case, dev));
            assert_eq!(
                out.status.code(),
                Some(2),
                "{dev:?} {case:?}: {}",
                stderr(&out)
            );
            let err = stderr(&out);
            assert!(
                err.contains(option) && err.contains("character device"),
                "{err}"
            );
        }
        let out = fio_core(&job, &lines(&["[w]", "rw=randwrite", "size=1m"], dev));
        assert_eq!(out.status.code(), Some(0), "{dev:?}: {}", stderr(&out));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("Laying out"));
        assert!(dev.metadata().unwrap().file_type().is_char_device());
    }
    // /dev/zero reads zeros; /dev/null has none to give: the run fails (as fio).
    let out = fio(
        &job,
        &lines(&["[r]", "rw=randread", "size=1m"], Path::new("/dev/zero")),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = fio(
        &job,
        &lines(&["[r]", "rw=read", "size=1m"], Path::new("/dev/null")),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

fn sysbench(dir: &Path, command: &str, mode: &str) -> std::process::Output {
    let dir_arg = format!("--file-dir={}", dir.display());
    engine(&[
        "sysbench",
        "fileio",
        "--file-num=2",
        "--file-total-size=2M",
        &format!("--file-test-mode={mode}"),
        "--time=0",
        "--events=200",
        &dir_arg,
        command,
    ])
}

/// sysbench's test files are regular files named `test_file.N`: a link or a
/// device under that name is refused for every command, and the user's other
/// files in the folder keep their bytes through prepare, run and cleanup.
#[test]
fn sysbench_touches_only_its_regular_test_files() {
    let Some(dev) = LoopDevice::with_data("sysbench-files") else {
        return;
    };
    let device_before = dev.digest();
    let dir = OutDir::new("sysbench-files");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, user_bytes(5000, 0x55)).unwrap();
    let notes_before = sha256(&notes);
    let link = dir.join("test_file.0");
    std::os::unix::fs::symlink(dev.path(), &link).unwrap();
    for command in ["prepare", "run", "cleanup"] {
        let out = sysbench(&dir.0, command, "rndwr");
        // As sysbench: FATAL on stdout, exit 1.
        let err = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(
            err.contains("--file-dir") && err.contains("symbolic link"),
            "{err}"
        );
        assert!(
            link.symlink_metadata().is_ok(),
            "{command} removed the link"
        );
    }
    assert_eq!(dev.digest(), device_before);
    std::fs::remove_file(&link).unwrap();

    // A longer test_file.0 from before is not truncated (as sysbench 1.0).
    std::fs::write(&link, user_bytes(3 << 20, 0x66)).unwrap();
    let out = sysbench(&dir.0, "prepare", "rndrd");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(link.metadata().unwrap().len(), 3 << 20);
    let files = [dir.join("test_file.0"), dir.join("test_file.1")];
    let prepared: Vec<String> = files.iter().map(|f| sha256(f)).collect();
    let out = sysbench(&dir.0, "run", "rndrd");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after_read: Vec<String> = files.iter().map(|f| sha256(f)).collect();
    assert_eq!(after_read, prepared, "a read-only run wrote its files");
    let out = sysbench(&dir.0, "cleanup", "rndrd");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(files.iter().all(|f| !f.exists()));
    assert_eq!(sha256(&notes), notes_before);
}
