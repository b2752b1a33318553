//! The start line of a phase's client threads.
//!
//! Every thread opens its target session first and then waits here; the
//! phase's clock starts only when all of them have arrived. So the time limit
//! and the measured run time cover the workload alone: not the creation of the
//! threads (with 4096 threads on two cores, creating the last ones while the
//! first already ran took over 3 s, and a 3 s phase measured 3.3 to 3.5 s),
//! nor the connections that the sessions open.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::stop::StopFlag;
use crate::measure::Tick;

/// How often the phase's main thread looks at the stop flag while threads arrive.
const POLL: Duration = Duration::from_millis(10);

/// When the phase started and when it must end, as the threads see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseStart {
    pub origin: Tick,
    /// The time limit (`maxexecutiontime`), if any.
    pub deadline: Option<Tick>,
}

#[derive(Debug, Default)]
struct State {
    arrived: usize,
    start: Option<PhaseStart>,
}

/// Threads arrive, the main thread opens the gate once all have.
#[derive(Debug, Default)]
pub struct StartGate {
    state: Mutex<State>,
    changed: Condvar,
}

impl StartGate {
    /// A closed gate.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock; recover the state if something did.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A client thread arrives (ready, or unable to run) and waits for the start.
    pub fn arrive_and_wait(&self) -> PhaseStart {
        let mut state = self.lock();
        state.arrived += 1;
        self.changed.notify_all();
        loop {
            if let Some(start) = state.start {
                return start;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits until `threads` threads have arrived, or a stop is requested (then
    /// the threads still opening their sessions find the phase over when they arrive).
    pub fn wait_for(&self, threads: usize, stop: &StopFlag) {
        let mut state = self.lock();
        while state.arrived < threads && !stop.is_set() {
            state = self
                .changed
                .wait_timeout(state, POLL)
                .map(|(s, _)| s)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    /// Starts the phase: every thread waiting, and every thread arriving later, gets `start`.
    pub fn open(&self, start: PhaseStart) {
        self.lock().start = Some(start);
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Clock;

    #[test]
    fn threads_start_together() {
        let gate = StartGate::new();
        let clock = Clock::new();
        let start = PhaseStart {
            origin: clock.now(),
            deadline: None,
        };
        std::thread::scope(|s| {
            let waiting: Vec<_> = (0..3).map(|_| s.spawn(|| gate.arrive_and_wait())).collect();
            gate.wait_for(3, &StopFlag::new());
            assert!(waiting.iter().all(|t| !t.is_finished()));
            gate.open(start);
            for t in waiting {
                assert_eq!(t.join().unwrap(), start);
            }
        });
        // A late thread passes at once.
        assert_eq!(gate.arrive_and_wait(), start);
    }

    #[test]
    fn a_stop_ends_the_wait() {
        let gate = StartGate::new();
        let stop = StopFlag::new();
        stop.set();
        gate.wait_for(5, &stop);
    }
}
