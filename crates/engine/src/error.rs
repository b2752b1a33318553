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

/// A bad command line: the message names the argument and the fix.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{message}\nusage: {usage}")]
pub struct CliError {
    pub message: String,
    pub usage: &'static str,
}

/// Everything that stops the engine before or after a phase.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Cli(#[from] CliError),
    #[error(transparent)]
    Property(#[from] PropertyError),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("cannot write '{path}': {reason}")]
    Output { path: String, reason: String },
}

impl EngineError {
    /// 2 for bad input (nothing ran), 1 for a failure while running or writing results.
    pub fn exit_code(&self) -> i32 {
        match self {
            EngineError::Cli(_) | EngineError::Property(_) => 2,
            EngineError::Target(TargetError::Failed { .. }) => 1,
            EngineError::Target(_) => 2,
            EngineError::Output { .. } => 1,
        }
    }
}
