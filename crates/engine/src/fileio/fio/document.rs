//! contio's result document (`contio.engine.result/1`) of a run of the real
//! fio: its final json+ report read into the shared fields, the `io` object
//! that file workloads carry, and the per-second series.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde_json::json;

use super::hist_log;
use super::report_json::{FioReport, JobReport};
use super::series::{self, FSYNC, READ, WRITE};
use crate::measure::{Measurements, Operation, SecondSummary, Slot};
use crate::result::{PhaseFacts, ResultDocument};
use crate::target::Status;

/// How the fio process ended, besides its reports.
#[derive(Debug)]
pub struct Ending {
    pub exit_code: Option<i32>,
    pub interrupted: bool,
    pub started_at: SystemTime,
    pub wall_ms: f64,
    pub cache_dropped: bool,
    /// Why fio's output could not be read, if it could not.
    pub unreadable: Option<String>,
}

/// Milliseconds fio ran the jobs: per group (stonewalled groups run one
/// after the other) the longest job, summed.
fn runtime_ms(report: &FioReport) -> f64 {
    let mut groups: BTreeMap<u64, u64> = BTreeMap::new();
    for job in &report.jobs {
        let longest = groups.entry(job.groupid).or_insert(0);
        *longest = (*longest).max(job.wall_ms());
    }
    groups.values().sum::<u64>() as f64
}

fn status(report: Option<&FioReport>, ending: &Ending) -> (&'static str, Option<String>) {
    if ending.interrupted {
        return ("interrupted", Some("interrupted by a signal".into()));
    }
    if let Some(why) = &ending.unreadable {
        return (
            "failed",
            Some(format!("fio's report could not be read: {why}")),
        );
    }
    let Some(report) = report else {
        return ("failed", Some("fio wrote no report".into()));
    };
    if let Some(job) = report.jobs.iter().find(|j| j.error != 0) {
        let reason = std::io::Error::from_raw_os_error(job.error as i32);
        let error = format!(
            "fio job '{}' failed: error {} ({reason})",
            job.jobname, job.error
        );
        return ("failed", Some(error));
    }
    match ending.exit_code {
        Some(0) => ("ok", None),
        Some(code) => ("failed", Some(format!("fio exited with status {code}"))),
        None => ("failed", Some("fio was killed by a signal".into())),
    }
}

fn measurements(report: &FioReport, timeseries: Vec<SecondSummary>) -> Measurements {
    let mut m = Measurements::empty();
    m.operations = series::requests(report);
    for (name, op) in [
        (READ, Operation::Read),
        (WRITE, Operation::Write),
        (FSYNC, Operation::Fsync),
    ] {
        let slot = Slot {
            operation: op,
            failed: false,
        };
        m.actual[slot.index()] = series::histogram(&series::bins_of(report, name));
        m.returns[op.index()][Status::Ok.index()] = series::calls(report, name);
    }
    m.timeseries = timeseries;
    m
}

fn truthy(value: Option<&str>) -> bool {
    matches!(value, Some(v) if v != "0" && !v.is_empty())
}

fn io_object(report: &FioReport, seconds: f64, cache_dropped: bool) -> serde_json::Value {
    let sum = |f: &dyn Fn(&JobReport) -> u64| report.jobs.iter().map(f).sum::<u64>();
    let (read, written, trimmed) = (
        sum(&|j| j.read.io_bytes),
        sum(&|j| j.write.io_bytes),
        sum(&|j| j.trim.io_bytes),
    );
    let (reads, writes, trims) = (
        sum(&|j| j.read.total_ios),
        sum(&|j| j.write.total_ios),
        sum(&|j| j.trim.total_ios),
    );
    let requests = (reads + writes + trims).max(1);
    let first = report.jobs.first();
    let option = |key: &str| first.and_then(|j| j.option(report, key));
    let mib = f64::from(1u32 << 20);
    let per_second = |n: u64| n as f64 / seconds;
    json!({
        "runner": "fio",
        "fio_version": report.version,
        // The mean request size: what `READ` × `block_size` must give.
        "block_size": (read + written + trimmed) / requests,
        "engine": option("ioengine").unwrap_or("psync"),
        "direct": report.jobs.iter().any(|j| truthy(j.option(report, "direct"))),
        "iodepth": option("iodepth").and_then(|d| d.parse::<u64>().ok()).unwrap_or(1),
        "bytes_read": read,
        "bytes_written": written,
        "bytes_trimmed": trimmed,
        "read_mib_per_sec": read as f64 / mib / seconds,
        "written_mib_per_sec": written as f64 / mib / seconds,
        "reads_per_sec": per_second(reads),
        "writes_per_sec": per_second(writes),
        "trims_per_sec": per_second(trims),
        "fsyncs_per_sec": per_second(series::calls(report, FSYNC)),
        "ramp_ms": 0.0,
        "cache_dropped": cache_dropped,
        "end_syncs": null,
        "end_sync_ms": null,
        "files": [],
        "streams": report.jobs.iter().enumerate().map(|(i, j)| json!({
            "name": j.jobname, "threads": [i], "regions": [],
        })).collect::<Vec<_>>(),
        "threads": report.jobs.iter().map(|j| json!({
            "events": j.read.total_ios + j.write.total_ios + j.trim.total_ios,
            "busy_ms": j.wall_ms() as f64,
            "bytes_read": j.read.io_bytes,
            "bytes_written": j.write.io_bytes,
        })).collect::<Vec<_>>(),
        "verify": null,
    })
}

/// The document of a fio run: its final report (None when fio wrote none).
pub fn document(
    report: Option<&FioReport>,
    logged: hist_log::Seconds,
    fio_args: &[String],
    ending: &Ending,
) -> ResultDocument {
    let (status, error) = status(report, ending);
    let empty = FioReport {
        version: String::new(),
        global_options: BTreeMap::new(),
        jobs: Vec::new(),
    };
    let report = report.unwrap_or(&empty);
    let ran = runtime_ms(report);
    let runtime_ms = if ran > 0.0 { ran } else { ending.wall_ms };
    let properties = BTreeMap::from([
        ("fio.args".to_string(), fio_args.join(" ")),
        ("fio.version".to_string(), report.version.clone()),
    ]);
    let facts = PhaseFacts {
        kind: "fio",
        phase: "run",
        target: "files",
        target_description: json!({"runner": "fio", "fio_version": report.version}),
        properties,
        threads: report.jobs.len(),
        target_ops_per_sec: 0,
        status,
        error,
        started_at: ending.started_at,
        runtime_ms,
    };
    let timeseries = hist_log::timeseries(logged, report, runtime_ms);
    let mut doc = ResultDocument::new(facts, &measurements(report, timeseries));
    // Calls count whether or not fio timed them (`disable_clat`, engines
    // without completion latency leave the bins empty).
    for name in [READ, WRITE, FSYNC] {
        let calls = series::calls(report, name);
        if calls > 0 {
            doc.operations_by_type
                .entry(name.to_string())
                .or_default()
                .count = calls;
        }
    }
    let seconds = (runtime_ms / 1000.0).max(1e-9);
    doc.io = Some(io_object(report, seconds, ending.cache_dropped));
    doc
}
