//! Progress for the program that started the engine, as JSON lines: with
//! `CONTIO_ENGINE_PROGRESS=PATH` in its environment, every status window (`-s`)
//! also appends one line `{"elapsed_s":…,"operations":…,"ops_per_sec":…}` to
//! PATH, so contio's live view reads numbers instead of parsing the status text,
//! whose format is YCSB's (or sysbench's) and is not an interface.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::time::Duration;

use serde::Serialize;

/// The environment variable that names the progress file.
pub const ENV: &str = "CONTIO_ENGINE_PROGRESS";

/// One progress line.
#[derive(Debug, Serialize)]
pub struct ProgressLine {
    /// Seconds since the phase's clock started.
    pub elapsed_s: f64,
    /// Operations completed since then.
    pub operations: u64,
    /// `operations / elapsed_s`.
    pub ops_per_sec: f64,
}

/// The progress file, when the environment names one (opened once, appended to).
pub struct ProgressLog {
    file: Option<File>,
}

impl ProgressLog {
    /// From `CONTIO_ENGINE_PROGRESS`; a file that cannot be opened is warned about
    /// once and progress is then not written (the phase itself goes on).
    pub fn from_env() -> Self {
        let file = std::env::var_os(ENV).and_then(|path| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| {
                    eprintln!(
                        "contio-engine: warning: {ENV}={}: {e}; no progress lines",
                        path.to_string_lossy()
                    )
                })
                .ok()
        });
        Self { file }
    }

    /// Appends the line for `operations` after `elapsed`.
    pub fn write(&mut self, elapsed: Duration, operations: u64) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let seconds = elapsed.as_secs_f64();
        let line = ProgressLine {
            elapsed_s: seconds,
            operations,
            ops_per_sec: if seconds > 0.0 {
                operations as f64 / seconds
            } else {
                0.0
            },
        };
        if let Ok(text) = serde_json::to_string(&line) {
            // One write per line: a reader never sees half of one after a newline.
            let _ = file.write_all(format!("{text}\n").as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_append_as_json() {
        let path = std::env::temp_dir().join(format!("contio-progress-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut log = ProgressLog {
            file: Some(File::create(&path).unwrap()),
        };
        log.write(Duration::from_secs(2), 500);
        log.write(Duration::from_secs(4), 1500);
        let text = std::fs::read_to_string(&path).unwrap();
        let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["operations"], 1500);
        assert_eq!(last["ops_per_sec"], 375.0);
        assert_eq!(text.lines().count(), 2);
        let _ = std::fs::remove_file(&path);
    }
}
