//! Errors of `contio-engine fio` when it drives the real fio. Input errors
//! name the option and what to do; they exit as fio does (1) without `-json`
//! and with contio's code for refused input (2) with it.

use thiserror::Error;

use crate::fileio::error::FileIoError;

/// One option fio does not know, in the job (section) that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadOption {
    /// The job fio dropped for it (`global` for the `[global]` section).
    pub job: String,
    /// The option as written, `key=value` or a bare `key`.
    pub option: String,
    /// fio's own "Did you mean …?" answer.
    pub suggestion: Option<String>,
}

impl std::fmt::Display for BadOption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", self.job, self.option)?;
        if let Some(s) = &self.suggestion {
            write!(f, " (fio: did you mean {s}?)")?;
        }
        Ok(())
    }
}

fn listed(options: &[BadOption]) -> String {
    options
        .iter()
        .map(|o| format!("\n  {o}"))
        .collect::<String>()
}

/// Why `contio-engine fio` could not start fio, or could not read what it wrote.
#[derive(Debug, Error)]
pub enum FioError {
    /// No fio binary to run.
    #[error(
        "fio not found ({reason}): contio-engine fio runs the real fio; install it \
         (Debian: apt-get install fio) or set CONTIO_FIO to its path; --contio-core runs \
         contio's own I/O core instead"
    )]
    NotInstalled { reason: String },
    /// Options fio does not know, every one of them.
    #[error("fio does not know {} option(s); nothing ran:{}", options.len(), listed(options))]
    UnknownOptions {
        options: Vec<BadOption>,
        with_json: bool,
    },
    /// fio refused the job for another reason (a bad value, a missing file): its words.
    #[error("fio refused the job; nothing ran:\n{text}")]
    Refused { text: String, with_json: bool },
    /// A contio flag, or a fio flag that contio's `-json` mode sets itself.
    #[error("{flag}: {reason}")]
    Flag { flag: String, reason: String },
    /// A job would write a device that is in use.
    #[error(transparent)]
    FileIo(#[from] FileIoError),
    /// Starting or talking to fio failed.
    #[error("fio: {what}: {source}")]
    Process {
        what: &'static str,
        source: std::io::Error,
    },
}

impl FioError {
    /// fio's exit code for a refused job (1), contio's for refused input (2)
    /// when a `-json` caller expects it.
    pub fn exit_code(&self) -> i32 {
        match self {
            FioError::UnknownOptions { with_json, .. } | FioError::Refused { with_json, .. } => {
                if *with_json {
                    2
                } else {
                    1
                }
            }
            FioError::Flag { .. } => 2,
            FioError::FileIo(e) => e.exit_code(),
            FioError::NotInstalled { .. } | FioError::Process { .. } => 1,
        }
    }

    /// A refused flag.
    pub fn flag(flag: &str, reason: impl Into<String>) -> Self {
        FioError::Flag {
            flag: flag.to_string(),
            reason: reason.into(),
        }
    }
}
