//! sysbench 1.0.20's human output for `fileio`, with the same labels, layout
//! and number formats, so people and scripts that read sysbench read contio
//! the same way. Each function returns the text of one log message.

use std::fmt::Write as _;

use super::args::SysbenchArgs;
use super::options::FsyncOptions;
use super::test_files::{name, value_size, Preparation};
use crate::fileio::io_report::{all_events, count};
use crate::fileio::plan::{IoEngine, Plan};
use crate::fileio::run::RunOutcome;
use crate::measure::Operation;

/// The extra open flags as sysbench lists them: `sync dsync directio`.
pub fn extra_flags(a: &SysbenchArgs) -> String {
    let given: Vec<&str> = a
        .opt("file-extra-flags")
        .split(',')
        .map(str::trim)
        .collect();
    let mut out = String::new();
    for (flag, shown) in [
        ("sync", "sync "),
        ("dsync", "dsync "),
        ("direct", "directio"),
    ] {
        if given.contains(&flag) {
            out.push_str(shown);
        }
    }
    if out.is_empty() {
        "(none)".into()
    } else {
        out
    }
}

/// The general part of `run`'s header (sysbench's own, before the test's).
pub fn run_options(a: &SysbenchArgs, threads: usize) -> String {
    let mut out = String::from("Running the test with following options:\n");
    let _ = writeln!(out, "Number of threads: {threads}");
    let every = a.opt("report-interval").trim();
    if every != "0" {
        let _ = writeln!(out, "Report intermediate results every {every} second(s)");
    }
    if a.flag("debug").unwrap_or(false) {
        out.push_str("Debug mode enabled.\n\n");
    }
    if a.flag("validate").unwrap_or(false) {
        out.push_str("Validation checks: on.\n\n");
    }
    match a.opt("rand-seed").trim() {
        "0" => out.push_str("Initializing random number generator from current time\n\n"),
        seed => {
            let _ = writeln!(
                out,
                "Initializing random number generator from seed ({seed}).\n"
            );
        }
    }
    out
}

/// fileio's part of `run`'s header.
pub fn run_mode(a: &SysbenchArgs, plan: &Plan, size: u64, fsync: &FsyncOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Extra file open flags: {}", extra_flags(a));
    let _ = writeln!(
        out,
        "{} files, {}B each",
        plan.files.len(),
        value_size(size as f64)
    );
    let total = size * plan.files.len() as u64;
    let _ = writeln!(out, "{}B total file size", value_size(total as f64));
    let _ = writeln!(out, "Block size {}B", value_size(plan.block_size as f64));
    let mode = a.opt("file-test-mode");
    if mode.starts_with("rnd") {
        let _ = writeln!(out, "Number of IO requests: {}", a.opt("events").trim());
        let ratio: f64 = a.opt("file-rw-ratio").parse().unwrap_or(1.5);
        let _ = writeln!(
            out,
            "Read/Write ratio for combined random IO test: {ratio:.2}"
        );
    }
    if fsync.freq > 0 {
        let _ = writeln!(
            out,
            "Periodic FSYNC enabled, calling fsync() each {} requests.",
            fsync.freq
        );
    }
    if fsync.end {
        out.push_str("Calling fsync() at the end of test, Enabled.\n");
    }
    if fsync.all {
        out.push_str("Calling fsync() after each write operation.\n");
    }
    let io_mode = match plan.engine {
        IoEngine::Sync => "synchronous",
        IoEngine::Uring => "asynchronous",
        IoEngine::Mmap => "fast mmaped",
    };
    let _ = writeln!(out, "Using {io_mode} I/O mode");
    if a.flag("validate").unwrap_or(false) {
        out.push_str("Using checksums validation.\n");
    }
    let doing = match mode {
        "seqwr" => "sequential write (creation)",
        "seqrewr" => "sequential rewrite",
        "seqrd" => "sequential read",
        "rndrd" => "random read",
        "rndwr" => "random write",
        _ => "random r/w",
    };
    let _ = write!(out, "Doing {doing} test");
    out
}

/// sysbench's latency histogram: 1024 logarithmic buckets from 0.001 to
/// 100000 ms, empty ones left out, bars scaled to the fullest.
pub fn histogram(outcome: &RunOutcome) -> String {
    const SIZE: usize = 1024;
    let (low, high) = (1e-3f64.ln(), 1e5f64.ln());
    let mult = (SIZE - 1) as f64 / (high - low);
    let mut buckets = vec![0u64; SIZE];
    let all = all_events(&outcome.measurements);
    for v in all.iter_recorded() {
        let ms = (v.value_iterated_to() as f64 / 1000.0).max(1e-9);
        let i = ((ms.ln() - low) * mult + 0.5)
            .floor()
            .clamp(0.0, (SIZE - 1) as f64);
        buckets[i as usize] += v.count_at_value();
    }
    let top = buckets.iter().copied().max().unwrap_or(0);
    let mut out = String::from("Latency histogram (values are in milliseconds)\n");
    if top > 0 {
        out.push_str("       value  ------------- distribution ------------- count\n");
        for (i, n) in buckets.iter().enumerate().filter(|(_, n)| **n > 0) {
            let width = (*n as f64 * 40.0 / top as f64 + 0.5).floor() as usize;
            let value = (i as f64 / mult + low).exp();
            let _ = writeln!(out, "{value:12.3} |{:<40} {n}", "*".repeat(width));
        }
    }
    out.push(' ');
    out
}

/// The report after `run`, sysbench's layout and formats; end-of-test fsyncs
/// count as fsyncs, as in sysbench.
pub fn run_summary(outcome: &RunOutcome, percentile: u8) -> String {
    let m = &outcome.measurements;
    let seconds = (outcome.runtime_ms / 1000.0).max(1e-9);
    let mib = (1u64 << 20) as f64;
    let fsyncs = count(m, Operation::Fsync) + outcome.end_sync.map_or(0, |s| s.files);
    let mut out = String::new();
    let _ = write!(
        out,
        "\nFile operations:\n    reads/s:                      {:.2}\n    writes/s:                     {:.2}\n    fsyncs/s:                     {:.2}\n\n",
        count(m, Operation::Read) as f64 / seconds,
        count(m, Operation::Write) as f64 / seconds,
        fsyncs as f64 / seconds,
    );
    let _ = write!(
        out,
        "Throughput:\n    read, MiB/s:                  {:.2}\n    written, MiB/s:               {:.2}\n\n",
        outcome.bytes_read() as f64 / mib / seconds,
        outcome.bytes_written() as f64 / mib / seconds,
    );
    let events: u64 = outcome.threads.iter().map(|t| t.events).sum();
    let _ = write!(
        out,
        "General statistics:\n    total time:                          {seconds:.4}s\n    total number of events:              {events}\n\n"
    );
    let all = all_events(m);
    let ms = |micros: f64| micros / 1000.0;
    let (min, avg, max) = if all.is_empty() {
        (0.0, 0.0, 0.0)
    } else {
        (all.min() as f64, all.mean(), all.max() as f64)
    };
    let busy: Vec<f64> = outcome
        .threads
        .iter()
        .map(|t| t.busy_nanos as f64 / 1e9)
        .collect();
    let sum_s: f64 = busy.iter().sum();
    let _ = writeln!(out, "Latency (ms):");
    let _ = writeln!(out, "         min: {:39.2}", ms(min));
    let _ = writeln!(out, "         avg: {:39.2}", ms(avg));
    let _ = writeln!(out, "         max: {:39.2}", ms(max));
    if percentile > 0 {
        let pct = if all.is_empty() {
            0.0
        } else {
            all.value_at_percentile(f64::from(percentile)) as f64
        };
        let _ = writeln!(out, "        {percentile:3}th percentile: {:27.2}", ms(pct));
    } else {
        out.push_str("         percentile stats:               disabled\n");
    }
    let _ = writeln!(out, "         sum: {:39.2}\n", sum_s * 1000.0);
    let n = outcome.threads.len().max(1) as f64;
    let ev: Vec<f64> = outcome.threads.iter().map(|t| t.events as f64).collect();
    let (ev_avg, ev_sd) = mean_sd(&ev, n);
    let (busy_avg, busy_sd) = mean_sd(&busy, n);
    let _ = write!(
        out,
        "Threads fairness:\n    events (avg/stddev):           {ev_avg:.4}/{ev_sd:3.2}\n    execution time (avg/stddev):   {busy_avg:.4}/{busy_sd:3.2}\n"
    );
    out
}

fn mean_sd(values: &[f64], n: f64) -> (f64, f64) {
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The lines `prepare` prints before writing.
pub fn prepare_header(
    a: &SysbenchArgs,
    plan: &Plan,
    file_size: u64,
    steps: &[Preparation],
) -> String {
    let files = plan.files.len() as u64;
    let mut out = format!(
        "{files} files, {}Kb each, {}Mb total\nCreating files for the test...\nExtra file open flags: {}\n",
        file_size / 1024,
        file_size * files / (1024 * 1024),
        extra_flags(a)
    );
    let lines: Vec<String> = plan
        .files
        .iter()
        .zip(steps)
        .map(|(f, step)| step.line(&name(&f.path)))
        .collect();
    out.push_str(&lines.join("\n"));
    out
}

/// The closing line of `prepare`.
pub fn prepare_summary(written: u64, seconds: f64) -> String {
    if written == 0 {
        return "No bytes written.".into();
    }
    let seconds = seconds.max(1e-9);
    format!(
        "{written} bytes written in {seconds:.2} seconds ({:.2} MiB/sec).",
        written as f64 / (1u64 << 20) as f64 / seconds
    )
}
