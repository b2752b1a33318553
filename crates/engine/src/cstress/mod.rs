//! `contio-engine cstress write|read|mixed [cassandra] …`: a cassandra-stress-like
//! workload for Cassandra, see docs/engine-interface.md ("cassandra-stress").
//!
//! It takes a subset of cassandra-stress's own command line (`write n=100000
//! cl=ONE -rate threads=16 -node HOST -pop seq=1..100000 -col n=FIXED(5)
//! size=FIXED(34)`) with the real tool's defaults: keyspace `keyspace1`, table
//! `standard1` (`key blob` and five 34-byte blob columns), LOCAL_ONE, replication
//! factor 1; `write` visits the population in sequence, `read` and `mixed` draw
//! from a gaussian over it; a read checks the row it gets and counts a missing or
//! different row as an error. It ends with the real tool's `Results:` block and
//! writes the YCSB-style result document (`WRITE` and `READ` in
//! `operations_by_type`, the rates and totals in its `cstress` object).

pub mod args;
pub mod config;
pub mod cql;
pub mod keys;
pub mod mix;
pub mod population;
pub mod run;
pub mod summary;

use crate::client::phase::status_of;
use crate::client::{PhaseStatus, StopFlag};
use crate::error::{EngineError, PropertyError, TargetError};
use crate::measure::Measurements;
use crate::result::{PhaseFacts, ResultDocument};
use crate::target::cassandra::CqlConnection;
use crate::ycsb;

use config::CstressConfig;
use cql::Statements;

const TARGET: &str = "cassandra";

fn failed(reason: String) -> EngineError {
    EngineError::Target(TargetError::Failed {
        target: TARGET.to_string(),
        reason,
    })
}

/// Runs `cstress ARGS…`; returns the exit code.
pub fn main(argv: &[String]) -> i32 {
    match execute(argv) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("contio-engine: {e}");
            e.exit_code()
        }
    }
}

/// Connects, creates the schema when missing and prepares the statements.
fn open(config: &CstressConfig) -> Result<(CqlConnection, Statements), String> {
    let conn = CqlConnection::connect(
        &config.nodes,
        config.port,
        &config.user,
        &config.password,
        None,
        config.connections,
    )?;
    cql::create_schema(&conn, &config.keyspace, config.replication, &config.layout)?;
    let statements =
        Statements::prepare(&conn, &config.keyspace, &config.layout, config.consistency)?;
    Ok((conn, statements))
}

fn execute(argv: &[String]) -> Result<i32, EngineError> {
    let config = CstressConfig::from_args(args::parse(argv)?)?;
    ycsb::check_output(config.json.as_deref())?;
    if let Some(dir) = config.log_file.as_deref().and_then(std::path::Path::parent) {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(PropertyError::File {
                path: config
                    .log_file
                    .as_deref()
                    .unwrap_or(dir)
                    .display()
                    .to_string(),
                reason: format!("-log file: directory '{}' does not exist", dir.display()),
            }
            .into());
        }
    }
    let stop = StopFlag::for_phase()?;
    crate::result::print_banner(
        "cassandra-stress-like workload",
        &format!("cstress {}", argv.join(" ")),
    );
    let command = config.command.name();
    let facts =
        |status: PhaseStatus, error: Option<String>, started_at, runtime_ms, threads| PhaseFacts {
            kind: "cstress",
            phase: command,
            target: TARGET,
            target_description: summary::describe(&config),
            properties: config.effective.clone(),
            threads,
            target_ops_per_sec: 0,
            status: status.name(),
            error,
            started_at,
            runtime_ms,
        };
    let (conn, statements) = match open(&config) {
        Ok(opened) => opened,
        Err(e) => {
            // Nothing ran (no server, no schema): still leave a result saying why.
            if let Some(path) = config.json.as_deref() {
                let f = facts(
                    PhaseStatus::Failed,
                    Some(e.clone()),
                    std::time::SystemTime::now(),
                    0.0,
                    0,
                );
                ResultDocument::new(f, &Measurements::empty()).write(path)?;
            }
            return Err(failed(e));
        }
    };
    eprintln!(
        "Starting cstress {command}: {} thread(s), population {}, against {}",
        config.client.threads,
        config.population.describe(),
        summary::describe(&config)["server"].as_str().unwrap_or("")
    );
    let o = run::run(&config, &conn, &statements, &stop);
    // Failed: the first error without `-errors ignore`, a failed start barrier,
    // or every operation failed.
    let all_failed = "every operation failed (see Total errors)";
    let (status, error) = status_of(&o.measurements, o.error, &stop, all_failed);
    let figures = summary::Summary::of(&o.measurements, o.runtime_ms);
    let mut doc = ResultDocument::new(
        facts(status, error.clone(), o.started_at, o.runtime_ms, o.threads),
        &o.measurements,
    );
    doc.cstress = Some(summary::json(&figures, &config));
    let out = summary::text(&figures);
    match config.json.as_deref() {
        Some("-") => eprint!("{out}"),
        _ => print!("{out}"),
    }
    if let Some(path) = &config.log_file {
        std::fs::write(path, &out).map_err(|e| EngineError::Output {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
    }
    if let Some(path) = config.json.as_deref() {
        doc.write(path)?;
    }
    if let Some(e) = &error {
        eprintln!("contio-engine: cstress {command} {}: {e}", status.name());
    }
    Ok(if status == PhaseStatus::Ok { 0 } else { 1 })
}
