//! What the `sysbench` and `fio` subcommands (`sysbench::command`,
//! `fio::command`) share: `--help`, refusing bad input with the usage, the
//! `-json` path check, where the text goes, running a plan and finishing with
//! the JSON document. Exit codes: 0 done, 1 failed/interrupted/verify
//! mismatches (JSON still written), 2 bad input (nothing ran, no JSON).

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use super::error::FileIoError;
use super::page_cache;
use super::plan::Plan;
use super::run::{execute, open_checked, RunOutcome};
use crate::client::StopFlag;
use crate::measure::collector::StatusFormat;
use crate::result::ResultDocument;

/// True when the first argument asks for the usage.
pub(crate) fn wants_help(args: &[String]) -> bool {
    matches!(
        args.first().map(String::as_str),
        Some("--help" | "-h" | "help")
    )
}

/// A failure before the run: message on stderr, its exit code.
pub(crate) fn refuse(e: &FileIoError, usage: &str) -> i32 {
    eprintln!("contio-engine: {e}");
    if e.exit_code() == 2 {
        eprintln!("usage: {usage}");
    }
    e.exit_code()
}

/// Refuses a `-json` path whose directory does not exist, or that holds what
/// is not a regular file (a FIFO, a device), before anything runs.
pub(crate) fn check_json_path(path: Option<&str>) -> Result<(), FileIoError> {
    let Some(p) = path.filter(|p| *p != "-") else {
        return Ok(());
    };
    if let Some(problem) = crate::file_kind::output_problem(Path::new(p)) {
        return Err(FileIoError::invalid("-json", problem));
    }
    match Path::new(p).parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(FileIoError::invalid(
            "-json",
            format!("directory '{}' does not exist", dir.display()),
        )),
        _ => Ok(()),
    }
}

/// Where the human text goes: stdout, or stderr when the JSON goes to stdout.
pub(crate) fn say(json: Option<&str>, text: &str) {
    if json == Some("-") {
        eprint!("{text}");
    } else {
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

/// Writes the document if asked, reports its error, returns the exit code.
pub(crate) fn finish(doc: &ResultDocument, json: Option<&str>) -> i32 {
    if let Some(path) = json {
        if let Err(e) = doc.write(path) {
            eprintln!("contio-engine: {e}");
            return 1;
        }
    }
    if let Some(e) = &doc.error {
        eprintln!("contio-engine: {}: {e}", doc.status);
    }
    i32::from(doc.status != "ok")
}

fn stop_flag() -> Result<StopFlag, FileIoError> {
    StopFlag::on_signals().map_err(|source| FileIoError::Setup {
        path: "signals".into(),
        what: "install handlers",
        source,
    })
}

/// Opens, drops caches if asked, runs.
pub(crate) fn run_plan(
    plan: &Plan,
    drop_caches: bool,
    status_every: Option<Duration>,
    status_format: Option<StatusFormat>,
) -> Result<RunOutcome, FileIoError> {
    let (opened, maps) = open_checked(plan)?;
    let stop = stop_flag()?;
    if drop_caches {
        page_cache::drop_caches()?;
    }
    Ok(execute(
        plan.clone(),
        opened,
        maps,
        stop,
        status_every,
        status_format,
    ))
}
