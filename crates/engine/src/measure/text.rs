//! The final summary in YCSB's text format (`[SECTION], Name, value` lines), so
//! that existing YCSB parsers read contio's output.

use std::fmt::Write as _;

use super::collector::Measurements;
use super::histogram::TotalHistogram;
use super::operation::Slot;
use super::report::reported_operations;
use crate::target::Status;

/// YCSB's default `hdrhistogram.percentiles`.
pub const DEFAULT_PERCENTILES: [f64; 2] = [95.0, 99.0];

/// Java's `Double.toString` for the values YCSB prints (always a decimal point).
pub fn java_double(value: f64) -> String {
    format!("{value:?}")
}

/// `95` → `95th`, `99.9` → `99.9th`, as YCSB names percentile lines.
fn ordinal(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{}th", p as u64)
    } else {
        format!("{p}th")
    }
}

fn section(
    out: &mut String,
    name: &str,
    h: Option<&TotalHistogram>,
    returns: Option<&[u64]>,
    percentiles: &[f64],
) {
    let count = h.map_or(0, |h| h.len());
    let _ = writeln!(out, "[{name}], Operations, {count}");
    let (mean, min, max) = match h {
        Some(h) if count > 0 => (h.mean(), h.min(), h.max()),
        // YCSB prints NaN/extremes for empty measurements; zeros parse everywhere.
        _ => (0.0, 0, 0),
    };
    let _ = writeln!(out, "[{name}], AverageLatency(us), {}", java_double(mean));
    let _ = writeln!(out, "[{name}], MinLatency(us), {min}");
    let _ = writeln!(out, "[{name}], MaxLatency(us), {max}");
    for p in percentiles {
        let value = h
            .filter(|_| count > 0)
            .map_or(0, |h| h.value_at_percentile(*p));
        let _ = writeln!(
            out,
            "[{name}], {}PercentileLatency(us), {value}",
            ordinal(*p)
        );
    }
    if let Some(counts) = returns {
        for status in Status::ALL {
            let n = counts[status.index()];
            if n > 0 {
                let _ = writeln!(out, "[{name}], Return={}, {n}", status.name());
            }
        }
    }
}

/// The whole summary: `[OVERALL]` then each operation, its failures, then the
/// intended-start (`Intended-READ`) sections when present.
pub fn render(runtime_ms: f64, throughput: f64, m: &Measurements, percentiles: &[f64]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "[OVERALL], RunTime(ms), {}", runtime_ms.round() as u64);
    let _ = writeln!(
        out,
        "[OVERALL], Throughput(ops/sec), {}",
        java_double(throughput)
    );
    let ops = reported_operations(m);
    for op in &ops {
        let ok = Slot {
            operation: *op,
            failed: false,
        };
        let failed = Slot {
            operation: *op,
            failed: true,
        };
        section(
            &mut out,
            op.name(),
            m.actual[ok.index()].as_ref(),
            Some(&m.returns[op.index()]),
            percentiles,
        );
        if let Some(h) = m.actual[failed.index()].as_ref() {
            section(&mut out, &failed.name(), Some(h), None, percentiles);
        }
    }
    for op in &ops {
        for failed in [false, true] {
            let slot = Slot {
                operation: *op,
                failed,
            };
            if let Some(h) = m.intended[slot.index()].as_ref() {
                section(
                    &mut out,
                    &format!("Intended-{}", slot.name()),
                    Some(h),
                    None,
                    percentiles,
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_and_doubles() {
        assert_eq!(ordinal(95.0), "95th");
        assert_eq!(ordinal(99.9), "99.9th");
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(9771.3), "9771.3");
    }
}
