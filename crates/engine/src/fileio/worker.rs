//! One client thread of a file workload: takes request numbers from its
//! stream's counter, performs them, records each (after the ramp), and stops
//! at the stream's end, the time limit, a stop request, or the first I/O error
//! (which stops every thread, keeping what was measured).

use std::fs::File;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use memmap2::MmapRaw;
use rand::rngs::SmallRng;

use super::block_header;
use super::buffer::AlignedBuf;
use super::io_calls::BlockingIo;
use super::plan::{IoEngine, Plan};
use super::requests::{Op, Request, Sequencer};
use crate::client::StopFlag;
use crate::measure::{Clock, Operation, Recorder, Tick};
use crate::target::Status;

/// A block that failed verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MismatchAt {
    /// Index into `Plan::files`.
    pub file: usize,
    pub offset: u64,
    pub reason: String,
}

/// What every thread shares.
pub struct Shared {
    pub plan: Plan,
    pub files: Vec<File>,
    pub maps: Vec<MmapRaw>,
    pub sequencers: Vec<Sequencer>,
    /// The next request number of each stream.
    pub counters: Vec<StreamCounter>,
    pub stop: StopFlag,
    /// The first error that stopped the run.
    pub failure: Mutex<Option<String>>,
    /// Blocks that failed verification during the run (verify-only reads).
    pub mismatches: Mutex<(u64, Vec<MismatchAt>)>,
    pub clock: Clock,
    /// Measurement starts here (after the ramp).
    pub origin: Tick,
    pub deadline: Option<Tick>,
}

/// A stream's request counter on a cache line of its own: the counters of
/// streams on different cores would otherwise share a line and bounce it
/// between them on every request.
#[repr(align(128))]
#[derive(Debug, Default)]
pub struct StreamCounter(pub AtomicU64);

/// Mismatches kept in full; beyond this only counted.
pub const MISMATCHES_KEPT: usize = 1000;

impl Shared {
    /// Records the first failure and stops every thread.
    pub fn fail(&self, message: String) {
        if let Ok(mut f) = self.failure.lock() {
            f.get_or_insert(message);
        }
        self.stop.set();
    }

    /// Notes a block that failed verification.
    pub fn mismatch(&self, m: MismatchAt) {
        if let Ok(mut list) = self.mismatches.lock() {
            list.0 += 1;
            if list.1.len() < MISMATCHES_KEPT {
                list.1.push(m);
            }
        }
    }

    /// Whether reads are checked as they complete (verify-only runs).
    pub fn checks_reads(&self) -> bool {
        self.plan.verify.is_some_and(|v| v.only)
    }
}

/// What a thread did, for fairness figures and byte counts (measured part only).
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadTotals {
    pub events: u64,
    pub busy_nanos: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// One thread's place in the plan.
pub struct ThreadTask {
    pub stream: usize,
    pub rng: SmallRng,
}

/// Per-thread bookkeeping shared by the blocking and queued loops.
pub struct Tally<'a> {
    pub shared: &'a Shared,
    pub recorder: Recorder,
    pub totals: ThreadTotals,
    /// Sync requests count as operations (sysbench events) or not (fio I/Os).
    pub syncs_are_events: bool,
    pub writes_since_sync: u64,
}

impl<'a> Tally<'a> {
    /// A tally for a thread of `shared` recording with `recorder`.
    pub fn new(shared: &'a Shared, recorder: Recorder) -> Self {
        Self {
            shared,
            recorder,
            totals: ThreadTotals::default(),
            syncs_are_events: shared.plan.kind == "sysbench",
            writes_since_sync: 0,
        }
    }

    /// Records a finished request; false when it failed (the run is stopping).
    #[inline]
    pub fn done(
        &mut self,
        req: Request,
        result: std::io::Result<()>,
        start: Tick,
        end: Tick,
        extra: bool,
    ) -> bool {
        let ok = result.is_ok();
        if let Err(e) = result {
            let path = self.shared.plan.files[req.file].path.display();
            let what = match req.op {
                Op::Read => "read",
                Op::Write => "write",
                Op::Sync => "sync",
            };
            self.shared
                .fail(format!("{what} at offset {} of {path}: {e}", req.offset));
        }
        if start < self.shared.origin {
            return ok;
        }
        let operation = match req.op {
            Op::Read => Operation::Read,
            Op::Write => Operation::Write,
            Op::Sync => Operation::Fsync,
        };
        let status = if ok { Status::Ok } else { Status::Error };
        self.recorder.record(operation, status, start, end, None);
        let counted = !extra && (req.op != Op::Sync || self.syncs_are_events);
        if counted {
            self.recorder.operation_done();
            self.totals.events += 1;
        }
        self.totals.busy_nanos += self.shared.clock.nanos_between(start, end);
        if ok {
            let bs = self.shared.plan.block_size;
            match req.op {
                Op::Read => self.totals.bytes_read += bs,
                Op::Write => self.totals.bytes_written += bs,
                Op::Sync => {}
            }
        }
        ok
    }

    /// After a write: the file to sync now, if a rule asks for one.
    #[inline]
    pub fn sync_after_write(&mut self, req: Request, stream: usize) -> Option<Request> {
        if req.op != Op::Write {
            return None;
        }
        let rule = self.shared.plan.streams[stream].fsync;
        self.writes_since_sync += 1;
        let due = rule.every_write
            || (rule.after_writes > 0 && self.writes_since_sync >= rule.after_writes);
        if !due {
            return None;
        }
        self.writes_since_sync = 0;
        Some(Request {
            op: Op::Sync,
            file: req.file,
            offset: 0,
        })
    }

    /// Checks a block just read (verify-only runs).
    pub fn check_read(&self, req: Request, block: &[u8]) {
        let generation = self.shared.plan.verify.map_or(0, |v| v.generation);
        if let Err(m) = block_header::check(block, req.offset, generation) {
            self.shared.mismatch(MismatchAt {
                file: req.file,
                offset: req.offset,
                reason: m.to_string(),
            });
        }
    }
}

/// Prepares the write buffer for a request (verification headers when verifying).
#[inline]
pub fn prepare_write(shared: &Shared, req: Request, buf: &mut AlignedBuf) {
    if req.op == Op::Write {
        if let Some(v) = shared.plan.verify {
            block_header::fill(buf.as_mut_slice(), req.offset, v.generation);
        }
    }
}

/// The thread's loop for the blocking engines (`sync`, `mmap`).
pub fn run_blocking(shared: &Shared, mut task: ThreadTask, recorder: Recorder) -> ThreadTotals {
    let io = match shared.plan.engine {
        IoEngine::Mmap => BlockingIo::Mmap { maps: &shared.maps },
        _ => BlockingIo::Sync {
            files: &shared.files,
            call: shared.plan.sync_call,
        },
    };
    let mut tally = Tally::new(shared, recorder);
    let mut buf = AlignedBuf::new(shared.plan.block_size as usize);
    buf.fill_random(rand::RngCore::next_u64(&mut task.rng));
    let sequencer = &shared.sequencers[task.stream];
    let counter = &shared.counters[task.stream].0;
    let checks = shared.checks_reads();
    while !shared.stop.is_set() {
        let n = counter.fetch_add(1, Ordering::Relaxed);
        let Some(req) = sequencer.request(n, &mut task.rng) else {
            break;
        };
        prepare_write(shared, req, &mut buf);
        let start = shared.clock.now();
        let result = io.perform(req, &mut buf);
        let mut end = shared.clock.now();
        if !tally.done(req, result, start, end, false) {
            break;
        }
        if checks && req.op == Op::Read {
            tally.check_read(req, buf.as_slice());
        }
        if let Some(sync) = tally.sync_after_write(req, task.stream) {
            let result = io.perform(sync, &mut buf);
            let sync_end = shared.clock.now();
            if !tally.done(sync, result, end, sync_end, true) {
                break;
            }
            end = sync_end;
        }
        if shared.deadline.is_some_and(|d| end >= d) {
            break;
        }
    }
    let totals = tally.totals;
    tally.recorder.finish();
    totals
}
