//! Per-operation reports built from merged measurements: the
//! `operations_by_type` / `intended_by_type` objects of the result document.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::collector::Measurements;
use super::histogram::{encode_base64, LatencyStats, TotalHistogram};
use super::operation::{Operation, Slot};
use super::recorder::ReturnCounts;
use crate::target::Status;

/// One operation name's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpReport {
    /// Calls timed under this name (`READ`: successful reads; failures are timed under `READ-FAILED`).
    pub count: u64,
    /// Return codes of every call of the operation, success or not (only under the operation's own name).
    pub returns: BTreeMap<String, u64>,
    /// Latency figures, µs.
    pub latency_us: LatencyStats,
    /// HdrHistogram V2 compressed, base64 (µs, 3 significant digits).
    pub histogram: String,
}

/// Reports per name (`READ`, `READ-FAILED`, …) of slot histograms, with return codes if given.
pub fn by_type(
    histograms: &[Option<TotalHistogram>],
    returns: Option<&[ReturnCounts]>,
) -> BTreeMap<String, OpReport> {
    let mut out = BTreeMap::new();
    for (index, h) in histograms.iter().enumerate() {
        let slot = Slot::from_index(index);
        let counts = returns
            .filter(|_| !slot.failed)
            .and_then(|r| r.get(slot.operation.index()));
        let has_returns = counts.is_some_and(|c| c.iter().any(|&n| n > 0));
        if h.is_none() && !has_returns {
            continue;
        }
        out.insert(
            slot.name(),
            OpReport {
                count: h.as_ref().map_or(0, |h| h.len()),
                returns: counts.map(returns_map).unwrap_or_default(),
                latency_us: h.as_ref().map(LatencyStats::of).unwrap_or_default(),
                histogram: h.as_ref().map(encode_base64).unwrap_or_default(),
            },
        );
    }
    out
}

/// Non-zero return counts by YCSB status name.
pub fn returns_map(counts: &ReturnCounts) -> BTreeMap<String, u64> {
    Status::ALL
        .iter()
        .filter(|s| counts[s.index()] > 0)
        .map(|s| (s.name().to_string(), counts[s.index()]))
        .collect()
}

/// `operations_by_type` of the measurements.
pub fn operations_by_type(m: &Measurements) -> BTreeMap<String, OpReport> {
    by_type(&m.actual, Some(&m.returns))
}

/// `intended_by_type`, or None when nothing was measured from intended starts.
pub fn intended_by_type(m: &Measurements) -> Option<BTreeMap<String, OpReport>> {
    if m.intended.iter().all(Option::is_none) {
        return None;
    }
    Some(by_type(&m.intended, None))
}

/// The operations that have anything to report, in report order.
pub fn reported_operations(m: &Measurements) -> Vec<Operation> {
    Operation::ALL
        .into_iter()
        .filter(|op| {
            let ok = Slot {
                operation: *op,
                failed: false,
            }
            .index();
            let failed = Slot {
                operation: *op,
                failed: true,
            }
            .index();
            m.actual[ok].is_some()
                || m.actual[failed].is_some()
                || m.returns[op.index()].iter().any(|&c| c > 0)
        })
        .collect()
}
