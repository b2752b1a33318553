//! The `fio` subcommand: read and check the job file, lay out the files, run,
//! print fio's kind of text, write the JSON document (exit codes as in
//! `fileio::command`).

use std::path::Path;
use std::time::Duration;

use super::{ini, job, text};
use crate::fileio::command::{check_json_path, finish, refuse, run_plan, say, wants_help};
use crate::fileio::error::FileIoError;
use crate::fileio::files;
use crate::fileio::io_report;
use crate::fileio::page_cache;

/// Usage of `contio-engine fio`.
pub const FIO_USAGE: &str =
    "contio-engine fio JOBFILE [-json PATH] [-s] [--drop-caches]   (see docs/engine-interface.md for the job options)";
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

/// `contio-engine fio JOBFILE ...`.
pub fn fio_main(args: &[String]) -> i32 {
    if wants_help(args) {
        println!("usage: {FIO_USAGE}");
        return 0;
    }
    match fio(args) {
        Ok(code) => code,
        Err(e) => refuse(&e, FIO_USAGE),
    }
}

fn fio(args: &[String]) -> Result<i32, FileIoError> {
    let a = parse_fio_args(args)?;
    check_json_path(a.json.as_deref())?;
    let text = std::fs::read_to_string(&a.job_file).map_err(|e| FileIoError::JobFile {
        path: a.job_file.clone(),
        reason: e.to_string(),
    })?;
    let sections = ini::parse(&a.job_file, &text)?;
    let jobs = job::plan(&sections)?;
    let plan = &jobs.plan;
    for f in &plan.files {
        let dir = f
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        files::check_directory("directory/filename", dir)?;
    }
    if a.drop_caches {
        page_cache::check_can_drop()?;
    }
    let json = a.json.as_deref();
    if plan.verify.is_some_and(|v| v.only) {
        files::check_present(
            &plan.files,
            "verify_only reads files a verifying write job wrote",
        )?;
    } else if jobs.needs_layout {
        let needed = files::bytes_to_lay_out(&plan.files);
        let dir = plan.files[0]
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        files::check_space("size", dir, needed)?;
        say(
            json,
            &format!(
                "{}: Laying out IO files ({} files / {} bytes)\n",
                plan.streams[0].name,
                plan.files.len(),
                needed
            ),
        );
        files::lay_out(&plan.files)?;
    }
    for w in &jobs.warnings {
        eprintln!("contio-engine: warning: {w}");
    }
    let status = a.status.then(|| Duration::from_secs(1));
    let outcome = run_plan(plan, a.drop_caches, status)?;
    say(json, &text::summary(plan, &outcome));
    say(json, &text::verify_lines(plan, &outcome));
    let doc = io_report::document(plan, &outcome, jobs.properties.clone(), a.drop_caches);
    Ok(finish(&doc, json))
}
