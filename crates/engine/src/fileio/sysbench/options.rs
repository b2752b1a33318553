//! `sysbench fileio` options → a `Plan`, with sysbench 1.0's names, defaults and
//! request sequence: files `test_file.0 … test_file.N-1`; random modes pick a
//! block uniformly over all files; after every `file-fsync-freq` read/write
//! requests, one fsync per file (each an event); rndrw keeps reads:writes at
//! `file-rw-ratio`.

use std::path::PathBuf;
use std::time::Duration;

use super::args::SysbenchArgs;
use super::error::SysbenchError;
use crate::fileio::error::FileIoError;
use crate::fileio::plan::{
    bounded, FileSpec, FsyncRule, IoEngine, Mix, Pattern, Plan, Region, Stream, SyncCall,
    MAX_DEPTH, MAX_THREADS,
};
use crate::fileio::size::{parse_bytes, parse_count};

/// The file set of the options: directory, count, size of each.
#[derive(Debug, Clone)]
pub struct FileSet {
    pub dir: PathBuf,
    pub count: u64,
    /// `file-total-size / file-num`, as sysbench (not rounded to blocks).
    pub file_size: u64,
}

impl FileSet {
    /// `DIR/test_file.N` for every N, each `size` bytes long.
    pub fn files(&self, size: u64) -> Vec<FileSpec> {
        (0..self.count)
            .map(|i| FileSpec {
                path: self.dir.join(format!("test_file.{i}")),
                size,
            })
            .collect()
    }
}

fn count(a: &SysbenchArgs, key: &str) -> Result<u64, FileIoError> {
    parse_count(&format!("--{key}"), a.opt(key))
}

/// The files named by the options, with sysbench's messages for bad counts.
pub fn file_set(a: &SysbenchArgs) -> Result<FileSet, SysbenchError> {
    let count = a.opt("file-num").trim().parse::<i64>().unwrap_or(0);
    if count <= 0 {
        return Err(SysbenchError::Fatal(format!(
            "Invalid value for file-num: {}",
            a.opt("file-num")
        )));
    }
    let total = parse_bytes("--file-total-size", a.opt("file-total-size"))?;
    if total == 0 {
        return Err(SysbenchError::Fatal(
            "Invalid value for file-total-size: 0".into(),
        ));
    }
    Ok(FileSet {
        dir: PathBuf::from(a.opt("file-dir")),
        count: count as u64,
        file_size: total / count as u64,
    })
}

/// The block size (`--file-block-size`), positive.
pub fn block_size(a: &SysbenchArgs) -> Result<u64, SysbenchError> {
    let bs = parse_bytes("--file-block-size", a.opt("file-block-size"))?;
    if bs == 0 {
        return Err(SysbenchError::Fatal(
            "Invalid value for file-block-size: 0.".into(),
        ));
    }
    Ok(bs)
}

/// `O_DIRECT` and the other `file-extra-flags` (`sync`, `dsync`, `direct`).
pub fn extra_flags(a: &SysbenchArgs) -> Result<(bool, i32), SysbenchError> {
    let mut direct = false;
    let mut flags = 0;
    for flag in a.opt("file-extra-flags").split(',').map(str::trim) {
        match flag {
            "" => {}
            "direct" => direct = true,
            "sync" => flags |= libc::O_SYNC,
            "dsync" => flags |= libc::O_DSYNC,
            other => {
                return Err(SysbenchError::Fatal(format!(
                    "Invalid value for file-extra-flags: {other} (sync, dsync, direct)"
                )))
            }
        }
    }
    Ok((direct, flags))
}

/// The test mode's pattern and read share; `None` when no mode was given.
pub fn mode(a: &SysbenchArgs) -> Result<(Pattern, f64), SysbenchError> {
    let ratio: f64 = a
        .opt("file-rw-ratio")
        .parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r >= 0.0)
        .ok_or_else(|| {
            SysbenchError::Fatal(format!(
                "Invalid value for --file-rw-ratio: {} (a finite number of reads per write, 0 or more)",
                a.opt("file-rw-ratio")
            ))
        })?;
    Ok(match a.opt("file-test-mode") {
        "seqwr" | "seqrewr" => (Pattern::Sequential, 0.0),
        "seqrd" => (Pattern::Sequential, 1.0),
        "rndrd" => (Pattern::Random, 1.0),
        "rndwr" => (Pattern::Random, 0.0),
        "rndrw" => (Pattern::Random, ratio / (ratio + 1.0)),
        other => {
            return Err(SysbenchError::Fatal(format!(
                "Invalid IO operations mode: {other}."
            )))
        }
    })
}

/// The general options sysbench checks before its banner: threads, the
/// limits, the percentile and histogram, the rate.
pub fn check_general(a: &SysbenchArgs) -> Result<(), SysbenchError> {
    let threads = a.opt("threads").trim().parse::<i64>().unwrap_or(0);
    if threads <= 0 || threads > MAX_THREADS as i64 {
        return Err(SysbenchError::Fatal(format!(
            "Invalid value for --threads: {}.\n",
            a.opt("threads")
        )));
    }
    count(a, "events")?;
    count(a, "time")?;
    let percentile = a.opt("percentile").trim().parse::<u8>().ok();
    match percentile {
        Some(p) if p <= 100 => {}
        _ => {
            return Err(SysbenchError::Fatal(format!(
                "Invalid value for --percentile: {} (0 to 100; 0: none)",
                a.opt("percentile")
            )))
        }
    }
    if percentile == Some(0) && a.flag("histogram")? {
        return Err(SysbenchError::Fatal(
            "--histogram cannot be used with --percentile=0".into(),
        ));
    }
    if count(a, "rate")? != 0 {
        return Err(SysbenchError::Fatal(
            "--rate: contio-engine's fileio runs at full speed only; use --rate=0".into(),
        ));
    }
    for key in ["debug", "validate", "file-fsync-all", "file-fsync-end"] {
        a.flag(key)?;
    }
    Ok(())
}

/// When to fsync, as sysbench: every `file-fsync-freq` requests, after every
/// write (`file-fsync-all`, which turns the other two off), at the end.
pub struct FsyncOptions {
    pub freq: u64,
    pub all: bool,
    pub end: bool,
}

/// The fsync options in effect.
pub fn fsync_options(a: &SysbenchArgs) -> Result<FsyncOptions, SysbenchError> {
    let all = a.flag("file-fsync-all")?;
    let freq = count(a, "file-fsync-freq")?;
    let end = a.flag("file-fsync-end")?;
    Ok(FsyncOptions {
        freq: if all { 0 } else { freq },
        all,
        end: end && !all,
    })
}

/// The I/O engine of `file-io-mode`, checked against the other options.
fn io_engine(a: &SysbenchArgs, direct: bool, bs: u64) -> Result<IoEngine, SysbenchError> {
    let engine = match a.opt("file-io-mode") {
        "sync" => IoEngine::Sync,
        "async" => IoEngine::Uring,
        "mmap" => IoEngine::Mmap,
        other => {
            return Err(SysbenchError::Fatal(format!(
                "unknown I/O mode: {other} (sync, async or mmap)"
            )))
        }
    };
    if engine == IoEngine::Mmap && direct {
        return Err(FileIoError::invalid(
            "--file-io-mode",
            "mmap cannot be combined with --file-extra-flags=direct",
        )
        .into());
    }
    if direct && !bs.is_multiple_of(512) {
        return Err(FileIoError::invalid(
            "--file-block-size",
            format!("{bs} is not a multiple of 512, which --file-extra-flags=direct needs (use a multiple of 4096)"),
        ).into());
    }
    if count(a, "file-merged-requests")? != 0 {
        return Err(FileIoError::bad_value(
            "--file-merged-requests",
            a.opt("file-merged-requests"),
            "0 (merging is not supported)",
        )
        .into());
    }
    Ok(engine)
}

fn sync_call(a: &SysbenchArgs) -> Result<SyncCall, SysbenchError> {
    match a.opt("file-fsync-mode") {
        "fsync" => Ok(SyncCall::Fsync),
        "fdatasync" => Ok(SyncCall::Fdatasync),
        other => Err(SysbenchError::Fatal(format!(
            "Invalid fsync mode: {other}. (fsync or fdatasync)"
        ))),
    }
}

/// One stream over `regions`, in a plan with everything else from the options.
fn plan_with(
    a: &SysbenchArgs,
    phase: &'static str,
    files: Vec<FileSpec>,
    stream: Stream,
) -> Result<Plan, SysbenchError> {
    let bs = block_size(a)?;
    let (direct, open_flags) = extra_flags(a)?;
    let engine = io_engine(a, direct, bs)?;
    let depth = bounded(
        "--file-async-backlog",
        count(a, "file-async-backlog")?,
        MAX_DEPTH,
    )?;
    let time = count(a, "time")?;
    let seed = count(a, "rand-seed")?;
    let run = phase == "run";
    Ok(Plan {
        kind: "sysbench",
        phase,
        files,
        streams: vec![stream],
        block_size: bs,
        engine: if run { engine } else { IoEngine::Sync },
        depth: if run && engine == IoEngine::Uring {
            depth
        } else {
            1
        },
        direct,
        open_flags,
        sync_call: sync_call(a)?,
        time_limit: (run && time > 0).then(|| Duration::from_secs(time)),
        ramp: Duration::ZERO,
        verify: None,
        invalidate: false,
        seed: (seed != 0).then_some(seed),
    })
}

/// The plan of `run`: the test mode over every file's blocks (the files'
/// sizes in the plan are those blocks; `file_set` has sysbench's size).
pub fn run_plan(a: &SysbenchArgs, set: &FileSet) -> Result<Plan, SysbenchError> {
    let bs = block_size(a)?;
    // sysbench aligns offsets below file_size down to a block: a last,
    // partial block is addressed whole (prepare wrote it whole).
    let blocks = set.file_size.div_ceil(bs);
    let (pattern, read_share) = mode(a)?;
    let writes = read_share < 1.0;
    let f = fsync_options(a)?;
    let fsync = FsyncRule {
        cycle_every: if writes { f.freq } else { 0 },
        after_writes: 0,
        every_write: writes && f.all,
        at_end: writes && f.end,
    };
    let events = count(a, "events")?;
    if events == 0 && count(a, "time")? == 0 {
        return Err(FileIoError::invalid(
            "--time",
            "0 with --events=0 would never stop (sysbench runs an endless test); set one of them",
        )
        .into());
    }
    let threads = count(a, "threads")? as usize;
    let regions = (0..set.count as usize)
        .map(|file| Region {
            file,
            offset: 0,
            length: blocks * bs,
        })
        .collect();
    let stream = Stream {
        name: "fileio".to_string(),
        regions,
        threads,
        mix: Mix { read_share },
        pattern,
        fsync,
        requests: (events > 0).then_some(events),
    };
    plan_with(a, "run", set.files(blocks * bs), stream)
}

/// The plan of `prepare`: one sequential pass of whole blocks over `regions`
/// (each file from its current end up to `file_size`, rounded up to a block,
/// as sysbench writes it), one thread.
pub fn prepare_plan(
    a: &SysbenchArgs,
    set: &FileSet,
    sizes: Vec<u64>,
    regions: Vec<Region>,
) -> Result<Plan, SysbenchError> {
    let bs = block_size(a)?;
    let blocks: u64 = regions.iter().map(|r| r.length / bs).sum();
    let mut files = set.files(0);
    for (file, size) in files.iter_mut().zip(sizes) {
        file.size = size;
    }
    let stream = Stream {
        name: "fileio".to_string(),
        regions,
        threads: 1,
        mix: Mix { read_share: 0.0 },
        pattern: Pattern::Sequential,
        fsync: FsyncRule {
            at_end: true,
            ..FsyncRule::default()
        },
        requests: Some(blocks),
    };
    plan_with(a, "prepare", files, stream)
}

#[cfg(test)]
mod tests {
    use super::super::args::parse;
    use super::*;

    fn args(s: &str) -> SysbenchArgs {
        parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap()
    }

    fn plan_of(s: &str) -> Result<Plan, SysbenchError> {
        let a = args(s);
        run_plan(&a, &file_set(&a)?)
    }

    #[test]
    fn rndrw_defaults_follow_sysbench() {
        let p = plan_of("fileio --file-total-size=1G --file-test-mode=rndrw run").unwrap();
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
    fn fsync_all_turns_the_periodic_and_final_fsync_off() {
        let p =
            plan_of("fileio --file-total-size=128M --file-fsync-all --file-test-mode=rndwr run")
                .unwrap();
        let f = &p.streams[0].fsync;
        assert!(f.every_write && !f.at_end && f.cycle_every == 0);
    }

    #[test]
    fn files_are_total_over_count_unrounded() {
        let a = args("fileio --file-total-size=1M --file-num=128 --file-block-size=4097 run");
        assert_eq!(file_set(&a).unwrap().file_size, 8192);
    }

    #[test]
    fn bad_values_say_what_sysbench_says() {
        let e = mode(&args("fileio --file-test-mode=foo run")).unwrap_err();
        assert_eq!(e.to_string(), "Invalid IO operations mode: foo.");
        let e = file_set(&args("fileio --file-num=0 prepare")).unwrap_err();
        assert_eq!(e.to_string(), "Invalid value for file-num: 0");
        let e = check_general(&args("fileio --threads=0 run")).unwrap_err();
        assert_eq!(e.to_string(), "Invalid value for --threads: 0.\n");
        let e = check_general(&args("fileio --percentile=0 --histogram run")).unwrap_err();
        assert!(e.to_string().contains("--histogram"), "{e}");
        for bad in [
            "--threads=5000",
            "--file-rw-ratio=inf",
            "--file-async-backlog=100000",
        ] {
            let a = args(&format!("fileio --file-test-mode=rndrw {bad} run"));
            let e = check_general(&a).and_then(|()| run_plan(&a, &file_set(&a)?).map(|_| ()));
            let option = bad.split('=').next().unwrap();
            assert!(e.unwrap_err().to_string().contains(option), "{bad}");
        }
    }
}
