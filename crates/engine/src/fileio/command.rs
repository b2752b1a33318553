//! The `sysbench` and `fio` subcommands: validate everything, prepare files,
//! run, print the tool's kind of text, write the JSON document. Exit codes:
//! 0 done, 1 failed/interrupted/verify mismatches (JSON still written),
//! 2 bad input (nothing ran, no JSON).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use super::error::FileIoError;
use super::files;
use super::fio_job;
use super::fio_text;
use super::io_report;
use super::page_cache;
use super::plan::Plan;
use super::run::{execute, open_checked, RunOutcome};
use super::size::parse_count;
use super::sysbench_options::{self, SysbenchArgs, SysbenchCommand};
use super::sysbench_text;
use crate::client::StopFlag;
use crate::measure::Measurements;
use crate::result::{PhaseFacts, ResultDocument};

/// Usage of `contio-engine sysbench`.
pub const SYSBENCH_USAGE: &str =
    "contio-engine sysbench fileio [--file-num=N] [--file-block-size=SIZE] \
[--file-total-size=SIZE] [--file-test-mode=seqwr|seqrewr|seqrd|rndrd|rndwr|rndrw] \
[--file-io-mode=sync|async|mmap] [--file-async-backlog=N] [--file-extra-flags=direct,sync,dsync] \
[--file-fsync-freq=N] [--file-fsync-all=on|off] [--file-fsync-end=on|off] \
[--file-fsync-mode=fsync|fdatasync] [--file-rw-ratio=R] [--threads=N] [--events=N] [--time=S] \
[--percentile=P] [--report-interval=S] [--rand-seed=N] [--file-dir=DIR] [--drop-caches] \
prepare|run|cleanup [-json PATH]";

/// Usage of `contio-engine fio`.
pub const FIO_USAGE: &str =
    "contio-engine fio JOBFILE [-json PATH] [-s] [--drop-caches]   (see docs/engine-interface.md for the job options)";

fn wants_help(args: &[String]) -> bool {
    matches!(
        args.first().map(String::as_str),
        Some("--help" | "-h" | "help")
    )
}

/// A failure before the run: message on stderr, its exit code.
fn refuse(e: &FileIoError, usage: &str) -> i32 {
    eprintln!("contio-engine: {e}");
    if e.exit_code() == 2 {
        eprintln!("usage: {usage}");
    }
    e.exit_code()
}

fn check_json_path(path: Option<&str>) -> Result<(), FileIoError> {
    let Some(p) = path.filter(|p| *p != "-") else {
        return Ok(());
    };
    match Path::new(p).parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if !dir.is_dir() => Err(FileIoError::invalid(
            "-json",
            format!("directory '{}' does not exist", dir.display()),
        )),
        _ => Ok(()),
    }
}

/// Where the human text goes: stdout, or stderr when the JSON goes to stdout.
fn say(json: Option<&str>, text: &str) {
    if json == Some("-") {
        eprint!("{text}");
    } else {
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

fn finish(doc: &ResultDocument, json: Option<&str>) -> i32 {
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
fn run_plan(
    plan: &Plan,
    drop_caches: bool,
    status_every: Option<Duration>,
) -> Result<RunOutcome, FileIoError> {
    let (opened, maps) = open_checked(plan)?;
    let stop = stop_flag()?;
    if drop_caches {
        page_cache::drop_caches()?;
    }
    Ok(execute(plan.clone(), opened, maps, stop, status_every))
}

/// `contio-engine sysbench ARGS...`.
pub fn sysbench_main(args: &[String]) -> i32 {
    if wants_help(args) {
        println!("usage: {SYSBENCH_USAGE}");
        return 0;
    }
    match sysbench(args) {
        Ok(code) => code,
        Err(e) => refuse(&e, SYSBENCH_USAGE),
    }
}

fn sysbench(args: &[String]) -> Result<i32, FileIoError> {
    let a = sysbench_options::parse(args)?;
    check_json_path(a.json.as_deref())?;
    let plan = sysbench_options::plan(&a)?;
    let set = sysbench_options::file_set(&a)?;
    files::check_directory("--file-dir", &set.dir)?;
    if a.drop_caches {
        page_cache::check_can_drop()?;
    }
    let json = a.json.as_deref();
    let properties = a.options.clone();
    match a.command {
        SysbenchCommand::Cleanup => Ok(cleanup(&plan, &a, properties)),
        SysbenchCommand::Prepare => {
            files::check_space(
                "--file-total-size",
                &set.dir,
                files::bytes_to_lay_out(&plan.files),
            )?;
            create_files(&plan)?;
            say(json, &sysbench_text::prepare_header(&plan));
            let outcome = run_plan(&plan, a.drop_caches, None)?;
            say(json, &sysbench_text::prepare_summary(&outcome));
            let doc = io_report::document(&plan, &outcome, properties, a.drop_caches);
            Ok(finish(&doc, json))
        }
        SysbenchCommand::Run => {
            files::check_present(
                &plan.files,
                "run `contio-engine sysbench fileio` with the same options and `prepare` first",
            )?;
            let percentile = a.options["percentile"]
                .parse::<f64>()
                .ok()
                .filter(|p| *p > 0.0 && *p <= 100.0)
                .ok_or_else(|| {
                    FileIoError::bad_value(
                        "--percentile",
                        &a.options["percentile"],
                        "a number in (0, 100]",
                    )
                })?;
            let every = parse_count("--report-interval", &a.options["report-interval"])?;
            let mode = a.options["file-test-mode"].clone();
            say(
                json,
                &sysbench_text::run_header(&plan, &mode, &a.options["file-rw-ratio"]),
            );
            let outcome = run_plan(
                &plan,
                a.drop_caches,
                (every > 0).then(|| Duration::from_secs(every)),
            )?;
            say(json, &sysbench_text::run_summary(&outcome, percentile));
            let doc = io_report::document(&plan, &outcome, properties, a.drop_caches);
            Ok(finish(&doc, json))
        }
    }
}

/// Creates the files at their full size (sparse) so `prepare`'s write pass can open them.
fn create_files(plan: &Plan) -> Result<(), FileIoError> {
    for f in &plan.files {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(&f.path)
            .map_err(|source| FileIoError::Setup {
                path: f.path.display().to_string(),
                what: "create",
                source,
            })?;
        file.set_len(f.size).map_err(|source| FileIoError::Setup {
            path: f.path.display().to_string(),
            what: "set length",
            source,
        })?;
    }
    Ok(())
}

fn cleanup(plan: &Plan, a: &SysbenchArgs, properties: BTreeMap<String, String>) -> i32 {
    let json = a.json.as_deref();
    say(json, "Removing test files...\n");
    let started = std::time::SystemTime::now();
    let t0 = std::time::Instant::now();
    let mut error = None;
    for f in &plan.files {
        match std::fs::remove_file(&f.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                error.get_or_insert(format!("{}: {e}", f.path.display()));
            }
        }
    }
    let facts = PhaseFacts {
        kind: "sysbench",
        phase: "cleanup",
        target: "files",
        target_description: serde_json::json!({"files": plan.files.len()}),
        properties,
        threads: 1,
        target_ops_per_sec: 0,
        status: if error.is_some() { "failed" } else { "ok" },
        error,
        started_at: started,
        runtime_ms: t0.elapsed().as_secs_f64() * 1000.0,
    };
    let doc = ResultDocument::new(facts, &Measurements::empty());
    finish(&doc, json)
}

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
    let sections = super::fio_ini::parse(&a.job_file, &text)?;
    let jobs = fio_job::plan(&sections)?;
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
    say(json, &fio_text::summary(plan, &outcome));
    say(json, &fio_text::verify_lines(plan, &outcome));
    let doc = io_report::document(plan, &outcome, jobs.properties.clone(), a.drop_caches);
    Ok(finish(&doc, json))
}
