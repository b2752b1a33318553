//! What a `cstress` run reports besides the common result document: the `cstress`
//! object (op, partition and row rates, totals, latencies in ms, per operation type)
//! and the final `Results:` block on stdout.
//!
//! The block's lines are cassandra-stress 2.1's (the version PerfKitBenchmarker
//! runs and parses): `op rate`, `partition rate`, `row rate`, `latency mean`,
//! `latency median`, `latency 95th percentile`, `latency 99th percentile`,
//! `latency 99.9th percentile`, `latency max`, `Total partitions`, `Total errors`,
//! `Total operation time` (HH:MM:SS), each as `NAME<spaces>: VALUE [TYPE:VALUE, …]`
//! with plain numbers, so PKB's `NAME[\t ]+: ([\d\.:]+)` finds every value. The
//! real tool's garbage-collection lines are left out: the engine does not read the
//! server's JVM over JMX, and the real tool's zeros there would claim it did.

use serde_json::{json, Value};

use super::args::Command;
use super::config::CstressConfig;
use super::cql::TABLE;
use super::keys::KEY_SIZE;
use crate::measure::histogram::TotalHistogram;
use crate::measure::{Measurements, Operation, Slot};
use crate::target::Status;

/// The operation types, in the order the real tool lists them (by name).
pub const OPERATIONS: [Operation; 2] = [Operation::Read, Operation::Write];

/// Reads one figure of a `Latency`.
type LatencyField = fn(&Latency) -> f64;

/// Latency figures in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Latency {
    pub mean: f64,
    pub median: f64,
    pub p95: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

/// One operation type's figures, or all types together.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub name: &'static str,
    /// Operations done, failed ones included.
    pub operations: u64,
    /// Partitions (and rows: one per partition in `standard1`) of the successful ones.
    pub partitions: u64,
    pub errors: u64,
    pub latency: Latency,
}

/// The run's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub runtime_ms: f64,
    /// Types that ran, by name.
    pub types: Vec<Figures>,
    pub total: Figures,
}

impl Summary {
    /// Figures from the merged measurements of a run that took `runtime_ms`.
    pub fn of(m: &Measurements, runtime_ms: f64) -> Self {
        let mut all: Option<TotalHistogram> = None;
        let mut types = Vec::new();
        for op in OPERATIONS {
            let counts = &m.returns[op.index()];
            let operations: u64 = counts.iter().sum();
            if operations == 0 {
                continue;
            }
            let mut merged: Option<TotalHistogram> = None;
            for failed in [false, true] {
                let slot = Slot {
                    operation: op,
                    failed,
                };
                if let Some(h) = &m.actual[slot.index()] {
                    for into in [&mut merged, &mut all] {
                        match into {
                            Some(total) => {
                                // Equal bounds: adding cannot fail.
                                let _ = total.add(h);
                            }
                            None => *into = Some(h.clone()),
                        }
                    }
                }
            }
            let ok = counts[Status::Ok.index()];
            types.push(Figures {
                name: op.name(),
                operations,
                partitions: ok,
                errors: operations - ok,
                latency: merged.as_ref().map(latency).unwrap_or_default(),
            });
        }
        let total = Figures {
            name: "total",
            operations: types.iter().map(|t| t.operations).sum(),
            partitions: types.iter().map(|t| t.partitions).sum(),
            errors: types.iter().map(|t| t.errors).sum(),
            latency: all.as_ref().map(latency).unwrap_or_default(),
        };
        Self {
            runtime_ms,
            types,
            total,
        }
    }

    /// `count` per second of the run.
    pub fn rate(&self, count: u64) -> f64 {
        if self.runtime_ms > 0.0 {
            count as f64 * 1000.0 / self.runtime_ms
        } else {
            0.0
        }
    }
}

fn latency(h: &TotalHistogram) -> Latency {
    let ms = |us: u64| us as f64 / 1000.0;
    Latency {
        mean: h.mean() / 1000.0,
        median: ms(h.value_at_quantile(0.5)),
        p95: ms(h.value_at_quantile(0.95)),
        p99: ms(h.value_at_quantile(0.99)),
        p999: ms(h.value_at_quantile(0.999)),
        max: ms(h.max()),
    }
}

/// `HH:MM:SS` of a run time (hours may exceed 99).
pub fn hms(runtime_ms: f64) -> String {
    let s = (runtime_ms / 1000.0).round() as u64;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The `Results:` block (see the module documentation).
pub fn text(s: &Summary) -> String {
    let mut out = String::from("\nResults:\n");
    let mut line = |name: &str, total: String, per_type: &dyn Fn(&Figures) -> String| {
        let each: Vec<String> = s
            .types
            .iter()
            .map(|t| format!("{}:{}", t.name, per_type(t)))
            .collect();
        out.push_str(&format!("{name:<26}: {total} [{}]\n", each.join(", ")));
    };
    let rate = |t: &Figures| format!("{:.0}", s.rate(t.operations));
    let parts = |t: &Figures| format!("{:.0}", s.rate(t.partitions));
    line("op rate", rate(&s.total), &rate);
    line("partition rate", parts(&s.total), &parts);
    line("row rate", parts(&s.total), &parts);
    let lat: [(&str, LatencyField); 6] = [
        ("latency mean", |l| l.mean),
        ("latency median", |l| l.median),
        ("latency 95th percentile", |l| l.p95),
        ("latency 99th percentile", |l| l.p99),
        ("latency 99.9th percentile", |l| l.p999),
        ("latency max", |l| l.max),
    ];
    for (name, get) in lat {
        let f = |t: &Figures| format!("{:.1}", get(&t.latency));
        line(name, f(&s.total), &f);
    }
    let partitions = |t: &Figures| t.partitions.to_string();
    line("Total partitions", partitions(&s.total), &partitions);
    let errors = |t: &Figures| t.errors.to_string();
    line("Total errors", errors(&s.total), &errors);
    out.push_str(&format!(
        "{:<26}: {}\n\n",
        "Total operation time",
        hms(s.runtime_ms)
    ));
    out
}

fn latency_json(l: &Latency) -> Value {
    json!({
        "mean": l.mean, "median": l.median, "p95": l.p95, "p99": l.p99,
        "p999": l.p999, "max": l.max,
    })
}

/// The result document's `cstress` object.
pub fn json(s: &Summary, config: &CstressConfig) -> Value {
    let by_type: serde_json::Map<String, Value> = s
        .types
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                json!({
                    "operations": t.operations,
                    "op_rate": s.rate(t.operations),
                    "partitions": t.partitions,
                    "partition_rate": s.rate(t.partitions),
                    "rows": t.partitions,
                    "row_rate": s.rate(t.partitions),
                    "errors": t.errors,
                    "latency_ms": latency_json(&t.latency),
                }),
            )
        })
        .collect();
    let mut doc = json!({
        "command": config.command.name(),
        "keyspace": config.keyspace,
        "table": TABLE,
        "replication_factor": config.replication,
        "consistency": config.consistency_name,
        "population": config.population.describe(),
        "key_size": KEY_SIZE,
        "columns": config.layout.columns,
        "column_size": config.layout.column_size,
        "op_rate": s.rate(s.total.operations),
        "partition_rate": s.rate(s.total.partitions),
        "row_rate": s.rate(s.total.partitions),
        "total_partitions": s.total.partitions,
        "total_rows": s.total.partitions,
        "total_errors": s.total.errors,
        "total_operation_time_s": s.runtime_ms / 1000.0,
        "latency_ms": latency_json(&s.total.latency),
        "by_type": by_type,
    });
    if config.command == Command::Mixed {
        doc["ratio"] = json!({"write": config.ratio.write, "read": config.ratio.read});
        doc["clustering"] = json!(config.clustering.describe());
    }
    doc
}

/// The `target_description`: where and how.
pub fn describe(config: &CstressConfig) -> Value {
    json!({
        "server": config
            .nodes
            .iter()
            .map(|n| format!("{n}:{}", config.port))
            .collect::<Vec<_>>()
            .join(","),
        "keyspace": config.keyspace,
        "layout": format!(
            "{TABLE}(key blob, C0..C{} blob) as cassandra-stress",
            config.layout.columns - 1
        ),
        "consistency": config.consistency_name,
        "connections_per_node": config.connections,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(name: &'static str, operations: u64, errors: u64, mean: f64) -> Figures {
        Figures {
            name,
            operations,
            partitions: operations - errors,
            errors,
            latency: Latency {
                mean,
                median: 1.0,
                p95: 2.5,
                p99: 3.0,
                p999: 9.75,
                max: 12.0,
            },
        }
    }

    #[test]
    fn the_results_block_is_the_real_tools() {
        let s = Summary {
            runtime_ms: 3_723_000.0,
            types: vec![
                figures("READ", 3000, 2, 1.25),
                figures("WRITE", 1000, 0, 0.5),
            ],
            total: figures("total", 4000, 2, 1.0625),
        };
        let out = text(&s);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[1], "Results:");
        assert_eq!(lines[2], "op rate                   : 1 [READ:1, WRITE:0]");
        assert_eq!(
            lines[5],
            "latency mean              : 1.1 [READ:1.2, WRITE:0.5]"
        );
        assert_eq!(
            lines[10],
            "latency max               : 12.0 [READ:12.0, WRITE:12.0]"
        );
        assert_eq!(
            lines[11],
            "Total partitions          : 3998 [READ:2998, WRITE:1000]"
        );
        assert_eq!(lines[12], "Total errors              : 2 [READ:2, WRITE:0]");
        assert_eq!(lines[13], "Total operation time      : 01:02:03");
        // Every name is followed by spaces, a colon and the value PKB reads.
        for l in &lines[2..14] {
            assert_eq!(&l[26..28], ": ", "{l}");
        }
        assert_eq!(hms(59_499.0), "00:00:59");
    }
}
