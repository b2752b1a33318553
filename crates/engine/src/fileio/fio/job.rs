//! fio job options → a `Plan`: each job section resolved (defaults, allowed
//! values, alignment for direct I/O), then laid out by `layout`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::ini::JobSection;
use super::layout;
use crate::fileio::error::FileIoError;
use crate::fileio::plan::{
    bounded, FileSpec, FsyncRule, IoEngine, Mix, Pattern, Plan, SyncCall, VerifyRule, MAX_DEPTH,
    MAX_THREADS,
};
use crate::fileio::size::{parse_count, parse_duration, parse_fio_bytes, parse_switch};
use crate::properties::closest;

/// Every option accepted in a job file.
pub const KNOWN_OPTIONS: [&str; 34] = [
    "name",
    "filename",
    "directory",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "size",
    "numjobs",
    "iodepth",
    "ioengine",
    "direct",
    "buffered",
    "fsync",
    "fdatasync",
    "end_fsync",
    "time_based",
    "runtime",
    "ramp_time",
    "offset",
    "offset_increment",
    "invalidate",
    "norandommap",
    "randrepeat",
    "randseed",
    "group_reporting",
    "verify",
    "verify_only",
    "verify_generation",
    "thread",
    "nrfiles",
    "kb_base",
];

/// What the job file asks for, resolved.
#[derive(Debug, Clone)]
pub struct FioJobs {
    pub plan: Plan,
    /// Every option in effect, as `job.option` → value (defaults included).
    pub properties: BTreeMap<String, String>,
    /// Said on stderr before the run.
    pub warnings: Vec<String>,
}

/// One section's resolved options.
pub(crate) struct Job {
    pub(crate) name: String,
    pub(crate) pattern: Pattern,
    pub(crate) mix: Mix,
    pub(crate) bs: u64,
    pub(crate) size: Option<u64>,
    pub(crate) numjobs: usize,
    pub(crate) depth: usize,
    pub(crate) engine: IoEngine,
    pub(crate) direct: bool,
    pub(crate) fsync: FsyncRule,
    pub(crate) sync_call: SyncCall,
    pub(crate) time_based: bool,
    pub(crate) runtime: Option<Duration>,
    pub(crate) ramp: Duration,
    pub(crate) offset: u64,
    pub(crate) offset_increment: u64,
    pub(crate) invalidate: bool,
    pub(crate) seed: Option<u64>,
    pub(crate) verify: Option<VerifyRule>,
    pub(crate) filename: Option<PathBuf>,
    pub(crate) directory: PathBuf,
}

fn get<'a>(s: &'a JobSection, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| s.options.get(*k).map(String::as_str))
}

fn check_known(s: &JobSection) -> Result<(), FileIoError> {
    for key in s.options.keys() {
        if !KNOWN_OPTIONS.contains(&key.as_str()) {
            return Err(FileIoError::Unknown {
                option: format!("{key} (job '{}')", s.name),
                suggestion: closest(key, KNOWN_OPTIONS),
            });
        }
    }
    Ok(())
}

fn resolve(s: &JobSection) -> Result<Job, FileIoError> {
    check_known(s)?;
    let rw = get(s, &["rw", "readwrite"]).unwrap_or("read");
    let (pattern, mixed, read_only) = match rw {
        "read" => (Pattern::Sequential, false, true),
        "write" => (Pattern::Sequential, false, false),
        "randread" => (Pattern::Random, false, true),
        "randwrite" => (Pattern::Random, false, false),
        "randrw" => (Pattern::Random, true, false),
        "rw" | "readwrite" => (Pattern::Sequential, true, false),
        other => {
            return Err(FileIoError::bad_value(
                "rw",
                other,
                "read, write, randread, randwrite, randrw, rw or readwrite",
            ))
        }
    };
    // Checked whatever `rw` is: a mix that this job does not use is still a
    // mistake in the job file, not something to ignore.
    let percent = |key: &str| -> Result<Option<f64>, FileIoError> {
        let Some(text) = s.options.get(key) else {
            return Ok(None);
        };
        match text.trim().parse::<u64>() {
            Ok(v) if v <= 100 => Ok(Some(v as f64 / 100.0)),
            _ => Err(FileIoError::bad_value(
                key,
                text,
                "a whole percentage from 0 to 100",
            )),
        }
    };
    let (mix_read, mix_write) = (percent("rwmixread")?, percent("rwmixwrite")?);
    let read_share = if mixed {
        match (mix_read, mix_write) {
            (Some(r), _) => r,
            (None, Some(w)) => 1.0 - w,
            (None, None) => 0.5,
        }
    } else if read_only {
        1.0
    } else {
        0.0
    };
    let engine = match get(s, &["ioengine"]).unwrap_or("psync") {
        "psync" | "sync" | "pvsync" | "pvsync2" => IoEngine::Sync,
        "io_uring" => IoEngine::Uring,
        "mmap" => IoEngine::Mmap,
        other => {
            return Err(FileIoError::bad_value(
                "ioengine",
                other,
                "psync, sync, pvsync, io_uring or mmap",
            ))
        }
    };
    let switch = |key: &str, default: bool| -> Result<bool, FileIoError> {
        s.options
            .get(key)
            .map_or(Ok(default), |v| parse_switch(key, v))
    };
    let count = |key: &str, default: u64| -> Result<u64, FileIoError> {
        s.options
            .get(key)
            .map_or(Ok(default), |v| parse_count(key, v))
    };
    let kb_base = match get(s, &["kb_base"]).unwrap_or("1024").trim() {
        "1024" => 1024,
        "1000" => 1000,
        other => return Err(FileIoError::bad_value("kb_base", other, "1024 or 1000")),
    };
    let bytes = |key: &str| -> Result<Option<u64>, FileIoError> {
        get(s, &[key])
            .map(|v| parse_fio_bytes(key, v, kb_base))
            .transpose()
    };
    let direct = switch("direct", false)? || !switch("buffered", true)?;
    let (after_writes, sync_call) = match (count("fsync", 0)?, count("fdatasync", 0)?) {
        (0, 0) => (0, SyncCall::Fsync),
        (n, 0) => (n, SyncCall::Fsync),
        (_, n) => (n, SyncCall::Fdatasync),
    };
    // Every method writes contio's block header with a CRC-32C (not fio's header):
    // `crc32c` names the checksum; `meta` and `contio` the header.
    let verify = match get(s, &["verify"]).unwrap_or("0") {
        "0" | "null" => None,
        "crc32c" | "crc32c-intel" | "meta" | "contio" => Some(VerifyRule {
            generation: count("verify_generation", 1)?,
            only: switch("verify_only", false)?,
        }),
        other => {
            return Err(FileIoError::bad_value(
                "verify",
                other,
                "crc32c, crc32c-intel, meta or contio (each: contio's block header with a \
                 CRC-32C; not fio's header format), or 0",
            ))
        }
    };
    if switch("verify_only", false)? && verify.is_none() {
        return Err(FileIoError::invalid(
            "verify_only",
            "needs verify=crc32c (or another verify method) to know what to check",
        ));
    }
    if count("nrfiles", 1)? != 1 {
        return Err(FileIoError::bad_value(
            "nrfiles",
            &s.options["nrfiles"],
            "1",
        ));
    }
    let bs = bytes("bs")?.or(bytes("blocksize")?).unwrap_or(4096);
    let runtime = get(s, &["runtime"])
        .map(|v| parse_duration("runtime", v))
        .transpose()?;
    let ramp = get(s, &["ramp_time"])
        .map(|v| parse_duration("ramp_time", v))
        .transpose()?
        .unwrap_or_default();
    let randrepeat = switch("randrepeat", true)?;
    let seed = match s.options.get("randseed") {
        Some(v) => Some(parse_count("randseed", v)?),
        None if randrepeat => Some(0x1234),
        None => None,
    };
    let directory = PathBuf::from(get(s, &["directory"]).unwrap_or("."));
    Ok(Job {
        name: s.name.clone(),
        pattern,
        mix: Mix { read_share },
        bs,
        size: bytes("size")?,
        numjobs: bounded("numjobs", count("numjobs", 1)?, MAX_THREADS as u64)?,
        depth: bounded("iodepth", count("iodepth", 1)?, MAX_DEPTH)?,
        engine,
        direct,
        fsync: FsyncRule {
            after_writes,
            at_end: switch("end_fsync", false)?,
            ..FsyncRule::default()
        },
        sync_call,
        time_based: switch("time_based", false)?,
        runtime,
        ramp,
        offset: bytes("offset")?.unwrap_or(0),
        offset_increment: bytes("offset_increment")?.unwrap_or(0),
        invalidate: switch("invalidate", true)?,
        seed,
        verify,
        filename: get(s, &["filename"]).map(|f| {
            let p = PathBuf::from(f);
            if p.is_absolute() || !s.options.contains_key("directory") {
                p
            } else {
                directory.join(p)
            }
        }),
        directory,
    })
}

/// The options that must agree across jobs (one plan runs them all).
fn check_same(first: &Job, job: &Job) -> Result<(), FileIoError> {
    let differs = [
        ("bs", first.bs != job.bs),
        ("ioengine", first.engine != job.engine),
        ("iodepth", first.depth != job.depth),
        ("direct", first.direct != job.direct),
        ("runtime", first.runtime != job.runtime),
        ("time_based", first.time_based != job.time_based),
        ("ramp_time", first.ramp != job.ramp),
        ("verify", first.verify != job.verify),
        // One sync call serves the whole plan.
        (
            "fsync/fdatasync",
            first.fsync.after_writes > 0
                && job.fsync.after_writes > 0
                && first.sync_call != job.sync_call,
        ),
    ];
    if let Some((option, _)) = differs.iter().find(|(_, d)| *d) {
        return Err(FileIoError::invalid(
            option,
            format!(
                "job '{}' differs from job '{}'; contio runs the jobs of one file together \
                 and needs the same {option} for all (use one job file per value)",
                job.name, first.name
            ),
        ));
    }
    Ok(())
}

fn check_alignment(job: &Job) -> Result<(), FileIoError> {
    if job.bs == 0 {
        return Err(FileIoError::bad_value(
            "bs",
            "0",
            "a block size of at least 512 bytes",
        ));
    }
    if job.verify.is_some() && job.bs < 512 {
        return Err(FileIoError::invalid(
            "bs",
            "verification needs blocks of at least 512 bytes",
        ));
    }
    if job.direct {
        for (option, value) in [
            ("bs", job.bs),
            ("offset", job.offset),
            ("offset_increment", job.offset_increment),
        ] {
            if !value.is_multiple_of(512) {
                return Err(FileIoError::invalid(
                    option,
                    format!("{value} is not a multiple of 512, which direct=1 needs (use a multiple of 4096)"),
                ));
            }
        }
    }
    if job.engine == IoEngine::Mmap && job.direct {
        return Err(FileIoError::invalid(
            "ioengine",
            "mmap cannot do direct I/O; use psync or io_uring with direct=1",
        ));
    }
    if job.time_based && job.runtime.is_none() {
        return Err(FileIoError::invalid(
            "time_based",
            "needs runtime (how long to run)",
        ));
    }
    Ok(())
}

/// Resolves the job sections of a file into one plan.
pub fn plan(sections: &[JobSection]) -> Result<FioJobs, FileIoError> {
    let jobs: Vec<Job> = sections.iter().map(resolve).collect::<Result<_, _>>()?;
    let threads: usize = jobs.iter().map(|j| j.numjobs).sum();
    if threads > MAX_THREADS {
        return Err(FileIoError::invalid(
            "numjobs",
            format!("{threads} job instances in all; at most {MAX_THREADS} run at once"),
        ));
    }
    let first = &jobs[0];
    for job in &jobs {
        check_same(first, job)?;
        check_alignment(job)?;
    }
    let mut files: Vec<FileSpec> = Vec::new();
    let mut streams = Vec::new();
    let mut warnings = Vec::new();
    for job in &jobs {
        layout::add_job_streams(job, &mut files, &mut streams)?;
    }
    layout::check_overlaps(&jobs, &streams, &files, &mut warnings)?;
    let verify_only = first.verify.is_some_and(|v| v.only);
    let plan = Plan {
        kind: "fio",
        phase: "run",
        files,
        streams,
        block_size: first.bs,
        engine: first.engine,
        depth: if first.engine == IoEngine::Uring {
            first.depth
        } else {
            1
        },
        direct: first.direct,
        open_flags: 0,
        sync_call: jobs
            .iter()
            .map(|j| j.sync_call)
            .find(|c| *c == SyncCall::Fdatasync)
            .unwrap_or(SyncCall::Fsync),
        time_limit: if verify_only { None } else { first.runtime },
        ramp: if verify_only {
            Duration::ZERO
        } else {
            first.ramp
        },
        verify: first.verify,
        invalidate: first.invalidate,
        seed: first.seed,
    };
    let properties = effective(&jobs, sections);
    Ok(FioJobs {
        plan,
        properties,
        warnings,
    })
}

fn effective(jobs: &[Job], sections: &[JobSection]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (job, section) in jobs.iter().zip(sections) {
        for (k, v) in &section.options {
            out.insert(format!("{}.{k}", job.name), v.clone());
        }
        let defaults = [
            ("bs", job.bs.to_string()),
            ("numjobs", job.numjobs.to_string()),
            ("iodepth", job.depth.to_string()),
            ("ioengine", job.engine.name().to_string()),
            ("direct", u8::from(job.direct).to_string()),
            (
                "rwmixread",
                format!("{}", (job.mix.read_share * 100.0).round()),
            ),
            ("ramp_time", format!("{}", job.ramp.as_secs_f64())),
            ("invalidate", u8::from(job.invalidate).to_string()),
        ];
        for (k, v) in defaults {
            out.entry(format!("{}.{k}", job.name)).or_insert(v);
        }
    }
    out
}
