//! The collector: merges the threads' per-second intervals into phase totals,
//! a one-second time series, and the window reported by status lines.
//!
//! It runs on the phase's main thread. A second is closed (its percentiles
//! computed and its histograms freed) once every running thread has reported a
//! later second or finished, so memory stays bounded however long the phase.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::extras::PhaseExtras;
use super::hdr_log::HdrLog;
use super::histogram::{add_interval, new_total, IntervalHistogram, TotalHistogram};
use super::measurement_type::{MeasurementInterval, MeasurementType, Part};
use super::operation::{Operation, Slot};
use super::progress_log::ProgressLog;
use super::recorder::{Interval, ReturnCounts};
use super::status_line::{self, StatusInput};
use crate::target::Status;

/// The longest `run_until` waits before asking whether to give up.
const POLL: Duration = Duration::from_millis(100);

/// One operation type's figures in one second of the time series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondStats {
    pub count: u64,
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
}

/// One second of the time series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SecondSummary {
    /// End of this second, in seconds since the phase started (1, 2, …).
    pub t: u64,
    /// Workload operations completed in this second.
    pub ops: u64,
    /// Per operation name (`READ`, `READ-FAILED`, …), latency from the actual start.
    pub by_type: BTreeMap<String, SecondStats>,
}

#[derive(Default)]
struct OpenSecond {
    ops: u64,
    slots: BTreeMap<usize, IntervalHistogram>,
}

/// What a thread has reported so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    Nothing,
    Through(u64),
    Finished,
}

/// Everything measured in a phase, merged over threads.
#[derive(Debug)]
pub struct Measurements {
    /// Workload operations completed.
    pub operations: u64,
    /// Latency from the actual start per slot (index = `Slot::index`); None if unused.
    pub actual: Vec<Option<TotalHistogram>>,
    /// Latency from the intended start per slot; None if unused or not throttled.
    pub intended: Vec<Option<TotalHistogram>>,
    /// Return codes per operation (index = `Operation::index`).
    pub returns: Vec<ReturnCounts>,
    /// One entry per second.
    pub timeseries: Vec<SecondSummary>,
    /// Series sums and raw latencies (timeseries and raw measurement types only).
    pub extras: PhaseExtras,
    /// Why the HDR interval logs (`hdrhistogram.fileoutput`) could not be written.
    pub hdr_log_error: Option<String>,
}

impl Measurements {
    /// Nothing measured (a phase that could not start).
    pub fn empty() -> Self {
        Self {
            operations: 0,
            actual: (0..Slot::COUNT).map(|_| None).collect(),
            intended: (0..Slot::COUNT).map(|_| None).collect(),
            returns: vec![[0; Status::ALL.len()]; Operation::COUNT],
            timeseries: Vec::new(),
            extras: PhaseExtras::default(),
            hdr_log_error: None,
        }
    }

    /// True when at least one call returned a success status.
    pub fn any_success(&self) -> bool {
        self.returns
            .iter()
            .any(|r| Status::ALL.iter().any(|s| s.is_ok() && r[s.index()] > 0))
    }

    /// True when at least one call was recorded at all.
    pub fn any_call(&self) -> bool {
        self.returns.iter().any(|r| r.iter().any(|&c| c > 0))
    }
}

/// The status-line window: what arrived since the last status line.
#[derive(Debug, Default)]
pub struct StatusWindow {
    pub operations: u64,
    /// Latency from the actual start, by slot index.
    pub slots: BTreeMap<usize, IntervalHistogram>,
    /// Latency from the intended start, by slot index.
    pub intended: BTreeMap<usize, IntervalHistogram>,
}

impl StatusWindow {
    /// The window's measurements as `interval` shows them, in report order:
    /// (name, histogram); `Intended-READ` etc. after the others with `both`.
    pub fn shown(&self, interval: MeasurementInterval) -> Vec<(String, &IntervalHistogram)> {
        let mut out = Vec::new();
        if interval.shows_actual() {
            for (slot, h) in &self.slots {
                out.push((Slot::from_index(*slot).name(), h));
            }
        }
        if interval.shows_intended() {
            for (slot, h) in &self.intended {
                out.push((interval.intended_name(&Slot::from_index(*slot).name()), h));
            }
        }
        out
    }
}

/// The result of waiting for the next interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// An interval arrived and was merged.
    Interval,
    /// Nothing arrived before the timeout.
    Timeout,
    /// Every recorder is gone: the phase is over.
    Done,
}

/// How the collector reports while it runs: status lines and HDR interval logs.
pub struct Reporting {
    /// `measurementtype`: the shape of each measurement's status summary.
    pub kind: MeasurementType,
    /// `measurement.interval`: which latencies the status lines and logs show.
    pub interval: MeasurementInterval,
    /// `-l LABEL`: the status lines' prefix.
    pub label: String,
    /// Status lines also go to stdout (YCSB does so for `timeseries`).
    pub status_to_stdout: bool,
    /// `hdrhistogram.fileoutput`: one interval per status line, and the rest at the end.
    pub hdr_log: Option<HdrLog>,
    /// Another tool's status line (sysbench's `[ 1s ] reads: …`), printed on
    /// stdout in place of YCSB's line on stderr.
    pub status_format: Option<StatusFormat>,
}

/// Formats a status line from what the window measured.
pub type StatusFormat = Box<dyn Fn(&StatusInput<'_>) -> String + Send>;

impl Default for Reporting {
    fn default() -> Self {
        Self {
            kind: MeasurementType::HdrHistogram,
            interval: MeasurementInterval::Op,
            label: String::new(),
            status_to_stdout: false,
            hdr_log: None,
            status_format: None,
        }
    }
}

/// Merges intervals; see the module documentation.
pub struct Collector {
    receiver: Receiver<Interval>,
    progress: Vec<Progress>,
    measurements: Measurements,
    open: BTreeMap<u64, OpenSecond>,
    closed_through: u64,
    window: StatusWindow,
    reporting: Reporting,
    /// The phase start and the start of the current status window.
    origin: Option<Instant>,
    window_start: Option<Instant>,
    /// `CONTIO_ENGINE_PROGRESS`: each status window as a JSON line.
    progress_log: ProgressLog,
}

impl Collector {
    /// A collector for `threads` recorders sending on the other end of `receiver`.
    pub fn new(receiver: Receiver<Interval>, threads: usize) -> Self {
        Self {
            receiver,
            progress: vec![Progress::Nothing; threads],
            measurements: Measurements::empty(),
            open: BTreeMap::new(),
            closed_through: 0,
            window: StatusWindow::default(),
            reporting: Reporting::default(),
            origin: None,
            window_start: None,
            progress_log: ProgressLog::from_env(),
        }
    }

    /// Reports status lines and logs as `reporting` says (default: YCSB's hdrhistogram lines).
    pub fn with_reporting(mut self, reporting: Reporting) -> Self {
        self.reporting = reporting;
        self
    }

    /// Waits up to `timeout` for an interval and merges it.
    pub fn receive(&mut self, timeout: Duration) -> Received {
        match self.receiver.recv_timeout(timeout) {
            Ok(interval) => {
                self.merge(interval);
                Received::Interval
            }
            Err(RecvTimeoutError::Timeout) => Received::Timeout,
            Err(RecvTimeoutError::Disconnected) => Received::Done,
        }
    }

    /// Completed operations merged so far.
    pub fn operations(&self) -> u64 {
        self.measurements.operations
    }

    /// Takes the status-line window and starts a new one.
    pub fn take_window(&mut self) -> StatusWindow {
        std::mem::take(&mut self.window)
    }

    /// Merges one interval.
    pub fn merge(&mut self, interval: Interval) {
        let m = &mut self.measurements;
        m.operations += interval.operations;
        self.window.operations += interval.operations;
        for (op, counts) in &interval.returns {
            if let Some(total) = m.returns.get_mut(*op) {
                for (t, c) in total.iter_mut().zip(counts) {
                    *t += c;
                }
            }
        }
        for (slot, h) in &interval.intended {
            add_interval(m.intended[*slot].get_or_insert_with(new_total), h);
            merge_into(&mut self.window.intended, *slot, h);
        }
        if let Some(extras) = interval.extras {
            m.extras.merge(*extras);
        }
        let second = interval.second;
        let late = second < self.closed_through;
        let bucket = self
            .open
            .entry(if late { self.closed_through } else { second })
            .or_default();
        bucket.ops += interval.operations;
        for (slot, h) in interval.actual {
            add_interval(m.actual[slot].get_or_insert_with(new_total), &h);
            merge_into(&mut self.window.slots, slot, &h);
            match bucket.slots.get_mut(&slot) {
                Some(existing) => {
                    // Same bounds by construction, so addition cannot fail.
                    let _ = existing.add(&h);
                }
                None => {
                    bucket.slots.insert(slot, h);
                }
            }
        }
        if let Some(p) = self.progress.get_mut(interval.thread) {
            *p = if interval.last {
                Progress::Finished
            } else {
                Progress::Through(second)
            };
        }
        self.close_complete_seconds();
    }

    fn close_complete_seconds(&mut self) {
        let mut complete_through = u64::MAX;
        for p in &self.progress {
            match p {
                Progress::Nothing => return,
                Progress::Through(s) => complete_through = complete_through.min(s + 1),
                Progress::Finished => {}
            }
        }
        let complete_through = if complete_through == u64::MAX {
            self.open_end()
        } else {
            complete_through
        };
        self.close_before(complete_through);
    }

    fn open_end(&self) -> u64 {
        self.open
            .keys()
            .next_back()
            .map_or(self.closed_through, |s| s + 1)
    }

    /// Closes every open second before `end` (empty seconds included, so `t` is continuous).
    fn close_before(&mut self, end: u64) {
        while self.closed_through < end {
            let s = self.closed_through;
            let bucket = self.open.remove(&s).unwrap_or_default();
            self.measurements.timeseries.push(summarise(s, bucket));
            self.closed_through += 1;
        }
    }

    /// Merges intervals until every recorder is done. With `status_every`, prints a
    /// status line (stderr, YCSB's format) at that period and once at the end;
    /// `origin` is the phase start and `planned` its operation count (0 = unknown).
    pub fn run_until_done(
        &mut self,
        status_every: Option<Duration>,
        origin: Instant,
        planned: u64,
    ) {
        self.run_until(status_every, origin, planned, |_| false);
    }

    /// As `run_until_done`, but also ends when `give_up(now)` says so (asked at
    /// least every `POLL`, so a phase can end while a thread is stuck). Returns
    /// true when every recorder was done.
    pub fn run_until(
        &mut self,
        status_every: Option<Duration>,
        origin: Instant,
        planned: u64,
        mut give_up: impl FnMut(Instant) -> bool,
    ) -> bool {
        let mut last_status = origin;
        self.origin = Some(origin);
        self.window_start = Some(origin);
        // Threads hand their second over at their first operation past it; waiting a
        // little past the boundary lets the line include the second that just ended.
        let grace = Duration::from_millis(100);
        let mut next_status = origin + status_every.unwrap_or_default() + grace;
        loop {
            let wait = match status_every {
                Some(_) => next_status
                    .saturating_duration_since(Instant::now())
                    .min(POLL),
                None => POLL,
            };
            let done = self.receive(wait) == Received::Done;
            let now = Instant::now();
            let ending = done || give_up(now);
            // Another tool's lines (sysbench's) come only while the phase runs.
            let final_line = self.reporting.status_format.is_none();
            if let Some(period) = status_every {
                if (ending && final_line) || (!ending && now >= next_status) {
                    self.print_status(origin, last_status, now, planned);
                    last_status = now;
                    while next_status <= now {
                        next_status += period;
                    }
                }
            }
            if ending {
                return done;
            }
        }
    }

    /// Merges every interval that has arrived, without waiting.
    pub fn drain(&mut self) {
        while let Ok(interval) = self.receiver.try_recv() {
            self.merge(interval);
        }
    }

    /// The threads (by number) that have not sent their final interval.
    pub fn unfinished_threads(&self) -> Vec<usize> {
        self.progress
            .iter()
            .enumerate()
            .filter(|(_, p)| **p != Progress::Finished)
            .map(|(thread, _)| thread)
            .collect()
    }

    fn print_status(&mut self, origin: Instant, last: Instant, now: Instant, planned: u64) {
        let window = self.take_window();
        self.log_window(&window, now);
        let input = StatusInput {
            now: SystemTime::now(),
            elapsed: now - origin,
            total_operations: self.operations(),
            planned_operations: planned,
            window_duration: now - last,
            window: &window,
            kind: self.reporting.kind,
            interval: self.reporting.interval,
            label: &self.reporting.label,
        };
        self.progress_log
            .write(input.elapsed, input.total_operations);
        if let Some(format) = &self.reporting.status_format {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", format(&input)).and_then(|()| out.flush());
            return;
        }
        let line = status_line::format(&input);
        eprintln!("{line}");
        if self.reporting.status_to_stdout {
            println!("{line}");
        }
    }

    /// The name prefix of the HDR part of each measurement (`Hdr` for two-in-one types).
    fn hdr_prefix(&self) -> &'static str {
        self.reporting
            .kind
            .parts()
            .iter()
            .find(|(_, part)| *part == Part::Hdr)
            .map_or("", |(prefix, _)| prefix)
    }

    /// Writes the window ending `now` to the HDR logs, if kept.
    fn log_window(&mut self, window: &StatusWindow, now: Instant) {
        let prefix = self.hdr_prefix();
        let (Some(origin), Some(start)) = (self.origin, self.window_start) else {
            return;
        };
        self.window_start = Some(now);
        let Some(log) = self.reporting.hdr_log.as_mut() else {
            return;
        };
        for (name, h) in window.shown(self.reporting.interval) {
            log.write(&format!("{prefix}{name}"), h, start - origin, now - start);
        }
    }

    /// Writes what the logs do not hold yet (the last window), then closes them.
    fn close_logs(&mut self) {
        let now = Instant::now();
        let window = self.take_window();
        self.log_window(&window, now);
        if let Some(log) = self.reporting.hdr_log.take() {
            self.measurements.hdr_log_error = log.close().err();
        }
    }

    /// Counts `operations` completed in `second` whose interval never arrived
    /// (a thread that got stuck before handing it over); no latencies come with them.
    pub fn add_unreported(&mut self, second: u64, operations: u64) {
        self.measurements.operations += operations;
        let second = second.max(self.closed_through);
        self.open.entry(second).or_default().ops += operations;
    }

    /// Makes the time series reach the end of `runtime` (seconds without
    /// completions have `ops` 0): for a phase that ended while threads were
    /// stuck, whose last seconds nobody reported.
    pub fn cover(&mut self, runtime: Duration) {
        let seconds = runtime.as_secs() + u64::from(runtime.subsec_nanos() > 0);
        if seconds > self.closed_through {
            self.open.entry(seconds - 1).or_default();
        }
    }

    /// Closes every second and returns the phase's measurements. Intervals
    /// still in the channel are not read (call `drain` first to have them).
    pub fn finish(mut self) -> Measurements {
        let end = self.open_end();
        self.close_before(end);
        self.close_logs();
        self.measurements.extras.finish();
        self.measurements
    }
}

fn merge_into(map: &mut BTreeMap<usize, IntervalHistogram>, slot: usize, h: &IntervalHistogram) {
    match map.get_mut(&slot) {
        Some(existing) => {
            let _ = existing.add(h);
        }
        None => {
            map.insert(slot, h.clone());
        }
    }
}

fn summarise(second: u64, bucket: OpenSecond) -> SecondSummary {
    let by_type = bucket
        .slots
        .iter()
        .map(|(slot, h)| {
            let stats = SecondStats {
                count: h.len(),
                p50: h.value_at_quantile(0.50),
                p95: h.value_at_quantile(0.95),
                p99: h.value_at_quantile(0.99),
            };
            (Slot::from_index(*slot).name(), stats)
        })
        .collect();
    SecondSummary {
        t: second + 1,
        ops: bucket.ops,
        by_type,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::channel;

    use crate::measure::clock::Clock;

    use super::*;
    use crate::measure::recorder::Recorder;

    #[test]
    fn merges_threads_and_closes_seconds() {
        let (tx, rx) = channel();
        let clock = Clock::new();
        let origin = clock.now();
        let mut collector = Collector::new(rx, 2);
        for thread in 0..2 {
            let mut r = Recorder::new(thread, clock.clone(), origin, tx.clone());
            for i in 0..10u64 {
                let start = clock.now();
                let end = clock.after(start, Duration::from_micros(i));
                r.record(Operation::Read, Status::Ok, start, end, None);
                r.operation_done();
            }
            r.record(
                Operation::Update,
                Status::Error,
                clock.now(),
                clock.now(),
                None,
            );
            r.operation_done();
            r.finish();
        }
        drop(tx);
        while collector.receive(Duration::from_millis(10)) != Received::Done {}
        let m = collector.finish();
        assert_eq!(m.operations, 22);
        let read = Slot {
            operation: Operation::Read,
            failed: false,
        }
        .index();
        let update_failed = Slot {
            operation: Operation::Update,
            failed: true,
        }
        .index();
        assert_eq!(m.actual[read].as_ref().map(|h| h.len()), Some(20));
        assert_eq!(m.actual[update_failed].as_ref().map(|h| h.len()), Some(2));
        assert_eq!(
            m.returns[Operation::Update.index()][Status::Error.index()],
            2
        );
        assert!(!m.timeseries.is_empty());
        assert_eq!(m.timeseries.iter().map(|s| s.ops).sum::<u64>(), 22);
        assert_eq!(m.timeseries[0].t, 1);
    }
}
