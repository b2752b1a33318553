//! Stopping a phase early: SIGINT/SIGTERM set a flag that client threads check
//! after each operation; what was measured is kept and reported as
//! "interrupted". A second signal ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::TargetError;

/// Set when the phase should stop; cheap to check (a plain load of a line that
/// is only written once).
#[derive(Debug, Clone, Default)]
pub struct StopFlag {
    flag: Arc<AtomicBool>,
}

impl StopFlag {
    /// A flag that nothing sets yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A flag set by SIGINT or SIGTERM (a second signal exits with code 130).
    pub fn on_signals() -> std::io::Result<Self> {
        let stop = Self::new();
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registered first: exits only if the flag is already set (the second signal).
            signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&stop.flag))?;
            signal_hook::flag::register(signal, Arc::clone(&stop.flag))?;
        }
        Ok(stop)
    }

    /// `on_signals` for a phase of the engine: an error says signals cannot be
    /// handled, as a target failure of the engine itself.
    pub fn for_phase() -> Result<Self, TargetError> {
        Self::on_signals().map_err(|e| TargetError::Failed {
            target: "engine".into(),
            reason: format!("cannot handle signals: {e}"),
        })
    }

    /// Requests a stop.
    pub fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// True once a stop was requested.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}
