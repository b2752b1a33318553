//! The `null` target: every operation succeeds at once. It measures the client.
//!
//! With `null.delay_us` every operation instead takes a fixed service time (a
//! sleep), which gives a target of known latency: to calibrate the client, or
//! to see coordinated omission (under `-target` faster than the target serves,
//! latency from the intended start grows while the actual latency stays at
//! the delay). With `null.delay_random=true` each operation's delay is drawn
//! uniformly below `null.delay_us` instead, in whole multiples of
//! `null.delay_step_us` (default 1): YCSB's BasicDB with `basicdb.simulatedelay=N`
//! (and its default `basicdb.randomizedelay=true`) sleeps a whole number of
//! milliseconds drawn from 0 to N−1, which is `null.delay_us=N000` with
//! `null.delay_step_us=1000`.
//!
//! `null.test_hang_after` is for testing the engine itself: after that many
//! calls every call blocks for good, as a target stuck in a write stall does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::Rng as _;

use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

/// The property giving every operation a service time, in microseconds.
const DELAY_KEY: &str = "null.delay_us";
/// The property making the service time random (uniform below the delay).
const RANDOM_KEY: &str = "null.delay_random";
/// The property making random delays whole multiples of it, in microseconds.
const STEP_KEY: &str = "null.delay_step_us";
/// The longest latency the histograms record (60 s); a longer delay would
/// also keep an interrupted run from stopping for that long.
const MAX_DELAY_US: u64 = 60_000_000;
const DELAY_EXPECTED: &str = "a whole number of microseconds from 0 to 60000000 (60 s)";
/// Test-only: the number of calls after which every call blocks for good (0 = never).
const HANG_KEY: &str = "null.test_hang_after";

/// Registry entry for `null`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: "null",
        summary: "does nothing; measures the client itself (null.delay_us: a service time)",
        properties: &[DELAY_KEY, RANDOM_KEY, STEP_KEY, HANG_KEY],
        open: |props: &Properties| {
            let micros: u64 = props.parse_or(DELAY_KEY, 0, DELAY_EXPECTED)?;
            if micros > MAX_DELAY_US {
                return Err(PropertyError::BadValue {
                    key: DELAY_KEY.into(),
                    value: micros.to_string(),
                    expected: DELAY_EXPECTED.into(),
                }
                .into());
            }
            let random = props.bool_or(RANDOM_KEY, false)?;
            let step_us: u64 =
                props.parse_or(STEP_KEY, 1, "a whole number of microseconds >= 1")?;
            if step_us == 0 {
                return Err(PropertyError::BadValue {
                    key: STEP_KEY.into(),
                    value: "0".into(),
                    expected: "a whole number of microseconds >= 1".into(),
                }
                .into());
            }
            let hang_after: u64 =
                props.parse_or(HANG_KEY, 0, "a whole number of calls (0 = never)")?;
            Ok(match (micros, hang_after) {
                (0, 0) => Box::new(NullDriver),
                (micros, after) => Box::new(DelayedDriver {
                    delay: Duration::from_micros(micros),
                    random,
                    step_us,
                    hang: (after > 0).then(|| Arc::new(HangAfter::new(after))),
                }),
            })
        },
    }
}

struct NullDriver;

impl TargetDriver for NullDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(NullSession))
    }
}

struct NullSession;

impl Session for NullSession {
    fn read(&mut self, _: &str, _: &str, _: Option<&[String]>, out: &mut Record) -> Status {
        out.fields.clear();
        Status::Ok
    }
    fn scan(
        &mut self,
        _: &str,
        _: &str,
        _: usize,
        _: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        out.clear();
        Status::Ok
    }
    fn update(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn insert(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        Status::Ok
    }
}

/// Counts calls over all sessions; past the limit, calls never return.
struct HangAfter {
    limit: u64,
    calls: AtomicU64,
}

impl HangAfter {
    fn new(limit: u64) -> Self {
        Self {
            limit,
            calls: AtomicU64::new(0),
        }
    }

    /// Returns while the limit is not reached; then blocks the calling thread for good.
    fn check(&self) {
        if self.calls.fetch_add(1, Ordering::Relaxed) >= self.limit {
            loop {
                // park() may return spuriously; a stuck target does not.
                std::thread::park();
            }
        }
    }
}

/// `null` with a service time (or a hang): a type of its own so that plain
/// `null` (the client benchmark) keeps its empty calls.
struct DelayedDriver {
    delay: Duration,
    random: bool,
    step_us: u64,
    hang: Option<Arc<HangAfter>>,
}

impl TargetDriver for DelayedDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        // Sessions are opened on the client thread that uses them. The default
        // timer slack (50 µs) would stretch every sleep; 1 µs keeps the service
        // time close to the delay.
        // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong);
        }
        Ok(Box::new(DelayedSession {
            delay: self.delay,
            steps: (self.delay.as_micros() as u64 / self.step_us).max(1),
            step: Duration::from_micros(self.step_us),
            rng: self.random.then(crate::generator::thread_rng),
            hang: self.hang.clone(),
        }))
    }

    fn describe(&self) -> serde_json::Value {
        let mut d = serde_json::json!({
            "delay_us": self.delay.as_micros() as u64,
            "delay_random": self.random,
            "delay_step_us": self.step_us,
        });
        if let Some(h) = &self.hang {
            d["test_hang_after"] = h.limit.into();
        }
        d
    }
}

struct DelayedSession {
    delay: Duration,
    /// Random delays: `step` × a whole number drawn from 0 to `steps` − 1.
    steps: u64,
    step: Duration,
    /// Set when each delay is drawn uniformly below `delay`.
    rng: Option<crate::generator::Rng>,
    hang: Option<Arc<HangAfter>>,
}

impl DelayedSession {
    /// The next call's service time: the delay, or a random whole number of steps below it.
    fn next_delay(&mut self) -> Duration {
        match self.rng.as_mut() {
            Some(rng) => self.step * rng.random_range(0..self.steps) as u32,
            None => self.delay,
        }
    }

    fn serve(&mut self) -> Status {
        if let Some(h) = &self.hang {
            h.check();
        }
        let delay = self.next_delay();
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        Status::Ok
    }
}

impl Session for DelayedSession {
    fn read(&mut self, _: &str, _: &str, _: Option<&[String]>, out: &mut Record) -> Status {
        out.fields.clear();
        self.serve()
    }
    fn scan(
        &mut self,
        _: &str,
        _: &str,
        _: usize,
        _: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        out.clear();
        self.serve()
    }
    fn update(&mut self, _: &str, _: &str, _: &Record) -> Status {
        self.serve()
    }
    fn insert(&mut self, _: &str, _: &str, _: &Record) -> Status {
        self.serve()
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        self.serve()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_delays_are_whole_steps_below_the_delay() {
        // basicdb.simulatedelay=3 as YCSB draws it: 0, 1 or 2 ms.
        let mut session = DelayedSession {
            delay: Duration::from_millis(3),
            steps: 3,
            step: Duration::from_millis(1),
            rng: Some(crate::generator::thread_rng()),
            hang: None,
        };
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..300 {
            seen.insert(session.next_delay().as_micros());
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [0, 1000, 2000]);
        session.rng = None;
        assert_eq!(session.next_delay(), Duration::from_millis(3));
    }
}
