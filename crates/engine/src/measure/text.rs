//! The final summary in YCSB's text format (`[SECTION], Name, value` lines), so
//! that existing YCSB parsers read contio's output. Each `measurementtype` is
//! written by its own module (`text_buckets`, `text_series`, `text_raw`); the
//! HDR sections are here.

use std::fmt::Write as _;

use super::collector::Measurements;
use super::histogram::TotalHistogram;
use super::measurement_type::{MeasurementConfig, Part};
use super::operation::{Operation, Slot};
use super::recorder::ReturnCounts;
use super::report::reported_operations;
use super::{text_buckets, text_raw, text_series};
use crate::target::Status;

pub use super::measurement_type::DEFAULT_PERCENTILES;

/// Java's `Double.toString` for the values YCSB prints (always a decimal point).
pub fn java_double(value: f64) -> String {
    format!("{value:?}")
}

/// How YCSB names a percentile line: `95` → `95th`, `91` → `91st`, `12` → `12th`,
/// and a fractional one bare (`99.9` → `99.9`, so `99.9PercentileLatency(us)`).
fn ordinal(p: f64) -> String {
    if p.fract() != 0.0 {
        return java_double(p);
    }
    let n = p as u64;
    let suffix = match (n % 100, n % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// One named measurement of a phase: `READ`, `READ-FAILED`, `Intended-READ`, …
pub struct Named<'a> {
    pub name: String,
    pub histogram: Option<&'a TotalHistogram>,
    /// Return codes, reported under the operation's own name only.
    pub returns: Option<&'a ReturnCounts>,
    /// Index of its series and raw data (`extras`).
    pub index: usize,
}

/// The measurements of a phase in report order: each operation and its failures,
/// then the intended-start ones.
pub fn named_measurements(m: &Measurements) -> Vec<Named<'_>> {
    let ops = reported_operations(m);
    let mut out = Vec::new();
    for op in &ops {
        let ok = Slot {
            operation: *op,
            failed: false,
        };
        out.push(Named {
            name: op.name().to_string(),
            histogram: m.actual[ok.index()].as_ref(),
            // YCSB reports no status for a thread's cleanup.
            returns: (*op != Operation::Cleanup).then(|| &m.returns[op.index()]),
            index: ok.index(),
        });
        let failed = Slot {
            operation: *op,
            failed: true,
        };
        if let Some(h) = m.actual[failed.index()].as_ref() {
            out.push(Named {
                name: failed.name(),
                histogram: Some(h),
                returns: None,
                index: failed.index(),
            });
        }
    }
    for op in &ops {
        for failed in [false, true] {
            let slot = Slot {
                operation: *op,
                failed,
            };
            if let Some(h) = m.intended[slot.index()].as_ref() {
                out.push(Named {
                    name: format!("Intended-{}", slot.name()),
                    histogram: Some(h),
                    returns: None,
                    index: Slot::COUNT + slot.index(),
                });
            }
        }
    }
    out
}

/// `[name], Return=STATUS, n` for every status that occurred.
pub fn write_returns(out: &mut String, name: &str, returns: Option<&ReturnCounts>) {
    if let Some(counts) = returns {
        for status in Status::ALL {
            let n = counts[status.index()];
            if n > 0 {
                let _ = writeln!(out, "[{name}], Return={}, {n}", status.name());
            }
        }
    }
}

/// An `hdrhistogram` section.
fn hdr_section(
    out: &mut String,
    name: &str,
    h: Option<&TotalHistogram>,
    returns: Option<&ReturnCounts>,
    config: &MeasurementConfig,
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
    for p in &config.percentiles {
        let value = h
            .filter(|_| count > 0)
            .map_or(0, |h| h.value_at_percentile(*p));
        let _ = writeln!(
            out,
            "[{name}], {}PercentileLatency(us), {value}",
            ordinal(*p)
        );
    }
    write_returns(out, name, returns);
    if let (true, Some(h)) = (config.verbose, h) {
        // YCSB's verbose HDR lines: each recorded value (its bucket's highest
        // equivalent value) and its count, printed as a double.
        for v in h.iter_recorded() {
            let value = v.value_iterated_to().min(i32::MAX as u64);
            let count = v.count_at_value() as f64;
            let _ = writeln!(out, "[{name}], {value}, {}", java_double(count));
        }
    }
}

/// The whole summary: `[OVERALL]`, then every measurement in the parts its
/// `measurementtype` reports.
pub fn render(
    runtime_ms: f64,
    throughput: f64,
    m: &Measurements,
    config: &MeasurementConfig,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "[OVERALL], RunTime(ms), {}", runtime_ms.round() as u64);
    let _ = writeln!(
        out,
        "[OVERALL], Throughput(ops/sec), {}",
        java_double(throughput)
    );
    for named in named_measurements(m) {
        for (i, (prefix, part)) in config.kind.parts().iter().enumerate() {
            let name = format!("{prefix}{}", named.name);
            let returns = if i == 0 { named.returns } else { None };
            let h = named.histogram;
            match part {
                Part::Hdr => hdr_section(&mut out, &name, h, returns, config),
                Part::Buckets => text_buckets::section(&mut out, &name, h, returns, config),
                Part::Series => {
                    let series = m.extras.series(named.index);
                    text_series::section(&mut out, &name, h, series, returns, config);
                }
                Part::Raw => {
                    let points = m.extras.raw(named.index);
                    text_raw::section(&mut out, &name, points, returns, config);
                }
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
        assert_eq!(ordinal(99.9), "99.9");
        assert_eq!(ordinal(91.0), "91st");
        assert_eq!(ordinal(12.0), "12th");
        assert_eq!(ordinal(53.0), "53rd");
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(9771.3), "9771.3");
    }
}
