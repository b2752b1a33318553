//! The measurement clock. Two readings per operation are on the hot path, so
//! it reads the CPU's invariant time-stamp counter through `quanta` (a plain
//! `rdtsc`, about half the cost of `clock_gettime` here) and converts only
//! differences to nanoseconds. Without an invariant TSC, quanta falls back to
//! the monotonic clock and the same code works in nanoseconds.

use std::time::Duration;

/// A reading of the clock (opaque units; compare, or convert differences with `Clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tick(u64);

impl Tick {
    /// The reading as a number, to keep in an atomic.
    #[inline]
    pub fn raw(self) -> u64 {
        self.0
    }

    /// A reading kept with `raw`.
    pub fn from_raw(raw: u64) -> Self {
        Self(raw)
    }
}

/// A calibrated clock; clones are cheap and share the calibration.
#[derive(Debug, Clone)]
pub struct Clock {
    inner: quanta::Clock,
    ticks_per_second: f64,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock {
    /// The clock (the first one in a process calibrates the TSC, up to 200 ms).
    pub fn new() -> Self {
        let inner = quanta::Clock::new();
        // Nanoseconds in 2^40 ticks gives the rate to well below 1 ppm.
        let span: u64 = 1 << 40;
        let nanos = inner.delta_as_nanos(1, 1 + span).max(1);
        Self {
            inner,
            ticks_per_second: span as f64 * 1e9 / nanos as f64,
        }
    }

    /// Now.
    #[inline]
    pub fn now(&self) -> Tick {
        Tick(self.inner.raw())
    }

    /// Nanoseconds from `start` to `end` (0 if `end` is not later).
    #[inline]
    pub fn nanos_between(&self, start: Tick, end: Tick) -> u64 {
        self.inner.delta_as_nanos(start.0, end.0)
    }

    /// Whole microseconds from `start` to `end` (YCSB truncates the same way).
    #[inline]
    pub fn micros_between(&self, start: Tick, end: Tick) -> u64 {
        self.nanos_between(start, end) / 1000
    }

    /// The time from `start` to `end`.
    pub fn duration_between(&self, start: Tick, end: Tick) -> Duration {
        Duration::from_nanos(self.nanos_between(start, end))
    }

    /// The tick `d` after `t`.
    #[inline]
    pub fn after(&self, t: Tick, d: Duration) -> Tick {
        Tick(t.0.saturating_add((d.as_secs_f64() * self.ticks_per_second) as u64))
    }

    /// The tick `seconds` after `t` (fractional seconds; for throttling schedules).
    #[inline]
    pub fn after_secs(&self, t: Tick, seconds: f64) -> Tick {
        Tick(t.0.saturating_add((seconds * self.ticks_per_second) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_sleep() {
        let clock = Clock::new();
        let start = clock.now();
        std::thread::sleep(Duration::from_millis(20));
        let end = clock.now();
        let nanos = clock.nanos_between(start, end);
        assert!(nanos >= 19_000_000, "{nanos}");
        assert_eq!(clock.nanos_between(end, start), 0);
        let later = clock.after(start, Duration::from_millis(20));
        assert!(later <= end && later > start);
    }
}
