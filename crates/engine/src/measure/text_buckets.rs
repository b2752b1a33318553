//! YCSB's `histogram` measurement: 1 ms buckets (`histogram.buckets` of them,
//! then `>N` for the rest), the variance, and the 95th/99th percentile as the
//! lower bound of the bucket that reaches them.
//!
//! The buckets come from the phase's HDR histogram rather than from counters of
//! their own, so the hot path does not change. Below 16.384 ms every HDR bucket
//! lies inside one millisecond, so the counts are exact; above, an HDR bucket
//! (0.1% wide) that straddles a millisecond boundary counts in the bucket of
//! its middle value.

use std::fmt::Write as _;

use super::histogram::TotalHistogram;
use super::measurement_type::MeasurementConfig;
use super::recorder::ReturnCounts;
use super::text::{java_double, write_returns};

/// Counts per 1 ms bucket and the overflow count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buckets {
    pub counts: Vec<u64>,
    pub overflow: u64,
}

/// `h`'s operations in `n` buckets of 1 ms.
pub fn buckets(h: &TotalHistogram, n: u64) -> Buckets {
    let mut counts = vec![0u64; usize::try_from(n).unwrap_or(usize::MAX)];
    let mut overflow = 0;
    for v in h.iter_recorded() {
        let ms = h.median_equivalent(v.value_iterated_to()) / 1000;
        match usize::try_from(ms).ok().and_then(|i| counts.get_mut(i)) {
            Some(c) => *c += v.count_at_value(),
            None => overflow += v.count_at_value(),
        }
    }
    Buckets { counts, overflow }
}

/// A `histogram` section.
pub fn section(
    out: &mut String,
    name: &str,
    h: Option<&TotalHistogram>,
    returns: Option<&ReturnCounts>,
    config: &MeasurementConfig,
) {
    let operations = h.map_or(0, |h| h.len());
    let (mean, variance, min, max) = match h {
        Some(h) if operations > 0 => (h.mean(), h.stdev().powi(2), h.min() as i64, h.max() as i64),
        // YCSB prints NaN and -1 for a measurement without operations.
        _ => (f64::NAN, f64::NAN, -1, -1),
    };
    let b = h.map_or_else(
        || Buckets {
            counts: vec![0; config.buckets as usize],
            overflow: 0,
        },
        |h| buckets(h, config.buckets),
    );
    let _ = writeln!(out, "[{name}], Operations, {operations}");
    let _ = writeln!(out, "[{name}], AverageLatency(us), {}", java_double(mean));
    let _ = writeln!(
        out,
        "[{name}], LatencyVariance(us), {}",
        java_double(variance)
    );
    let _ = writeln!(out, "[{name}], MinLatency(us), {min}");
    let _ = writeln!(out, "[{name}], MaxLatency(us), {max}");
    // As YCSB: walk the buckets; the first whose running share reaches 95% (99%)
    // gives the percentile; nothing is printed if only the overflow reaches it.
    let mut running = 0u64;
    let mut done95 = false;
    for (i, count) in b.counts.iter().enumerate() {
        running += count;
        let share = running as f64 / operations as f64;
        if !done95 && share >= 0.95 {
            let _ = writeln!(out, "[{name}], 95thPercentileLatency(us), {}", i * 1000);
            done95 = true;
        }
        if share >= 0.99 {
            let _ = writeln!(out, "[{name}], 99thPercentileLatency(us), {}", i * 1000);
            break;
        }
    }
    write_returns(out, name, returns);
    if config.verbose {
        for (i, count) in b.counts.iter().enumerate() {
            let _ = writeln!(out, "[{name}], {i}, {count}");
        }
        let _ = writeln!(out, "[{name}], >{}, {}", config.buckets, b.overflow);
    }
}

#[cfg(test)]
mod tests {
    use super::super::histogram::new_total;
    use super::*;

    #[test]
    fn milliseconds_fall_in_their_bucket() {
        let mut h = new_total();
        for v in [0, 999, 1000, 1999, 2500, 16_383, 50_000] {
            h.record(v).unwrap();
        }
        let b = buckets(&h, 20);
        assert_eq!(&b.counts[..4], &[2, 2, 1, 0]);
        assert_eq!(b.counts[16], 1);
        assert_eq!(b.overflow, 1);
        assert_eq!(b.counts.iter().sum::<u64>() + b.overflow, h.len());
    }

    #[test]
    fn percentiles_are_bucket_bounds() {
        let mut h = new_total();
        h.record_n(500, 93).unwrap();
        h.record_n(2_500, 5).unwrap();
        h.record_n(7_000, 2).unwrap();
        let config = MeasurementConfig {
            verbose: true,
            buckets: 5,
            ..MeasurementConfig::default()
        };
        let mut out = String::new();
        section(&mut out, "READ", Some(&h), None, &config);
        assert!(
            out.contains("[READ], 95thPercentileLatency(us), 2000\n"),
            "{out}"
        );
        // 99% is only reached with the 7 ms operations, in the overflow: no line.
        assert!(!out.contains("99thPercentile"), "{out}");
        assert!(
            out.contains("[READ], 0, 93\n[READ], 1, 0\n[READ], 2, 5\n"),
            "{out}"
        );
        assert!(out.ends_with("[READ], >5, 2\n"), "{out}");
    }
}
