//! A client thread's recorder: the hot path of measurement.
//!
//! Each thread records into its own interval histograms with no locks or
//! atomics. When an operation ends past the next one-second boundary (measured
//! from the phase's start), the thread itself hands the finished interval to
//! the collector over a channel and starts a new one; so the collector gets one
//! message per thread per second, and time series need no clock thread.

use std::sync::mpsc::Sender;
use std::time::Duration;

use super::clock::{Clock, Tick};
use super::extras::{ExtrasConfig, ThreadExtras};
use super::histogram::{new_interval, record_interval, IntervalHistogram};
use super::operation::{Operation, Slot};
use crate::target::Status;

/// Return-code counts of one operation type, indexed by `Status::index`.
pub type ReturnCounts = [u64; Status::ALL.len()];

/// One thread's measurements for one second of the phase.
#[derive(Debug)]
pub struct Interval {
    /// The recording thread (0-based).
    pub thread: usize,
    /// The second, counted from the phase start, in which these operations ended.
    pub second: u64,
    /// Workload operations completed (a read-modify-write counts once).
    pub operations: u64,
    /// Latencies from the actual start, by slot index.
    pub actual: Vec<(usize, IntervalHistogram)>,
    /// Latencies from the intended start (only when throttled), by slot index.
    pub intended: Vec<(usize, IntervalHistogram)>,
    /// Return codes by operation index.
    pub returns: Vec<(usize, ReturnCounts)>,
    /// Series sums and raw latencies (only for the measurement types that keep them).
    pub extras: Option<Box<ThreadExtras>>,
    /// True for the thread's final message.
    pub last: bool,
}

/// Per-thread recorder; see the module documentation.
pub struct Recorder {
    thread: usize,
    clock: Clock,
    origin: Tick,
    second: u64,
    next_boundary: Tick,
    operations: u64,
    actual: [Option<IntervalHistogram>; Slot::COUNT],
    intended: [Option<IntervalHistogram>; Slot::COUNT],
    returns: [ReturnCounts; Operation::COUNT],
    extras: Option<Box<ThreadExtras>>,
    sink: Sender<Interval>,
}

impl Recorder {
    /// A recorder for thread `thread` of a phase that started at `origin`. It
    /// starts in the phase's first second even when made later (a thread that
    /// got no CPU until then): its first call hands that second over, empty, and
    /// a thread without calls reports its cleanup there rather than in a second
    /// after the phase's end.
    pub fn new(thread: usize, clock: Clock, origin: Tick, sink: Sender<Interval>) -> Self {
        Self {
            next_boundary: clock.after(origin, Duration::from_secs(1)),
            thread,
            clock,
            origin,
            second: 0,
            operations: 0,
            actual: std::array::from_fn(|_| None),
            intended: std::array::from_fn(|_| None),
            returns: [[0; Status::ALL.len()]; Operation::COUNT],
            extras: None,
            sink,
        }
    }

    /// Also keeps what `config` asks for beyond histograms (timeseries, raw).
    pub fn with_extras(mut self, config: ExtrasConfig) -> Self {
        self.extras = ThreadExtras::new(config);
        self
    }

    /// Records one call of `op` that returned `status`, ran from `start` to `end`, and
    /// was meant to start at `intended` (when throttled).
    #[inline]
    pub fn record(
        &mut self,
        op: Operation,
        status: Status,
        start: Tick,
        end: Tick,
        intended: Option<Tick>,
    ) {
        if end >= self.next_boundary {
            self.roll_over(end);
        }
        self.add(op, status, start, end, intended);
    }

    /// Records a call into the interval the thread is in, whatever the time: for
    /// the session's cleanup, after the workload (it belongs to the thread's last
    /// second, not to one after a time limit).
    pub fn record_final(
        &mut self,
        op: Operation,
        status: Status,
        start: Tick,
        end: Tick,
        intended: Option<Tick>,
    ) {
        self.add(op, status, start, end, intended);
    }

    #[inline]
    fn add(
        &mut self,
        op: Operation,
        status: Status,
        start: Tick,
        end: Tick,
        intended: Option<Tick>,
    ) {
        let slot = Slot {
            operation: op,
            failed: !status.is_ok(),
        }
        .index();
        let micros = self.clock.micros_between(start, end);
        record_interval(self.actual[slot].get_or_insert_with(new_interval), micros);
        let intended_micros = intended.map(|intended| {
            let micros = self.clock.micros_between(intended, end);
            record_interval(self.intended[slot].get_or_insert_with(new_interval), micros);
            micros
        });
        self.returns[op.index()][status.index()] += 1;
        if self.extras.is_some() {
            self.record_extras(slot, end, micros, intended_micros);
        }
    }

    #[cold]
    fn record_extras(&mut self, slot: usize, end: Tick, micros: u64, intended: Option<u64>) {
        let since_origin = self.clock.nanos_between(self.origin, end);
        if let Some(extras) = self.extras.as_deref_mut() {
            extras.record(slot, since_origin, micros);
            if let Some(micros) = intended {
                extras.record(Slot::COUNT + slot, since_origin, micros);
            }
        }
    }

    /// Counts one completed workload operation (after its calls were recorded).
    #[inline]
    pub fn operation_done(&mut self) {
        self.operations += 1;
    }

    /// The second (since the phase start) of the interval being recorded.
    #[inline]
    pub fn second(&self) -> u64 {
        self.second
    }

    /// Operations counted in the interval being recorded (not yet handed over).
    #[inline]
    pub fn pending_operations(&self) -> u64 {
        self.operations
    }

    /// The clock this recorder measures with.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Hands the current interval over if `now` is past its second (for idle threads).
    pub fn tick(&mut self, now: Tick) {
        if now >= self.next_boundary {
            self.roll_over(now);
        }
    }

    /// Sends the final interval; the collector then knows this thread is done.
    pub fn finish(mut self) {
        self.send(true);
    }

    #[cold]
    fn roll_over(&mut self, now: Tick) {
        self.send(false);
        self.second = self.clock.duration_between(self.origin, now).as_secs();
        self.next_boundary = self
            .clock
            .after(self.origin, Duration::from_secs(self.second + 1));
    }

    fn send(&mut self, last: bool) {
        let take = |slots: &mut [Option<IntervalHistogram>]| -> Vec<(usize, IntervalHistogram)> {
            slots
                .iter_mut()
                .enumerate()
                .filter_map(|(i, h)| h.take().map(|h| (i, h)))
                .collect()
        };
        let returns = self
            .returns
            .iter_mut()
            .enumerate()
            .filter(|(_, counts)| counts.iter().any(|&c| c > 0))
            .map(|(i, counts)| (i, std::mem::replace(counts, [0; Status::ALL.len()])))
            .collect();
        let interval = Interval {
            thread: self.thread,
            second: self.second,
            operations: std::mem::take(&mut self.operations),
            actual: take(&mut self.actual),
            intended: take(&mut self.intended),
            returns,
            extras: self.extras.as_deref_mut().and_then(ThreadExtras::take),
            last,
        };
        // The collector only goes away when the phase is over; nothing is left to report then.
        let _ = self.sink.send(interval);
    }
}
