//! A start barrier across engine processes (one per container of a cell), so that
//! their run phases start together.
//!
//! With `startbarrier.ready=PATH` and `startbarrier.go=PATH`, the engine opens its
//! target (connections made, schema checked), creates the `ready` file, then waits
//! until the `go` file exists before its phase clock starts. The orchestrator creates
//! `go` once every client's `ready` file is there. `startbarrier.timeout` (seconds,
//! default 600) bounds the wait; a signal ends it too.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::stop::StopFlag;
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

/// How often the `go` file is looked for: the clients' start skew is at most this.
const POLL: Duration = Duration::from_millis(1);

/// The files of one barrier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartBarrier {
    ready: PathBuf,
    go: PathBuf,
    timeout: Duration,
}

impl StartBarrier {
    /// The barrier the properties ask for, if any (both paths or neither).
    pub fn from_properties(p: &Properties) -> Result<Option<Self>, PropertyError> {
        let ready = p.get("startbarrier.ready").map(str::trim);
        let go = p.get("startbarrier.go").map(str::trim);
        let timeout: u64 = p.parse_or("startbarrier.timeout", 600, "an integer >= 1 (seconds)")?;
        match (ready, go) {
            (None, None) => Ok(None),
            (Some(ready), Some(go)) if !ready.is_empty() && !go.is_empty() => Ok(Some(Self {
                ready: ready.into(),
                go: go.into(),
                timeout: Duration::from_secs(timeout.max(1)),
            })),
            (_, _) => Err(PropertyError::Invalid {
                key: "startbarrier.ready".into(),
                reason: "set both startbarrier.ready and startbarrier.go (file paths), or neither"
                    .into(),
            }),
        }
    }

    /// Says this client is ready, then waits for the go file.
    pub fn arrive_and_wait(&self, stop: &StopFlag) -> Result<(), TargetError> {
        let fail = |reason: String| TargetError::Failed {
            target: "startbarrier".into(),
            reason,
        };
        std::fs::write(&self.ready, std::process::id().to_string())
            .map_err(|e| fail(format!("cannot create '{}': {e}", self.ready.display())))?;
        let deadline = Instant::now() + self.timeout;
        while !self.go.exists() {
            if stop.is_set() {
                return Err(fail(
                    "interrupted while waiting at the start barrier".into(),
                ));
            }
            if Instant::now() >= deadline {
                return Err(fail(format!(
                    "'{}' did not appear within {} s",
                    self.go.display(),
                    self.timeout.as_secs()
                )));
            }
            std::thread::sleep(POLL);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_both_paths() {
        let mut p = Properties::new();
        assert_eq!(StartBarrier::from_properties(&p).unwrap(), None);
        p.set("startbarrier.ready", "/tmp/r");
        assert!(StartBarrier::from_properties(&p).is_err());
    }

    #[test]
    fn waits_for_the_go_file() {
        let dir = std::env::temp_dir().join(format!("contio-barrier-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (ready, go) = (dir.join("ready"), dir.join("go"));
        let mut p = Properties::new();
        p.set("startbarrier.ready", ready.to_str().unwrap());
        p.set("startbarrier.go", go.to_str().unwrap());
        p.set("startbarrier.timeout", "30");
        let barrier = StartBarrier::from_properties(&p).unwrap().unwrap();
        let stop = StopFlag::new();
        std::thread::scope(|s| {
            let waiter = s.spawn(|| barrier.arrive_and_wait(&stop));
            while !ready.exists() {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(!waiter.is_finished(), "went on before the go file existed");
            std::fs::write(&go, b"").unwrap();
            waiter.join().unwrap().unwrap();
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
