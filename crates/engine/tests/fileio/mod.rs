//! The file workloads (`contio-engine sysbench` / `fio`) against real files on
//! XFS over a loop device and on tmpfs: operation mixes and byte counts,
//! sync rules, verification, N-to-1 layouts, errors, interrupts, and the
//! outputs (parsed, and compared with the JSON document); devices and a user's
//! files that must keep every byte (`device_safety`, `user_files`).

mod device_safety;
mod end_sync;
mod errors;
mod fio_jobs;
mod fio_sync;
mod loop_device;
mod mounts;
mod sysbench_fileio;
mod sysbench_sync;
mod text_outputs;
mod user_files;
mod verify;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const ENGINE: &str = env!("CARGO_BIN_EXE_contio-engine");

/// Runs the engine with `args`.
pub fn engine(args: &[&str]) -> Output {
    Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs")
}

/// Runs the engine, expects exit 0, returns stdout.
pub fn engine_ok(args: &[&str]) -> String {
    let out = engine(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON document at `path`.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// A directory outside the test's file systems (for documents a full file
/// system could not hold), removed even when the test fails.
pub struct OutDir(pub PathBuf);

impl OutDir {
    /// A fresh directory for `test`.
    pub fn new(test: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("contio-fileio-{}-{test}-out", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        OutDir(dir)
    }

    /// `name` inside it.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Creates `path` as a sparse file of `len` bytes (no blocks written).
pub fn sparse(path: &Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

/// Successful calls of `op` in a document.
pub fn count(doc: &Value, op: &str) -> u64 {
    doc["operations_by_type"][op]["count"].as_u64().unwrap_or(0)
}
