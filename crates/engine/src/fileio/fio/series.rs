//! From fio's json+ report to contio's measurements: calls per operation
//! name and the phase histograms (json+ bins into HdrHistograms, µs).

use std::collections::BTreeMap;

use super::report_json::{FioReport, Latency};
use crate::measure::histogram::{new_total, TotalHistogram, HIGHEST_US};

/// The operation names contio reports for fio's directions.
pub const READ: &str = "READ";
pub const WRITE: &str = "WRITE";
pub const TRIM: &str = "TRIM";
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
            TRIM => &job.trim.clat_ns,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanoseconds_round_up_to_microseconds() {
        let h = histogram(&BTreeMap::from([(1_500, 2), (300, 1)])).unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(h.max(), 2);
        assert_eq!(h.min(), 1);
    }
}
