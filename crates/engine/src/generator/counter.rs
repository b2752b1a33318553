//! Shared key counters: the load-phase key sequence and the run-phase insert
//! sequence, as YCSB's `CounterGenerator` and `AcknowledgedCounterGenerator`.
//!
//! Both are shared by every client thread (an atomic per insert; reads and
//! updates never touch them unless the workload also inserts).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// A shared counter: `next` hands out `start, start+1, …` across threads.
#[derive(Debug)]
pub struct Counter {
    next: AtomicU64,
}

impl Counter {
    /// A counter whose first value is `start`.
    pub fn new(start: u64) -> Self {
        Self {
            next: AtomicU64::new(start),
        }
    }

    /// The next value (unique across threads).
    #[inline]
    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// The last value handed out (start − 1 before the first).
    pub fn last(&self) -> u64 {
        self.next.load(Ordering::Relaxed).wrapping_sub(1)
    }
}

/// Insert keys in flight at once before `acknowledge` reports an overflow (YCSB's window).
pub const WINDOW: u64 = 1 << 20;

/// A counter whose `last` only moves past values that were acknowledged in
/// order, so readers never choose a key whose insert has not completed.
#[derive(Debug)]
pub struct AcknowledgedCounter {
    counter: Counter,
    limit: AtomicU64,
    window: Vec<AtomicBool>,
    advancing: Mutex<()>,
}

/// More than `WINDOW` inserts were outstanding: `last` can no longer advance correctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowOverflow;

impl AcknowledgedCounter {
    /// First value `start`; `last` is start − 1 until `start` is acknowledged.
    pub fn new(start: u64) -> Self {
        Self {
            counter: Counter::new(start),
            limit: AtomicU64::new(start.wrapping_sub(1)),
            window: (0..WINDOW).map(|_| AtomicBool::new(false)).collect(),
            advancing: Mutex::new(()),
        }
    }

    /// The next key to insert.
    #[inline]
    pub fn next(&self) -> u64 {
        self.counter.next()
    }

    /// The highest value below which every value has been acknowledged.
    #[inline]
    pub fn last(&self) -> u64 {
        self.limit.load(Ordering::Acquire)
    }

    /// Marks `value` as inserted; advances `last` over every contiguous acknowledged value.
    pub fn acknowledge(&self, value: u64) -> Result<(), WindowOverflow> {
        let slot = (value % WINDOW) as usize;
        if self.window[slot].swap(true, Ordering::AcqRel) {
            return Err(WindowOverflow);
        }
        // One thread advances at a time; the others' acknowledgements are picked up by it
        // (or by the next acknowledger), exactly as in YCSB's try-lock design.
        if let Ok(_guard) = self.advancing.try_lock() {
            let mut limit = self.limit.load(Ordering::Acquire);
            loop {
                let next = limit.wrapping_add(1);
                let next_slot = (next % WINDOW) as usize;
                if !self.window[next_slot].swap(false, Ordering::AcqRel) {
                    break;
                }
                limit = next;
            }
            self.limit.store(limit, Ordering::Release);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_waits_for_gaps() {
        let c = AcknowledgedCounter::new(10);
        assert_eq!(c.last(), 9);
        let (a, b) = (c.next(), c.next());
        assert_eq!((a, b), (10, 11));
        c.acknowledge(b).unwrap();
        assert_eq!(c.last(), 9, "11 is acknowledged but 10 is not");
        c.acknowledge(a).unwrap();
        assert_eq!(c.last(), 11);
    }

    #[test]
    fn counter_is_shared() {
        let c = Counter::new(5);
        assert_eq!(c.last(), 4);
        assert_eq!(c.next(), 5);
        assert_eq!(c.last(), 5);
    }
}
