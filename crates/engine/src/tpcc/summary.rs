//! What a `tpcc` phase reports besides the common result document: the
//! `tpcc` object (tpmC, total tpm, retries, failures, rollbacks, scale), its
//! `[TPCC]` text lines, the effective properties and the phase's status.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::config::TpccConfig;
use super::deck::{MIX, TRANSACTIONS};
use super::loader::LoadOutcome;
use super::run::RunOutcome;
use crate::measure::{Measurements, Operation};
use crate::properties::Properties;
use crate::target::Status;

/// Successful calls of `op`.
fn ok_count(m: &Measurements, op: Operation) -> u64 {
    m.returns[op.index()][Status::Ok.index()]
}

fn per_minute(count: u64, runtime_ms: f64) -> f64 {
    if runtime_ms > 0.0 {
        count as f64 * 60_000.0 / runtime_ms
    } else {
        0.0
    }
}

/// The run's `tpcc` object.
pub fn run_summary(o: &RunOutcome, config: &TpccConfig) -> Value {
    let m = &o.measurements;
    let done: u64 = TRANSACTIONS.iter().map(|&op| ok_count(m, op)).sum();
    let by_name = |counts: &[u64; 5]| -> BTreeMap<&str, u64> {
        TRANSACTIONS
            .iter()
            .zip(counts)
            .map(|(op, &n)| (op.name(), n))
            .collect()
    };
    let mix: BTreeMap<&str, usize> = TRANSACTIONS
        .iter()
        .zip(MIX)
        .map(|(op, n)| (op.name(), n))
        .collect();
    json!({
        "warehouses": o.scale.warehouses,
        "items": o.scale.items,
        "customers_per_district": o.scale.customers,
        "tpmC": per_minute(ok_count(m, Operation::NewOrder), o.runtime_ms),
        "tpm_total": per_minute(done, o.runtime_ms),
        "new_order_rolled_back": o.counters.rolled_back,
        "retries": by_name(&o.counters.retries),
        "failed": by_name(&o.counters.failed),
        "mix_percent": mix,
        "think_time": config.think_time,
        "max_retries": config.retries,
    })
}

/// The load's `tpcc` object.
pub fn load_summary(o: &LoadOutcome, config: &TpccConfig) -> Value {
    json!({
        "warehouses": config.scale.warehouses,
        "items": config.scale.items,
        "customers_per_district": config.scale.customers,
        "rows": o.measurements.operations,
        "rows_per_sec": if o.runtime_ms > 0.0 {
            o.measurements.operations as f64 * 1000.0 / o.runtime_ms
        } else {
            0.0
        },
    })
}

/// `[TPCC], tpmC, …` lines after the YCSB-style summary.
pub fn text_lines(tpcc: Option<&Value>) -> String {
    let Some(t) = tpcc else {
        return String::new();
    };
    let mut out = String::new();
    for key in ["tpmC", "tpm_total"] {
        if let Some(v) = t.get(key).and_then(Value::as_f64) {
            out.push_str(&format!("[TPCC], {key}, {v:.1}\n"));
        }
    }
    for key in ["warehouses", "rows", "new_order_rolled_back"] {
        if let Some(v) = t.get(key) {
            out.push_str(&format!("[TPCC], {key}, {v}\n"));
        }
    }
    for key in ["retries", "failed"] {
        if let Some(map) = t.get(key).and_then(Value::as_object) {
            for (name, n) in map {
                out.push_str(&format!("[TPCC], {key}({name}), {n}\n"));
            }
        }
    }
    out
}

/// Every property in effect: the given ones and the defaults used.
pub fn effective_properties(props: &Properties, config: &TpccConfig) -> BTreeMap<String, String> {
    let c = &config.client;
    let mut all: BTreeMap<String, String> = [
        ("warehouses", config.scale.warehouses.to_string()),
        ("tpcc.items", config.scale.items.to_string()),
        ("tpcc.customers", config.scale.customers.to_string()),
        ("tpcc.think_time", config.think_time.to_string()),
        ("tpcc.retries", config.retries.to_string()),
        ("threadcount", c.threads.to_string()),
        ("operationcount", config.operation_count.to_string()),
        (
            "maxexecutiontime",
            c.max_execution_time.map_or(0, |d| d.as_secs()).to_string(),
        ),
        ("status.interval", c.status_interval.as_secs().to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (k, v) in props.iter() {
        // The password stays out of the result.
        if !k.ends_with(".password") {
            all.entry(k.to_string()).or_insert_with(|| v.to_string());
        }
    }
    all
}

/// The `target_description`: where and how.
pub fn describe(config: &TpccConfig) -> Value {
    json!({
        "server": format!("{}:{}/{}", config.endpoint.host, config.endpoint.port, config.database),
        "schema": "TPC-C (go-tpc's tables and indexes)",
        "isolation": "the server's default (MariaDB: REPEATABLE READ, PostgreSQL: READ COMMITTED)",
    })
}
