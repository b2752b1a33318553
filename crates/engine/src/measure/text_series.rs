//! YCSB's `timeseries` measurement: the operations, average, min and max, then
//! one line per time unit (`timeseries.granularity` ms) with the average
//! latency of the operations that ended in it: `[READ], 0, 1175.6`,
//! `[READ], 50, 1101.7`, …
//!
//! Units are counted from the phase start (YCSB counts each operation type's
//! from its first operation); units without operations are left out (YCSB
//! leaves them out too, except a last empty one, which it prints as NaN).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::extras::UnitSum;
use super::histogram::TotalHistogram;
use super::measurement_type::MeasurementConfig;
use super::recorder::ReturnCounts;
use super::text::{java_double, write_returns};

/// A `timeseries` section.
pub fn section(
    out: &mut String,
    name: &str,
    h: Option<&TotalHistogram>,
    series: Option<&BTreeMap<u64, UnitSum>>,
    returns: Option<&ReturnCounts>,
    config: &MeasurementConfig,
) {
    let operations = h.map_or(0, |h| h.len());
    // The series holds exact sums; the histogram's mean is the fallback.
    let (count, sum) = series.map_or((0, 0), |s| {
        s.values()
            .fold((0, 0), |(c, t), u| (c + u.count, t + u.sum_us))
    });
    let mean = match h {
        _ if count > 0 => sum as f64 / count as f64,
        Some(h) if operations > 0 => h.mean(),
        _ => f64::NAN,
    };
    let (min, max) = match h {
        Some(h) if operations > 0 => (h.min() as i64, h.max() as i64),
        _ => (-1, -1),
    };
    let _ = writeln!(out, "[{name}], Operations, {operations}");
    let _ = writeln!(out, "[{name}], AverageLatency(us), {}", java_double(mean));
    let _ = writeln!(out, "[{name}], MinLatency(us), {min}");
    let _ = writeln!(out, "[{name}], MaxLatency(us), {max}");
    write_returns(out, name, returns);
    for (unit, sums) in series.into_iter().flatten() {
        if sums.count == 0 {
            continue;
        }
        let average = sums.sum_us as f64 / sums.count as f64;
        let _ = writeln!(
            out,
            "[{name}], {}, {}",
            unit * config.granularity_ms,
            java_double(average)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_unit_with_operations() {
        let series = BTreeMap::from([
            (
                0,
                UnitSum {
                    count: 2,
                    sum_us: 3,
                },
            ),
            (
                3,
                UnitSum {
                    count: 1,
                    sum_us: 10,
                },
            ),
        ]);
        let config = MeasurementConfig {
            granularity_ms: 50,
            ..MeasurementConfig::default()
        };
        let mut out = String::new();
        section(&mut out, "READ", None, Some(&series), None, &config);
        assert!(
            out.contains("[READ], AverageLatency(us), 4.333333333333333\n"),
            "{out}"
        );
        assert!(
            out.ends_with("[READ], 0, 1.5\n[READ], 150, 10.0\n"),
            "{out}"
        );
    }
}
