//! The command line of `contio-engine cstress`: a subset of cassandra-stress's own
//! syntax (a command, its options, then `-group option…` groups) and contio's
//! `-p KEY=VALUE`, `-s` and `-json PATH`.
//!
//! Only the syntax is read here; `config` checks what the values mean together.
//! Every option not in the subset is refused, naming it and the allowed ones.

use std::path::PathBuf;
use std::time::Duration;

use super::population::{Dist, PopulationSpec};
use crate::error::CliError;
use crate::properties::closest;

/// The usage line shown with every `cstress` command-line error.
pub const USAGE: &str = "contio-engine cstress write|read|mixed [cassandra] \
     [n=N | duration=N(s|m|h)] [cl=LEVEL] [no-warmup] [ratio(write=W,read=R)] \
     [clustering=DIST(..)] -rate threads=N [-node HOST[,HOST]...] [-port native=PORT] \
     [-pop seq=A..B | -pop dist=DIST(..)] [-col n=FIXED(N) size=FIXED(BYTES)] \
     [-schema replication(factor=N) keyspace=NAME] \
     [-mode native cql3 prepared user=U password=P connectionsPerHost=N] \
     [-errors ignore retries=N] [-log file=PATH] [-p KEY=VALUE]... [-s] [-json PATH]";

/// What the run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Writes every partition of the population (sequentially by default).
    Write,
    /// Reads partitions drawn from the population (a gaussian by default).
    Read,
    /// Reads and writes in `ratio`, in runs of one kind (`clustering`).
    Mixed,
}

impl Command {
    /// The name on the command line (and the result's `phase`).
    pub fn name(self) -> &'static str {
        match self {
            Command::Write => "write",
            Command::Read => "read",
            Command::Mixed => "mixed",
        }
    }
}

/// `ratio(write=W,read=R)`: relative weights of the mixed command's operations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub write: f64,
    pub read: f64,
}

impl Default for Ratio {
    /// cassandra-stress's default: as many writes as reads.
    fn default() -> Self {
        Self {
            write: 1.0,
            read: 1.0,
        }
    }
}

/// Everything the command line says, before defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    pub command: Option<Command>,
    /// `n=`: operations in all.
    pub count: Option<u64>,
    /// `duration=`: how long to run.
    pub duration: Option<Duration>,
    /// `cl=`: the consistency level's name, upper case.
    pub consistency: Option<String>,
    pub no_warmup: bool,
    pub ratio: Option<Ratio>,
    pub clustering: Option<Dist>,
    /// `-rate threads=`.
    pub threads: Option<usize>,
    /// `-node`: host names or addresses.
    pub nodes: Vec<String>,
    /// `-port native=`.
    pub port: Option<u16>,
    pub population: Option<PopulationSpec>,
    /// `-col n=FIXED(N)`.
    pub columns: Option<usize>,
    /// `-col size=FIXED(BYTES)`.
    pub column_size: Option<usize>,
    /// `-schema replication(factor=N)`.
    pub replication: Option<u32>,
    /// `-schema keyspace=`.
    pub keyspace: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    /// `-mode connectionsPerHost=`.
    pub connections: Option<usize>,
    /// `-errors ignore`.
    pub ignore_errors: bool,
    /// `-errors retries=`.
    pub retries: Option<u32>,
    /// `-log file=`.
    pub log_file: Option<PathBuf>,
    /// `-p KEY=VALUE`, in order.
    pub properties: Vec<(String, String)>,
    /// `-s`.
    pub show_status: bool,
    /// `-json PATH`.
    pub json: Option<String>,
}

/// A `CliError` with `cstress`'s usage line.
pub fn usage_error(message: impl Into<String>) -> CliError {
    CliError {
        message: message.into(),
        usage: USAGE,
    }
}

/// The groups (`-rate`, …) and what each accepts, for error messages.
const GROUPS: [(&str, &str); 12] = [
    ("-rate", "threads=N"),
    ("-node", "HOST[,HOST]..."),
    ("-port", "native=PORT"),
    ("-pop", "seq=A..B or dist=DIST(..)"),
    ("-col", "n=FIXED(N), size=FIXED(BYTES)"),
    ("-schema", "replication(factor=N), keyspace=NAME"),
    (
        "-mode",
        "native, cql3, prepared, user=U, password=P, connectionsPerHost=N",
    ),
    ("-errors", "ignore, retries=N"),
    ("-log", "file=PATH"),
    ("-p", "KEY=VALUE (contio)"),
    ("-s", "(contio: status lines on stderr)"),
    ("-json", "PATH (contio: the result document)"),
];

/// The command options, for error messages.
const COMMAND_OPTIONS: &str =
    "n=N, duration=N(s|m|h), cl=LEVEL, no-warmup, and for mixed ratio(write=W,read=R), \
     clustering=DIST(..)";

/// Parses the arguments after `cstress`.
pub fn parse(argv: &[String]) -> Result<Args, CliError> {
    let mut args = Args::default();
    let mut rest = argv.iter().peekable();
    let command = rest.next().map(String::as_str).unwrap_or("");
    args.command = Some(match command {
        "write" => Command::Write,
        "read" => Command::Read,
        "mixed" => Command::Mixed,
        other => {
            return Err(usage_error(format!(
                "cstress needs one of write, read, mixed, not '{other}' (counter_write, \
                 counter_read and user are not implemented)"
            )))
        }
    });
    // The target, when named: a bare name that is no option.
    if let Some(word) = rest.peek() {
        let bare = !word.starts_with('-')
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if bare && word.as_str() != "no-warmup" {
            if word.as_str() != "cassandra" {
                return Err(usage_error(format!(
                    "cstress runs against 'cassandra' only, not '{word}'"
                )));
            }
            rest.next();
        }
    }
    let mut group: Option<&str> = None;
    while let Some(token) = rest.next() {
        if let Some(name) = token.strip_prefix('-') {
            let name = name.trim_start_matches('-');
            match name {
                "p" => {
                    let pair = rest
                        .next()
                        .ok_or_else(|| usage_error("-p needs KEY=VALUE"))?;
                    match pair.split_once('=') {
                        Some((k, v)) if !k.trim().is_empty() => args
                            .properties
                            .push((k.trim().to_string(), v.trim().to_string())),
                        _ => return Err(usage_error(format!("-p '{pair}': expected KEY=VALUE"))),
                    }
                    group = None;
                }
                "s" => {
                    args.show_status = true;
                    group = None;
                }
                "json" => {
                    let path = rest
                        .next()
                        .ok_or_else(|| usage_error("-json needs a path (or - for stdout)"))?;
                    args.json = Some(path.clone());
                    group = None;
                }
                _ => {
                    let Some((known, _)) = GROUPS.iter().find(|(g, _)| &g[1..] == name) else {
                        let names = GROUPS.iter().map(|(g, _)| *g);
                        let hint = closest(token, names.clone())
                            .map(|k| format!(" (did you mean '{k}'?)"))
                            .unwrap_or_default();
                        let allowed: Vec<&str> = names.collect();
                        return Err(usage_error(format!(
                            "unknown option '{token}'{hint}; allowed: {}",
                            allowed.join(", ")
                        )));
                    };
                    group = Some(known);
                }
            }
            continue;
        }
        match group {
            None => command_option(&mut args, token)?,
            Some(g) => group_option(&mut args, g, token)?,
        }
    }
    Ok(args)
}

fn command_option(args: &mut Args, token: &str) -> Result<(), CliError> {
    let mixed = args.command == Some(Command::Mixed);
    let lower = token.to_ascii_lowercase();
    if let Some(v) = lower.strip_prefix("n=") {
        args.count = Some(count(v).map_err(|e| usage_error(format!("n={v}: {e}")))?);
    } else if let Some(v) = lower.strip_prefix("duration=") {
        args.duration = Some(duration(v)?);
    } else if let Some(v) = token.strip_prefix("cl=") {
        args.consistency = Some(v.to_ascii_uppercase());
    } else if lower == "no-warmup" {
        args.no_warmup = true;
    } else if mixed && lower.starts_with("ratio(") {
        args.ratio = Some(ratio(&lower)?);
    } else if mixed && lower.starts_with("clustering=") {
        let spec = &token["clustering=".len()..];
        args.clustering =
            Some(Dist::parse(spec).map_err(|e| usage_error(format!("clustering={spec}: {e}")))?);
    } else {
        let only_mixed =
            !mixed && (lower.starts_with("ratio(") || lower.starts_with("clustering="));
        let why = if only_mixed {
            " (ratio and clustering are options of the mixed command)"
        } else {
            ""
        };
        return Err(usage_error(format!(
            "unknown option '{token}' of the {} command{why}; allowed: {COMMAND_OPTIONS}",
            args.command.map_or("cstress", Command::name)
        )));
    }
    Ok(())
}

fn unknown_in(group: &str, token: &str) -> CliError {
    let allowed = GROUPS
        .iter()
        .find(|(g, _)| *g == group)
        .map_or("", |(_, a)| *a);
    usage_error(format!(
        "unknown option '{token}' of {group}; allowed: {allowed}"
    ))
}

fn group_option(args: &mut Args, group: &str, token: &str) -> Result<(), CliError> {
    let value = |prefix: &str| {
        token
            .get(..prefix.len())
            .filter(|p| p.eq_ignore_ascii_case(prefix))
            .map(|_| &token[prefix.len()..])
    };
    let bad = |what: &str, e: String| usage_error(format!("{group} {what}: {e}"));
    match group {
        "-rate" => {
            let v = value("threads=").ok_or_else(|| unknown_in(group, token))?;
            let n: usize = v
                .parse()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| bad(token, "expected a whole number >= 1".into()))?;
            args.threads = Some(n);
        }
        "-node" => {
            if token.contains('=') {
                return Err(unknown_in(group, token));
            }
            for host in token.split(',').map(str::trim).filter(|h| !h.is_empty()) {
                args.nodes.push(host.to_string());
            }
        }
        "-port" => {
            let v = value("native=").ok_or_else(|| unknown_in(group, token))?;
            let port: u16 = v
                .parse()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| bad(token, "expected a TCP port (1-65535)".into()))?;
            args.port = Some(port);
        }
        "-pop" => {
            args.population = Some(if let Some(v) = value("seq=") {
                let (first, last) = range(v).map_err(|e| bad(token, e))?;
                PopulationSpec::Seq { first, last }
            } else if let Some(v) = value("dist=") {
                PopulationSpec::Dist(Dist::parse(v).map_err(|e| bad(token, e))?)
            } else {
                return Err(unknown_in(group, token));
            });
        }
        "-col" => {
            if let Some(v) = value("n=") {
                args.columns = Some(fixed(v).map_err(|e| bad(token, e))?);
            } else if let Some(v) = value("size=") {
                args.column_size = Some(fixed(v).map_err(|e| bad(token, e))?);
            } else {
                return Err(unknown_in(group, token));
            }
        }
        "-schema" => {
            if let Some(v) = value("keyspace=") {
                args.keyspace = Some(v.to_string());
            } else if let Some(v) = value("replication(") {
                args.replication = Some(replication(v).map_err(|e| bad(token, e))?);
            } else {
                return Err(unknown_in(group, token));
            }
        }
        "-mode" => {
            let lower = token.to_ascii_lowercase();
            if ["native", "cql3", "prepared"].contains(&lower.as_str()) {
                // The engine always speaks the native protocol with prepared statements.
            } else if let Some(v) = value("user=") {
                args.user = Some(v.to_string());
            } else if let Some(v) = value("password=") {
                args.password = Some(v.to_string());
            } else if let Some(v) = value("connectionsPerHost=") {
                let n: usize = v
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| bad(token, "expected a whole number >= 1".into()))?;
                args.connections = Some(n);
            } else {
                return Err(unknown_in(group, token));
            }
        }
        "-errors" => {
            if token.eq_ignore_ascii_case("ignore") {
                args.ignore_errors = true;
            } else if let Some(v) = value("retries=") {
                let n: u32 = v
                    .parse()
                    .map_err(|_| bad(token, "expected a whole number >= 0".into()))?;
                args.retries = Some(n);
            } else {
                return Err(unknown_in(group, token));
            }
        }
        "-log" => {
            let v = value("file=").ok_or_else(|| unknown_in(group, token))?;
            if v.is_empty() {
                return Err(bad(token, "expected a file path".into()));
            }
            args.log_file = Some(PathBuf::from(v));
        }
        _ => return Err(unknown_in(group, token)),
    }
    Ok(())
}

/// A count with cassandra-stress's decimal suffixes: `100000`, `100k`, `2m`, `1b`.
pub fn count(text: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let (digits, factor) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1_000),
        Some('m') => (&t[..t.len() - 1], 1_000_000),
        Some('b') => (&t[..t.len() - 1], 1_000_000_000),
        _ => (t.as_str(), 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .ok_or_else(|| format!("'{text}' is not a whole number (suffixes k, m, b allowed)"))
}

/// `A..B` (two or more dots), both ends counts; `A <= B`.
pub fn range(text: &str) -> Result<(u64, u64), String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("'{text}' is not a range A..B"))?;
    let (a, b) = (count(a)?, count(b.trim_start_matches('.'))?);
    if a > b {
        return Err(format!("the range {a}..{b} is empty"));
    }
    Ok((a, b))
}

/// `FIXED(N)`: the only size and count distribution supported.
fn fixed(text: &str) -> Result<usize, String> {
    match Dist::parse(text) {
        Ok(Dist::Fixed(n)) => usize::try_from(n).map_err(|_| format!("{n} is too large")),
        _ => Err(format!(
            "'{text}': only FIXED(N) is supported here (every row has the same columns)"
        )),
    }
}

/// `N(s|m|h)`, as cassandra-stress's `duration=`.
fn duration(text: &str) -> Result<Duration, CliError> {
    let bad = || {
        usage_error(format!(
            "duration={text}: expected a whole number and s, m or h"
        ))
    };
    let (digits, unit) = text.split_at(text.len().saturating_sub(1));
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let seconds = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(bad()),
    };
    if seconds == 0 {
        return Err(bad());
    }
    Ok(Duration::from_secs(seconds))
}

/// `ratio(write=W,read=R)` (lower case): the weights, at least one above 0.
fn ratio(text: &str) -> Result<Ratio, CliError> {
    let bad = |why: String| usage_error(format!("{text}: {why}"));
    let inner = text
        .strip_prefix("ratio(")
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| bad("expected ratio(write=W,read=R)".into()))?;
    let mut r = Ratio {
        write: 0.0,
        read: 0.0,
    };
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| bad(format!("'{part}' is not NAME=WEIGHT")))?;
        let weight: f64 = value
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| bad(format!("'{value}' is not a weight >= 0")))?;
        match name {
            "write" => r.write = weight,
            "read" => r.read = weight,
            other => {
                return Err(bad(format!(
                    "operation '{other}' is not implemented; allowed: write, read"
                )))
            }
        }
    }
    if r.write + r.read <= 0.0 {
        return Err(bad("give write or read a weight above 0".into()));
    }
    Ok(r)
}

/// The inside of `replication(…)`: `factor=N`, optionally `strategy=SimpleStrategy`.
fn replication(inner: &str) -> Result<u32, String> {
    let inner = inner
        .strip_suffix(')')
        .ok_or("expected replication(factor=N)")?;
    let mut factor = None;
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        match k.to_ascii_lowercase().as_str() {
            "factor" => {
                factor = Some(
                    v.parse::<u32>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| format!("factor '{v}' is not a whole number >= 1"))?,
                )
            }
            "strategy" if v.ends_with("SimpleStrategy") => {}
            _ => {
                return Err(format!(
                    "'{part}' is not supported; allowed: factor=N, strategy=SimpleStrategy"
                ))
            }
        }
    }
    factor.ok_or_else(|| "expected replication(factor=N)".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn err(line: &str) -> String {
        parse(&argv(line)).unwrap_err().message
    }

    #[test]
    fn reads_the_real_tools_syntax() {
        let a = parse(&argv(
            "write n=100k cl=ONE no-warmup -rate threads=16 -node db1,db2 -port native=9043 \
             -pop seq=1..100000 -col n=FIXED(5) size=FIXED(34) \
             -schema replication(factor=1) keyspace=ks -mode native cql3 connectionsPerHost=2 \
             -errors ignore retries=3 -log file=/tmp/out.txt",
        ))
        .unwrap();
        assert_eq!(a.command, Some(Command::Write));
        assert_eq!(a.count, Some(100_000));
        assert_eq!(a.consistency.as_deref(), Some("ONE"));
        assert_eq!(a.threads, Some(16));
        assert_eq!(a.nodes, ["db1", "db2"]);
        assert_eq!(a.port, Some(9043));
        assert_eq!(
            a.population,
            Some(PopulationSpec::Seq {
                first: 1,
                last: 100_000
            })
        );
        assert_eq!((a.columns, a.column_size), (Some(5), Some(34)));
        assert_eq!(
            (a.replication, a.keyspace.as_deref()),
            (Some(1), Some("ks"))
        );
        assert_eq!(a.connections, Some(2));
        assert!(a.ignore_errors && a.no_warmup);
        assert_eq!(a.retries, Some(3));
        assert_eq!(a.log_file, Some(PathBuf::from("/tmp/out.txt")));
    }

    #[test]
    fn takes_the_target_and_contios_options() {
        let a = parse(&argv(
            "mixed cassandra duration=2m ratio(write=1,read=3) clustering=FIXED(1) \
             -rate threads=2 -p status.interval=1 -s -json -",
        ))
        .unwrap();
        assert_eq!(a.duration, Some(Duration::from_secs(120)));
        assert_eq!(
            a.ratio,
            Some(Ratio {
                write: 1.0,
                read: 3.0
            })
        );
        assert_eq!(a.clustering, Some(Dist::Fixed(1)));
        assert_eq!(a.properties, [("status.interval".into(), "1".into())]);
        assert!(a.show_status);
        assert_eq!(a.json.as_deref(), Some("-"));
        let p = parse(&argv("read -pop dist=gaussian(1..1000,5)")).unwrap();
        assert!(matches!(
            p.population,
            Some(PopulationSpec::Dist(Dist::Gaussian { .. }))
        ));
    }

    #[test]
    fn refuses_what_it_does_not_know_naming_the_allowed() {
        let e = err("write -rate threads=4 throttle=100/s");
        assert!(
            e.contains("'throttle=100/s'") && e.contains("threads=N"),
            "{e}"
        );
        let e = err("write -rat threads=4");
        assert!(
            e.contains("'-rat'") && e.contains("did you mean '-rate'"),
            "{e}"
        );
        let e = err("write err<0.01");
        assert!(e.contains("'err<0.01'") && e.contains("duration="), "{e}");
        let e = err("write ratio(write=1)");
        assert!(e.contains("mixed command"), "{e}");
        let e = err("counter_write n=1");
        assert!(e.contains("write, read, mixed"), "{e}");
        let e = err("write mysql n=1");
        assert!(e.contains("'cassandra' only"), "{e}");
        let e = err("read -pop dist=exp(1..10)");
        assert!(e.contains("GAUSSIAN") && e.contains("UNIFORM"), "{e}");
        let e = err("write -col size=UNIFORM(1..10)");
        assert!(e.contains("FIXED"), "{e}");
        let e = err("mixed ratio(write=1,insert=2)");
        assert!(e.contains("'insert'"), "{e}");
        let e = err("write duration=10x");
        assert!(e.contains("duration=10x"), "{e}");
        let e = err("write -mode thrift");
        assert!(
            e.contains("'thrift'") && e.contains("connectionsPerHost"),
            "{e}"
        );
        let e = err("write -pop seq=10..1");
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn counts_take_decimal_suffixes() {
        assert_eq!(count("2m"), Ok(2_000_000));
        assert_eq!(count("1B"), Ok(1_000_000_000));
        assert!(count("1.5k").is_err());
        assert_eq!(range("1...10"), Ok((1, 10)));
    }
}
