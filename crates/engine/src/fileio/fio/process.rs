//! Running fio: as itself (`exec`, when contio has nothing to add), or as a
//! child whose json+ reports contio reads while its normal text goes on to the
//! user. A signal to the engine (Ctrl-C, `docker stop`) is passed on to fio,
//! which stops its jobs and writes its final report as it does on its own.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Instant, SystemTime};

use super::document::Ending;
use super::error::FioError;
use super::report_json::{FioReport, Piece, StreamSplitter};
use super::series;
use crate::measure::status_line::{format_decimal2, timestamp};
use crate::measure::SecondSummary;

/// The options contio adds to read fio's results.
pub const REPORT_OPTIONS: [&str; 2] = ["--output-format=normal,json+", "--status-interval=1"];

static CHILD: AtomicI32 = AtomicI32::new(0);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Replaces the engine with fio: its output, exit code and signals are fio's.
pub fn exec(fio: &Path, fio_args: &[String]) -> FioError {
    let source = Command::new(fio).args(fio_args).exec();
    FioError::Process {
        what: "start",
        source,
    }
}

fn forward_signals() -> Result<(), FioError> {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic and calls kill(2), both
        // async-signal-safe.
        let registered = unsafe {
            signal_hook::low_level::register(signal, move || {
                INTERRUPTED.store(true, Ordering::SeqCst);
                let child = CHILD.load(Ordering::SeqCst);
                if child > 0 {
                    libc::kill(child, signal);
                }
            })
        };
        registered.map_err(|source| FioError::Process {
            what: "install signal handlers",
            source,
        })?;
    }
    Ok(())
}

/// What a run gave: the last report, one entry per second, how it ended.
pub struct Run {
    pub report: Option<FioReport>,
    pub timeseries: Vec<SecondSummary>,
    pub ending: Ending,
}

/// Where fio's text and contio's status lines go.
pub struct Outputs {
    /// fio's normal text to stderr (the document goes to stdout).
    pub text_to_stderr: bool,
    /// A status line on stderr per second.
    pub status: bool,
}

fn print_text(lines: &[String], to_stderr: bool) {
    // A closed pipe (`| head`) ends the text, not the run.
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    if to_stderr {
        let _ = std::io::stderr().write_all(text.as_bytes());
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    }
}

fn status_line(t: u64, second: &SecondSummary, total: u64) -> String {
    let mut line = format!(
        "{} {t} sec: {total} operations; {} current ops/sec;",
        timestamp(SystemTime::now()),
        format_decimal2(second.ops as f64)
    );
    for (name, s) in &second.by_type {
        line.push_str(&format!(
            " [{name}: Count={}, 50={}, 99={}]",
            s.count, s.p50, s.p99
        ));
    }
    line
}

/// Runs fio with `fio_args` and contio's report options, reading its reports.
pub fn run(
    fio: &Path,
    fio_args: &[String],
    outputs: &Outputs,
    cache_dropped: bool,
) -> Result<Run, FioError> {
    forward_signals()?;
    let started_at = SystemTime::now();
    let clock = Instant::now();
    let mut child = Command::new(fio)
        .args(fio_args)
        .args(REPORT_OPTIONS)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|source| FioError::Process {
            what: "start",
            source,
        })?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let stdout = child.stdout.take().ok_or_else(|| FioError::Process {
        what: "read its output",
        source: std::io::Error::other("no pipe"),
    })?;
    let mut splitter = StreamSplitter::default();
    let (mut last, mut unreadable): (Option<FioReport>, Option<String>) = (None, None);
    let mut timeseries = Vec::new();
    let mut text_after_report: Vec<String> = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|source| FioError::Process {
            what: "read its output",
            source,
        })?;
        match splitter.line(&line) {
            None => {}
            Some(Piece::Text(text)) if last.is_none() => {
                print_text(&[text], outputs.text_to_stderr)
            }
            Some(Piece::Text(text)) => text_after_report.push(text),
            Some(Piece::Unreadable(why)) => unreadable = Some(why),
            Some(Piece::Report(report)) => {
                // The text since the previous report was that second's report.
                text_after_report.clear();
                let t = timeseries.len() as u64 + 1;
                let second = series::second(t, last.as_ref(), &report);
                if outputs.status {
                    let line = status_line(t, &second, series::requests(&report));
                    eprintln!("{line}");
                }
                timeseries.push(second);
                last = Some(*report);
            }
        }
    }
    // After the last report: fio's final normal text.
    print_text(&text_after_report, outputs.text_to_stderr);
    let status = child.wait().map_err(|source| FioError::Process {
        what: "wait for it",
        source,
    })?;
    CHILD.store(0, Ordering::SeqCst);
    // The final report repeats the last second's totals: no empty second at the end.
    if timeseries.last().is_some_and(|s| s.ops == 0) {
        timeseries.pop();
    }
    Ok(Run {
        report: last,
        timeseries,
        ending: Ending {
            exit_code: status.code(),
            interrupted: INTERRUPTED.load(Ordering::SeqCst),
            started_at,
            wall_ms: clock.elapsed().as_secs_f64() * 1000.0,
            cache_dropped,
            unreadable,
        },
    })
}
