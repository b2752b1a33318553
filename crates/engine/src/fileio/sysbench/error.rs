//! Why a `sysbench` command stopped, printed as sysbench 1.0.20 prints it:
//! `FATAL: ...` (and a `WARNING:` hint) in the log, or a bare line on stderr
//! for command-line mistakes. Every one exits 1, as sysbench does; with
//! contio's `-json`, refused input exits 2 (nothing ran, no document), as the
//! rest of the engine's machine interface.

use thiserror::Error;

use crate::fileio::error::FileIoError;

/// A stop before or while working.
#[derive(Debug, Error)]
pub enum SysbenchError {
    /// A command-line mistake: one line on stderr.
    #[error("{0}")]
    Usage(String),
    /// `FATAL: message`.
    #[error("{0}")]
    Fatal(String),
    /// `FATAL: message` for a run that started and failed (its document
    /// is written): exit 1 always.
    #[error("{0}")]
    Failed(String),
    /// `FATAL: message` then `WARNING: hint`.
    #[error("{message}")]
    FatalWithHint { message: String, hint: String },
    /// `run` without `--file-test-mode`: FATAL, then fileio's options.
    #[error("Missing required argument: --file-test-mode")]
    MissingMode(String),
    /// contio's own checks (a device where a test file should be, no space).
    #[error("{0}")]
    FileIo(#[from] FileIoError),
}

impl SysbenchError {
    /// True when nothing ran because the input was at fault.
    pub fn is_input(&self) -> bool {
        match self {
            SysbenchError::FileIo(e) => e.exit_code() == 2,
            SysbenchError::Usage(_) | SysbenchError::Fatal(_) | SysbenchError::MissingMode(_) => {
                true
            }
            SysbenchError::FatalWithHint { .. } => true,
            SysbenchError::Failed(_) => false,
        }
    }

    /// The exit code: 1 as sysbench, or 2 for refused input under `-json`.
    pub fn exit_code(&self, json: bool) -> i32 {
        if json && self.is_input() {
            2
        } else {
            1
        }
    }
}
