//! Keys in order, wrapping at the end, as YCSB's `SequentialGenerator`.
//!
//! YCSB's workload holds one sequential generator for all client threads, so
//! together they walk the range once before wrapping; the position is shared
//! here too (an atomic, touched only when this distribution is chosen).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::{Generator, Rng};

/// `start, start+1, …, end, start, …` shared by every clone.
#[derive(Debug, Clone)]
pub struct Sequential {
    start: u64,
    interval: u64,
    position: Arc<AtomicU64>,
}

impl Sequential {
    /// The sequence over `[start, end]`.
    pub fn new(start: u64, end: u64) -> Self {
        let (start, end) = (start.min(end), start.max(end));
        Self {
            start,
            interval: end - start + 1,
            position: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl Generator for Sequential {
    #[inline]
    fn next_value(&mut self, _rng: &mut Rng) -> u64 {
        self.start + self.position.fetch_add(1, Ordering::Relaxed) % self.interval
    }
}
