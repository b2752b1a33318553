//! `contio-engine fio --contio-core JOBFILE`: the job on contio's own I/O
//! core instead of fio. Read and check the job file, check and lay out the
//! files (`setup`), run, print fio's kind of text, write the JSON document
//! (exit codes as in `fileio::command`). It serves what fio lacks: verify
//! generations that tell a lost write from a current one across phases.

use std::time::Duration;

use super::{ini, job, setup, text};
use crate::fileio::command::{check_json_path, finish, refuse, run_plan, say, wants_help};
use crate::fileio::error::FileIoError;
use crate::fileio::io_report;
use crate::fileio::page_cache;

/// Usage of `contio-engine fio --contio-core`.
pub const CORE_USAGE: &str =
    "contio-engine fio --contio-core JOBFILE [-json PATH] [-s] [--drop-caches]   (see docs/engine-interface.md for the job options)";
/// Arguments of `contio-engine fio`.
struct FioArgs {
    job_file: String,
    json: Option<String>,
    status: bool,
    drop_caches: bool,
}

fn parse_fio_args(args: &[String]) -> Result<FioArgs, FileIoError> {
    let mut parsed = FioArgs {
        job_file: String::new(),
        json: None,
        status: false,
        drop_caches: false,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-json" | "--json" => {
                parsed.json = Some(rest.next().cloned().ok_or_else(|| {
                    FileIoError::invalid("-json", "needs a path (or - for stdout)")
                })?)
            }
            "-s" | "--status" => parsed.status = true,
            "--drop-caches" | "-drop-caches" => parsed.drop_caches = true,
            other if other.starts_with('-') => {
                return Err(FileIoError::Unknown {
                    option: other.to_string(),
                    suggestion: crate::properties::closest(other, ["-json", "-s", "--drop-caches"]),
                })
            }
            file if parsed.job_file.is_empty() => parsed.job_file = file.to_string(),
            extra => return Err(FileIoError::invalid(extra, "only one job file is accepted")),
        }
    }
    if parsed.job_file.is_empty() {
        return Err(FileIoError::invalid(
            "JOBFILE",
            "missing; give the path of a fio job file",
        ));
    }
    Ok(parsed)
}

/// `contio-engine fio --contio-core JOBFILE ...` (`args` without the flag).
pub fn core_main(args: &[String]) -> i32 {
    if wants_help(args) {
        println!("usage: {CORE_USAGE}");
        return 0;
    }
    match fio(args) {
        Ok(code) => code,
        Err(e) => refuse(&e, CORE_USAGE),
    }
}

fn fio(args: &[String]) -> Result<i32, FileIoError> {
    let a = parse_fio_args(args)?;
    check_json_path(a.json.as_deref())?;
    let text = ini::read_job_file(&a.job_file)?;
    let sections = ini::parse(&a.job_file, &text)?;
    let jobs = job::plan(&sections)?;
    let plan = &jobs.plan;
    if a.drop_caches {
        page_cache::check_can_drop()?;
    }
    let json = a.json.as_deref();
    setup::prepare(plan, json)?;
    for w in &jobs.warnings {
        eprintln!("contio-engine: warning: {w}");
    }
    let status = a.status.then(|| Duration::from_secs(1));
    let outcome = run_plan(plan, a.drop_caches, status, None)?;
    say(json, &text::summary(plan, &outcome));
    say(json, &text::verify_lines(plan, &outcome));
    let doc = io_report::document(plan, &outcome, jobs.properties.clone(), a.drop_caches);
    Ok(finish(&doc, json))
}
