//! Wraps a target's `Session` and times every call, so targets never measure
//! themselves and every target is measured the same way.

use std::sync::Arc;

use super::stall::Heartbeat;
use crate::measure::{Clock, Operation, Recorder, Tick};
use crate::target::{Record, Session, Status};

/// A session whose calls are timed into a thread's recorder.
pub struct MeasuredSession {
    session: Box<dyn Session>,
    recorder: Recorder,
    clock: Clock,
    intended: Option<Tick>,
    /// Without an intended start, a call's intended latency is its own (YCSB's
    /// `measurement.interval` intended/both); else none is recorded.
    intended_from_start: bool,
    heartbeat: Arc<Heartbeat>,
    /// Calls that end at or after it are outside the measured window (the time limit).
    window_end: Tick,
    /// A call ended outside the window.
    late: bool,
}

impl MeasuredSession {
    /// Times `session`'s calls into `recorder`; each call's end also goes to
    /// `heartbeat`, so a stalled call can be told apart (see `stall`). Calls
    /// that end at or after `window_end` (the time limit) are not recorded.
    pub fn new(
        session: Box<dyn Session>,
        recorder: Recorder,
        heartbeat: Arc<Heartbeat>,
        window_end: Option<Tick>,
    ) -> Self {
        let clock = recorder.clock().clone();
        Self {
            session,
            recorder,
            clock,
            intended: None,
            intended_from_start: false,
            heartbeat,
            window_end: window_end.unwrap_or(Tick::from_raw(u64::MAX)),
            late: false,
        }
    }

    /// Measures unthrottled calls' intended latency from their actual start.
    pub fn with_intended_from_start(mut self, on: bool) -> Self {
        self.intended_from_start = on;
        self
    }

    /// The intended start of a call that started at `start`, if one is measured.
    #[inline]
    fn intended_for(&self, start: Tick) -> Option<Tick> {
        self.intended
            .or_else(|| self.intended_from_start.then_some(start))
    }

    /// True once a call ended after the measured window (and so was not recorded).
    #[inline]
    pub fn late(&self) -> bool {
        self.late
    }

    /// Sets when the next operation was meant to start (throttled runs), or None.
    pub fn set_intended_start(&mut self, intended: Option<Tick>) {
        self.intended = intended;
    }

    /// When the current operation was meant to start, if throttled.
    pub fn intended_start(&self) -> Option<Tick> {
        self.intended
    }

    /// The clock calls are timed with.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Records a composite operation (read-modify-write) timed by the caller.
    #[inline]
    pub fn record(&mut self, op: Operation, status: Status, start: Tick, end: Tick) {
        self.heartbeat.beat(end);
        if end >= self.window_end {
            self.late = true;
            return;
        }
        let intended = self.intended_for(start);
        self.recorder.record(op, status, start, end, intended);
    }

    #[inline]
    fn timed(&mut self, op: Operation, call: impl FnOnce(&mut dyn Session) -> Status) -> Status {
        let start = self.clock.now();
        let status = call(self.session.as_mut());
        let end = self.clock.now();
        self.record(op, status, start, end);
        status
    }

    /// Timed `Session::read`.
    #[inline]
    pub fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        self.timed(Operation::Read, |s| s.read(table, key, fields, out))
    }

    /// Timed `Session::scan`.
    #[inline]
    pub fn scan(
        &mut self,
        table: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        self.timed(Operation::Scan, |s| {
            s.scan(table, start_key, count, fields, out)
        })
    }

    /// Timed `Session::update`.
    #[inline]
    pub fn update(&mut self, table: &str, key: &str, values: &Record) -> Status {
        self.timed(Operation::Update, |s| s.update(table, key, values))
    }

    /// Timed `Session::insert`.
    #[inline]
    pub fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status {
        self.timed(Operation::Insert, |s| s.insert(table, key, values))
    }

    /// Timed `Session::delete`.
    #[inline]
    pub fn delete(&mut self, table: &str, key: &str) -> Status {
        self.timed(Operation::Delete, |s| s.delete(table, key))
    }

    /// Counts one completed workload operation.
    #[inline]
    pub fn operation_done(&mut self) {
        self.recorder.operation_done();
        self.heartbeat
            .unreported(self.recorder.second(), self.recorder.pending_operations());
    }

    /// Runs the session's cleanup, timed as `CLEANUP`, and hands the recorder's last
    /// interval to the collector. Returns the cleanup error, if any.
    pub fn finish(mut self) -> Option<String> {
        let start = self.clock.now();
        let result = self.session.cleanup();
        let end = self.clock.now();
        let status = if result.is_ok() {
            Status::Ok
        } else {
            Status::Error
        };
        // Cleanup is not an operation of the workload: no throttle deadline applies
        // (YCSB measures its intended latency from its start), and it is kept in
        // the thread's last second even after a time limit.
        let intended = self.intended_from_start.then_some(start);
        self.recorder
            .record_final(Operation::Cleanup, status, start, end, intended);
        self.recorder.finish();
        result.err().map(|e| e.to_string())
    }
}
