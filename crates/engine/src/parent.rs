//! Ending with the process that started the engine.
//!
//! contio's process runtime starts each engine in its own session, so that a Ctrl-C at
//! the terminal reaches contio only (which forwards it and lets the engine write its
//! result). If contio itself is killed (SIGKILL, the OOM killer), nothing would stop
//! the engine: it would run on, writing into a data directory that `contio cleanup`
//! removes. With `CONTIO_ENGINE_PARENT=<pid>` in its environment, the engine asks the
//! kernel for SIGKILL when its parent exits (`PR_SET_PDEATHSIG`): nobody is left to read
//! what it would write. The kernel sends it when the parent *thread* that forked the
//! engine exits, so the variable is for a parent that forks from its main thread.

use thiserror::Error;

/// The environment variable naming the parent pid the engine must not outlive.
pub const PARENT_ENV: &str = "CONTIO_ENGINE_PARENT";

/// `CONTIO_ENGINE_PARENT` was set but could not be acted on.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParentError {
    #[error("{PARENT_ENV}: '{0}' is not a process id")]
    NotAPid(String),
    #[error("{PARENT_ENV}: the parent-death signal could not be set: {0}")]
    Prctl(String),
}

/// Whether the parent named by the variable's `value` still runs, with the parent-death
/// signal armed when it does. `Ok(false)`: it exited before the signal was armed (the
/// kernel would never send it), so the caller must exit now.
pub fn die_with_parent(value: &str) -> Result<bool, ParentError> {
    let parent: libc::pid_t = match value.trim().parse() {
        Ok(pid) if pid > 0 => pid,
        _ => return Err(ParentError::NotAPid(value.to_string())),
    };
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and touches no memory.
    let armed = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) };
    if armed != 0 {
        return Err(ParentError::Prctl(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    // SAFETY: getppid has no preconditions and cannot fail.
    Ok(unsafe { libc::getppid() } == parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_is_not_a_pid_is_refused() {
        assert_eq!(
            die_with_parent("abc"),
            Err(ParentError::NotAPid("abc".into()))
        );
        assert_eq!(
            die_with_parent("-3"),
            Err(ParentError::NotAPid("-3".into()))
        );
    }

    #[test]
    fn another_parent_than_ours_counts_as_gone() {
        // SAFETY: getppid has no preconditions.
        let ours = unsafe { libc::getppid() };
        assert_eq!(die_with_parent(&ours.to_string()), Ok(true));
        assert_eq!(die_with_parent(&(ours + 1).to_string()), Ok(false));
        // Disarm again: the test harness's parent may exit before these threads do.
        // prctl is variadic: the argument's width matters.
        let none: libc::c_ulong = 0;
        // SAFETY: as above; 0 clears the parent-death signal.
        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, none) };
    }
}
