//! Ending a phase whose target does not return.
//!
//! Client threads look at the time limit and the stop flag between operations,
//! so a thread inside a target call that never returns (a write stall, a hung
//! connection) would keep the phase, and the process, from ending. The phase's
//! main thread therefore waits only `STALL_GRACE` past the time limit or past
//! the stop request for the threads to finish. Then it ends the phase with what
//! was measured, leaves the stuck threads behind (the process exits soon after,
//! which ends them) and names the stall: how many threads were still inside a
//! target call, and for how long.
//!
//! "For how long" comes from a heartbeat: the end of each thread's last timed
//! call, one relaxed store per call into a cache line of the thread's own that
//! the main thread reads only when it gives up.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::stop::StopFlag;
use crate::measure::{Clock, Tick};

/// How long the threads get to finish their calls after the time limit or a
/// stop request before the phase ends without them. Longer than a slow but
/// working call (seconds, under load), well within the 10 s that Docker and
/// contio give a stopped engine to write its results.
pub const STALL_GRACE: Duration = Duration::from_secs(5);

/// One thread's heartbeat: when its last timed call ended, and the operations
/// it has completed but not yet handed to the collector (they travel once a
/// second, so a thread that gets stuck still holds up to a second of them).
/// Aligned to two cache lines so that no two threads' heartbeats share one.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct Heartbeat {
    /// Raw tick of the last call's end; 0 = none yet.
    last_end: AtomicU64,
    /// The recorder's current second (high 24 bits) and its operations in it (low 40).
    unreported: AtomicU64,
}

const OPS_BITS: u32 = 40;
const OPS_MASK: u64 = (1 << OPS_BITS) - 1;

impl Heartbeat {
    /// Notes that a call ended at `end` (hot path: a plain store).
    #[inline]
    pub fn beat(&self, end: Tick) {
        self.last_end.store(end.raw(), Ordering::Relaxed);
    }

    /// Notes the operations completed in `second` that the collector has not
    /// got yet (hot path: a plain store).
    #[inline]
    pub fn unreported(&self, second: u64, operations: u64) {
        let packed = (second << OPS_BITS) | (operations & OPS_MASK);
        self.unreported.store(packed, Ordering::Relaxed);
    }

    /// When the last call ended, if any did.
    pub fn last(&self) -> Option<Tick> {
        match self.last_end.load(Ordering::Relaxed) {
            0 => None,
            raw => Some(Tick::from_raw(raw)),
        }
    }

    /// The second and the operations last noted by `unreported`.
    pub fn pending(&self) -> (u64, u64) {
        let packed = self.unreported.load(Ordering::Relaxed);
        (packed >> OPS_BITS, packed & OPS_MASK)
    }
}

/// The heartbeats of a phase's threads.
pub type Heartbeats = Vec<Arc<Heartbeat>>;

/// A new heartbeat per thread.
pub fn heartbeats(threads: usize) -> Heartbeats {
    (0..threads).map(|_| Arc::default()).collect()
}

/// What ended the phase while threads were still busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopCause {
    /// `maxexecutiontime` ran out (seconds).
    TimeLimit(u64),
    /// SIGINT or SIGTERM.
    Signal,
}

/// Decides when the phase stops waiting for its threads.
#[derive(Debug)]
pub struct StopWatch {
    time_limit: Option<(Instant, u64)>,
    stop: StopFlag,
    stop_seen: Option<Instant>,
}

impl StopWatch {
    /// A watch for a phase that started at `origin`, with an optional time limit.
    pub fn new(origin: Instant, time_limit: Option<Duration>, stop: StopFlag) -> Self {
        Self {
            time_limit: time_limit.map(|d| (origin + d, d.as_secs())),
            stop,
            stop_seen: None,
        }
    }

    /// Why and since when the phase has been ending, if it has.
    fn ending(&mut self, now: Instant) -> Option<(StopCause, Instant)> {
        if self.stop_seen.is_none() && self.stop.is_set() {
            self.stop_seen = Some(now);
        }
        let limit = self
            .time_limit
            .filter(|(at, _)| *at <= now)
            .map(|(at, secs)| (StopCause::TimeLimit(secs), at));
        let signal = self.stop_seen.map(|at| (StopCause::Signal, at));
        match (limit, signal) {
            (Some(l), Some(s)) => Some(if l.1 <= s.1 { l } else { s }),
            (l, s) => l.or(s),
        }
    }

    /// The cause and when it came, once the grace after it has passed: the
    /// phase should end now.
    pub fn give_up(&mut self, now: Instant) -> Option<(StopCause, Instant)> {
        self.ending(now)
            .filter(|(_, since)| now.saturating_duration_since(*since) >= STALL_GRACE)
    }
}

/// The threads that were still inside a target call when the phase ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Stall {
    pub cause: StopCause,
    /// Threads still inside a call (one call in flight each).
    pub stuck: usize,
    pub threads: usize,
    /// Since the longest-stuck thread's last call ended (or since the phase started).
    pub longest: Duration,
    /// Operations the stuck threads completed but never handed over (counted
    /// in the results without their latencies).
    pub unreported: u64,
}

impl Stall {
    /// The stall of `stuck` threads (by index) out of `threads`, at `now`.
    pub fn measure(
        cause: StopCause,
        stuck: &[usize],
        threads: usize,
        heartbeats: &[Arc<Heartbeat>],
        clock: &Clock,
        origin: Tick,
    ) -> Self {
        let now = clock.now();
        let longest = stuck
            .iter()
            .filter_map(|&i| heartbeats.get(i))
            .map(|h| clock.duration_between(h.last().unwrap_or(origin), now))
            .max()
            .unwrap_or_default();
        let unreported = stuck
            .iter()
            .filter_map(|&i| heartbeats.get(i))
            .map(|h| h.pending().1)
            .sum();
        Self {
            cause,
            stuck: stuck.len(),
            threads,
            longest,
            unreported,
        }
    }
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let after = match self.cause {
            StopCause::TimeLimit(secs) => format!("the time limit (maxexecutiontime={secs})"),
            StopCause::Signal => "the stop signal".to_string(),
        };
        write!(
            f,
            "stalled: {} of {} client thread(s) still inside a target call ({} operation(s) \
             in flight) {:.1} s after {after}; the longest had been in its call for {:.1} s. \
             The phase ended without them; the results cover the operations completed until \
             then ({} of them, from the stalled threads' last second, without latencies)",
            self.stuck,
            self.threads,
            self.stuck,
            STALL_GRACE.as_secs_f64(),
            self.longest.as_secs_f64(),
            self.unreported,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_up_a_grace_after_the_time_limit_or_the_signal() {
        let start = Instant::now();
        let stop = StopFlag::new();
        let mut watch = StopWatch::new(start, Some(Duration::from_secs(3)), stop.clone());
        assert_eq!(watch.give_up(start + Duration::from_secs(7)), None);
        assert_eq!(
            watch.give_up(start + Duration::from_secs(8)),
            Some((StopCause::TimeLimit(3), start + Duration::from_secs(3)))
        );
        let mut watch = StopWatch::new(start, None, stop.clone());
        assert_eq!(watch.give_up(start + Duration::from_secs(60)), None);
        stop.set();
        let seen = start + Duration::from_secs(61);
        assert_eq!(watch.give_up(seen), None);
        assert_eq!(
            watch.give_up(seen + STALL_GRACE),
            Some((StopCause::Signal, seen))
        );
    }

    #[test]
    fn names_the_stall() {
        let clock = Clock::new();
        let origin = clock.now();
        let beats = heartbeats(3);
        beats[1].beat(clock.now());
        beats[1].unreported(4, 17);
        beats[2].unreported(4, 1000);
        assert_eq!(beats[1].pending(), (4, 17));
        let stall = Stall::measure(StopCause::Signal, &[0, 1], 3, &beats, &clock, origin);
        assert_eq!((stall.stuck, stall.threads, stall.unreported), (2, 3, 17));
        let text = stall.to_string();
        assert!(text.contains("2 of 3 client thread(s)"), "{text}");
        assert!(text.contains("after the stop signal"), "{text}");
    }
}
