//! The final summary in YCSB's text format (`[SECTION], Name, value` lines), so
//! that existing YCSB parsers read contio's output. Each `measurementtype` is
//! written by its own module (`text_buckets`, `text_series`, `text_raw`); the
//! HDR sections are here.

use std::fmt::Write as _;

use super::collector::Measurements;
use super::histogram::TotalHistogram;
use super::measurement_type::{MeasurementConfig, MeasurementInterval, Part};
use super::operation::{Operation, Slot};
use super::recorder::ReturnCounts;
use super::report::reported_operations;
use super::{text_buckets, text_raw, text_series};
use crate::target::Status;

pub use super::measurement_type::DEFAULT_PERCENTILES;

/// Java's `Double.toString`, as YCSB prints every double of the summary.
pub fn java_double(value: f64) -> String {
    super::java_format::double_to_string(value)
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

/// The measurements of a phase in report order, as `measurement.interval`
/// shows them: each operation and its failures (latency from the actual start),
/// then the intended-start ones (`Intended-READ`; with `intended` alone they take
/// the operation's own name and its return codes, as YCSB reports them).
pub fn named_measurements(m: &Measurements, interval: MeasurementInterval) -> Vec<Named<'_>> {
    let ops = reported_operations(m);
    // YCSB reports no status for a thread's cleanup.
    let returns = |op: Operation| (op != Operation::Cleanup).then(|| &m.returns[op.index()]);
    let mut out = Vec::new();
    if interval.shows_actual() {
        for op in &ops {
            for failed in [false, true] {
                let slot = Slot {
                    operation: *op,
                    failed,
                };
                let histogram = m.actual[slot.index()].as_ref();
                if failed && histogram.is_none() {
                    continue;
                }
                out.push(Named {
                    name: slot.name(),
                    histogram,
                    returns: if failed { None } else { returns(*op) },
                    index: slot.index(),
                });
            }
        }
    }
    if interval.shows_intended() {
        let alone = !interval.shows_actual();
        for op in &ops {
            for failed in [false, true] {
                let slot = Slot {
                    operation: *op,
                    failed,
                };
                let histogram = m.intended[slot.index()].as_ref();
                // Alone, the operation's own name is always there (it holds the returns).
                if histogram.is_none() && (failed || !alone) {
                    continue;
                }
                out.push(Named {
                    name: interval.intended_name(&slot.name()),
                    histogram,
                    returns: if alone && !failed { returns(*op) } else { None },
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
    for named in named_measurements(m, config.interval) {
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
        // Rust's `{:?}` prints these as 5e-5 and 10000000.0.
        assert_eq!(java_double(5e-5), "5.0E-5");
        assert_eq!(java_double(1e7), "1.0E7");
    }

    fn measured() -> Measurements {
        let mut m = Measurements::empty();
        let read = Slot {
            operation: Operation::Read,
            failed: false,
        }
        .index();
        let mut op = super::super::histogram::new_total();
        op.record_n(200, 10).unwrap();
        let mut intended = super::super::histogram::new_total();
        intended.record_n(1_900, 10).unwrap();
        m.actual[read] = Some(op);
        m.intended[read] = Some(intended);
        m.returns[Operation::Read.index()][Status::Ok.index()] = 10;
        m
    }

    #[test]
    fn each_interval_reports_as_ycsb() {
        let m = measured();
        let text = |interval| {
            let config = MeasurementConfig {
                interval,
                ..MeasurementConfig::default()
            };
            render(1.0, 1.0, &m, &config)
        };
        let op = text(MeasurementInterval::Op);
        assert!(op.contains("[READ], AverageLatency(us), 200.0\n"), "{op}");
        assert!(!op.contains("Intended"), "{op}");
        let intended = text(MeasurementInterval::Intended);
        assert!(
            intended.contains("[READ], AverageLatency(us), 1900.0\n"),
            "{intended}"
        );
        assert!(intended.contains("[READ], Return=OK, 10\n"), "{intended}");
        assert!(!intended.contains("Intended"), "{intended}");
        let both = text(MeasurementInterval::Both);
        assert!(
            both.contains("[READ], AverageLatency(us), 200.0\n"),
            "{both}"
        );
        assert!(
            both.contains("[Intended-READ], AverageLatency(us), 1900.0\n"),
            "{both}"
        );
        assert!(!both.contains("[Intended-READ], Return"), "{both}");
    }
}
