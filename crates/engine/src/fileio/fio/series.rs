//! From fio's reports to contio's measurements: the phase histograms (json+
//! bins into HdrHistograms, µs) and one entry per second (the difference of
//! two successive status-interval reports, which are running totals).

use std::collections::BTreeMap;

use super::report_json::{FioReport, Latency};
use crate::measure::histogram::{new_total, TotalHistogram, HIGHEST_US};
use crate::measure::{SecondStats, SecondSummary};

/// The operation names contio reports for fio's directions.
pub const READ: &str = "READ";
pub const WRITE: &str = "WRITE";
pub const FSYNC: &str = "FSYNC";

/// The latencies of one operation name in a report, summed over its jobs.
/// Completion latency (`clat`): the only one json+ gives bins for; with
/// fio's synchronous engines it is the whole call.
pub fn bins_of(report: &FioReport, name: &str) -> BTreeMap<u64, u64> {
    let mut out = BTreeMap::new();
    for job in &report.jobs {
        let latency: &Latency = match name {
            READ => &job.read.clat_ns,
            WRITE => &job.write.clat_ns,
            _ => &job.sync.lat_ns,
        };
        for (ns, n) in latency.bins_ns() {
            *out.entry(ns).or_insert(0) += n;
        }
    }
    out
}

/// Bins as an HdrHistogram in µs (values under 1 µs count as 1 µs).
pub fn histogram(bins: &BTreeMap<u64, u64>) -> Option<TotalHistogram> {
    let mut h = new_total();
    for (&ns, &n) in bins {
        let us = ns.div_ceil(1000).clamp(1, HIGHEST_US);
        h.saturating_record_n(us, n);
    }
    (!h.is_empty()).then_some(h)
}

/// `now - before`, bin by bin.
fn difference(now: &BTreeMap<u64, u64>, before: &BTreeMap<u64, u64>) -> BTreeMap<u64, u64> {
    now.iter()
        .filter_map(|(&ns, &n)| {
            let d = n.saturating_sub(before.get(&ns).copied().unwrap_or(0));
            (d > 0).then_some((ns, d))
        })
        .collect()
}

/// Calls of one name in a report.
pub fn calls(report: &FioReport, name: &str) -> u64 {
    report
        .jobs
        .iter()
        .map(|j| match name {
            READ => j.read.total_ios,
            WRITE => j.write.total_ios,
            _ => j.sync.total_ios,
        })
        .sum()
}

/// Requests (reads, writes, trims) of a report: contio's operations.
pub fn requests(report: &FioReport) -> u64 {
    report
        .jobs
        .iter()
        .map(|j| j.read.total_ios + j.write.total_ios + j.trim.total_ios)
        .sum()
}

/// The second `t` between two reports.
pub fn second(t: u64, before: Option<&FioReport>, now: &FioReport) -> SecondSummary {
    let mut by_type = BTreeMap::new();
    for name in [READ, WRITE, FSYNC] {
        let earlier = before.map(|b| bins_of(b, name)).unwrap_or_default();
        let bins = difference(&bins_of(now, name), &earlier);
        let count = calls(now, name) - before.map_or(0, |b| calls(b, name)).min(calls(now, name));
        if count == 0 {
            continue;
        }
        let at = |q: f64| histogram(&bins).map_or(0, |h| h.value_at_quantile(q));
        by_type.insert(
            name.to_string(),
            SecondStats {
                count,
                p50: at(0.50),
                p95: at(0.95),
                p99: at(0.99),
            },
        );
    }
    SecondSummary {
        t,
        ops: requests(now) - before.map_or(0, requests).min(requests(now)),
        by_type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(reads: u64, bins: &[(u64, u64)]) -> FioReport {
        let bins: BTreeMap<String, u64> = bins.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let text = serde_json::json!({"jobs": [{"jobname": "j",
            "read": {"io_bytes": reads * 4096, "total_ios": reads, "clat_ns": {"bins": bins}},
            "write": {"io_bytes": 0, "total_ios": 0}, "trim": {"io_bytes": 0, "total_ios": 0}}]});
        serde_json::from_value(text).unwrap()
    }

    #[test]
    fn a_second_is_the_difference_of_two_totals() {
        let first = report(10, &[(1_000, 10)]);
        let then = report(30, &[(1_000, 10), (50_000, 20)]);
        let s = second(2, Some(&first), &then);
        assert_eq!(s.ops, 20);
        let read = &s.by_type[READ];
        assert_eq!(read.count, 20);
        assert_eq!(read.p50, 50);
    }

    #[test]
    fn nanoseconds_round_up_to_microseconds() {
        let h = histogram(&BTreeMap::from([(1_500, 2), (300, 1)])).unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(h.max(), 2);
        assert_eq!(h.min(), 1);
    }
}
