//! The result document (`contio.engine.result/1`, see docs/engine-interface.md):
//! one per phase, for every workload kind, written atomically.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::error::EngineError;
use crate::file_kind;
use crate::measure::report::{self, OpReport};
use crate::measure::{Measurements, SecondSummary};

/// The schema name and version of the document.
pub const SCHEMA: &str = "contio.engine.result/1";
/// This engine's version.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The first two lines a phase prints on stderr, as YCSB does: the engine and
/// what it runs, then the command line.
pub fn print_banner(what: &str, command_line: &str) {
    eprintln!("contio-engine {ENGINE_VERSION} ({what})");
    eprintln!("Command line: {command_line}");
}

/// The result of one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultDocument {
    /// Always `SCHEMA`.
    pub schema: String,
    /// The engine that wrote it.
    pub engine_version: String,
    /// `ycsb`, `sysbench`, `fio`, `tpcc` or `cstress`.
    pub kind: String,
    /// `load`/`run` (ycsb); `prepare`/`run`/`cleanup` (sysbench); `run` (fio).
    pub phase: String,
    /// The target's registry name.
    pub target: String,
    /// What the target says of itself (engine, version, settings).
    pub target_description: serde_json::Value,
    /// Every property in effect (given ones and the defaults used).
    pub properties: BTreeMap<String, String>,
    /// Client threads that ran.
    pub threads: usize,
    /// Requested total ops/s; 0 = unlimited.
    pub target_ops_per_sec: u64,
    /// `ok`, `interrupted` or `failed`.
    pub status: String,
    /// Why, when status is not `ok`.
    pub error: Option<String>,
    /// Phase start, RFC 3339 UTC.
    pub started_at: String,
    /// Phase duration, ms.
    pub runtime_ms: f64,
    /// Completed workload operations, all types.
    pub operations: u64,
    /// operations / runtime.
    pub throughput_ops_per_sec: f64,
    /// Latency from the actual start, per operation name.
    pub operations_by_type: BTreeMap<String, OpReport>,
    /// Latency from the intended start (throttled runs), per operation name; else null.
    pub intended_by_type: Option<BTreeMap<String, OpReport>>,
    /// One entry per second.
    pub timeseries: Vec<SecondSummary>,
    /// File workloads: bytes read and written.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub io: Option<serde_json::Value>,
    /// `tpcc` phases: tpmC, total tpm, retries, failures (see `crate::tpcc::summary`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tpcc: Option<serde_json::Value>,
    /// `cstress` phases: op, partition and row rates, totals, latencies in ms (see
    /// `crate::cstress::summary`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cstress: Option<serde_json::Value>,
}

/// What a phase produced, besides its measurements.
pub struct PhaseFacts<'a> {
    pub kind: &'a str,
    pub phase: &'a str,
    pub target: &'a str,
    pub target_description: serde_json::Value,
    pub properties: BTreeMap<String, String>,
    pub threads: usize,
    pub target_ops_per_sec: u64,
    pub status: &'a str,
    pub error: Option<String>,
    pub started_at: SystemTime,
    pub runtime_ms: f64,
}

impl ResultDocument {
    /// The document of a phase.
    pub fn new(facts: PhaseFacts<'_>, m: &Measurements) -> Self {
        let seconds = facts.runtime_ms / 1000.0;
        Self {
            schema: SCHEMA.to_string(),
            engine_version: ENGINE_VERSION.to_string(),
            kind: facts.kind.to_string(),
            phase: facts.phase.to_string(),
            target: facts.target.to_string(),
            target_description: facts.target_description,
            properties: facts.properties,
            threads: facts.threads,
            target_ops_per_sec: facts.target_ops_per_sec,
            status: facts.status.to_string(),
            error: facts.error,
            started_at: humantime::format_rfc3339_millis(facts.started_at).to_string(),
            runtime_ms: facts.runtime_ms,
            operations: m.operations,
            throughput_ops_per_sec: if seconds > 0.0 {
                m.operations as f64 / seconds
            } else {
                0.0
            },
            operations_by_type: report::operations_by_type(m),
            intended_by_type: report::intended_by_type(m),
            timeseries: m.timeseries.clone(),
            io: None,
            tpcc: None,
            cstress: None,
        }
    }

    /// Writes the document to `path` (`-` = stdout). A file is written to a
    /// temporary name first and renamed, so readers never see half a document.
    pub fn write(&self, path: &str) -> Result<(), EngineError> {
        let fail = |e: &dyn std::fmt::Display| EngineError::Output {
            path: path.to_string(),
            reason: e.to_string(),
        };
        let text = serde_json::to_string_pretty(self).map_err(|e| fail(&e))?;
        if path == "-" {
            let mut out = std::io::stdout().lock();
            return writeln!(out, "{text}").map_err(|e| fail(&e));
        }
        let target = Path::new(path);
        if let Some(problem) = file_kind::output_problem(target) {
            return Err(fail(&problem));
        }
        let tmp = target.with_extension("json.partial");
        let mut file = file_kind::create_new(&tmp).map_err(|e| fail(&e))?;
        file.write_all((text + "\n").as_bytes())
            .map_err(|e| fail(&e))?;
        drop(file);
        if let Some(problem) = file_kind::output_problem(target) {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail(&problem));
        }
        std::fs::rename(&tmp, target).map_err(|e| fail(&e))
    }
}
