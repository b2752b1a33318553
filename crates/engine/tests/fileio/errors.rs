//! Bad input exits 2 before anything runs and names what to fix; a disk that
//! fills mid-run and an interrupt stop cleanly, keeping what was measured.

use std::io::{BufRead, BufReader};
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};

use super::mounts::{tmpfs, xfs, Mounted};
use super::{engine, read_json, sparse, stderr, OutDir, ENGINE};

/// Refused before anything ran: exit 2 and the reason on stderr — except
/// `sysbench` without contio's `-json`, which exits 1 with `FATAL:` on
/// stdout, as sysbench 1.0.20 does.
fn refused(args: &[&str], mentions: &[&str]) {
    let out = engine(args);
    let as_sysbench = args[0] == "sysbench" && !args.contains(&"-json");
    let said = if as_sysbench {
        format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out))
    } else {
        stderr(&out)
    };
    let code = if as_sysbench { 1 } else { 2 };
    assert_eq!(out.status.code(), Some(code), "{args:?}: {said}");
    for m in mentions {
        assert!(said.contains(m), "{args:?}: '{m}' not in {said}");
    }
}

#[test]
fn bad_input_exits_2_naming_the_field() {
    // A small tmpfs and XFS (320 MiB): 1 GiB fits in neither.
    for fs in [tmpfs("errors", 8), xfs("errors")].into_iter().flatten() {
        bad_input_on(&fs);
    }
}

fn bad_input_on(fs: &Mounted) {
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
        &[
            "invalid option: --file-totl-size=1M",
            "did you mean --file-total-size?",
        ],
    );
    refused(
        &["sysbench", "fileio", "--file-test-mode=random", &dir, "run"],
        &["FATAL: Invalid IO operations mode: random."],
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
        &[
            "FATAL: Cannot open file 'test_file.0'",
            "Did you forget to run the prepare step?",
        ],
    );
    // Too little free space: nothing is created.
    refused(
        &[
            "sysbench",
            "fileio",
            "--file-total-size=1G",
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
    let too_big = format!("[j]\nfilename={}\nsize=1G\n", fs.join("big").display());
    let cases: [(&str, &[&str]); 9] = [
        (
            "[j]\ndirectory=/nonexistent/contio\nsize=1M\n",
            &["does not exist"],
        ),
        ("[j]\nbss=4k\nsize=1M\n", &["bss", "did you mean 'bs'"]),
        ("[j]\nbs=1000\ndirect=1\nsize=1M\n", &["bs", "512"]),
        ("[j]\nrw=trim\nsize=1M\n", &["rw", "randrw"]),
        (&too_big, &["size", "free"]),
        // Only CRC-32C is computed; another method's name is refused, not ignored.
        ("[j]\nverify=crc32\nsize=1M\n", &["verify", "crc32c"]),
        // Limits, before any thread or ring is made.
        ("[j]\nsize=4k\nnumjobs=5000\n", &["numjobs", "4096"]),
        (
            "[j]\nsize=1M\nioengine=io_uring\niodepth=100000\n",
            &["iodepth", "4096"],
        ),
        // One plan has one sync call.
        (
            "[a]\nrw=write\nsize=1M\nfsync=4\n[b]\nrw=write\nsize=1M\nfdatasync=4\n",
            &["fsync/fdatasync", "'b'"],
        ),
    ];
    for (text, mentions) in cases {
        std::fs::write(job, text).unwrap();
        refused(&["fio", "--contio-core", job, "-json", json], mentions);
    }
    refused(
        &["fio", "--contio-core", "/nonexistent/job.fio"],
        &["job file"],
    );
    assert!(!fs.join("never.json").exists());
    assert!(!fs.join("big").exists(), "nothing laid out");
}

/// Counts and shares outside their range are refused, not turned into something
/// else (`--threads=0` used to run one thread, `rwmixread=200` was ignored when
/// `rw` was not a mix). No file system needed: nothing gets that far.
#[test]
fn counts_and_percentages_out_of_range_exit_2() {
    let out = OutDir::new("ranges");
    let dir = format!("--file-dir={}", out.0.display());
    for (option, range) in [
        ("--threads=0", "Invalid value for --threads: 0."),
        ("--file-async-backlog=0", "from 1 to 4096"),
    ] {
        let name = option.split('=').next().unwrap();
        refused(
            &[
                "sysbench",
                "fileio",
                "--file-total-size=16M",
                option,
                &dir,
                "prepare",
            ],
            &[name, range],
        );
    }
    assert!(!out.join("test_file.0").exists(), "nothing prepared");
    let job = out.join("job.fio");
    let data = out.join("data");
    for (rw, option, value) in [
        ("randread", "rwmixread", "200"),
        ("randrw", "rwmixread", "101"),
        ("write", "rwmixwrite", "150"),
        ("randrw", "rwmixwrite", "-5"),
        ("randrw", "rwmixread", "50.5"),
    ] {
        let text = format!(
            "[j]\nfilename={}\nsize=1M\nrw={rw}\n{option}={value}\n",
            data.display()
        );
        std::fs::write(&job, text).unwrap();
        refused(
            &["fio", "--contio-core", job.to_str().unwrap()],
            &[option, value, "a whole percentage from 0 to 100"],
        );
    }
    for (option, value) in [("numjobs", "0"), ("iodepth", "0")] {
        let text = format!(
            "[j]\nfilename={}\nsize=1M\nioengine=io_uring\n{option}={value}\n",
            data.display()
        );
        std::fs::write(&job, text).unwrap();
        refused(
            &["fio", "--contio-core", job.to_str().unwrap()],
            &[option, "from 1 to 4096"],
        );
    }
    assert!(!data.exists(), "nothing laid out");
}

/// Takes all but `keep` bytes of the free space of `fs` (allocated, not written: fast).
fn fill_all_but(fs: &Mounted, keep: u64) {
    let free = {
        let c = std::ffi::CString::new(fs.path().to_str().unwrap()).unwrap();
        // SAFETY: statvfs with a valid C string and out-pointer.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, 0);
        st.f_bavail * st.f_frsize
    };
    let filler = std::fs::File::create(fs.join("filler")).unwrap();
    // SAFETY: plain syscall on an open descriptor.
    let rc = unsafe { libc::posix_fallocate(filler.as_raw_fd(), 0, (free - keep) as libc::off_t) };
    assert_eq!(rc, 0, "fallocate");
}

#[test]
fn a_disk_filling_mid_run_stops_cleanly_with_what_was_measured() {
    // tmpfs fails the write that finds no page; XFS the write whose delayed
    // allocation it cannot reserve. Both at write time, after some writes.
    let filesystems = [tmpfs("enospc", 4), xfs("enospc")];
    for fs in filesystems.into_iter().flatten() {
        if fs.kind == "xfs" {
            fill_all_but(&fs, 4 << 20);
        }
        let data = fs.join("data");
        // A sparse 16 MiB file: writing it needs space the file system does not have.
        sparse(&data, 16 << 20);
        let job = fs.join("job.fio");
        // The document goes elsewhere: the full file system could not hold it.
        let out_dir = OutDir::new(&format!("enospc-{}", fs.kind));
        let json = out_dir.join("run.json");
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
            "--contio-core",
            job.to_str().unwrap(),
            "-json",
            json.to_str().unwrap(),
        ]);
        let what = fs.kind;
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        let doc = read_json(&json);
        assert_eq!(doc["status"], "failed", "{what}");
        let error = doc["error"].as_str().unwrap();
        assert!(error.contains("No space left"), "{what}: {error}");
        assert!(error.contains(data.to_str().unwrap()), "{what}: {error}");
        let written = doc["operations_by_type"]["WRITE"]["count"]
            .as_u64()
            .unwrap();
        assert!(written > 0 && written < 256, "{what}: {written} writes");
        assert_eq!(doc["io"]["bytes_written"], written * 65536, "{what}");
        assert_eq!(
            doc["operations_by_type"]["WRITE-FAILED"]["count"], 1,
            "{what}: the first failure stops the only thread"
        );
    }
}

/// Signals are independent of the file system: tmpfs only.
#[test]
fn interrupt_keeps_what_was_measured() {
    let Some(fs) = tmpfs("interrupt", 16) else {
        return;
    };
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
            "--contio-core",
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
