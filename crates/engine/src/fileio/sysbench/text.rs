//! sysbench's human output for `fileio`, with the same labels and layout, so
//! people and scripts that read sysbench read contio the same way.

use std::fmt::Write as _;

use crate::fileio::io_report::{all_events, count};
use crate::fileio::plan::{IoEngine, Pattern, Plan};
use crate::fileio::run::RunOutcome;
use crate::fileio::size::human_bytes;
use crate::measure::Operation;

/// The header printed before `run` starts.
pub fn run_header(plan: &Plan, mode: &str, rw_ratio: &str) -> String {
    let stream = &plan.streams[0];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "contio-engine {} (sysbench fileio semantics)\n",
        crate::result::ENGINE_VERSION
    );
    let _ = writeln!(out, "Running the test with following options:");
    let _ = writeln!(out, "Number of threads: {}\n", stream.threads);
    let _ = writeln!(out, "Extra file open flags: {}", flags(plan));
    let size = plan.files.first().map_or(0, |f| f.size);
    let _ = writeln!(
        out,
        "{} files, {} each",
        plan.files.len(),
        human_bytes(size)
    );
    let _ = writeln!(
        out,
        "{} total file size",
        human_bytes(size * plan.files.len() as u64)
    );
    let _ = writeln!(out, "Block size {}", human_bytes(plan.block_size));
    if let Some(n) = stream.requests {
        let _ = writeln!(out, "Number of IO requests: {n}");
    }
    if stream.pattern == Pattern::Random
        && stream.mix.read_share > 0.0
        && stream.mix.read_share < 1.0
    {
        let _ = writeln!(
            out,
            "Read/Write ratio for combined random IO test: {rw_ratio}"
        );
    }
    if stream.fsync.cycle_every > 0 {
        let _ = writeln!(
            out,
            "Periodic FSYNC enabled, calling fsync() each {} requests.",
            stream.fsync.cycle_every
        );
    }
    if stream.fsync.every_write {
        let _ = writeln!(out, "Calling fsync() after each write operation.");
    }
    if stream.fsync.at_end {
        let _ = writeln!(out, "Calling fsync() at the end of test, Enabled.");
    }
    let io_mode = match plan.engine {
        IoEngine::Sync => "synchronous I/O mode".to_string(),
        IoEngine::Uring => format!("asynchronous I/O mode (io_uring, backlog {})", plan.depth),
        IoEngine::Mmap => "mmap()ed I/O mode".to_string(),
    };
    let _ = writeln!(out, "Using {io_mode}");
    let doing = match mode {
        "seqwr" => "sequential write (creation) test",
        "seqrewr" => "sequential rewrite test",
        "seqrd" => "sequential read test",
        "rndrd" => "random read test",
        "rndwr" => "random write test",
        _ => "random r/w test",
    };
    let _ = writeln!(
        out,
        "Doing {doing}\nInitializing worker threads...\n\nThreads started!\n"
    );
    out
}

fn flags(plan: &Plan) -> String {
    let mut names = Vec::new();
    if plan.open_flags & libc::O_SYNC == libc::O_SYNC {
        names.push("sync");
    } else if plan.open_flags & libc::O_DSYNC != 0 {
        names.push("dsync");
    }
    if plan.direct {
        names.push("directio");
    }
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(", ")
    }
}

fn ms(micros: f64) -> String {
    format!("{:.2}", micros / 1000.0)
}

/// The summary after `run`, in sysbench's layout.
pub fn run_summary(outcome: &RunOutcome, percentile: f64) -> String {
    let m = &outcome.measurements;
    let seconds = (outcome.runtime_ms / 1000.0).max(1e-9);
    let mib = (1u64 << 20) as f64;
    let mut out = String::new();
    let _ = writeln!(out, "\nFile operations:");
    let _ = writeln!(
        out,
        "    reads/s:                      {:.2}",
        count(m, Operation::Read) as f64 / seconds
    );
    let _ = writeln!(
        out,
        "    writes/s:                     {:.2}",
        count(m, Operation::Write) as f64 / seconds
    );
    let _ = writeln!(
        out,
        "    fsyncs/s:                     {:.2}",
        count(m, Operation::Fsync) as f64 / seconds
    );
    let _ = writeln!(out, "\nThroughput:");
    let _ = writeln!(
        out,
        "    read, MiB/s:                  {:.2}",
        outcome.bytes_read() as f64 / mib / seconds
    );
    let _ = writeln!(
        out,
        "    written, MiB/s:               {:.2}",
        outcome.bytes_written() as f64 / mib / seconds
    );
    let events: u64 = outcome.threads.iter().map(|t| t.events).sum();
    let _ = writeln!(out, "\nGeneral statistics:");
    let _ = writeln!(
        out,
        "    total time:                          {seconds:.4}s"
    );
    let _ = writeln!(out, "    total number of events:              {events}");
    let all = all_events(m);
    let (min, avg, max, pct) = if all.is_empty() {
        (0.0, 0.0, 0.0, 0.0)
    } else {
        (
            all.min() as f64,
            all.mean(),
            all.max() as f64,
            all.value_at_percentile(percentile) as f64,
        )
    };
    let sum_us: f64 = outcome
        .threads
        .iter()
        .map(|t| t.busy_nanos as f64 / 1000.0)
        .sum();
    let _ = writeln!(out, "\nLatency (ms):");
    let _ = writeln!(
        out,
        "         min:                                 {:>7}",
        ms(min)
    );
    let _ = writeln!(
        out,
        "         avg:                                 {:>7}",
        ms(avg)
    );
    let _ = writeln!(
        out,
        "         max:                                 {:>7}",
        ms(max)
    );
    let _ = writeln!(
        out,
        "         {:.0}th percentile:                     {:>7}",
        percentile,
        ms(pct)
    );
    let _ = writeln!(
        out,
        "         sum:                                 {:>7}",
        ms(sum_us)
    );
    let n = outcome.threads.len().max(1) as f64;
    let ev: Vec<f64> = outcome.threads.iter().map(|t| t.events as f64).collect();
    let busy: Vec<f64> = outcome
        .threads
        .iter()
        .map(|t| t.busy_nanos as f64 / 1e9)
        .collect();
    let (ev_avg, ev_sd) = mean_sd(&ev, n);
    let (busy_avg, busy_sd) = mean_sd(&busy, n);
    let _ = writeln!(out, "\nThreads fairness:");
    let _ = writeln!(
        out,
        "    events (avg/stddev):           {ev_avg:.4}/{ev_sd:.2}"
    );
    let _ = writeln!(
        out,
        "    execution time (avg/stddev):   {busy_avg:.4}/{busy_sd:.2}"
    );
    out
}

fn mean_sd(values: &[f64], n: f64) -> (f64, f64) {
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The lines `prepare` prints.
pub fn prepare_header(plan: &Plan) -> String {
    let size = plan.files.first().map_or(0, |f| f.size);
    let mut out = format!(
        "{} files, {}KiB each, {}MiB total\nCreating files for the test...\nExtra file open flags: {}\n",
        plan.files.len(),
        size >> 10,
        (size * plan.files.len() as u64) >> 20,
        flags(plan)
    );
    for f in &plan.files {
        let name = f
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let _ = writeln!(out, "Creating file {name}");
    }
    out
}

/// The closing line of `prepare`.
pub fn prepare_summary(outcome: &RunOutcome) -> String {
    let seconds = (outcome.runtime_ms / 1000.0).max(1e-9);
    let bytes = outcome.bytes_written();
    format!(
        "{bytes} bytes written in {seconds:.2} seconds ({:.2} MiB/sec).\n",
        bytes as f64 / (1u64 << 20) as f64 / seconds
    )
}
