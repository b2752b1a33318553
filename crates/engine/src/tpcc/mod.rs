//! `contio-engine tpcc load|run|check TARGET …`: a TPC-C-like workload for
//! MariaDB/MySQL (`mysql`) and PostgreSQL (`postgres`), see
//! docs/engine-interface.md ("TPC-C").
//!
//! Warehouses are the scale; `load` creates the nine tables and loads the
//! spec's rows per warehouse; `run` runs the five transactions from a deck per
//! terminal (New-Order 45 %, Payment 43 %, Order-Status, Delivery and
//! Stock-Level 4 % each), without keying and think times unless asked, and
//! reports tpmC (New-Orders per minute) with the YCSB-style result document
//! (`NEW_ORDER`, `PAYMENT`, … in `operations_by_type`); `check` tests the
//! consistency conditions 1 and 2. The schema is go-tpc's, so either tool's
//! transactions run on the other's load.

pub mod check;
pub mod config;
pub mod customer;
pub mod db;
pub mod db_mysql;
pub mod db_postgres;
pub mod deck;
pub mod delivery;
pub mod loader;
pub mod new_order;
pub mod numeric;
pub mod order_status;
pub mod payment;
pub mod random;
pub mod run;
pub mod schema;
pub mod stock_level;
pub mod summary;
pub mod terminal;

use crate::cli::{self, USAGE};
use crate::client::phase::status_of;
use crate::client::{PhaseStatus, StopFlag};
use crate::error::{CliError, EngineError, TargetError};
use crate::measure::{text, Measurements};
use crate::result::{PhaseFacts, ResultDocument};
use crate::ycsb;

use config::TpccConfig;
use db::DbError;

/// How a transaction ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    /// New-Order's 1 % with an unused item, rolled back as the spec asks.
    RolledBack,
}

/// `tpcc`'s subcommands.
const SUBCOMMANDS: [&str; 3] = ["load", "run", "check"];

fn usage_error(message: String) -> EngineError {
    EngineError::Cli(CliError {
        message,
        usage: USAGE,
    })
}

fn failed(target: &str, e: DbError) -> EngineError {
    EngineError::Target(TargetError::Failed {
        target: target.to_string(),
        reason: e.message,
    })
}

/// Runs `tpcc ARGS…`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    match execute(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("contio-engine: {e}");
            e.exit_code()
        }
    }
}

fn execute(args: &[String]) -> Result<i32, EngineError> {
    let sub = args.first().map(String::as_str).unwrap_or("");
    if !SUBCOMMANDS.contains(&sub) {
        return Err(usage_error(format!(
            "tpcc needs one of load, run, check, not '{sub}'"
        )));
    }
    let Some(target) = args.get(1).filter(|t| !t.starts_with('-')) else {
        return Err(usage_error(format!(
            "tpcc {sub} needs a target: mysql (MariaDB, MySQL) or postgres"
        )));
    };
    let flags = cli::parse_flags(&args[2..], None)?;
    if flags.db.is_some() || flags.phase.is_some() {
        return Err(usage_error(
            "tpcc takes its phase and target by name, not -db, -load or -t".into(),
        ));
    }
    let props = ycsb::assemble(&flags.sources)?;
    let (config, props) =
        TpccConfig::from_properties(target, props, sub == "load", flags.show_status)?;
    ycsb::check_output(flags.json.as_deref())?;
    let stop = StopFlag::for_phase()?;
    crate::result::print_banner("TPC-C-like workload", &format!("tpcc {}", args.join(" ")));
    let target = config.dialect.target();
    if sub == "check" {
        let mut db = config.connect().map_err(|e| failed(target, e))?;
        let conditions = check::check(db.as_mut()).map_err(|e| failed(target, e))?;
        let mut ok = true;
        for c in &conditions {
            let verdict = if c.violations.is_empty() {
                "ok"
            } else {
                "VIOLATED"
            };
            println!(
                "[CHECK], Condition {} ({}), {verdict}, checked {}",
                c.number, c.text, c.checked
            );
            for v in &c.violations {
                println!("[CHECK], Condition {}, {v}", c.number);
            }
            ok &= c.violations.is_empty();
        }
        return Ok(if ok { 0 } else { 1 });
    }
    let effective = summary::effective_properties(&props, &config);
    let facts =
        |status: PhaseStatus, error: Option<String>, started_at, runtime_ms, threads| PhaseFacts {
            kind: "tpcc",
            phase: sub,
            target,
            target_description: summary::describe(&config),
            properties: effective.clone(),
            threads,
            target_ops_per_sec: 0,
            status: status.name(),
            error,
            started_at,
            runtime_ms,
        };
    let outcome = if sub == "load" {
        eprintln!(
            "Starting tpcc load: {} warehouse(s), {} thread(s) against target '{target}'",
            config.scale.warehouses,
            config
                .client
                .threads
                .min(config.scale.warehouses as usize + 1)
        );
        loader::load(&config, &stop).map(|o| {
            let tpcc = summary::load_summary(&o, &config);
            (
                o.measurements,
                o.started_at,
                o.runtime_ms,
                o.threads,
                o.error,
                tpcc,
            )
        })
    } else {
        eprintln!(
            "Starting tpcc run: {} terminal(s) against target '{target}'",
            config.client.threads
        );
        run::run(&config, &stop).map(|o| {
            let tpcc = summary::run_summary(&o, &config);
            (
                o.measurements,
                o.started_at,
                o.runtime_ms,
                o.threads,
                o.error,
                tpcc,
            )
        })
    };
    let (m, started_at, runtime_ms, threads, error, tpcc) = match outcome {
        Ok(parts) => parts,
        Err(e) => {
            // Nothing ran (no connection, no tables): still leave a result saying why.
            if let Some(path) = flags.json.as_deref() {
                let f = facts(
                    PhaseStatus::Failed,
                    Some(e.message.clone()),
                    std::time::SystemTime::now(),
                    0.0,
                    0,
                );
                ResultDocument::new(f, &Measurements::empty()).write(path)?;
            }
            return Err(failed(target, e));
        }
    };
    // Failed: a terminal could not connect, a load statement failed, or every
    // transaction failed.
    let all_failed = "every transaction failed (see the Return= counts)";
    let (status, error) = status_of(&m, error, &stop, all_failed);
    let mut doc = ResultDocument::new(
        facts(status, error.clone(), started_at, runtime_ms, threads),
        &m,
    );
    doc.tpcc = Some(tpcc);
    let mut out = text::render(
        runtime_ms,
        doc.throughput_ops_per_sec,
        &m,
        &config.client.measurement,
    );
    out.push_str(&summary::text_lines(doc.tpcc.as_ref()));
    match flags.json.as_deref() {
        Some("-") => eprint!("{out}"),
        _ => print!("{out}"),
    }
    if let Some(path) = flags.json.as_deref() {
        doc.write(path)?;
    }
    if let Some(e) = &error {
        eprintln!("contio-engine: tpcc {sub} {}: {e}", status.name());
    }
    Ok(if status == PhaseStatus::Ok { 0 } else { 1 })
}
