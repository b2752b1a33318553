//! The `ycsb` launcher: YCSB's `bin/ycsb COMMAND BINDING [options]` in front of
//! `contio-engine`, so tools that run `ycsb load basic -P workloads/workloada …`
//! (PerfKitBenchmarker, scripts) can point at contio instead.
//!
//! Like `bin/ycsb`, it turns the binding name into `-db CLASS`, passes every
//! other argument on unchanged and appends `-load` or `-t`; contio-engine then
//! echoes that line as YCSB's `Client` does (`Command line: -db site.ycsb.BasicDB
//! … -load`). `-cp` and `-jvm-args` (also `-cp=PATH`, `-jvm-args=ARGS`, the
//! forms a value starting with `-` needs) are accepted and ignored: there is no JVM.

use crate::binding;
use crate::error::CliError;

/// The usage shown with every launcher error.
pub const USAGE: &str = "ycsb load|run BINDING [-P FILE]... [-p KEY=VALUE]... [-s] [-threads N] \
                         [-target OPS] [-l LABEL] [-db CLASS] [-cp PATH] [-jvm-args ARGS] \
                         (BINDING: basic, redis, jdbc, mongodb, mongodb-async, cassandra-cql, cassandra2-cql)";

/// What the launcher does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// Run contio-engine with these arguments; print these warnings first.
    Engine {
        args: Vec<String>,
        warnings: Vec<String>,
    },
    /// `-h`/`--help`.
    Help,
}

fn error(message: impl Into<String>) -> CliError {
    CliError {
        message: message.into(),
        usage: USAGE,
    }
}

/// Translates `bin/ycsb`'s arguments (after the program name) into contio-engine's.
pub fn translate(args: &[String]) -> Result<Launch, CliError> {
    if args.is_empty() {
        return Err(error("no command given"));
    }
    let mut positional = Vec::new();
    let mut rest = Vec::new();
    let mut warnings = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-h" | "-help" | "--help" => return Ok(Launch::Help),
            "-cp" | "-jvm-args" => {
                let value = iter
                    .next()
                    .ok_or_else(|| error(format!("{arg} needs a value")))?;
                warnings.push(format!("{arg} {value}: ignored (contio runs no JVM)"));
            }
            _ if arg.starts_with("-cp=") || arg.starts_with("-jvm-args=") => {
                warnings.push(format!("{arg}: ignored (contio runs no JVM)"));
            }
            _ if positional.len() < 2 && !arg.starts_with('-') && rest.is_empty() => {
                positional.push(arg.clone());
            }
            _ => rest.push(arg.clone()),
        }
    }
    let switch = match positional.first().map(String::as_str) {
        Some("load") => "-load",
        Some("run") => "-t",
        Some("shell") => {
            return Err(error(
                "'shell' (YCSB's interactive mode) is not available in contio; use load or run",
            ))
        }
        Some(other) => {
            return Err(error(format!(
                "unknown command '{other}'; expected load or run"
            )))
        }
        None => return Err(error("no command given (load or run)")),
    };
    let Some(name) = positional.get(1) else {
        return Err(error(format!(
            "'{}' needs a binding: {}",
            positional[0],
            binding::names()
        )));
    };
    let Some(b) = binding::by_name(name) else {
        return Err(error(format!(
            "binding '{name}' is not one contio implements; supported bindings: {}",
            binding::names()
        )));
    };
    let mut engine_args = vec!["-db".to_string(), b.classes[0].to_string()];
    engine_args.extend(rest);
    engine_args.push(switch.to_string());
    Ok(Launch::Engine {
        args: engine_args,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn engine_args(s: &str) -> Vec<String> {
        match translate(&args(s)).unwrap() {
            Launch::Engine { args, .. } => args,
            Launch::Help => panic!("help"),
        }
    }

    #[test]
    fn bin_ycsb_forms_become_client_arguments() {
        assert_eq!(
            engine_args("load basic -P workloads/workloada -s").join(" "),
            "-db site.ycsb.BasicDB -P workloads/workloada -s -load"
        );
        assert_eq!(
            engine_args("run jdbc -threads 4 -p db.url=jdbc:mysql://h/db").join(" "),
            "-db site.ycsb.db.JdbcDBClient -threads 4 -p db.url=jdbc:mysql://h/db -t"
        );
        let Launch::Engine { args, warnings } =
            translate(&args("-cp /x run cassandra-cql -p hosts=h")).unwrap()
        else {
            panic!("help")
        };
        assert_eq!(args[1], "site.ycsb.db.CassandraCQLClient");
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn equals_forms_take_values_that_start_with_a_dash() {
        let Launch::Engine { args, warnings } =
            translate(&args("run basic -jvm-args=-Xmx4g -cp=/opt/x -P w")).unwrap()
        else {
            panic!("help")
        };
        assert_eq!(args.join(" "), "-db site.ycsb.BasicDB -P w -t");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn unknown_bindings_and_commands_name_the_supported_ones() {
        let err = translate(&args("load hbase10 -P w")).unwrap_err();
        assert!(
            err.message.contains("basic, redis, jdbc"),
            "{}",
            err.message
        );
        assert!(translate(&args("shell basic")).is_err());
        assert!(translate(&args("status basic")).is_err());
        assert!(translate(&args("load")).is_err());
        assert_eq!(translate(&args("--help")).unwrap(), Launch::Help);
    }
}
