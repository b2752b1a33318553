//! fio's human output, in its layout: per direction IOPS, bandwidth and
//! completion-latency percentiles, then the run-status line. All jobs are
//! reported together (fio's `group_reporting` over one group).

use std::fmt::Write as _;

use crate::fileio::io_report::count;
use crate::fileio::plan::Plan;
use crate::fileio::run::RunOutcome;
use crate::measure::histogram::TotalHistogram;
use crate::measure::{Operation, Slot};

/// fio's default completion-latency percentiles.
const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

fn compact(value: f64) -> String {
    if value >= 10_000.0 {
        format!("{:.0}k", value / 1000.0)
    } else if value >= 1000.0 {
        format!("{:.1}k", value / 1000.0)
    } else {
        format!("{value:.0}")
    }
}

fn direction(out: &mut String, name: &str, h: &TotalHistogram, bytes: u64, ms: f64) {
    let seconds = (ms / 1000.0).max(1e-9);
    let mib = bytes as f64 / (1u64 << 20) as f64;
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={:.1}MiB/s ({:.1}MB/s)({:.1}MiB/{:.0}msec)",
        compact(h.len() as f64 / seconds),
        mib / seconds,
        bytes as f64 / 1e6 / seconds,
        mib,
        ms
    );
    let _ = writeln!(
        out,
        "    clat (usec): min={}, max={}, avg={:.2}, stdev={:.2}",
        h.min(),
        h.max(),
        h.mean(),
        h.stdev()
    );
    let _ = writeln!(out, "     clat percentiles (usec):");
    for row in PERCENTILES.chunks(4) {
        let cells: Vec<String> = row
            .iter()
            .map(|p| format!("{p:5.2}th=[{:5}]", h.value_at_percentile(*p)))
            .collect();
        let _ = writeln!(out, "     | {}", cells.join(", "));
    }
}

/// The whole report.
pub fn summary(plan: &Plan, outcome: &RunOutcome) -> String {
    let m = &outcome.measurements;
    let name = plan.streams.first().map_or("job", |s| s.name.as_str());
    let errors = m
        .actual
        .iter()
        .enumerate()
        .filter(|(i, h)| Slot::from_index(*i).failed && h.is_some())
        .count();
    let mut out = format!(
        "{name}: (groupid=0, jobs={}): err={errors:2}: contio-engine {}\n",
        plan.threads(),
        crate::result::ENGINE_VERSION
    );
    let ms = outcome.runtime_ms;
    let slot = |op| {
        m.actual[Slot {
            operation: op,
            failed: false,
        }
        .index()]
        .as_ref()
    };
    if let Some(h) = slot(Operation::Read) {
        direction(&mut out, "read", h, outcome.bytes_read(), ms);
    }
    if let Some(h) = slot(Operation::Write) {
        direction(&mut out, "write", h, outcome.bytes_written(), ms);
    }
    if let Some(h) = slot(Operation::Fsync) {
        let _ = writeln!(
            out,
            "  fsync/fdatasync: count={}, lat (usec): min={}, max={}, avg={:.2}, p99={}",
            count(m, Operation::Fsync),
            h.min(),
            h.max(),
            h.mean(),
            h.value_at_percentile(99.0)
        );
    }
    let _ = writeln!(out, "\nRun status group 0 (all jobs):");
    for (label, bytes) in [
        ("READ", outcome.bytes_read()),
        ("WRITE", outcome.bytes_written()),
    ] {
        if bytes == 0 {
            continue;
        }
        let seconds = (ms / 1000.0).max(1e-9);
        let _ = writeln!(
            out,
            "   {label:>5}: bw={:.1}MiB/s ({:.1}MB/s), io={:.1}MiB ({:.1}MB), run={ms:.0}-{ms:.0}msec",
            bytes as f64 / (1u64 << 20) as f64 / seconds,
            bytes as f64 / 1e6 / seconds,
            bytes as f64 / (1u64 << 20) as f64,
            bytes as f64 / 1e6,
        );
    }
    out
}

/// The verification lines (after the summary).
pub fn verify_lines(plan: &Plan, outcome: &RunOutcome) -> String {
    let Some(v) = &outcome.verify else {
        return String::new();
    };
    let mut out = format!(
        "\nverify: {} blocks checked, {} mismatched\n",
        v.blocks_checked, v.mismatches
    );
    for m in v.first.iter().take(20) {
        let _ = writeln!(
            out,
            "verify: mismatch in {} at offset {}: {}",
            plan.files[m.file].path.display(),
            m.offset,
            m.reason
        );
    }
    if let Some(e) = &v.error {
        let _ = writeln!(out, "verify: stopped: {e}");
    }
    out
}
