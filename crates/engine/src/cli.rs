//! The command line, YCSB style:
//! `load|run TARGET [-P FILE]... [-p KEY=VALUE]... [-threads N] [-target OPS] [-s] [-json PATH]`,
//! `targets`, `--version`. Flags may also be spelt with two dashes.
//! `sysbench ...` and `fio ...` hand their arguments to `crate::fileio`.

use std::path::PathBuf;

use crate::error::CliError;
use crate::workload::Phase;

/// The usage line shown with every command-line error.
pub const USAGE: &str =
    "contio-engine load|run TARGET [-P FILE]... [-p KEY=VALUE]... [-threads N] [-target OPS] [-s] \
                         [-json PATH] | contio-engine sysbench fileio [OPTIONS] prepare|run|cleanup \
                         | contio-engine fio JOBFILE | contio-engine targets | contio-engine --version";

/// A property source, in command-line order (later ones win).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertySource {
    /// `-P FILE`.
    File(PathBuf),
    /// `-p KEY=VALUE`, `-threads N`, `-target OPS`.
    Pair(String, String),
}

/// Arguments of `load` and `run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseArgs {
    pub phase: Phase,
    pub target: String,
    pub sources: Vec<PropertySource>,
    pub show_status: bool,
    pub json: Option<String>,
    /// The arguments as given (echoed like YCSB's "Command line:").
    pub command_line: String,
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Phase(PhaseArgs),
    Targets,
    /// `sysbench ARGS...` (file workloads, parsed by `crate::fileio`).
    Sysbench(Vec<String>),
    /// `fio ARGS...` (file workloads, parsed by `crate::fileio`).
    Fio(Vec<String>),
    Version,
    Help,
}

fn usage_error(message: impl Into<String>) -> CliError {
    CliError {
        message: message.into(),
        usage: USAGE,
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, CliError> {
    let Some(first) = args.first() else {
        return Err(usage_error("no command given"));
    };
    let phase = match first.as_str() {
        "load" | "-load" => Phase::Load,
        "run" | "-t" | "-run" => Phase::Run,
        "targets" => return Ok(Command::Targets),
        "sysbench" => return Ok(Command::Sysbench(args[1..].to_vec())),
        "fio" => return Ok(Command::Fio(args[1..].to_vec())),
        "--version" | "-version" | "version" => return Ok(Command::Version),
        "--help" | "-h" | "-help" | "help" => return Ok(Command::Help),
        other => {
            return Err(usage_error(format!(
                "unknown command '{other}'; expected load, run, sysbench, fio, targets or --version"
            )))
        }
    };
    let Some(target) = args.get(1).filter(|t| !t.starts_with('-')) else {
        return Err(usage_error(format!(
            "'{}' needs a target name (see `contio-engine targets`)",
            first
        )));
    };
    let mut parsed = PhaseArgs {
        phase,
        target: target.clone(),
        sources: Vec::new(),
        show_status: false,
        json: None,
        command_line: args.join(" "),
    };
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let name = flag
            .strip_prefix("--")
            .or_else(|| flag.strip_prefix('-'))
            .unwrap_or(flag);
        let mut value = |what: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| usage_error(format!("{flag} needs {what}")))
        };
        match name {
            "P" => parsed
                .sources
                .push(PropertySource::File(PathBuf::from(value(
                    "a property file",
                )?))),
            "p" => {
                let pair = value("KEY=VALUE")?;
                match pair.split_once('=') {
                    Some((k, v)) if !k.trim().is_empty() => parsed.sources.push(
                        PropertySource::Pair(k.trim().to_string(), v.trim().to_string()),
                    ),
                    _ => return Err(usage_error(format!("-p '{pair}': expected KEY=VALUE"))),
                }
            }
            "threads" => parsed.sources.push(PropertySource::Pair(
                "threadcount".into(),
                value("a thread count")?,
            )),
            "target" => parsed
                .sources
                .push(PropertySource::Pair("target".into(), value("ops/s")?)),
            "s" => parsed.show_status = true,
            "json" => parsed.json = Some(value("a path (or - for stdout)")?),
            _ => {
                let known = ["-P", "-p", "-threads", "-target", "-s", "-json"];
                let hint = crate::properties::closest(flag, known)
                    .map(|k| format!(" (did you mean '{k}'?)"))
                    .unwrap_or_default();
                return Err(usage_error(format!("unknown argument '{flag}'{hint}")));
            }
        }
    }
    Ok(Command::Phase(parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_ycsb_style_arguments() {
        let Command::Phase(p) = parse(&args(
            "run null -P a -p x=1 -threads 4 -target 100 -s -json out.json",
        ))
        .unwrap() else {
            panic!("not a phase")
        };
        assert_eq!(p.phase, Phase::Run);
        assert_eq!(p.target, "null");
        assert_eq!(p.sources.len(), 4);
        assert_eq!(
            p.sources[2],
            PropertySource::Pair("threadcount".into(), "4".into())
        );
        assert!(p.show_status);
        assert_eq!(p.json.as_deref(), Some("out.json"));
    }

    #[test]
    fn rejects_unknown_flags_with_a_hint() {
        let err = parse(&args("load null -thread 4")).unwrap_err();
        assert!(err.message.contains("-threads"), "{}", err.message);
        assert!(parse(&args("run")).is_err());
        assert!(parse(&args("run null -P")).is_err());
    }
}
