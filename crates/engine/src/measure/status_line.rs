//! Periodic status lines in YCSB's format, for people watching a run:
//! `2026-11-22 22:30:10:123 10 sec: 123456 operations; 12345.67 current ops/sec; est completion in 5 seconds [READ: Count=…, Max=…, Min=…, Avg=…, 90=…, 99=…, 99.9=…, 99.99=…]`
//!
//! Each measurement is summarised as its `measurementtype` does in YCSB:
//! `[READ: Count=…]` (hdrhistogram), `[READ AverageLatency(us)=…]` (histogram,
//! timeseries), `READ count: N, average latency(us): X.XX` (raw); the parts of
//! a two-in-one type are joined by a line break, as YCSB joins them.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use super::collector::StatusWindow;
use super::histogram::IntervalHistogram;
use super::measurement_type::{MeasurementInterval, MeasurementType, Part};

/// Java's `DecimalFormat("#.##")`: at most two decimals, no trailing zeros.
pub fn format_decimal2(value: f64) -> String {
    super::java_format::decimal_format_2(value)
}

/// YCSB's timestamp: `yyyy-MM-dd HH:mm:ss:SSS` (UTC here).
pub fn timestamp(now: SystemTime) -> String {
    let iso = humantime::format_rfc3339_millis(now).to_string();
    // "2026-11-22T22:30:10.123Z" → "2026-11-22 22:30:10:123"
    iso.trim_end_matches('Z')
        .replacen('T', " ", 1)
        .replacen('.', ":", 1)
}

/// YCSB's remaining-time wording (`est completion in 1 hour 2 minutes`).
pub fn format_remaining(remaining: Duration) -> String {
    let mut secs = remaining.as_secs();
    let units = [("day", 86_400u64), ("hour", 3_600), ("minute", 60)];
    let mut parts = Vec::new();
    for (name, size) in units {
        if secs >= size {
            let n = secs / size;
            secs %= size;
            parts.push(format!("{n} {name}{}", if n == 1 { "" } else { "s" }));
        }
    }
    if parts.is_empty() || secs > 0 {
        parts.push(format!("{secs} second{}", if secs == 1 { "" } else { "s" }));
    }
    parts.join(" ")
}

/// Everything one status line says.
pub struct StatusInput<'a> {
    pub now: SystemTime,
    pub elapsed: Duration,
    pub total_operations: u64,
    /// Operations the phase will do in all (0 = unknown/unlimited).
    pub planned_operations: u64,
    pub window_duration: Duration,
    pub window: &'a StatusWindow,
    /// `measurementtype`: how each measurement is summarised.
    pub kind: MeasurementType,
    /// `measurement.interval`: which latencies are shown.
    pub interval: MeasurementInterval,
    /// `-l LABEL`: printed before the timestamp.
    pub label: &'a str,
}

/// One part of one measurement's summary.
fn part_summary(part: Part, name: &str, h: &IntervalHistogram) -> String {
    match part {
        Part::Hdr => format!(
            "[{name}: Count={}, Max={}, Min={}, Avg={}, 90={}, 99={}, 99.9={}, 99.99={}]",
            h.len(),
            h.max(),
            h.min(),
            format_decimal2(h.mean()),
            h.value_at_quantile(0.90),
            h.value_at_quantile(0.99),
            h.value_at_quantile(0.999),
            h.value_at_quantile(0.9999)
        ),
        Part::Buckets | Part::Series => {
            format!("[{name} AverageLatency(us)={}]", format_decimal2(h.mean()))
        }
        Part::Raw => format!(
            "{name} count: {}, average latency(us): {}",
            h.len(),
            super::java_format::format_2f(h.mean())
        ),
    }
}

/// The status line (without newline).
pub fn format(input: &StatusInput<'_>) -> String {
    let mut line = format!(
        "{}{} {} sec: {} operations; ",
        input.label,
        timestamp(input.now),
        input.elapsed.as_secs(),
        input.total_operations
    );
    if input.total_operations > 0 {
        let secs = input.window_duration.as_secs_f64().max(1e-9);
        let rate = input.window.operations as f64 / secs;
        let _ = write!(line, "{} current ops/sec; ", format_decimal2(rate));
    }
    if input.planned_operations > input.total_operations && input.total_operations > 0 {
        let per_op = input.elapsed.as_secs_f64() / input.total_operations as f64;
        let left = (input.planned_operations - input.total_operations) as f64 * per_op;
        let _ = write!(
            line,
            "est completion in {} ",
            format_remaining(Duration::from_secs_f64(left))
        );
    }
    for (name, h) in input.window.shown(input.interval) {
        if h.is_empty() {
            continue;
        }
        let parts: Vec<String> = input
            .kind
            .parts()
            .iter()
            .map(|(prefix, part)| part_summary(*part, &format!("{prefix}{name}"), h))
            .collect();
        let _ = write!(line, "{} ", parts.join("\n"));
    }
    line.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_format_matches_java() {
        assert_eq!(format_decimal2(1234.5), "1234.5");
        assert_eq!(format_decimal2(1234.0), "1234");
        assert_eq!(format_decimal2(0.333), "0.33");
        assert_eq!(format_decimal2(0.0), "0");
    }

    #[test]
    fn timestamp_has_ycsb_shape() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_000_123);
        assert_eq!(timestamp(t), "1970-01-01 00:16:40:123");
    }

    #[test]
    fn remaining_reads_like_ycsb() {
        assert_eq!(
            format_remaining(Duration::from_secs(3_725)),
            "1 hour 2 minutes 5 seconds"
        );
        assert_eq!(format_remaining(Duration::from_secs(1)), "1 second");
    }
}
