//! Running fio: as itself (`exec`, when contio has nothing to add), or as a
//! child whose json+ report and latency logs contio reads while its normal
//! text goes on to the user. A signal to the engine (Ctrl-C, `docker stop`) is passed on to fio,
//! which stops its jobs and writes its final report as it does on its own.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Instant, SystemTime};

use super::document::Ending;
use super::error::FioError;
use super::hist_log;
use super::report_json::{FioReport, Piece, StreamSplitter};
use super::scratch::ScratchDir;

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

/// What a run gave: the final report, one entry per second, how it ended.
pub struct Run {
    pub report: Option<FioReport>,
    /// The seconds fio's histogram logs hold (see `hist_log`).
    pub logged: hist_log::Seconds,
    pub ending: Ending,
}

fn print_text(line: &str, to_stderr: bool) {
    // A closed pipe (`| head`) ends the text, not the run.
    if to_stderr {
        let _ = writeln!(std::io::stderr(), "{line}");
    } else {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    }
}

/// The options contio adds: fio's normal text and its json+ report, and a
/// latency histogram log per second in `logs`.
fn report_options(logs: &Path) -> Vec<String> {
    vec![
        "--output-format=normal,json+".to_string(),
        format!("--write_hist_log={}", logs.join(hist_log::PREFIX).display()),
        "--log_hist_msec=1000".to_string(),
    ]
}

fn process_error(what: &'static str) -> impl FnOnce(std::io::Error) -> FioError {
    move |source| FioError::Process { what, source }
}

/// Runs fio with `fio_args` and contio's report options, reading its report;
/// fio's text goes on to stdout (stderr when `text_to_stderr`).
pub fn run(
    fio: &Path,
    fio_args: &[String],
    json: Option<&str>,
    cache_dropped: bool,
) -> Result<Run, FioError> {
    forward_signals()?;
    let logs = ScratchDir::beside(json).map_err(process_error("make a directory for its logs"))?;
    let started_at = SystemTime::now();
    let clock = Instant::now();
    let mut command = Command::new(fio);
    command
        .args(fio_args)
        .args(report_options(logs.path()))
        .stdout(Stdio::piped());
    // SAFETY: the closure only calls prctl(2), async-signal-safe, between fork and exec.
    unsafe {
        command.pre_exec(|| {
            // fio dies with the engine: a killed engine (a timeout's SIGKILL) must not
            // leave fio's job processes running (a network job waits forever).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(process_error("start"))?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let stdout = child.stdout.take().ok_or_else(|| FioError::Process {
        what: "read its output",
        source: std::io::Error::other("no pipe"),
    })?;
    let to_stderr = json == Some("-");
    let mut splitter = StreamSplitter::default();
    let (mut report, mut unreadable): (Option<FioReport>, Option<String>) = (None, None);
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(process_error("read its output"))?;
        match splitter.line(&line) {
            None => {}
            Some(Piece::Text(text)) => print_text(&text, to_stderr),
            Some(Piece::Unreadable(why)) => unreadable = Some(why),
            Some(Piece::Report(r)) => report = Some(*r),
        }
    }
    let status = child.wait().map_err(process_error("wait for it"))?;
    CHILD.store(0, Ordering::SeqCst);
    Ok(Run {
        report,
        logged: hist_log::read_logs(logs.path()),
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
