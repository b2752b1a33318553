//! `sysbench fileio` options → a `Plan`, with sysbench 1.0's names, defaults and
//! request sequence: files `test_file.0 … test_file.N-1`; random modes pick a
//! block uniformly over all files; after every `file-fsync-freq` read/write
//! requests, one fsync per file (each an event); rndrw keeps reads:writes at
//! `file-rw-ratio`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::fileio::error::FileIoError;
use crate::fileio::plan::{
    bounded, FileSpec, FsyncRule, IoEngine, Mix, Pattern, Plan, Region, Stream, SyncCall,
    MAX_DEPTH, MAX_THREADS,
};
use crate::fileio::size::{parse_bytes, parse_count, parse_switch};
use crate::properties::closest;

/// Options and their sysbench defaults (contio adds `file-dir` and `drop-caches`).
pub const DEFAULTS: [(&str, &str); 20] = [
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
    ("threads", "1"),
    ("events", "0"),
    ("time", "10"),
    ("percentile", "95"),
    ("report-interval", "0"),
    ("rand-seed", "0"),
    ("file-dir", "."),
];

/// The sysbench command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysbenchCommand {
    Prepare,
    Run,
    Cleanup,
}

impl SysbenchCommand {
    /// The phase name in the result document.
    pub fn name(self) -> &'static str {
        match self {
            SysbenchCommand::Prepare => "prepare",
            SysbenchCommand::Run => "run",
            SysbenchCommand::Cleanup => "cleanup",
        }
    }
}

/// Parsed `sysbench fileio` arguments.
#[derive(Debug, Clone)]
pub struct SysbenchArgs {
    pub command: SysbenchCommand,
    /// Every option in effect (defaults included), by sysbench name.
    pub options: BTreeMap<String, String>,
    pub json: Option<String>,
    pub drop_caches: bool,
}

/// Parses `fileio [--opt=value]... prepare|run|cleanup [-json PATH] [--drop-caches]`.
pub fn parse(args: &[String]) -> Result<SysbenchArgs, FileIoError> {
    let mut rest = args.iter();
    match rest.next().map(String::as_str) {
        Some("fileio") => {}
        other => {
            return Err(FileIoError::bad_value(
                "test",
                other.unwrap_or(""),
                "fileio (the only sysbench test contio runs)",
            ))
        }
    }
    let mut options: BTreeMap<String, String> = DEFAULTS
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut command = None;
    let mut json = None;
    let mut drop_caches = false;
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "prepare" => command = Some(SysbenchCommand::Prepare),
            "run" => command = Some(SysbenchCommand::Run),
            "cleanup" => command = Some(SysbenchCommand::Cleanup),
            "-json" | "--json" => {
                json = Some(rest.next().cloned().ok_or_else(|| {
                    FileIoError::invalid("-json", "needs a path (or - for stdout)")
                })?)
            }
            "--drop-caches" | "-drop-caches" => drop_caches = true,
            _ => {
                let Some((key, value)) = arg.strip_prefix("--").and_then(|a| a.split_once('='))
                else {
                    return Err(FileIoError::invalid(
                        arg,
                        "expected --option=value, prepare, run, cleanup, -json PATH or --drop-caches",
                    ));
                };
                if !options.contains_key(key) {
                    return Err(FileIoError::Unknown {
                        option: format!("--{key}"),
                        suggestion: closest(key, DEFAULTS.iter().map(|(k, _)| *k))
                            .map(|k| format!("--{k}")),
                    });
                }
                options.insert(key.to_string(), value.to_string());
            }
        }
    }
    let command = command
        .ok_or_else(|| FileIoError::invalid("command", "missing; give prepare, run or cleanup"))?;
    Ok(SysbenchArgs {
        command,
        options,
        json,
        drop_caches,
    })
}

/// The file set of the options: directory, count, size of each.
#[derive(Debug, Clone)]
pub struct FileSet {
    pub dir: PathBuf,
    pub count: u64,
    pub file_size: u64,
}

impl FileSet {
    /// `DIR/test_file.N` for every N.
    pub fn files(&self) -> Vec<FileSpec> {
        (0..self.count)
            .map(|i| FileSpec {
                path: self.dir.join(format!("test_file.{i}")),
                size: self.file_size,
            })
            .collect()
    }
}

fn opt<'a>(a: &'a SysbenchArgs, key: &str) -> &'a str {
    a.options.get(key).map_or("", String::as_str)
}

/// The files named by the options.
pub fn file_set(a: &SysbenchArgs) -> Result<FileSet, FileIoError> {
    let count = parse_count("--file-num", opt(a, "file-num"))?;
    if count == 0 {
        return Err(FileIoError::bad_value("--file-num", "0", "at least 1 file"));
    }
    let total = parse_bytes("--file-total-size", opt(a, "file-total-size"))?;
    let bs = block_size(a)?;
    // sysbench rounds each file down to whole blocks.
    let file_size = total / count / bs * bs;
    if file_size == 0 {
        return Err(FileIoError::invalid(
            "--file-total-size",
            format!(
                "{total} bytes over {count} files leaves no whole block of {bs} bytes per file"
            ),
        ));
    }
    Ok(FileSet {
        dir: PathBuf::from(opt(a, "file-dir")),
        count,
        file_size,
    })
}

fn block_size(a: &SysbenchArgs) -> Result<u64, FileIoError> {
    let bs = parse_bytes("--file-block-size", opt(a, "file-block-size"))?;
    if bs == 0 {
        return Err(FileIoError::bad_value(
            "--file-block-size",
            "0",
            "a positive size",
        ));
    }
    Ok(bs)
}

/// `O_DIRECT` and the other `file-extra-flags` (`sync`, `dsync`, `direct`).
fn extra_flags(a: &SysbenchArgs) -> Result<(bool, i32), FileIoError> {
    let mut direct = false;
    let mut flags = 0;
    for flag in opt(a, "file-extra-flags").split(',').map(str::trim) {
        match flag {
            "" => {}
            "direct" => direct = true,
            "sync" => flags |= libc::O_SYNC,
            "dsync" => flags |= libc::O_DSYNC,
            other => {
                return Err(FileIoError::bad_value(
                    "--file-extra-flags",
                    other,
                    "a comma-separated list of sync, dsync and direct",
                ))
            }
        }
    }
    Ok((direct, flags))
}

/// The test mode's pattern and read share.
fn mode(a: &SysbenchArgs) -> Result<(Pattern, f64), FileIoError> {
    let ratio: f64 = opt(a, "file-rw-ratio")
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r >= 0.0)
        .ok_or_else(|| {
            FileIoError::bad_value(
                "--file-rw-ratio",
                opt(a, "file-rw-ratio"),
                "a finite non-negative number (reads per write)",
            )
        })?;
    Ok(match opt(a, "file-test-mode") {
        "seqwr" | "seqrewr" => (Pattern::Sequential, 0.0),
        "seqrd" => (Pattern::Sequential, 1.0),
        "rndrd" => (Pattern::Random, 1.0),
        "rndwr" => (Pattern::Random, 0.0),
        "rndrw" => (Pattern::Random, ratio / (ratio + 1.0)),
        other => {
            return Err(FileIoError::bad_value(
                "--file-test-mode",
                other,
                "seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw",
            ))
        }
    })
}

/// The plan of `prepare` (write every file once, sequentially, one thread) or `run`.
pub fn plan(a: &SysbenchArgs) -> Result<Plan, FileIoError> {
    let set = file_set(a)?;
    let bs = block_size(a)?;
    let (direct, open_flags) = extra_flags(a)?;
    let engine = match opt(a, "file-io-mode") {
        "sync" => IoEngine::Sync,
        "async" => IoEngine::Uring,
        "mmap" => IoEngine::Mmap,
        other => {
            return Err(FileIoError::bad_value(
                "--file-io-mode",
                other,
                "sync, async (io_uring) or mmap",
            ))
        }
    };
    if engine == IoEngine::Mmap && direct {
        return Err(FileIoError::invalid(
            "--file-io-mode",
            "mmap cannot be combined with --file-extra-flags=direct",
        ));
    }
    if direct && !bs.is_multiple_of(512) {
        return Err(FileIoError::invalid(
            "--file-block-size",
            format!("{bs} is not a multiple of 512, which --file-extra-flags=direct needs (use a multiple of 4096)"),
        ));
    }
    if parse_count("--file-merged-requests", opt(a, "file-merged-requests"))? != 0 {
        return Err(FileIoError::bad_value(
            "--file-merged-requests",
            opt(a, "file-merged-requests"),
            "0 (merging is not supported)",
        ));
    }
    let sync_call = match opt(a, "file-fsync-mode") {
        "fsync" => SyncCall::Fsync,
        "fdatasync" => SyncCall::Fdatasync,
        other => {
            return Err(FileIoError::bad_value(
                "--file-fsync-mode",
                other,
                "fsync or fdatasync",
            ))
        }
    };
    let switch = |k: &str| parse_switch(&format!("--{k}"), opt(a, k));
    let depth = bounded(
        "--file-async-backlog",
        parse_count("--file-async-backlog", opt(a, "file-async-backlog"))?,
        MAX_DEPTH,
    )?;
    let threads = bounded(
        "--threads",
        parse_count("--threads", opt(a, "threads"))?,
        MAX_THREADS as u64,
    )?;
    let events = parse_count("--events", opt(a, "events"))?;
    let time = parse_count("--time", opt(a, "time"))?;
    let seed = parse_count("--rand-seed", opt(a, "rand-seed"))?;
    let regions: Vec<Region> = (0..set.count as usize)
        .map(|file| Region {
            file,
            offset: 0,
            length: set.file_size,
        })
        .collect();
    let (pattern, read_share, threads, requests, time_limit, fsync) = match a.command {
        SysbenchCommand::Prepare | SysbenchCommand::Cleanup => (
            Pattern::Sequential,
            0.0,
            1,
            Some(set.count * (set.file_size / bs)),
            None,
            FsyncRule {
                at_end: true,
                ..FsyncRule::default()
            },
        ),
        SysbenchCommand::Run => {
            let (pattern, read_share) = mode(a)?;
            let writes = read_share < 1.0;
            let fsync_all = switch("file-fsync-all")?;
            let freq = parse_count("--file-fsync-freq", opt(a, "file-fsync-freq"))?;
            let fsync = FsyncRule {
                cycle_every: if writes && !fsync_all { freq } else { 0 },
                after_writes: 0,
                every_write: writes && fsync_all,
                at_end: writes && switch("file-fsync-end")?,
            };
            if events == 0 && time == 0 {
                return Err(FileIoError::invalid(
                    "--time",
                    "0 with --events=0 would never stop; set one of them",
                ));
            }
            let limit = (time > 0).then(|| Duration::from_secs(time));
            (
                pattern,
                read_share,
                threads,
                (events > 0).then_some(events),
                limit,
                fsync,
            )
        }
    };
    Ok(Plan {
        kind: "sysbench",
        phase: a.command.name(),
        files: set.files(),
        streams: vec![Stream {
            name: "fileio".to_string(),
            regions,
            threads,
            mix: Mix { read_share },
            pattern,
            fsync,
            requests,
        }],
        block_size: bs,
        engine: if a.command == SysbenchCommand::Prepare {
            IoEngine::Sync
        } else {
            engine
        },
        depth: if engine == IoEngine::Uring { depth } else { 1 },
        direct,
        open_flags,
        sync_call,
        time_limit,
        ramp: Duration::ZERO,
        verify: None,
        invalidate: false,
        seed: (seed != 0).then_some(seed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn rndrw_defaults_follow_sysbench() {
        let a = parse(&args(
            "fileio --file-total-size=1G --file-test-mode=rndrw run",
        ))
        .unwrap();
        let p = plan(&a).unwrap();
        assert_eq!(p.files.len(), 128);
        assert_eq!(p.files[0].size, 8 << 20);
        assert_eq!(p.block_size, 16384);
        let s = &p.streams[0];
        assert!((s.mix.read_share - 0.6).abs() < 1e-9);
        assert_eq!(s.fsync.cycle_every, 100);
        assert!(s.fsync.at_end);
        assert_eq!(p.time_limit, Some(Duration::from_secs(10)));
    }

    #[test]
    fn bad_options_name_the_option() {
        let e = parse(&args("fileio --file-totl-size=1G run"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--file-total-size"), "{e}");
        let a = parse(&args("fileio --file-test-mode=random run")).unwrap();
        let e = plan(&a).unwrap_err().to_string();
        assert!(e.contains("--file-test-mode") && e.contains("rndrw"), "{e}");
        assert!(parse(&args("fileio --threads=2")).is_err());
        for bad in [
            "--file-rw-ratio=inf",
            "--threads=5000",
            "--file-async-backlog=100000",
        ] {
            let a = parse(&args(&format!("fileio --file-test-mode=rndrw {bad} run"))).unwrap();
            let e = plan(&a).unwrap_err().to_string();
            let option = bad.split('=').next().unwrap();
            assert!(e.contains(option), "{e}");
        }
    }
}
