//! The engine's error types. Every error a user can cause says what to fix.

use thiserror::Error;

/// A problem with a property: its name, what was wrong, what is allowed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PropertyError {
    #[error("unknown property '{key}'{}", suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    Unknown {
        key: String,
        suggestion: Option<String>,
    },
    #[error("property '{key}': '{value}' is not valid; expected {expected}")]
    BadValue {
        key: String,
        value: String,
        expected: String,
    },
    #[error("property file '{path}': {reason}")]
    File { path: String, reason: String },
    #[error("property '{key}': {reason}")]
    Invalid { key: String, reason: String },
}

/// A target (database binding or embedded engine) failed to start or stop.
#[derive(Debug, Error)]
pub enum TargetError {
    #[error("unknown target '{name}'; known targets: {known}")]
    UnknownTarget { name: String, known: String },
    #[error(transparent)]
    Property(#[from] PropertyError),
    #[error("target '{target}': {reason}")]
    Failed { target: String, reason: String },
}

impl PropertyError {
    /// True when the error comes from user input (exit code 2).
    pub fn is_usage(&self) -> bool {
        true
    }
}
