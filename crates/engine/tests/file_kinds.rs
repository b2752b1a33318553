//! The engine reads a `-P` property file and replaces a `-json` document only
//! when they are regular files: a FIFO as `-P` blocked the engine forever,
//! `/dev/zero` never ended, and a `-json` FIFO or device node was renamed over
//! (as root, `-json /dev/null` replaced the null device). A link planted at the
//! partial document's name is not written through.

use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const ENGINE: &str = env!("CARGO_BIN_EXE_contio-engine");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("contio-file-kinds-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The engine's output, killed after 30 s (a hang fails the test, not the suite).
fn engine(args: &[&str]) -> Output {
    let mut child = Command::new(ENGINE)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..300 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("contio-engine {args:?} did not end in 30 s");
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn a_property_file_that_is_not_a_regular_file_is_refused() {
    let dir = scratch("p");
    let fifo = dir.join("w.properties");
    mkfifo(&fifo);
    for (path, kind) in [
        (fifo.to_str().unwrap(), "a FIFO (named pipe)"),
        ("/dev/zero", "a character device"),
        (dir.to_str().unwrap(), "a directory"),
    ] {
        let out = engine(&["load", "null", "-P", path, "-p", "recordcount=1"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "property file '{path}': is {kind}, not a regular file"
            )),
            "{err}"
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_json_path_that_is_not_a_regular_file_is_not_replaced() {
    let dir = scratch("j");
    let fifo = dir.join("out.json");
    mkfifo(&fifo);
    let job = dir.join("j.fio");
    std::fs::write(&job, "[j]\nrw=read\nsize=64k\n").unwrap();
    let path = fifo.to_str().unwrap();
    for args in [
        vec!["load", "null", "-p", "recordcount=1", "-json", path],
        vec!["fio", job.to_str().unwrap(), "-json", path],
    ] {
        let out = engine(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("is a FIFO (named pipe), not a regular file"),
            "{err}"
        );
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_link_at_the_partial_documents_name_is_not_written_through() {
    let dir = scratch("l");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep\n").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("out.json.partial")).unwrap();
    let out_json = dir.join("out.json");
    let out = engine(&[
        "load",
        "null",
        "-p",
        "recordcount=1",
        "-json",
        out_json.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
    assert!(std::fs::read_to_string(&out_json)
        .unwrap()
        .contains("contio.engine.result/1"));
    std::fs::remove_dir_all(dir).unwrap();
}
