//! HDR histograms of latencies in microseconds, 1 µs to 60 s, 3 significant digits
//! (YCSB's `hdrhistogram` measurement), and what is reported from them.

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest latency tracked, µs (60 s); longer ones are recorded as 60 s.
pub const HIGHEST_US: u64 = 60_000_000;
/// Significant decimal digits kept.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// A thread's histogram for one interval (u32 counts halve its memory; one second
/// cannot hold 2^32 operations). It starts small and grows to the largest
/// latency recorded, so hundreds of threads cost little memory (a histogram
/// covering 60 s is 70 kB; one covering 2 ms is 8 kB).
pub type IntervalHistogram = Histogram<u32>;

/// The range an interval histogram covers before it first grows, µs.
const INTERVAL_INITIAL_HIGHEST_US: u64 = 2;
/// A whole phase's histogram.
pub type TotalHistogram = Histogram<u64>;

/// A new empty interval histogram (growing as needed up to `HIGHEST_US`).
pub fn new_interval() -> IntervalHistogram {
    let mut h = Histogram::new_with_bounds(1, INTERVAL_INITIAL_HIGHEST_US, SIGNIFICANT_DIGITS)
        .unwrap_or_else(|e| unreachable!("constant histogram bounds rejected: {e:?}"));
    h.auto(true);
    h
}

/// Records `micros` into an interval histogram, clamped to `HIGHEST_US`.
#[inline]
pub fn record_interval(h: &mut IntervalHistogram, micros: u64) {
    // Growing only fails when the size overflows usize, impossible below HIGHEST_US.
    let _ = h.record(micros.min(HIGHEST_US));
}

/// A new empty phase histogram.
pub fn new_total() -> TotalHistogram {
    new_with_bounds()
}

fn new_with_bounds<T: hdrhistogram::Counter>() -> Histogram<T> {
    // The bounds are constants that hdrhistogram accepts; a failure would be a bug here.
    Histogram::new_with_bounds(1, HIGHEST_US, SIGNIFICANT_DIGITS)
        .unwrap_or_else(|e| unreachable!("constant histogram bounds rejected: {e:?}"))
}

/// Adds an interval histogram into a phase histogram (only the non-empty buckets).
pub fn add_interval(total: &mut TotalHistogram, interval: &IntervalHistogram) {
    for bucket in interval.iter_recorded() {
        total.saturating_record_n(
            bucket.value_iterated_to(),
            u64::from(bucket.count_at_value()),
        );
    }
}

/// The latency figures reported per operation type; integers in µs except `mean`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
    pub p999: u64,
}

impl LatencyStats {
    /// The figures of `h` (all zero when empty).
    pub fn of<T: hdrhistogram::Counter>(h: &Histogram<T>) -> Self {
        if h.is_empty() {
            return Self::default();
        }
        Self {
            min: h.min(),
            mean: h.mean(),
            max: h.max(),
            p50: h.value_at_quantile(0.50),
            p95: h.value_at_quantile(0.95),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
        }
    }
}

/// The histogram as HdrHistogram V2 compressed bytes, base64 (`HISTF…`), readable by
/// every HdrHistogram implementation.
pub fn encode_base64(h: &TotalHistogram) -> String {
    let mut bytes = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut bytes) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(bytes),
        // Serialising into memory only fails on internal limits; the summary still stands.
        Err(_) => String::new(),
    }
}

/// Decodes `encode_base64`'s output (for tests and tools).
pub fn decode_base64(text: &str) -> Option<TotalHistogram> {
    use hdrhistogram::serialization::Deserializer;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()?;
    Deserializer::new().deserialize(&mut bytes.as_slice()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_adds_into_total_and_round_trips() {
        let mut i = new_interval();
        for v in [1u64, 5, 100, 100, 2_000, 90_000_000] {
            record_interval(&mut i, v);
        }
        let mut t = new_total();
        add_interval(&mut t, &i);
        assert_eq!(t.len(), 6);
        let s = LatencyStats::of(&t);
        assert_eq!(s.min, 1);
        assert!(
            s.max >= HIGHEST_US && s.max <= HIGHEST_US + HIGHEST_US / 1000,
            "{}",
            s.max
        );
        let back = decode_base64(&encode_base64(&t)).unwrap();
        assert_eq!(back.len(), 6);
        assert_eq!(back.value_at_quantile(0.5), t.value_at_quantile(0.5));
    }
}
