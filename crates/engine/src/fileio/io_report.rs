//! The `io` object of the result document for file workloads, and the
//! document itself (shared `contio.engine.result/1` fields).

use std::collections::BTreeMap;

use serde::Serialize;

use super::plan::Plan;
use super::run::{Ending, RunOutcome};
use crate::measure::histogram::{new_total, TotalHistogram};
use crate::measure::{Measurements, Operation, Slot};
use crate::result::{PhaseFacts, ResultDocument};

/// A file and its size.
#[derive(Debug, Serialize)]
pub struct FileEntry {
    pub path: String,
    pub size: u64,
}

/// A region of a file worked on by a stream.
#[derive(Debug, Serialize)]
pub struct RegionEntry {
    /// Index into `files`.
    pub file: usize,
    pub offset: u64,
    pub length: u64,
}

/// A stream: a sysbench test or one fio job instance.
#[derive(Debug, Serialize)]
pub struct StreamEntry {
    pub name: String,
    /// Indices of its threads in `threads`.
    pub threads: Vec<usize>,
    pub regions: Vec<RegionEntry>,
}

/// One thread's totals (measured part).
#[derive(Debug, Serialize)]
pub struct ThreadEntry {
    pub events: u64,
    pub busy_ms: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// A block that failed verification.
#[derive(Debug, Serialize)]
pub struct MismatchEntry {
    pub path: String,
    pub offset: u64,
    pub reason: String,
}

/// The verification result.
#[derive(Debug, Serialize)]
pub struct VerifyEntry {
    pub generation: u64,
    pub blocks_checked: u64,
    pub mismatches: u64,
    /// The first mismatches (up to 1000), by file and offset.
    pub first_mismatches: Vec<MismatchEntry>,
    pub error: Option<String>,
}

/// The `io` object.
#[derive(Debug, Serialize)]
pub struct IoReport {
    pub block_size: u64,
    pub engine: &'static str,
    pub direct: bool,
    pub iodepth: usize,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub read_mib_per_sec: f64,
    pub written_mib_per_sec: f64,
    pub reads_per_sec: f64,
    pub writes_per_sec: f64,
    pub fsyncs_per_sec: f64,
    pub ramp_ms: f64,
    pub cache_dropped: bool,
    /// Files synced by the final sync (`file-fsync-end`, `end_fsync`); null when not asked.
    pub end_syncs: Option<u64>,
    /// How long the final sync took; null when not asked.
    pub end_sync_ms: Option<f64>,
    pub files: Vec<FileEntry>,
    pub streams: Vec<StreamEntry>,
    pub threads: Vec<ThreadEntry>,
    pub verify: Option<VerifyEntry>,
}

/// Calls of `op` that succeeded.
pub fn count(m: &Measurements, op: Operation) -> u64 {
    m.actual[Slot {
        operation: op,
        failed: false,
    }
    .index()]
    .as_ref()
    .map_or(0, |h| h.len())
}

/// Every successful call's latency in one histogram (sysbench's per-event latency).
pub fn all_events(m: &Measurements) -> TotalHistogram {
    let mut all = new_total();
    for op in [Operation::Read, Operation::Write, Operation::Fsync] {
        let slot = Slot {
            operation: op,
            failed: false,
        };
        if let Some(h) = &m.actual[slot.index()] {
            let _ = all.add(h);
        }
    }
    all
}

/// The `io` object of a run.
pub fn io_report(plan: &Plan, outcome: &RunOutcome, cache_dropped: bool) -> IoReport {
    let seconds = (outcome.runtime_ms / 1000.0).max(1e-9);
    let m = &outcome.measurements;
    let mib = (1u64 << 20) as f64;
    IoReport {
        block_size: plan.block_size,
        engine: plan.engine.name(),
        direct: plan.direct,
        iodepth: plan.depth,
        bytes_read: outcome.bytes_read(),
        bytes_written: outcome.bytes_written(),
        read_mib_per_sec: outcome.bytes_read() as f64 / mib / seconds,
        written_mib_per_sec: outcome.bytes_written() as f64 / mib / seconds,
        reads_per_sec: count(m, Operation::Read) as f64 / seconds,
        writes_per_sec: count(m, Operation::Write) as f64 / seconds,
        fsyncs_per_sec: count(m, Operation::Fsync) as f64 / seconds,
        ramp_ms: plan.ramp.as_secs_f64() * 1000.0,
        cache_dropped,
        end_syncs: outcome.end_sync.map(|e| e.files),
        end_sync_ms: outcome.end_sync.map(|e| e.ms),
        files: plan
            .files
            .iter()
            .map(|f| FileEntry {
                path: f.path.display().to_string(),
                size: f.size,
            })
            .collect(),
        streams: plan
            .streams
            .iter()
            .zip(&outcome.stream_threads)
            .map(|(s, threads)| StreamEntry {
                name: s.name.clone(),
                threads: threads.clone(),
                regions: s
                    .regions
                    .iter()
                    .map(|r| RegionEntry {
                        file: r.file,
                        offset: r.offset,
                        length: r.length,
                    })
                    .collect(),
            })
            .collect(),
        threads: outcome
            .threads
            .iter()
            .map(|t| ThreadEntry {
                events: t.events,
                busy_ms: t.busy_nanos as f64 / 1e6,
                bytes_read: t.bytes_read,
                bytes_written: t.bytes_written,
            })
            .collect(),
        verify: outcome.verify.as_ref().map(|v| VerifyEntry {
            generation: plan.verify.map_or(0, |r| r.generation),
            blocks_checked: v.blocks_checked,
            mismatches: v.mismatches,
            first_mismatches: v
                .first
                .iter()
                .map(|m| MismatchEntry {
                    path: plan.files[m.file].path.display().to_string(),
                    offset: m.offset,
                    reason: m.reason.clone(),
                })
                .collect(),
            error: v.error.clone(),
        }),
    }
}

/// The status and error of a run, verification included.
pub fn status_of(plan: &Plan, outcome: &RunOutcome) -> (&'static str, Option<String>) {
    match &outcome.ending {
        Ending::Interrupted => return ("interrupted", Some("interrupted by a signal".into())),
        Ending::Failed(message) => return ("failed", Some(message.clone())),
        Ending::Completed => {}
    }
    if let Some(v) = &outcome.verify {
        if let Some(e) = &v.error {
            return ("failed", Some(e.clone()));
        }
        if v.mismatches > 0 {
            let first = v.first.first().map_or(String::new(), |m| {
                format!(
                    ", first at offset {} of {}",
                    m.offset,
                    plan.files[m.file].path.display()
                )
            });
            return (
                "failed",
                Some(format!(
                    "verify: {} of {} blocks mismatched{first}",
                    v.mismatches, v.blocks_checked
                )),
            );
        }
    }
    ("ok", None)
}

/// The result document of a file workload run.
pub fn document(
    plan: &Plan,
    outcome: &RunOutcome,
    properties: BTreeMap<String, String>,
    cache_dropped: bool,
) -> ResultDocument {
    let (status, error) = status_of(plan, outcome);
    let facts = PhaseFacts {
        kind: plan.kind,
        phase: plan.phase,
        target: "files",
        target_description: serde_json::json!({
            "files": plan.files.len(),
            "bytes": plan.files.iter().map(|f| f.size).sum::<u64>(),
        }),
        properties,
        threads: plan.threads(),
        target_ops_per_sec: 0,
        status,
        error,
        started_at: outcome.started_at,
        runtime_ms: outcome.runtime_ms,
    };
    let mut doc = ResultDocument::new(facts, &outcome.measurements);
    doc.io = serde_json::to_value(io_report(plan, outcome, cache_dropped)).ok();
    doc
}
