//! The device-wide caps of a slow device: token buckets kept as virtual clocks.
//!
//! Each cap (bytes/s or requests/s, for reads, writes or both) is a clock that says
//! when the device will have finished the work already handed to it. A request is
//! charged on every clock that applies to it: it starts when the clock is free (or
//! now, if that is later) and ends its cost later; the request completes when the last
//! of its clocks does. Requests queue behind each other in arrival order, whoever sends
//! them, as on one disk: two readers of a 50 MB/s device get 50 MB/s between them.
//!
//! An idle device does not bank its unused time, except for `slack`: a request that
//! arrives within `slack` of the clock may start where the clock stands. That forgives
//! the time between one reply and the next request of a single sequential reader (tens
//! of microseconds on an idle machine, milliseconds when its CPUs are oversubscribed;
//! otherwise lost on every request), and lets a burst of at most `slack × rate` through
//! after an idle spell (100 KB at 10 MB/s): over any second the rate stays within 1 %
//! of the cap.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Which way a request moves data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
}

/// The caps of a device; `None` leaves a cap unset. Rates per second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Bytes/s of reads and writes together.
    pub bandwidth: Option<u64>,
    /// Bytes/s of reads.
    pub read_bps: Option<u64>,
    /// Bytes/s of writes.
    pub write_bps: Option<u64>,
    /// Requests/s of reads and writes together.
    pub iops: Option<u64>,
    /// Read requests/s.
    pub read_iops: Option<u64>,
    /// Write requests/s.
    pub write_iops: Option<u64>,
}

impl Limits {
    /// Whether no cap is set (the device would not be slow).
    pub fn is_empty(&self) -> bool {
        *self == Limits::default()
    }

    /// The caps as `(name, value)` pairs, unset ones left out (for messages and JSON).
    pub fn set(&self) -> Vec<(&'static str, u64)> {
        [
            ("bandwidth", self.bandwidth),
            ("read_bps", self.read_bps),
            ("write_bps", self.write_bps),
            ("iops", self.iops),
            ("read_iops", self.read_iops),
            ("write_iops", self.write_iops),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.map(|v| (name, v)))
        .collect()
    }
}

/// Default forgiveness of idle time (see the module documentation).
pub const DEFAULT_SLACK: Duration = Duration::from_millis(10);

/// One cap: seconds per unit, and when the work charged so far is done.
#[derive(Debug, Clone, Copy)]
struct Clock {
    seconds_per_unit: f64,
    free_at: Instant,
}

impl Clock {
    fn new(rate: u64, origin: Instant) -> Clock {
        Clock {
            seconds_per_unit: 1.0 / rate.max(1) as f64,
            free_at: origin,
        }
    }

    /// Charges `units` arriving at `now`; returns when they are done.
    fn charge(&mut self, units: u64, now: Instant, slack: Duration) -> Instant {
        let earliest = now.checked_sub(slack).unwrap_or(now);
        let start = self.free_at.max(earliest);
        self.free_at = start + Duration::from_secs_f64(units as f64 * self.seconds_per_unit);
        self.free_at
    }
}

/// Clock slots, in the order of `Limits::set`'s names.
const BANDWIDTH: usize = 0;
const READ_BPS: usize = 1;
const WRITE_BPS: usize = 2;
const IOPS: usize = 3;
const READ_IOPS: usize = 4;
const WRITE_IOPS: usize = 5;

/// The device's clocks, shared by every thread that serves requests.
#[derive(Debug)]
pub struct Pacer {
    clocks: Mutex<[Option<Clock>; 6]>,
    slack: Duration,
}

impl Pacer {
    /// A pacer for `limits`, its clocks free from `origin` on.
    pub fn new(limits: Limits, slack: Duration, origin: Instant) -> Pacer {
        let clock = |rate: Option<u64>| rate.map(|r| Clock::new(r, origin));
        Pacer {
            clocks: Mutex::new([
                clock(limits.bandwidth),
                clock(limits.read_bps),
                clock(limits.write_bps),
                clock(limits.iops),
                clock(limits.read_iops),
                clock(limits.write_iops),
            ]),
            slack,
        }
    }

    /// Charges a request of `bytes` arriving at `now` on every cap that applies;
    /// returns the instant it may complete (`now` when no cap applies).
    pub fn reserve(&self, direction: Direction, bytes: u64, now: Instant) -> Instant {
        let (bps, iops) = match direction {
            Direction::Read => (READ_BPS, READ_IOPS),
            Direction::Write => (WRITE_BPS, WRITE_IOPS),
        };
        let charges = [(BANDWIDTH, bytes), (bps, bytes), (IOPS, 1), (iops, 1)];
        // A poisoned lock only means another thread panicked mid-reply; the clocks
        // themselves are always consistent (each charge is one assignment).
        let mut clocks = self.clocks.lock().unwrap_or_else(|e| e.into_inner());
        let mut done = now;
        for (slot, units) in charges {
            if let Some(clock) = clocks[slot].as_mut() {
                done = done.max(clock.charge(units, now, self.slack));
            }
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1_000_000;

    fn secs(d: Duration) -> f64 {
        d.as_secs_f64()
    }

    #[test]
    fn back_to_back_requests_complete_at_the_capped_rate() {
        let t0 = Instant::now();
        let pacer = Pacer::new(
            Limits {
                bandwidth: Some(10 * MB),
                ..Limits::default()
            },
            Duration::ZERO,
            t0,
        );
        let mut last = t0;
        for _ in 0..10 {
            last = pacer.reserve(Direction::Read, MB, t0);
        }
        assert!((secs(last - t0) - 1.0).abs() < 1e-6, "{:?}", last - t0);
    }

    #[test]
    fn a_shared_cap_is_shared_by_reads_and_writes() {
        let t0 = Instant::now();
        let pacer = Pacer::new(
            Limits {
                bandwidth: Some(MB),
                ..Limits::default()
            },
            Duration::ZERO,
            t0,
        );
        pacer.reserve(Direction::Read, MB / 2, t0);
        let write = pacer.reserve(Direction::Write, MB / 2, t0);
        assert!((secs(write - t0) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn read_and_write_caps_are_independent() {
        let t0 = Instant::now();
        let pacer = Pacer::new(
            Limits {
                read_bps: Some(MB),
                write_bps: Some(2 * MB),
                ..Limits::default()
            },
            Duration::ZERO,
            t0,
        );
        let read = pacer.reserve(Direction::Read, MB, t0);
        let write = pacer.reserve(Direction::Write, MB, t0);
        assert!((secs(read - t0) - 1.0).abs() < 1e-6);
        assert!((secs(write - t0) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn the_slowest_applicable_cap_decides() {
        let t0 = Instant::now();
        let pacer = Pacer::new(
            Limits {
                bandwidth: Some(100 * MB),
                read_iops: Some(100),
                ..Limits::default()
            },
            Duration::ZERO,
            t0,
        );
        // 4 KiB reads: the 100 IOPS cap, not the bandwidth, sets the pace.
        let mut last = t0;
        for _ in 0..100 {
            last = pacer.reserve(Direction::Read, 4096, t0);
        }
        assert!((secs(last - t0) - 1.0).abs() < 1e-6);
        // Writes have no IOPS cap: only the bandwidth clock, far ahead of them.
        let write = pacer.reserve(Direction::Write, 4096, t0);
        assert!(secs(write - t0) < 0.01);
    }

    #[test]
    fn idle_time_is_not_banked_beyond_the_slack() {
        let t0 = Instant::now();
        let slack = Duration::from_millis(2);
        let pacer = Pacer::new(
            Limits {
                bandwidth: Some(MB),
                ..Limits::default()
            },
            slack,
            t0,
        );
        // After 10 s of idleness a 1 MB request still takes (nearly) a second.
        let later = t0 + Duration::from_secs(10);
        let done = pacer.reserve(Direction::Write, MB, later);
        assert!((secs(done - later) - (1.0 - secs(slack))).abs() < 1e-6);
        // A request arriving just after the previous one finished starts where it ended.
        let next_arrival = done + Duration::from_micros(50);
        let next = pacer.reserve(Direction::Write, MB, next_arrival);
        assert!((secs(next - done) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn no_cap_completes_at_once() {
        let t0 = Instant::now();
        let pacer = Pacer::new(Limits::default(), DEFAULT_SLACK, t0);
        assert_eq!(pacer.reserve(Direction::Read, 1 << 20, t0), t0);
        assert!(Limits::default().is_empty());
    }

    #[test]
    fn set_lists_only_the_caps_given() {
        let limits = Limits {
            write_bps: Some(5),
            iops: Some(7),
            ..Limits::default()
        };
        assert_eq!(limits.set(), vec![("write_bps", 5), ("iops", 7)]);
    }
}
