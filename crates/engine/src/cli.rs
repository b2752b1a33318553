//! The command line, in contio's form or in YCSB's own:
//! `load|run TARGET [-P FILE]... [-p KEY=VALUE]... [-threads N] [-target OPS] [-s] [-json PATH]`,
//! or YCSB's `[-db CLASS] [-load|-t] [-P FILE]... [-p KEY=VALUE]... [-threads N]
//! [-target OPS] [-s] [-l LABEL]` in any order (what `bin/ycsb` hands to YCSB's
//! `Client`); `targets`, `--version`. Flags may also be spelt with two dashes.
//! `sysbench ...` and `fio ...` hand their arguments to `crate::fileio`, `tpcc ...` to `crate::tpcc`,
//! `cstress ...` to `crate::cstress`, `slowdev ...` to `crate::slowdev`.

use std::path::PathBuf;

use crate::error::CliError;
use crate::workload::Phase;

/// The usage line shown with every command-line error.
pub const USAGE: &str =
    "contio-engine load|run TARGET [-P FILE]... [-p KEY=VALUE]... [-threads N] [-target OPS] [-s] \
                         [-json PATH] | contio-engine [-db CLASS] -load|-t [YCSB options] \
                         | contio-engine sysbench fileio [OPTIONS] prepare|run|cleanup \
                         | contio-engine fio JOBFILE \
                         | contio-engine tpcc load|run|check mysql|postgres [-P FILE]... [-p KEY=VALUE]... [-threads N] [-s] [-json PATH] \
                         | contio-engine cstress write|read|mixed [cassandra] [cassandra-stress options] [-p KEY=VALUE]... [-s] [-json PATH] \
                         | contio-engine slowdev --file FILE --mountpoint DIR --bandwidth RATE ... \
                         | contio-engine targets | contio-engine --version";

/// A property source, in command-line order (later ones win).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertySource {
    /// `-P FILE`.
    File(PathBuf),
    /// `-p KEY=VALUE`, `-threads N`, `-target OPS`, `-l LABEL`.
    Pair(String, String),
}

/// Arguments of `load` and `run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseArgs {
    /// `load`/`-load` or `run`/`-t`; None: from `dotransactions` (default run), as YCSB.
    pub phase: Option<Phase>,
    /// The target name or YCSB binding class (`run TARGET`, `-db CLASS`); None:
    /// from the `db` property (default `site.ycsb.BasicDB`), as YCSB.
    pub db: Option<String>,
    pub sources: Vec<PropertySource>,
    pub show_status: bool,
    pub json: Option<String>,
    /// What `Command line:` echoes: YCSB's arguments as given, or contio's form
    /// written as YCSB's (`-db TARGET … -load`), so tools that read the phase from
    /// the line's end (PerfKitBenchmarker) see a load as a load.
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
    /// `tpcc load|run|check TARGET ...` (parsed by `crate::tpcc`).
    Tpcc(Vec<String>),
    /// `cstress write|read|mixed [cassandra] ...` (parsed by `crate::cstress`).
    Cstress(Vec<String>),
    /// `slowdev ARGS...` (a paced FUSE backing file, parsed by `crate::slowdev`).
    Slowdev(Vec<String>),
    Version,
    Help,
}

fn usage_error(message: impl Into<String>) -> CliError {
    CliError {
        message: message.into(),
        usage: USAGE,
    }
}

/// The YCSB switch of a phase.
fn switch(phase: Phase) -> &'static str {
    match phase {
        Phase::Load => "-load",
        Phase::Run => "-t",
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
        "tpcc" => return Ok(Command::Tpcc(args[1..].to_vec())),
        "cstress" => return Ok(Command::Cstress(args[1..].to_vec())),
        "slowdev" => return Ok(Command::Slowdev(args[1..].to_vec())),
        "--version" | "-version" | "version" => return Ok(Command::Version),
        "--help" | "-h" | "-help" | "help" => return Ok(Command::Help),
        other if other.starts_with('-') => return parse_ycsb_form(args),
        other => {
            return Err(usage_error(format!(
                "unknown command '{other}'; expected load, run, sysbench, fio, tpcc, cstress, slowdev, targets, --version \
                 or YCSB's options (-db CLASS -load|-t ...)"
            )))
        }
    };
    let target = args.get(1).filter(|t| !t.starts_with('-'));
    let Some(target) = target else {
        if first.starts_with('-') {
            return parse_ycsb_form(args);
        }
        return Err(usage_error(format!(
            "'{first}' needs a target name (see `contio-engine targets`)"
        )));
    };
    let mut parsed = parse_flags(&args[2..], Some(phase))?;
    if parsed.db.is_some() {
        return Err(usage_error(format!(
            "-db: the target is already '{target}'; give one or the other"
        )));
    }
    parsed.db = Some(target.clone());
    let mut echo = vec!["-db", target.as_str()];
    echo.extend(args[2..].iter().map(String::as_str));
    echo.push(switch(phase));
    parsed.command_line = echo.join(" ");
    Ok(Command::Phase(parsed))
}

/// YCSB's own arguments, echoed as given (as YCSB's `Client` does).
fn parse_ycsb_form(args: &[String]) -> Result<Command, CliError> {
    let mut parsed = parse_flags(args, None)?;
    parsed.command_line = args.join(" ");
    Ok(Command::Phase(parsed))
}

/// The flags of a phase; `phase` is the one already given by name, if any.
pub(crate) fn parse_flags(flags: &[String], phase: Option<Phase>) -> Result<PhaseArgs, CliError> {
    let mut parsed = PhaseArgs {
        phase,
        db: None,
        sources: Vec::new(),
        show_status: false,
        json: None,
        command_line: String::new(),
    };
    let mut set_phase = |p: Phase, flag: &str| match parsed.phase.replace(p) {
        Some(before) if before != p => Err(usage_error(format!(
            "{flag}: this command is already a {} phase",
            before.name()
        ))),
        _ => Ok(()),
    };
    let mut phase_switches = Vec::new();
    let mut rest = flags.iter();
    let mut sources = Vec::new();
    let (mut db, mut show_status, mut json) = (None, false, None);
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
            "P" => sources.push(PropertySource::File(PathBuf::from(value(
                "a property file",
            )?))),
            "p" => {
                let pair = value("KEY=VALUE")?;
                match pair.split_once('=') {
                    Some((k, v)) if !k.trim().is_empty() => sources.push(PropertySource::Pair(
                        k.trim().to_string(),
                        v.trim().to_string(),
                    )),
                    _ => return Err(usage_error(format!("-p '{pair}': expected KEY=VALUE"))),
                }
            }
            "threads" => sources.push(PropertySource::Pair(
                "threadcount".into(),
                value("a thread count")?,
            )),
            "target" => sources.push(PropertySource::Pair("target".into(), value("ops/s")?)),
            "l" => sources.push(PropertySource::Pair("label".into(), value("a label")?)),
            "db" => db = Some(value("a binding class or target name")?),
            "load" => phase_switches.push((Phase::Load, flag.clone())),
            "t" | "run" => phase_switches.push((Phase::Run, flag.clone())),
            "s" => show_status = true,
            "json" => json = Some(value("a path (or - for stdout)")?),
            _ => {
                let known = [
                    "-P", "-p", "-threads", "-target", "-s", "-json", "-db", "-load", "-t", "-l",
                ];
                let hint = crate::properties::closest(flag, known)
                    .map(|k| format!(" (did you mean '{k}'?)"))
                    .unwrap_or_default();
                return Err(usage_error(format!("unknown argument '{flag}'{hint}")));
            }
        }
    }
    for (p, flag) in phase_switches {
        set_phase(p, &flag)?;
    }
    parsed.sources = sources;
    parsed.db = db;
    parsed.show_status = show_status;
    parsed.json = json;
    Ok(parsed)
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
        assert_eq!(p.phase, Some(Phase::Run));
        assert_eq!(p.db.as_deref(), Some("null"));
        assert_eq!(
            p.command_line,
            "-db null -P a -p x=1 -threads 4 -target 100 -s -json out.json -t"
        );
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

    #[test]
    fn parses_ycsb_client_arguments() {
        let line = "-db site.ycsb.BasicDB -P w -p measurementtype=histogram -s -l x: -load";
        let Command::Phase(p) = parse(&args(line)).unwrap() else {
            panic!("not a phase")
        };
        assert_eq!(p.phase, Some(Phase::Load));
        assert_eq!(p.db.as_deref(), Some("site.ycsb.BasicDB"));
        assert_eq!(p.command_line, line);
        assert!(p.show_status);
        assert_eq!(
            p.sources[2],
            PropertySource::Pair("label".into(), "x:".into())
        );
        let Command::Phase(p) = parse(&args("-P w -threads 2")).unwrap() else {
            panic!("not a phase")
        };
        assert_eq!((p.phase, p.db), (None, None));
    }

    #[test]
    fn a_load_is_echoed_as_ycsb_echoes_one() {
        let Command::Phase(p) = parse(&args("load null -P w -s")).unwrap() else {
            panic!("not a phase")
        };
        assert!(p.command_line.ends_with("-load"), "{}", p.command_line);
        assert!(parse(&args("load null -t")).is_err());
        assert!(parse(&args("run null -db redis")).is_err());
        let Command::Phase(p) = parse(&args("-load null -P w")).unwrap() else {
            panic!("not a phase")
        };
        assert_eq!(p.db.as_deref(), Some("null"));
    }
}
