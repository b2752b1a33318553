//! The `sysbench` subcommand: validate everything, prepare files, run or clean
//! up, print sysbench's kind of text, write the JSON document (exit codes as
//! in `fileio::command`).

use std::collections::BTreeMap;
use std::time::Duration;

use super::options::{self, SysbenchArgs, SysbenchCommand};
use super::text;
use crate::fileio::command::{check_json_path, finish, refuse, run_plan, say, wants_help};
use crate::fileio::error::FileIoError;
use crate::fileio::files;
use crate::fileio::io_report;
use crate::fileio::page_cache;
use crate::fileio::plan::Plan;
use crate::fileio::size::parse_count;
use crate::fileio::target::{self, Target};
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
    let a = options::parse(args)?;
    check_json_path(a.json.as_deref())?;
    let plan = options::plan(&a)?;
    let set = options::file_set(&a)?;
    files::check_directory("--file-dir", &set.dir)?;
    check_test_files(&plan)?;
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
            say(json, &text::prepare_header(&plan));
            let outcome = run_plan(&plan, a.drop_caches, None)?;
            say(json, &text::prepare_summary(&outcome));
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
                &text::run_header(&plan, &mode, &a.options["file-rw-ratio"]),
            );
            let outcome = run_plan(
                &plan,
                a.drop_caches,
                (every > 0).then(|| Duration::from_secs(every)),
            )?;
            say(json, &text::run_summary(&outcome, percentile));
            let doc = io_report::document(&plan, &outcome, properties, a.drop_caches);
            Ok(finish(&doc, json))
        }
    }
}

/// Every `test_file.N` must be missing or a regular file: prepare writes
/// them, run may write them and cleanup removes them, so a device, a link or
/// anything else under that name (someone else's) is refused before any of it.
fn check_test_files(plan: &Plan) -> Result<(), FileIoError> {
    for f in &plan.files {
        match target::inspect_entry(&f.path)? {
            Target::Missing | Target::Regular { .. } => {}
            other => {
                return Err(FileIoError::invalid(
                    "--file-dir",
                    format!(
                        "'{}' is a {}, not a test file; sysbench fileio prepares, runs on \
                         and removes only regular files named test_file.N",
                        f.path.display(),
                        other.kind()
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Creates the files (sparse) so `prepare`'s write pass can open them; an
/// existing one is extended when short and never truncated, as sysbench 1.0
/// keeps a longer file.
fn create_files(plan: &Plan) -> Result<(), FileIoError> {
    for f in &plan.files {
        let file = files::open_regular_for_layout(&f.path)?;
        let len = file
            .metadata()
            .map_err(|source| FileIoError::Setup {
                path: f.path.display().to_string(),
                what: "stat",
                source,
            })?
            .len();
        if len >= f.size {
            continue;
        }
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
