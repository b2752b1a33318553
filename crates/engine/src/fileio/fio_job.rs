//! fio job options → a `Plan`. Each job section runs `numjobs` instances at
//! once, each a stream of its own on its own region: N-to-N (no `filename`:
//! one file per instance, `DIRECTORY/NAME.INSTANCE.0` as fio names them) or
//! N-to-1 (a shared `filename`: instance i works on
//! `[offset + i·offset_increment, + size)`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::FileIoError;
use super::fio_ini::JobSection;
use super::plan::{
    FileSpec, FsyncRule, IoEngine, Mix, Pattern, Plan, Region, Stream, SyncCall, VerifyRule,
};
use super::size::{parse_bytes, parse_count, parse_duration, parse_switch};
use crate::properties::closest;

/// Every option accepted in a job file.
pub const KNOWN_OPTIONS: [&str; 33] = [
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
];

/// What the job file asks for, resolved.
#[derive(Debug, Clone)]
pub struct FioJobs {
    pub plan: Plan,
    /// Every option in effect, as `job.option` → value (defaults included).
    pub properties: BTreeMap<String, String>,
    /// Files that are missing or short and are laid out before the run.
    pub needs_layout: bool,
    /// Said on stderr before the run.
    pub warnings: Vec<String>,
}

/// One section's resolved options.
struct Job {
    name: String,
    pattern: Pattern,
    mix: Mix,
    bs: u64,
    size: Option<u64>,
    numjobs: usize,
    depth: usize,
    engine: IoEngine,
    direct: bool,
    fsync: FsyncRule,
    sync_call: SyncCall,
    time_based: bool,
    runtime: Option<Duration>,
    ramp: Duration,
    offset: u64,
    offset_increment: u64,
    invalidate: bool,
    seed: Option<u64>,
    verify: Option<VerifyRule>,
    filename: Option<PathBuf>,
    directory: PathBuf,
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
    let percent = |key: &str, text: &str| -> Result<f64, FileIoError> {
        let v = parse_count(key, text)?;
        if v > 100 {
            return Err(FileIoError::bad_value(key, text, "a percentage 0–100"));
        }
        Ok(v as f64 / 100.0)
    };
    let read_share = if mixed {
        match (s.options.get("rwmixread"), s.options.get("rwmixwrite")) {
            (Some(r), _) => percent("rwmixread", r)?,
            (None, Some(w)) => 1.0 - percent("rwmixwrite", w)?,
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
    let bytes = |key: &str| -> Result<Option<u64>, FileIoError> {
        get(s, &[key]).map(|v| parse_bytes(key, v)).transpose()
    };
    let direct = switch("direct", false)? || !switch("buffered", true)?;
    let (after_writes, sync_call) = match (count("fsync", 0)?, count("fdatasync", 0)?) {
        (0, 0) => (0, SyncCall::Fsync),
        (n, 0) => (n, SyncCall::Fsync),
        (_, n) => (n, SyncCall::Fdatasync),
    };
    let verify =
        match get(s, &["verify"]).unwrap_or("0") {
            "0" | "null" => None,
            "crc32c" | "crc32c-intel" | "crc32" | "meta" | "contio" | "1" => Some(VerifyRule {
                generation: count("verify_generation", 1)?,
                only: switch("verify_only", false)?,
            }),
            other => return Err(FileIoError::bad_value(
                "verify",
                other,
                "crc32c, crc32, meta or contio (all: contio's block header with a CRC-32), or 0",
            )),
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
        numjobs: count("numjobs", 1)?.max(1) as usize,
        depth: count("iodepth", 1)?.max(1) as usize,
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
    let first = &jobs[0];
    for job in &jobs {
        check_same(first, job)?;
        check_alignment(job)?;
    }
    let mut files: Vec<FileSpec> = Vec::new();
    let mut streams = Vec::new();
    let mut warnings = Vec::new();
    for job in &jobs {
        add_job_streams(job, &mut files, &mut streams)?;
    }
    check_overlaps(&jobs, &streams, &files, &mut warnings)?;
    let needs_layout = super::files::bytes_to_lay_out(&files) > 0;
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
        needs_layout,
        warnings,
    })
}

fn add_job_streams(
    job: &Job,
    files: &mut Vec<FileSpec>,
    streams: &mut Vec<Stream>,
) -> Result<(), FileIoError> {
    let verify_only = job.verify.is_some_and(|v| v.only);
    for instance in 0..job.numjobs {
        let path = match &job.filename {
            Some(p) => p.clone(),
            None => job.directory.join(format!("{}.{instance}.0", job.name)),
        };
        let offset = job.offset + instance as u64 * job.offset_increment;
        let size = match job.size {
            Some(s) => s,
            None => existing_size(&path)?.saturating_sub(offset),
        };
        let length = size / job.bs * job.bs;
        if length == 0 {
            return Err(FileIoError::invalid(
                "size",
                format!(
                    "job '{}' has no whole block of {} bytes to work on",
                    job.name, job.bs
                ),
            ));
        }
        let end = offset + length;
        let file = match files.iter().position(|f| f.path == path) {
            Some(i) => {
                files[i].size = files[i].size.max(end);
                i
            }
            None => {
                files.push(FileSpec { path, size: end });
                files.len() - 1
            }
        };
        let writes = job.mix.read_share < 1.0 && !verify_only;
        let pattern = match (job.pattern, job.verify.is_some() && writes) {
            (Pattern::Random, true) => Pattern::Permuted,
            (p, _) => p,
        };
        let blocks = length / job.bs;
        let requests = if verify_only {
            Some(blocks)
        } else if job.time_based {
            None
        } else {
            Some(blocks)
        };
        streams.push(Stream {
            name: job.name.clone(),
            regions: vec![Region {
                file,
                offset,
                length,
            }],
            threads: 1,
            mix: if verify_only {
                Mix { read_share: 1.0 }
            } else {
                job.mix
            },
            pattern: if verify_only {
                Pattern::Sequential
            } else {
                pattern
            },
            fsync: job.fsync,
            requests,
        });
    }
    Ok(())
}

fn existing_size(path: &Path) -> Result<u64, FileIoError> {
    std::fs::metadata(path).map(|m| m.len()).map_err(|_| {
        FileIoError::invalid(
            "size",
            format!(
                "not given, and '{}' does not exist to take it from",
                path.display()
            ),
        )
    })
}

/// Regions of one file that overlap are allowed (fio allows them) but warned
/// about when written, and refused when verifying (the checks would race).
fn check_overlaps(
    jobs: &[Job],
    streams: &[Stream],
    files: &[FileSpec],
    warnings: &mut Vec<String>,
) -> Result<(), FileIoError> {
    let verify = jobs.iter().any(|j| j.verify.is_some());
    for (i, a) in streams.iter().enumerate() {
        for b in &streams[i + 1..] {
            let (ra, rb) = (a.regions[0], b.regions[0]);
            let writes = a.mix.read_share < 1.0 || b.mix.read_share < 1.0;
            if ra.file != rb.file || ra.end() <= rb.offset || rb.end() <= ra.offset || !writes {
                continue;
            }
            let message = format!(
                "jobs '{}' and '{}' write overlapping regions of {} ({}..{} and {}..{}); set \
                 offset_increment to at least size for disjoint N-to-1 regions",
                a.name,
                b.name,
                files[ra.file].path.display(),
                ra.offset,
                ra.end(),
                rb.offset,
                rb.end()
            );
            if verify {
                return Err(FileIoError::invalid("offset_increment", message));
            }
            warnings.push(message);
        }
    }
    Ok(())
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
