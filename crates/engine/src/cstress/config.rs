//! What a `cstress` run needs, from its parsed command line with the real tool's
//! defaults: consistency LOCAL_ONE, keyspace `keyspace1` with replication factor 1,
//! five 34-byte columns, the population of `population` (seq for write, a gaussian
//! for read and mixed), writes and reads 1:1 in runs of GAUSSIAN(1..10) for mixed,
//! 9 retries after an exception, and the run stops at the first error unless
//! `-errors ignore`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use scylla::statement::Consistency;

use super::args::{usage_error, Args, Command, Ratio};
use super::keys::{Layout, SEED_LIMIT};
use super::population::{Dist, PopulationSpec, DEFAULT_SIZE};
use crate::client::config::MAX_THREADS;
use crate::client::{ClientConfig, StartBarrier};
use crate::error::{EngineError, PropertyError};
use crate::properties::{closest, Properties};
use crate::target::cassandra::{consistency_named, CONSISTENCY_LEVELS};
use crate::workload::property_names::MEASUREMENT;

/// A `-p` key that has a cassandra-stress option of its own, and that option.
const OWN_OPTION: [(&str, &str); 5] = [
    ("threadcount", "-rate threads=N"),
    ("operationcount", "n=N"),
    ("maxexecutiontime", "duration=N(s|m|h)"),
    ("cassandra.host", "-node HOST"),
    ("cassandra.port", "-port native=PORT"),
];

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct CstressConfig {
    pub command: Command,
    /// Operations in all; 0 = until the duration is over.
    pub operation_count: u64,
    pub consistency: Consistency,
    /// `cl=`'s name (LOCAL_ONE by default).
    pub consistency_name: String,
    pub ratio: Ratio,
    pub clustering: Dist,
    pub nodes: Vec<String>,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub connections: usize,
    pub population: PopulationSpec,
    pub layout: Layout,
    pub keyspace: String,
    pub replication: u32,
    pub ignore_errors: bool,
    /// Attempts per operation after exceptions (retries + 1).
    pub tries: u32,
    pub log_file: Option<PathBuf>,
    pub json: Option<String>,
    pub client: ClientConfig,
    pub barrier: Option<StartBarrier>,
    /// Every setting in effect, for the result document.
    pub effective: BTreeMap<String, String>,
}

fn bad(key: &str, value: impl ToString, expected: &str) -> EngineError {
    EngineError::Property(PropertyError::BadValue {
        key: key.into(),
        value: value.to_string(),
        expected: expected.into(),
    })
}

fn check_properties(pairs: &[(String, String)]) -> Result<Properties, EngineError> {
    let mut props = Properties::new();
    for (key, value) in pairs {
        if let Some((_, option)) = OWN_OPTION.iter().find(|(k, _)| k == key) {
            return Err(
                usage_error(format!("-p {key}: give it as cassandra-stress's {option}")).into(),
            );
        }
        // `-p` sets status lines, measurement and the start barrier only; the
        // size, threads and server come from cassandra-stress's own options.
        if !MEASUREMENT.contains(&key.as_str()) {
            return Err(PropertyError::Unknown {
                key: key.clone(),
                suggestion: closest(key, MEASUREMENT.iter().copied()),
            }
            .into());
        }
        props.set(key.clone(), value.clone());
    }
    Ok(props)
}

/// `identifier` rules for the keyspace: it is written into CQL statements.
fn keyspace_name(name: &str) -> Result<String, EngineError> {
    let mut chars = name.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 48;
    if ok {
        Ok(name.to_string())
    } else {
        Err(bad(
            "-schema keyspace",
            name,
            "a keyspace name (a letter, then letters, digits and '_', at most 48)",
        ))
    }
}

impl CstressConfig {
    /// Checks the parsed command line and fills in the real tool's defaults.
    pub fn from_args(args: Args) -> Result<Self, EngineError> {
        let command = args.command.unwrap_or(Command::Write);
        let count = match (args.count, args.duration) {
            (Some(_), Some(_)) => {
                return Err(usage_error("give n=N or duration=…, not both").into());
            }
            (None, None) => {
                return Err(usage_error(
                    "cstress needs n=N or duration=N(s|m|h) (running until the error \
                     converges, the real tool's default, is not implemented)",
                )
                .into());
            }
            (Some(0), None) => return Err(bad("n", 0, "a whole number >= 1")),
            (count, _) => count,
        };
        let Some(threads) = args.threads else {
            return Err(usage_error(
                "cstress needs -rate threads=N (the real tool's automatic thread ramp is not \
                 implemented)",
            )
            .into());
        };
        if threads > MAX_THREADS {
            return Err(bad(
                "-rate threads",
                threads,
                &format!("a whole number from 1 to {MAX_THREADS}"),
            ));
        }
        let consistency_name = args.consistency.unwrap_or_else(|| "LOCAL_ONE".into());
        let consistency = consistency_named(&consistency_name).ok_or_else(|| {
            bad(
                "cl",
                &consistency_name,
                &format!("one of {}", CONSISTENCY_LEVELS.join(", ")),
            )
        })?;
        let size = count.unwrap_or(DEFAULT_SIZE);
        let population = args.population.unwrap_or(match command {
            Command::Write => PopulationSpec::Seq {
                first: 1,
                last: size,
            },
            _ => PopulationSpec::Dist(Dist::gaussian(1, size, 3.0)),
        });
        let (_, last) = population.bounds();
        if last >= SEED_LIMIT {
            return Err(bad(
                "-pop",
                population.describe(),
                &format!("seeds below {SEED_LIMIT} (2^40)"),
            ));
        }
        let layout = Layout {
            columns: args.columns.unwrap_or(5),
            column_size: args.column_size.unwrap_or(34),
        };
        if !(1..=1024).contains(&layout.columns) {
            return Err(bad(
                "-col n",
                layout.columns,
                "FIXED(N) with N from 1 to 1024",
            ));
        }
        if layout.column_size > 1 << 20 {
            return Err(bad(
                "-col size",
                layout.column_size,
                "FIXED(N) with N up to 1048576",
            ));
        }
        let mut props = check_properties(&args.properties)?;
        props.set("threadcount", threads.to_string());
        if let Some(d) = args.duration {
            props.set("maxexecutiontime", d.as_secs().to_string());
        }
        let client = ClientConfig::from_properties(&props, args.show_status)?;
        let barrier = StartBarrier::from_properties(&props)?;
        let nodes = if args.nodes.is_empty() {
            vec!["localhost".to_string()]
        } else {
            args.nodes
        };
        let keyspace = keyspace_name(args.keyspace.as_deref().unwrap_or("keyspace1"))?;
        let mut config = Self {
            command,
            operation_count: count.unwrap_or(0),
            consistency,
            consistency_name,
            ratio: args.ratio.unwrap_or_default(),
            clustering: args.clustering.unwrap_or(Dist::gaussian(1, 10, 3.0)),
            nodes,
            port: args.port.unwrap_or(9042),
            user: args.user.unwrap_or_default(),
            password: args.password.unwrap_or_default(),
            connections: args.connections.unwrap_or(threads),
            population,
            layout,
            keyspace,
            replication: args.replication.unwrap_or(1),
            ignore_errors: args.ignore_errors,
            tries: args.retries.unwrap_or(9).saturating_add(1),
            log_file: args.log_file,
            json: args.json,
            client,
            barrier,
            effective: BTreeMap::new(),
        };
        config.effective = config.effective_settings(&props);
        Ok(config)
    }

    fn effective_settings(&self, props: &Properties) -> BTreeMap<String, String> {
        let mut all: BTreeMap<String, String> = props
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let c = &self.client;
        let mut put = |k: &str, v: String| {
            all.insert(k.to_string(), v);
        };
        put("command", self.command.name().into());
        put("n", self.operation_count.to_string());
        put(
            "duration",
            c.max_execution_time
                .map_or("0".into(), |d| format!("{}s", d.as_secs())),
        );
        put("cl", self.consistency_name.clone());
        if self.command == Command::Mixed {
            put(
                "ratio",
                format!("write={},read={}", self.ratio.write, self.ratio.read),
            );
            put("clustering", self.clustering.describe());
        }
        put("rate.threads", c.threads.to_string());
        put("node", self.nodes.join(","));
        put("port.native", self.port.to_string());
        put("pop", self.population.describe());
        put("col.n", format!("FIXED({})", self.layout.columns));
        put("col.size", format!("FIXED({})", self.layout.column_size));
        put("schema.keyspace", self.keyspace.clone());
        put("schema.replication.factor", self.replication.to_string());
        put("mode.connectionsPerHost", self.connections.to_string());
        put("errors.ignore", self.ignore_errors.to_string());
        put("errors.retries", (self.tries - 1).to_string());
        if !self.user.is_empty() {
            put("mode.user", self.user.clone());
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cstress::args::parse;

    fn config(line: &str) -> Result<CstressConfig, EngineError> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        CstressConfig::from_args(parse(&argv).map_err(EngineError::from)?)
    }

    #[test]
    fn the_real_tools_defaults() {
        let w = config("write n=1000 -rate threads=4").unwrap();
        assert_eq!(w.consistency, Consistency::LocalOne);
        assert_eq!(
            w.population,
            PopulationSpec::Seq {
                first: 1,
                last: 1000
            }
        );
        assert_eq!(w.layout, Layout::default());
        assert_eq!((w.keyspace.as_str(), w.replication), ("keyspace1", 1));
        assert_eq!((w.tries, w.ignore_errors), (10, false));
        assert_eq!(w.nodes, ["localhost"]);
        assert_eq!((w.port, w.connections), (9042, 4));
        let r = config("read duration=30s -rate threads=2").unwrap();
        assert_eq!(r.operation_count, 0);
        assert_eq!(
            r.population,
            PopulationSpec::Dist(Dist::gaussian(1, DEFAULT_SIZE, 3.0))
        );
        assert_eq!(r.client.max_execution_time.map(|d| d.as_secs()), Some(30));
        let m = config("mixed n=500 -rate threads=1").unwrap();
        assert_eq!(m.ratio, Ratio::default());
        assert_eq!(m.clustering, Dist::gaussian(1, 10, 3.0));
        assert_eq!(
            m.population,
            PopulationSpec::Dist(Dist::gaussian(1, 500, 3.0))
        );
        assert_eq!(m.effective["cl"], "LOCAL_ONE");
    }

    #[test]
    fn refuses_incomplete_or_contradicting_settings() {
        let msg = |line: &str| config(line).unwrap_err().to_string();
        assert!(msg("write -rate threads=1").contains("n=N or duration="));
        assert!(msg("write n=1 duration=1s -rate threads=1").contains("not both"));
        assert!(msg("write n=10").contains("-rate threads=N"));
        let e = msg("write n=1 cl=SOME -rate threads=1");
        assert!(e.contains("LOCAL_QUORUM"), "{e}");
        let e = msg("write n=1 -rate threads=1 -p threadcount=3");
        assert!(e.contains("-rate threads=N"), "{e}");
        let e = msg("write n=1 -rate threads=1 -p status.intervl=3");
        assert!(e.contains("status.interval"), "{e}");
        let e = msg("write n=1 -rate threads=1 -pop seq=1..2000000000000");
        assert!(e.contains("2^40"), "{e}");
        let e = msg("write n=1 -rate threads=1 -schema keyspace=a;b");
        assert!(e.contains("keyspace"), "{e}");
        // Every one of them is bad input: exit 2, nothing runs.
        assert_eq!(config("write n=10").unwrap_err().exit_code(), 2);
        assert_eq!(
            config("write n=1 cl=SOME -rate threads=1")
                .unwrap_err()
                .exit_code(),
            2
        );
    }
}
