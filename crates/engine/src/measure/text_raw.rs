//! YCSB's `raw` measurement: every operation's latency, written as
//! `READ,<end time, ms since the epoch>,<latency, µs>` lines under a
//! `READ latency raw data: …` header (to stdout, or appended to
//! `measurement.raw.output_file`), and a section with the operation count and,
//! unless `measurement.raw.no_summary`, exact statistics of those latencies.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use super::extras::RawPoint;
use super::measurement_type::{MeasurementConfig, Part};
use super::recorder::ReturnCounts;
use super::text::{java_double, named_measurements, write_returns};
use super::Measurements;

/// The quantiles YCSB prints, with their line names.
const QUANTILES: [(&str, f64); 8] = [
    ("p1", 0.01),
    ("p5", 0.05),
    ("p50", 0.5),
    ("p90", 0.9),
    ("p95", 0.95),
    ("p99", 0.99),
    ("p99.9", 0.999),
    ("p99.99", 0.9999),
];

/// A `raw` section.
pub fn section(
    out: &mut String,
    name: &str,
    points: &[RawPoint],
    returns: Option<&ReturnCounts>,
    config: &MeasurementConfig,
) {
    let n = points.len();
    let _ = writeln!(out, "[{name}], Total Operations, {n}");
    if n > 0 && !config.raw_no_summary {
        let mut sorted: Vec<u32> = points.iter().map(|p| p.latency_us).collect();
        sorted.sort_unstable();
        let sum: u64 = sorted.iter().map(|&v| u64::from(v)).sum();
        let _ = writeln!(
            out,
            "[{name}], Below is a summary of latency in microseconds:, -1"
        );
        let _ = writeln!(
            out,
            "[{name}], Average, {}",
            java_double(sum as f64 / n as f64)
        );
        let _ = writeln!(out, "[{name}], Min, {}", sorted[0]);
        let _ = writeln!(out, "[{name}], Max, {}", sorted[n - 1]);
        for (label, q) in QUANTILES {
            // YCSB's rank: the value at index ⌊n·q⌋ of the sorted latencies.
            let index = ((n as f64 * q) as usize).min(n - 1);
            let _ = writeln!(out, "[{name}], {label}, {}", sorted[index]);
        }
    }
    write_returns(out, name, returns);
}

/// The raw data of every raw measurement: a header line per measurement, then
/// one line per operation. `started_ms` is the phase start, ms since the epoch.
pub fn data_lines(m: &Measurements, config: &MeasurementConfig, started_ms: u64) -> String {
    let mut out = String::new();
    for named in named_measurements(m, config.interval) {
        for (prefix, part) in config.kind.parts() {
            if *part != Part::Raw {
                continue;
            }
            let name = format!("{prefix}{}", named.name);
            let _ = writeln!(
                out,
                "{name} latency raw data: op, timestamp(ms), latency(us)"
            );
            for p in m.extras.raw(named.index) {
                let at = started_ms + u64::from(p.offset_ms);
                let _ = writeln!(out, "{name},{at},{}", p.latency_us);
            }
        }
    }
    out
}

/// The line YCSB prints on stdout for each raw measurement, saying where its data goes.
pub fn destination_lines(m: &Measurements, config: &MeasurementConfig) -> String {
    if !config.kind.keeps_raw() {
        return String::new();
    }
    let line = match &config.raw_output {
        Some(path) => format!(
            "Raw data measurement: will output to result file: {}\n",
            path.display()
        ),
        None => "Raw data measurement: will output to stdout.\n".to_string(),
    };
    line.repeat(named_measurements(m, config.interval).len())
}

/// Appends the raw data to `path` (created if missing), as YCSB does.
pub fn append_to(path: &Path, data: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(data.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_uses_ycsb_ranks() {
        let points: Vec<RawPoint> = (1..=200)
            .map(|v| RawPoint {
                offset_ms: v,
                latency_us: v,
            })
            .collect();
        let mut out = String::new();
        section(
            &mut out,
            "READ",
            &points,
            None,
            &MeasurementConfig::default(),
        );
        assert!(out.starts_with("[READ], Total Operations, 200\n"), "{out}");
        assert!(out.contains("[READ], Average, 100.5\n"), "{out}");
        assert!(
            out.contains("[READ], p1, 3\n[READ], p5, 11\n[READ], p50, 101\n"),
            "{out}"
        );
        assert!(out.contains("[READ], p99.99, 200\n"), "{out}");
        let quiet = MeasurementConfig {
            raw_no_summary: true,
            ..MeasurementConfig::default()
        };
        let mut out = String::new();
        section(&mut out, "READ", &points, None, &quiet);
        assert_eq!(out, "[READ], Total Operations, 200\n");
    }
}
