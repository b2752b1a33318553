//! Running a `Plan`: open and check the files, start one thread per stream
//! member, merge their measurements each second, and stop cleanly on the time
//! limit, the request limit, an interrupt, or the first I/O error — keeping
//! what was measured in every case.

use std::fs::File;
use std::sync::atomic::Ordering;
use std::sync::mpsc::channel;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use memmap2::{MmapOptions, MmapRaw};
use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::error::FileIoError;
use super::files;
use super::io_calls::sync_fd;
use super::plan::{IoEngine, Plan};
use super::queued_worker::{new_ring, run_queued};
use super::requests::Sequencer;
use super::verify_pass::{read_back, VerifyReport};
use super::worker::{run_blocking, Shared, StreamCounter, ThreadTask, ThreadTotals};
use crate::client::StopFlag;
use crate::measure::collector::StatusFormat;
use crate::measure::{Clock, Collector, Measurements, Recorder, Reporting, Tick};

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    Completed,
    Interrupted,
    Failed(String),
}

/// Everything a run produced.
pub struct RunOutcome {
    pub measurements: Measurements,
    pub started_at: SystemTime,
    /// The measured span (after the ramp), ms.
    pub runtime_ms: f64,
    pub threads: Vec<ThreadTotals>,
    /// Per stream, the thread indices that worked on it.
    pub stream_threads: Vec<Vec<usize>>,
    pub ending: Ending,
    pub verify: Option<VerifyReport>,
    /// The final sync (`file-fsync-end`, `end_fsync`), if the plan asked for one.
    pub end_sync: Option<EndSync>,
}

/// The sync of every file after the requests (not measured as an operation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EndSync {
    /// Files synced successfully.
    pub files: u64,
    /// How long the syncs took, ms.
    pub ms: f64,
}

impl RunOutcome {
    /// Bytes read over all threads (measured part).
    pub fn bytes_read(&self) -> u64 {
        self.threads.iter().map(|t| t.bytes_read).sum()
    }

    /// Bytes written over all threads (measured part).
    pub fn bytes_written(&self) -> u64 {
        self.threads.iter().map(|t| t.bytes_written).sum()
    }
}

/// Everything that must hold before threads start; the files opened for the run.
pub fn open_checked(plan: &Plan) -> Result<(Vec<File>, Vec<MmapRaw>), FileIoError> {
    let opened = files::open_all(plan)?;
    files::probe_direct(plan, &opened)?;
    if plan.engine == IoEngine::Uring {
        new_ring(plan.depth).map_err(|e| {
            FileIoError::invalid(
                "io engine",
                format!("io_uring is not available here ({e}); use the sync engine"),
            )
        })?;
    }
    let maps = if plan.engine == IoEngine::Mmap {
        plan.files
            .iter()
            .zip(&opened)
            .enumerate()
            .map(|(i, (spec, file))| {
                // The plan's size, not the file's: a block device's st_size is 0.
                let mut options = MmapOptions::new();
                options.len(usize::try_from(spec.size).unwrap_or(usize::MAX));
                let map = if plan.writes_file(i) {
                    options.map_raw(file)
                } else {
                    options.map_raw_read_only(file)
                };
                map.map_err(|source| FileIoError::Setup {
                    path: spec.path.display().to_string(),
                    what: "mmap",
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    Ok((opened, maps))
}

/// Runs the plan on files already checked by `open_checked`.
pub fn execute(
    plan: Plan,
    opened: Vec<File>,
    maps: Vec<MmapRaw>,
    stop: StopFlag,
    status_every: Option<Duration>,
    status_format: Option<StatusFormat>,
) -> RunOutcome {
    if plan.invalidate && !plan.direct {
        files::invalidate(&plan, &opened);
    }
    let clock = Clock::new();
    let start = clock.now();
    let origin = clock.after(start, plan.ramp);
    let deadline = plan.time_limit.map(|t| clock.after(origin, t));
    let sequencers: Vec<Sequencer> = plan
        .streams
        .iter()
        .map(|s| Sequencer::new(s, plan.block_size))
        .collect();
    let counters = plan
        .streams
        .iter()
        .map(|_| StreamCounter::default())
        .collect();
    let shared = Shared {
        files: opened,
        maps,
        sequencers,
        counters,
        stop,
        failure: Mutex::new(None),
        mismatches: Mutex::new((0, Vec::new())),
        clock: clock.clone(),
        origin,
        deadline,
        plan,
    };
    let threads = shared.plan.threads();
    let (tx, rx) = channel();
    let reporting = Reporting {
        status_format,
        ..Reporting::default()
    };
    let mut collector = Collector::new(rx, threads).with_reporting(reporting);
    let started_at = SystemTime::now();
    let origin_instant = Instant::now() + shared.plan.ramp;
    let mut stream_threads = vec![Vec::new(); shared.plan.streams.len()];
    let mut seeds = match shared.plan.seed {
        Some(seed) => SmallRng::seed_from_u64(seed),
        None => SmallRng::from_os_rng(),
    };
    let totals: Vec<ThreadTotals> = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        let mut index = 0;
        for (stream, s) in shared.plan.streams.iter().enumerate() {
            for _ in 0..s.threads {
                stream_threads[stream].push(index);
                let recorder = Recorder::new(index, clock.clone(), origin, tx.clone());
                let task = ThreadTask {
                    stream,
                    rng: SmallRng::from_rng(&mut seeds),
                };
                let shared = &shared;
                handles.push(scope.spawn(move || match shared.plan.engine {
                    IoEngine::Uring => run_queued(shared, task, recorder),
                    _ => run_blocking(shared, task, recorder),
                }));
                index += 1;
            }
        }
        drop(tx);
        collector.run_until_done(status_every, origin_instant, 0);
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let measurements = collector.finish();
    let runtime = measured_span(&shared, clock.now());
    // Before the ending is decided: a final sync that fails fails the run (and
    // then nothing is verified, as the data never reached the file system).
    let interrupted = shared.stop.is_set();
    let end_sync = sync_at_end(&shared);
    let failure = shared.failure.lock().ok().and_then(|mut f| f.take());
    let ending = match failure {
        Some(message) => Ending::Failed(message),
        None if interrupted => Ending::Interrupted,
        None => Ending::Completed,
    };
    let verify = verification(&shared, &ending);
    RunOutcome {
        measurements,
        started_at,
        runtime_ms: runtime.as_secs_f64() * 1000.0,
        threads: totals,
        stream_threads,
        ending,
        verify,
        end_sync,
    }
}

/// From the origin to `ended`, on the clock that decides the deadline: a run
/// the time limit ended lasted exactly the limit (calls that end later are not
/// counted), whatever another clock or a preempted main thread would say.
fn measured_span(shared: &Shared, ended: Tick) -> Duration {
    match (shared.deadline, shared.plan.time_limit) {
        (Some(deadline), Some(limit)) if ended >= deadline => limit,
        _ => Duration::from_nanos(shared.clock.nanos_between(shared.origin, ended)),
    }
}

/// Syncs every file when a stream asks for it; a failure fails the run.
fn sync_at_end(shared: &Shared) -> Option<EndSync> {
    let wants = shared.plan.streams.iter().any(|s| s.fsync.at_end);
    if !wants || !shared.plan.writes() || shared.plan.verify.is_some_and(|v| v.only) {
        return None;
    }
    let started = Instant::now();
    let mut files = 0;
    for (i, f) in shared.files.iter().enumerate() {
        use std::os::fd::AsRawFd;
        // Only what the run wrote: a read-only file or device has nothing to sync.
        if !shared.plan.writes_file(i) {
            continue;
        }
        let result = match shared.maps.get(i) {
            Some(map) => map.flush(),
            None => sync_fd(f.as_raw_fd(), shared.plan.sync_call),
        };
        match result {
            Ok(()) => files += 1,
            Err(e) => shared.fail(format!(
                "final sync of {}: {e}",
                shared.plan.files[i].path.display()
            )),
        }
    }
    Some(EndSync {
        files,
        ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

fn verification(shared: &Shared, ending: &Ending) -> Option<VerifyReport> {
    let rule = shared.plan.verify?;
    if rule.only {
        let (count, mut first) = shared
            .mismatches
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default();
        // Queued reads complete out of order; report in file order.
        first.sort_by_key(|m| (m.file, m.offset));
        let checked = shared.counters.iter().map(|c| c.0.load(Ordering::Relaxed));
        let blocks: u64 = checked
            .zip(&shared.sequencers)
            .map(|(n, s)| n.min(s.total_blocks()))
            .sum();
        return Some(VerifyReport {
            blocks_checked: blocks,
            mismatches: count,
            first,
            error: None,
        });
    }
    if *ending != Ending::Completed {
        // An interrupted or failed run wrote an unknown set of blocks.
        return None;
    }
    let issued: Vec<u64> = shared
        .counters
        .iter()
        .map(|c| c.0.load(Ordering::Relaxed))
        .collect();
    Some(read_back(shared, &issued))
}
