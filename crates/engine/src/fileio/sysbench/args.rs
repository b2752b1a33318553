//! `sysbench` command lines as sysbench 1.0.20 reads them: options before or
//! after the test name, `--flag` alone meaning on, the deprecated aliases
//! (`--max-requests`, `--max-time`, `--num-threads`, `--tx-rate`) with their
//! warnings, one test name and one command, and anything else refused with
//! sysbench's own message. contio adds `-json PATH`, `--file-dir` and
//! `--drop-caches`.

use std::collections::BTreeMap;

use super::error::SysbenchError;
use crate::fileio::size::parse_switch;

/// Options and their defaults: sysbench's general options that fileio uses,
/// then fileio's (contio adds `file-dir`).
pub const DEFAULTS: [(&str, &str); 29] = [
    ("threads", "1"),
    ("events", "0"),
    ("time", "10"),
    ("rate", "0"),
    ("report-interval", "0"),
    ("forced-shutdown", "off"),
    ("debug", "off"),
    ("validate", "off"),
    ("verbosity", "3"),
    ("percentile", "95"),
    ("histogram", "off"),
    ("rand-type", "special"),
    ("rand-seed", "0"),
    ("file-num", "128"),
    ("file-block-size", "16384"),
    ("file-total-size", "2G"),
    ("file-test-mode", ""),
    ("file-io-mode", "sync"),
    ("file-async-backlog", "128"),
    ("file-extra-flags", ""),
    ("file-fsync-freq", "100"),
    ("file-fsync-all", "off"),
    ("file-fsync-end", "on"),
    ("file-fsync-mode", "fsync"),
    ("file-merged-requests", "0"),
    ("file-rw-ratio", "1.5"),
    ("file-dir", "."),
    ("help", "off"),
    ("version", "off"),
];

/// Deprecated names sysbench still reads, and what they stand for, in the
/// order sysbench warns about them.
const ALIASES: [(&str, &str); 4] = [
    ("num-threads", "threads"),
    ("max-requests", "events"),
    ("max-time", "time"),
    ("tx-rate", "rate"),
];

/// sysbench's options that take no value (`--histogram` = `--histogram=on`).
const FLAGS: [&str; 8] = [
    "debug",
    "validate",
    "histogram",
    "file-fsync-all",
    "file-fsync-end",
    "help",
    "version",
    "drop-caches",
];

/// The sysbench command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysbenchCommand {
    Prepare,
    Run,
    Cleanup,
    Help,
}

impl SysbenchCommand {
    /// The phase name in the result document.
    pub fn name(self) -> &'static str {
        match self {
            SysbenchCommand::Prepare => "prepare",
            SysbenchCommand::Run => "run",
            SysbenchCommand::Cleanup => "cleanup",
            SysbenchCommand::Help => "help",
        }
    }
}

/// A parsed command line. The test name and command are checked later, after
/// the banner, as sysbench checks them.
#[derive(Debug, Clone, Default)]
pub struct SysbenchArgs {
    pub test: Option<String>,
    pub command: Option<String>,
    /// Every option in effect (defaults included), by sysbench name.
    pub options: BTreeMap<String, String>,
    /// Options nobody knows, as given: refused after the banner.
    pub unknown: Vec<String>,
    /// The deprecation warnings, in the order given.
    pub warnings: Vec<String>,
    pub json: Option<String>,
    pub drop_caches: bool,
}

impl SysbenchArgs {
    /// The value of an option (defaults included).
    pub fn opt(&self, key: &str) -> &str {
        self.options.get(key).map_or("", String::as_str)
    }

    /// An on/off option, as sysbench reads it.
    pub fn flag(&self, key: &str) -> Result<bool, SysbenchError> {
        parse_flag(key, self.opt(key))
    }

    /// The command, once the test name was accepted.
    pub fn checked_command(&self) -> Result<SysbenchCommand, SysbenchError> {
        match self.command.as_deref() {
            None => Err(SysbenchError::Usage(
                "The 'fileio' test requires a command argument. See 'sysbench fileio help'".into(),
            )),
            Some("prepare") => Ok(SysbenchCommand::Prepare),
            Some("run") => Ok(SysbenchCommand::Run),
            Some("cleanup") => Ok(SysbenchCommand::Cleanup),
            Some("help") => Ok(SysbenchCommand::Help),
            Some(other) => Err(SysbenchError::Usage(format!("Unknown command: {other}"))),
        }
    }

    /// The verbosity, 0 (only fatal messages) to 5.
    pub fn verbosity(&self) -> Result<u8, SysbenchError> {
        self.opt("verbosity")
            .trim()
            .parse::<u8>()
            .ok()
            .filter(|v| *v <= 5)
            .ok_or_else(|| {
                SysbenchError::Fatal(format!(
                    "Invalid value for --verbosity: {} (0 to 5)",
                    self.opt("verbosity")
                ))
            })
    }
}

/// sysbench's booleans: on/off, true/false, yes/no, 1/0.
pub fn parse_flag(key: &str, value: &str) -> Result<bool, SysbenchError> {
    parse_switch(key, value).map_err(|_| {
        SysbenchError::Fatal(format!(
            "Invalid value for --{key}: '{value}'; expected on or off"
        ))
    })
}

/// Reads the command line. Refuses only what sysbench refuses before printing
/// its banner (a third positional argument, `-json` without a path).
pub fn parse(args: &[String]) -> Result<SysbenchArgs, SysbenchError> {
    let mut a = SysbenchArgs {
        options: DEFAULTS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..SysbenchArgs::default()
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "-json" || arg == "--json" {
            let path = rest.next().ok_or_else(|| {
                SysbenchError::Usage("-json needs a path (or - for stdout)".into())
            })?;
            a.json = Some(path.clone());
        } else if let Some(option) = arg.strip_prefix("--") {
            take_option(&mut a, arg, option);
        } else if a.test.is_none() {
            a.test = Some(arg.clone());
        } else if a.command.is_none() {
            a.command = Some(arg.clone());
        } else {
            return Err(SysbenchError::Usage(format!(
                "Unrecognized command line argument: {arg}"
            )));
        }
    }
    // sysbench warns in its own order, whatever the order given.
    a.warnings.sort_by_key(|w| {
        ALIASES
            .iter()
            .position(|(old, _)| w.starts_with(&format!("--{old} ")))
    });
    a.warnings.dedup();
    Ok(a)
}

fn take_option(a: &mut SysbenchArgs, arg: &str, option: &str) {
    let (name, value) = match option.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (option, None),
    };
    if name == "drop-caches" {
        a.drop_caches = value.is_none_or(|v| parse_flag(name, v).unwrap_or(true));
        return;
    }
    let name = match ALIASES.iter().find(|(old, _)| *old == name) {
        Some((old, new)) => {
            a.warnings
                .push(format!("--{old} is deprecated, use --{new} instead"));
            *new
        }
        None => name,
    };
    let known = a.options.contains_key(name);
    match (known, value) {
        (true, Some(value)) => {
            a.options.insert(name.to_string(), value.to_string());
        }
        (true, None) if FLAGS.contains(&name) => {
            a.options.insert(name.to_string(), "on".to_string());
        }
        _ => a.unknown.push(arg.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options_go_anywhere_and_flags_stand_alone() {
        let a = parse(&args("--threads=2 fileio --histogram run --file-num=4")).unwrap();
        assert_eq!(a.test.as_deref(), Some("fileio"));
        assert_eq!(a.command.as_deref(), Some("run"));
        assert_eq!((a.opt("threads"), a.opt("file-num")), ("2", "4"));
        assert!(a.flag("histogram").unwrap());
        assert!(!a.flag("validate").unwrap());
    }

    #[test]
    fn deprecated_aliases_warn_and_set_the_new_name() {
        let a = parse(&args("fileio --max-requests=5 --num-threads=3 run")).unwrap();
        assert_eq!((a.opt("events"), a.opt("threads")), ("5", "3"));
        assert_eq!(
            a.warnings,
            [
                "--num-threads is deprecated, use --threads instead",
                "--max-requests is deprecated, use --events instead"
            ]
        );
    }

    #[test]
    fn unknown_options_and_extra_words_are_kept_or_refused() {
        let a = parse(&args("fileio --invalid-option --file-num prepare")).unwrap();
        assert_eq!(a.unknown, ["--invalid-option", "--file-num"]);
        let e = parse(&args("foo bar baz")).unwrap_err().to_string();
        assert_eq!(e, "Unrecognized command line argument: baz");
        let a = parse(&args("fileio bogus")).unwrap();
        let e = a.checked_command().unwrap_err().to_string();
        assert_eq!(e, "Unknown command: bogus");
    }

    #[test]
    fn booleans_as_sysbench_reads_them() {
        for (text, want) in [("on", true), ("true", true), ("1", true), ("off", false)] {
            assert_eq!(parse_flag("validate", text).unwrap(), want);
        }
        assert!(parse_flag("validate", "5").is_err());
        assert!(parse_flag("validate", "foo").is_err());
    }
}
