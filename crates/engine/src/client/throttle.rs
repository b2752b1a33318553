//! Throttling to `-target`, as YCSB does it: each thread gets target/threads
//! ops/s; after its k-th operation it waits until start + k·tick, and that
//! deadline is the next operation's intended start (for coordinated-omission
//! corrected latency).

use std::time::Duration;

use rand::Rng as _;

use super::stop::StopFlag;
use crate::generator::Rng;
use crate::measure::{Clock, Tick};

/// Longest single sleep, so a stop request is noticed promptly.
const SLEEP_SLICE: Duration = Duration::from_millis(50);

/// One thread's schedule.
#[derive(Debug, Clone)]
pub struct Throttle {
    start: Tick,
    tick_secs: f64,
}

impl Throttle {
    /// A schedule of `ops_per_sec` for one thread. Like YCSB, the thread first waits
    /// a random part of one tick so that threads do not fire in lockstep.
    pub fn start(ops_per_sec: f64, clock: &Clock, rng: &mut Rng, stop: &StopFlag) -> Self {
        let tick_secs = 1.0 / ops_per_sec;
        let offset = tick_secs * rng.random_range(0.0..1.0);
        sleep_until(clock, clock.after_secs(clock.now(), offset), stop);
        Self {
            start: clock.now(),
            tick_secs,
        }
    }

    /// When the first operation is meant to start.
    pub fn first(&self) -> Tick {
        self.start
    }

    /// The intended start of the operation after `done` operations.
    pub fn deadline(&self, clock: &Clock, done: u64) -> Tick {
        clock.after_secs(self.start, self.tick_secs * done as f64)
    }
}

/// Sleeps until `deadline` or until a stop is requested.
pub fn sleep_until(clock: &Clock, deadline: Tick, stop: &StopFlag) {
    loop {
        let now = clock.now();
        if now >= deadline || stop.is_set() {
            return;
        }
        std::thread::sleep(clock.duration_between(now, deadline).min(SLEEP_SLICE));
    }
}
