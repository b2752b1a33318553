//! `contio-engine fio [fio's arguments] [-json PATH] [-s] [--drop-caches]`:
//! the real fio runs the job, with fio's semantics. contio checks first what
//! fio would only find one at a time or not at all (every unknown option; a
//! writing job on a device in use), and with `-json` reads fio's json+ report and
//! latency logs into its result document. Without `-json`/`-s` it becomes fio (`exec`):
//! output formats, `--output`, `--section`, command-line jobs and exit codes
//! are fio's own. `--contio-core` runs the job on contio's core instead.

use super::core_command::core_main;
use super::error::FioError;
use super::own_flags::{is_query, job_files, split, Invocation};
use super::process;
use super::{binary, device_guard, document, ini, option_check};
use crate::fileio::command::{check_json_path, finish};
use crate::fileio::page_cache;

/// Usage of `contio-engine fio`.
pub const FIO_USAGE: &str = "contio-engine fio [FIO ARGUMENTS] [-json PATH] [-s] [--drop-caches] \
     [--contio-core]   (every other argument goes to fio; see docs/engine-interface.md)";

const HELP: &str = "\
contio-engine fio runs the real fio (CONTIO_FIO, or fio on the PATH) with the
arguments given, after checking every option at once and that a writing job's
block devices are unused. contio's own flags:
  -json PATH      write contio's result document (- for stdout); fio's normal
                  text still follows on stdout (stderr with -json -)
  -s              a status line on stderr each second (--contio-core only)
  --drop-caches   drop the page cache before the run (root)
  --contio-core   run the job on contio's own I/O core instead of fio
fio's own help follows.
";

/// `contio-engine fio ...`.
pub fn fio_main(args: &[String]) -> i32 {
    if matches!(
        args.first().map(String::as_str),
        Some("--help" | "-h" | "help")
    ) {
        print!("{HELP}");
        return match binary::fio_path() {
            Ok(fio) => refuse(&process::exec(&fio, &["--help".to_string()])),
            Err(e) => refuse(&e),
        };
    }
    match run(args) {
        Ok(code) => code,
        Err(e) => refuse(&e),
    }
}

fn refuse(e: &FioError) -> i32 {
    eprintln!("contio-engine: {e}");
    if matches!(e, FioError::Flag { .. }) {
        eprintln!("usage: {FIO_USAGE}");
    }
    e.exit_code()
}

fn run(args: &[String]) -> Result<i32, FioError> {
    let invocation = split(args)?;
    if invocation.core {
        let rest: Vec<String> = args
            .iter()
            .filter(|a| *a != "--contio-core")
            .cloned()
            .collect();
        return Ok(core_main(&rest));
    }
    let fio = binary::fio_path()?;
    let fio_args = &invocation.fio_args;
    if is_query(fio_args) {
        return Err(process::exec(&fio, fio_args));
    }
    let json = invocation.json.as_deref();
    check_json_path(json)?;
    check_job_files(fio_args)?;
    option_check::check(&fio, fio_args, json.is_some())?;
    device_guard::check(&fio, fio_args)?;
    if invocation.drop_caches {
        page_cache::check_can_drop()?;
        page_cache::drop_caches()?;
    }
    if json.is_none() && !invocation.status {
        return Err(process::exec(&fio, fio_args));
    }
    report(&fio, &invocation)
}

/// Each job file is a regular file (or `-`, fio's stdin): fio would wait
/// forever on a FIFO and never finish reading `/dev/zero`.
fn check_job_files(fio_args: &[String]) -> Result<(), FioError> {
    for file in job_files(fio_args).into_iter().filter(|f| *f != "-") {
        ini::check_regular_file(file)?;
    }
    Ok(())
}

fn report(fio: &std::path::Path, invocation: &Invocation) -> Result<i32, FioError> {
    let json = invocation.json.as_deref();
    if invocation.status {
        eprintln!(
            "contio-engine: warning: -s: no live status lines when fio runs the job (fio \
             3.33's --status-interval hangs jobs that sleep); the per-second series is in \
             the result document"
        );
    }
    let run = process::run(fio, &invocation.fio_args, json, invocation.drop_caches)?;
    let doc = document::document(
        run.report.as_ref(),
        run.logged,
        &invocation.fio_args,
        &run.ending,
    );
    match json {
        Some(_) => Ok(finish(&doc, json)),
        None => Ok(run.ending.exit_code.unwrap_or(1)),
    }
}
