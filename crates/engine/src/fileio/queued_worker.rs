//! The thread loop of the io_uring engine: keeps up to `depth` requests in
//! flight on the thread's own ring, each with its own aligned buffer, and
//! records each one from just before it is queued to its completion (fio's
//! total latency; `clat` in its output differs only by the submission call).

use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering;

use io_uring::{opcode, squeue, types, IoUring};

use super::buffer::AlignedBuf;
use super::io_calls::complete;
use super::plan::SyncCall;
use super::requests::{Op, Request};
use super::worker::{prepare_write, Shared, Tally, ThreadTask, ThreadTotals};
use crate::measure::{Recorder, Tick};

/// A request in flight.
#[derive(Clone, Copy)]
struct InFlight {
    req: Request,
    start: Tick,
    /// A sync added by a rule (not an event of the stream).
    extra: bool,
}

/// Creates a ring for `depth` requests (also used to probe io_uring before the run).
///
/// One thread owns each ring and reaps its completions only while it waits in
/// `io_uring_enter`, so the kernel may defer completion work until then instead
/// of interrupting the thread for each one (COOP/DEFER_TASKRUN, Linux 6.1+;
/// fio sets the same). Older kernels get a plain ring.
pub fn new_ring(depth: usize) -> io::Result<IoUring> {
    let entries = depth.max(1).next_power_of_two() as u32;
    IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
        .or_else(|_| IoUring::new(entries))
}

fn entry(shared: &Shared, req: Request, buf: &mut AlignedBuf, slot: usize) -> squeue::Entry {
    let fd = types::Fd(shared.files[req.file].as_raw_fd());
    let len = shared.plan.block_size as u32;
    let e = match req.op {
        Op::Read => opcode::Read::new(fd, buf.as_mut_ptr(), len)
            .offset(req.offset)
            .build(),
        Op::Write => opcode::Write::new(fd, buf.as_mut_ptr().cast_const(), len)
            .offset(req.offset)
            .build(),
        Op::Sync => {
            let flags = match shared.plan.sync_call {
                SyncCall::Fsync => types::FsyncFlags::empty(),
                SyncCall::Fdatasync => types::FsyncFlags::DATASYNC,
            };
            opcode::Fsync::new(fd).flags(flags).build()
        }
    };
    e.user_data(slot as u64)
}

/// The thread's loop for io_uring.
pub fn run_queued(shared: &Shared, mut task: ThreadTask, recorder: Recorder) -> ThreadTotals {
    let depth = shared.plan.depth.max(1);
    let mut tally = Tally::new(shared, recorder);
    let seed = rand::RngCore::next_u64(&mut task.rng);
    let mut bufs: Vec<AlignedBuf> = (0..depth)
        .map(|i| {
            let mut b = AlignedBuf::new(shared.plan.block_size as usize);
            b.fill_random(seed.wrapping_add(i as u64));
            b
        })
        .collect();
    // Declared after the buffers so it is dropped first: the kernel is done with
    // every buffer once the ring is gone, even when the loop ends on an error.
    let mut ring = match new_ring(depth) {
        Ok(r) => r,
        Err(e) => {
            shared.fail(format!("io_uring setup: {e}"));
            let totals = tally.totals;
            tally.recorder.finish();
            return totals;
        }
    };
    let mut slots: Vec<Option<InFlight>> = vec![None; depth];
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut pending_syncs: Vec<Request> = Vec::new();
    let sequencer = &shared.sequencers[task.stream];
    let counter = &shared.counters[task.stream].0;
    let checks = shared.checks_reads();
    let mut issuing = true;
    let mut in_flight = 0usize;
    loop {
        // Syncs due after writes go out even once the stream has no more requests.
        while !free.is_empty() && (issuing || !pending_syncs.is_empty()) {
            if shared.stop.is_set() {
                issuing = false;
                pending_syncs.clear();
                break;
            }
            let (req, extra) = match pending_syncs.pop() {
                Some(sync) => (sync, true),
                None => {
                    let n = counter.fetch_add(1, Ordering::Relaxed);
                    match sequencer.request(n, &mut task.rng) {
                        Some(r) => (r, false),
                        None => {
                            issuing = false;
                            break;
                        }
                    }
                }
            };
            let Some(slot) = free.pop() else { break };
            prepare_write(shared, req, &mut bufs[slot]);
            let sqe = entry(shared, req, &mut bufs[slot], slot);
            let start = shared.clock.now();
            // SAFETY: the buffer of `slot` stays alive and untouched until its
            // completion is reaped below; the ring has at least `depth` entries.
            if unsafe { ring.submission().push(&sqe) }.is_err() {
                // Cannot happen (the ring holds `depth` entries); drop the request.
                free.push(slot);
                break;
            }
            slots[slot] = Some(InFlight { req, start, extra });
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        match ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => {
                shared.fail(format!("io_uring submit: {e}"));
                break;
            }
        }
        let mut end = shared.clock.now();
        for cqe in ring.completion() {
            let slot = cqe.user_data() as usize;
            let Some(done) = slots.get_mut(slot).and_then(Option::take) else {
                continue;
            };
            in_flight -= 1;
            free.push(slot);
            let len = if done.req.op == Op::Sync {
                0
            } else {
                shared.plan.block_size as usize
            };
            let result = if cqe.result() < 0 {
                Err(io::Error::from_raw_os_error(-cqe.result()))
            } else {
                complete(cqe.result() as isize, len, "request")
            };
            end = shared.clock.now();
            if !tally.done(done.req, result, done.start, end, done.extra) {
                issuing = false;
                continue;
            }
            if checks && done.req.op == Op::Read {
                tally.check_read(done.req, bufs[slot].as_slice());
            }
            if let Some(sync) = tally.sync_after_write(done.req, task.stream) {
                pending_syncs.push(sync);
            }
        }
        if shared.deadline.is_some_and(|d| end >= d) {
            issuing = false;
        }
    }
    let totals = tally.totals;
    tally.recorder.finish();
    totals
}
