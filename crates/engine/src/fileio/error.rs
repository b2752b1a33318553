//! Errors of the file workloads. Input errors (exit 2) name the option and what
//! is allowed; set-up and run failures (exit 1) name the file and the system error.

use thiserror::Error;

/// Why a file workload could not start, or stopped.
#[derive(Debug, Error)]
pub enum FileIoError {
    /// An option has a value that is not allowed.
    #[error("{option}: '{value}' is not valid; expected {expected}")]
    BadValue {
        option: String,
        value: String,
        expected: String,
    },
    /// An option nobody knows.
    #[error("unknown option '{option}'{}", suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    Unknown {
        option: String,
        suggestion: Option<String>,
    },
    /// Options that are fine alone but not together, or a missing one.
    #[error("{option}: {reason}")]
    Invalid { option: String, reason: String },
    /// The job file cannot be read or parsed.
    #[error("job file '{path}': {reason}")]
    JobFile { path: String, reason: String },
    /// A file or directory the workload needs is missing, too small or unusable.
    #[error("{path}: {reason}")]
    Unusable { path: String, reason: String },
    /// A system call failed while preparing (not bad input: exit 1).
    #[error("{path}: {what}: {source}")]
    Setup {
        path: String,
        what: &'static str,
        source: std::io::Error,
    },
}

impl FileIoError {
    /// 2 when the input is at fault and nothing ran; 1 for failures while working.
    pub fn exit_code(&self) -> i32 {
        match self {
            FileIoError::Setup { .. } => 1,
            _ => 2,
        }
    }

    /// A `BadValue` for `option`.
    pub fn bad_value(option: &str, value: &str, expected: &str) -> Self {
        FileIoError::BadValue {
            option: option.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    /// An `Invalid` for `option`.
    pub fn invalid(option: &str, reason: impl Into<String>) -> Self {
        FileIoError::Invalid {
            option: option.to_string(),
            reason: reason.into(),
        }
    }

    /// An `Unusable` for `path`.
    pub fn unusable(path: &std::path::Path, reason: impl Into<String>) -> Self {
        FileIoError::Unusable {
            path: path.display().to_string(),
            reason: reason.into(),
        }
    }
}
