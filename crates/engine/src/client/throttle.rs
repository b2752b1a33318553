//! Throttling to `-target`, as YCSB does it: each thread gets target/threads
//! ops/s; after its k-th operation it waits until start + k·tick, and that
//! deadline is the next operation's intended start (for coordinated-omission
//! corrected latency).

use std::time::{Duration, Instant};

use rand::Rng as _;

use super::stop::StopFlag;
use crate::generator::Rng;

/// Longest single sleep, so a stop request is noticed promptly.
const SLEEP_SLICE: Duration = Duration::from_millis(50);

/// One thread's schedule.
#[derive(Debug, Clone)]
pub struct Throttle {
    start: Instant,
    tick_secs: f64,
}

impl Throttle {
    /// A schedule of `ops_per_sec` for one thread. Like YCSB, the thread first waits
    /// a random part of one tick so that threads do not fire in lockstep.
    pub fn start(ops_per_sec: f64, rng: &mut Rng, stop: &StopFlag) -> Self {
        let tick_secs = 1.0 / ops_per_sec;
        let offset = Duration::from_secs_f64(tick_secs * rng.random_range(0.0..1.0));
        sleep_until(Instant::now() + offset, stop);
        Self {
            start: Instant::now(),
            tick_secs,
        }
    }

    /// When the first operation is meant to start.
    pub fn first(&self) -> Instant {
        self.start
    }

    /// The intended start of the operation after `done` operations.
    pub fn deadline(&self, done: u64) -> Instant {
        self.start + Duration::from_secs_f64(self.tick_secs * done as f64)
    }
}

/// Sleeps until `deadline` or until a stop is requested.
pub fn sleep_until(deadline: Instant, stop: &StopFlag) {
    loop {
        let now = Instant::now();
        if now >= deadline || stop.is_set() {
            return;
        }
        std::thread::sleep((deadline - now).min(SLEEP_SLICE));
    }
}
