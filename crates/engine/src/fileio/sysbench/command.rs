//! The `sysbench` subcommand, as sysbench 1.0.20 behaves: warnings, the
//! general checks, the banner, the test and its command; `prepare` creates,
//! extends or reuses the test files, `run` checks them and runs, `cleanup`
//! removes them; sysbench's text and exit codes (`error`), and contio's JSON
//! document with `-json`.

use std::time::{Duration, Instant};

use super::args::{self, SysbenchArgs, SysbenchCommand};
use super::error::SysbenchError;
use super::log::{Log, SYSBENCH_VERSION};
use super::options::FileSet;
use super::{help, interval, options, test_files, text};
use crate::fileio::command::{check_json_path, run_plan};
use crate::fileio::files;
use crate::fileio::io_report;
use crate::fileio::page_cache;
use crate::fileio::plan::{IoEngine, Plan};
use crate::fileio::run::RunOutcome;
use crate::measure::Measurements;
use crate::properties::closest;
use crate::result::{PhaseFacts, ResultDocument};

/// `contio-engine sysbench ARGS...`.
pub fn sysbench_main(args: &[String]) -> i32 {
    let json = args.iter().any(|a| a == "-json" || a == "--json");
    let a = match args::parse(args) {
        Ok(a) => a,
        Err(e) => {
            Log::default().stop(&e);
            return e.exit_code(json);
        }
    };
    let verbosity = a.verbosity();
    let log = Log {
        verbosity: *verbosity.as_ref().unwrap_or(&Log::default().verbosity),
        to_stderr: a.json.as_deref() == Some("-"),
        errors_to_stderr: a.json.is_some(),
    };
    let result = verbosity.and_then(|_| sysbench(&a, &log));
    match result {
        Ok(code) => code,
        Err(e) => {
            log.stop(&e);
            e.exit_code(json)
        }
    }
}

fn sysbench(a: &SysbenchArgs, log: &Log) -> Result<i32, SysbenchError> {
    for w in &a.warnings {
        log.warning(w);
    }
    if a.flag("help")? {
        print!("{}", help::general_help());
        return Ok(0);
    }
    if a.flag("version")? {
        println!(
            "sysbench {SYSBENCH_VERSION} (contio-engine {})",
            crate::result::ENGINE_VERSION
        );
        return Ok(0);
    }
    options::check_general(a)?;
    if a.flag("validate")? {
        log.warning(
            "--validate: contio-engine does not write or check sysbench's block checksums; \
             what is read is not validated",
        );
    }
    log.banner();
    match a.test.as_deref() {
        Some("fileio") => {}
        Some(other) => {
            return Err(SysbenchError::Fatal(format!(
                "Cannot find benchmark '{other}': no such built-in test, file or module"
            )))
        }
        None => {
            return Err(SysbenchError::Fatal(
                "contio-engine runs the fileio test only: give `fileio` and a command \
                 (see 'sysbench fileio help')"
                    .into(),
            ))
        }
    }
    if let Some(first) = a.unknown.first() {
        return Err(unknown_option(first));
    }
    let command = a.checked_command()?;
    if command == SysbenchCommand::Help {
        print!("{}", help::fileio_help());
        return Ok(0);
    }
    check_json_path(a.json.as_deref())?;
    let set = options::file_set(a)?;
    files::check_directory("--file-dir", &set.dir)?;
    test_files::check_regular(&set.files(set.file_size))?;
    if a.drop_caches {
        page_cache::check_can_drop()?;
    }
    match command {
        SysbenchCommand::Cleanup => cleanup(a, &set, log),
        SysbenchCommand::Prepare => prepare(a, &set, log),
        _ => run(a, &set, log),
    }
}

/// sysbench's line for an option it does not know, and contio's guess.
fn unknown_option(arg: &str) -> SysbenchError {
    let name = arg.trim_start_matches('-').split('=').next().unwrap_or("");
    let guess = closest(name, args::DEFAULTS.iter().map(|(k, _)| *k))
        .map(|k| format!("\n(did you mean --{k}?)"))
        .unwrap_or_default();
    SysbenchError::Usage(format!("invalid option: {arg}{guess}"))
}

fn finish(a: &SysbenchArgs, plan: &Plan, outcome: &RunOutcome) -> Result<i32, SysbenchError> {
    let doc = io_report::document(plan, outcome, a.options.clone(), a.drop_caches);
    if let Some(path) = a.json.as_deref() {
        if let Err(e) = doc.write(path) {
            return Err(SysbenchError::Fatal(e.to_string()));
        }
    }
    if let Some(e) = &doc.error {
        return Err(SysbenchError::Failed(format!("{}: {e}", doc.status)));
    }
    Ok(0)
}

fn prepare(a: &SysbenchArgs, set: &FileSet, log: &Log) -> Result<i32, SysbenchError> {
    let bs = options::block_size(a)?;
    let todo = test_files::plan_preparation(set, bs)?;
    let steps = todo.steps;
    let plan = options::prepare_plan(a, set, todo.sizes, todo.regions)?;
    let needed: u64 = plan.streams[0].regions.iter().map(|r| r.length).sum();
    files::check_space("--file-total-size", &set.dir, needed)?;
    log.notice(&text::prepare_header(a, &plan, set.file_size, &steps));
    test_files::create(&plan.files)?;
    if needed == 0 {
        log.notice(&text::prepare_summary(0, 0.0));
        return write_facts(a, "prepare", set.count, Instant::now(), None);
    }
    let t0 = Instant::now();
    let outcome = run_plan(&plan, a.drop_caches, None, None)?;
    let seconds = t0.elapsed().as_secs_f64();
    log.notice(&text::prepare_summary(outcome.bytes_written(), seconds));
    finish(a, &plan, &outcome)
}

fn run(a: &SysbenchArgs, set: &FileSet, log: &Log) -> Result<i32, SysbenchError> {
    if a.opt("file-test-mode").is_empty() {
        return Err(SysbenchError::MissingMode(help::fileio_help()));
    }
    let plan = options::run_plan(a, set)?;
    let fsync = options::fsync_options(a)?;
    log.notice(&text::run_options(a, plan.threads()));
    log.notice(&text::run_mode(a, &plan, set.file_size, &fsync));
    if a.opt("file-test-mode") == "seqwr" {
        test_files::recreate(&plan.files)?;
    } else {
        test_files::check_prepared(&plan.files, set.file_size)?;
    }
    if plan.engine == IoEngine::Mmap {
        test_files::extend_for_mmap(&plan.files)?;
    }
    log.notice("Initializing worker threads...\n");
    log.notice("Threads started!\n");
    let every: u64 = a.opt("report-interval").trim().parse().unwrap_or(0);
    let percentile: u8 = a.opt("percentile").trim().parse().unwrap_or(95);
    let lines = interval::formatter(plan.block_size, percentile);
    let outcome = run_plan(
        &plan,
        a.drop_caches,
        (every > 0).then(|| Duration::from_secs(every)),
        Some(lines),
    )?;
    if a.flag("histogram")? {
        log.notice(&text::histogram(&outcome));
    }
    log.notice(&text::run_summary(&outcome, percentile));
    finish(a, &plan, &outcome)
}

fn cleanup(a: &SysbenchArgs, set: &FileSet, log: &Log) -> Result<i32, SysbenchError> {
    log.notice("Removing test files...");
    let t0 = Instant::now();
    let mut error = None;
    for f in set.files(set.file_size) {
        if let Err(e) = test_files::remove_if_present(&f.path) {
            error.get_or_insert(format!("{}: {e}", f.path.display()));
        }
    }
    write_facts(a, "cleanup", set.count, t0, error)
}

/// The document of a phase that made no requests (`cleanup`, a `prepare`
/// that found every file long enough).
fn write_facts(
    a: &SysbenchArgs,
    phase: &'static str,
    files: u64,
    t0: Instant,
    error: Option<String>,
) -> Result<i32, SysbenchError> {
    let facts = PhaseFacts {
        kind: "sysbench",
        phase,
        target: "files",
        target_description: serde_json::json!({ "files": files }),
        properties: a.options.clone(),
        threads: 1,
        target_ops_per_sec: 0,
        status: if error.is_some() { "failed" } else { "ok" },
        error,
        started_at: std::time::SystemTime::now() - t0.elapsed(),
        runtime_ms: t0.elapsed().as_secs_f64() * 1000.0,
    };
    let doc = ResultDocument::new(facts, &Measurements::empty());
    if let Some(path) = a.json.as_deref() {
        doc.write(path)
            .map_err(|e| SysbenchError::Fatal(e.to_string()))?;
    }
    match &doc.error {
        Some(e) => Err(SysbenchError::Failed(e.clone())),
        None => Ok(0),
    }
}
