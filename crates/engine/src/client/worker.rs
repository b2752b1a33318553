//! One client thread: opens a session, waits at the start gate, runs its share
//! of the phase, and hands its measurements to the collector.

use std::sync::mpsc::Sender;
use std::sync::Arc;

use super::measured_session::MeasuredSession;
use super::stall::Heartbeats;
use super::start_gate::StartGate;
use super::stop::StopFlag;
use super::throttle::{sleep_until, Throttle};
use crate::generator::thread_rng;
use crate::measure::extras::ExtrasConfig;
use crate::measure::{Clock, Interval, Recorder};
use crate::target::TargetDriver;
use crate::workload::{CoreWorkload, Phase};

/// One thread's share of the phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkerPlan {
    /// Thread number (0-based).
    pub thread: usize,
    /// Operations to do; 0 = until stopped or out of time.
    pub operations: u64,
    /// This thread's rate; 0 = unthrottled.
    pub ops_per_sec: f64,
}

/// What every thread of a phase shares. Owned (behind an `Arc`) rather than
/// borrowed, so that a thread stuck in a target call can be left behind.
pub struct WorkerContext {
    pub workload: Arc<CoreWorkload>,
    pub driver: Arc<dyn TargetDriver>,
    pub phase: Phase,
    pub clock: Clock,
    pub stop: StopFlag,
    pub measure_intended: bool,
    /// Unthrottled calls measure intended latency from their actual start.
    pub intended_from_start: bool,
    /// What the recorder keeps besides histograms (timeseries, raw).
    pub extras: ExtrasConfig,
    /// Where the threads wait until all have opened their sessions.
    pub gate: StartGate,
    /// One per thread, by thread number.
    pub heartbeats: Heartbeats,
}

/// How a thread ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerOutcome {
    /// The session could not be opened or cleaned up.
    pub error: Option<String>,
    /// A load-phase insert failed after its retries; the thread stopped there (as YCSB's does).
    pub insert_failed: bool,
}

/// Runs one thread's plan; always sends the recorder's final interval.
pub fn run(plan: WorkerPlan, ctx: &WorkerContext, sink: Sender<Interval>) -> WorkerOutcome {
    // Opened before the phase's clock starts: connecting is not part of the workload.
    let session = ctx.driver.session();
    let start = ctx.gate.arrive_and_wait();
    let recorder =
        Recorder::new(plan.thread, ctx.clock.clone(), start.origin, sink).with_extras(ctx.extras);
    let session = match session {
        Ok(session) => session,
        Err(e) => {
            recorder.finish();
            return WorkerOutcome {
                error: Some(format!("thread {}: {e}", plan.thread)),
                insert_failed: false,
            };
        }
    };
    let heartbeat = ctx.heartbeats.get(plan.thread).cloned().unwrap_or_default();
    let mut db = MeasuredSession::new(session, recorder, heartbeat, start.deadline)
        .with_intended_from_start(ctx.intended_from_start);
    let mut work = ctx.workload.thread();
    let throttle = (plan.ops_per_sec > 0.0)
        .then(|| Throttle::start(plan.ops_per_sec, &ctx.clock, &mut thread_rng(), &ctx.stop));
    if let (Some(t), true) = (&throttle, ctx.measure_intended) {
        db.set_intended_start(Some(t.first()));
    }
    let mut done = 0u64;
    let mut insert_failed = false;
    while plan.operations == 0 || done < plan.operations {
        if ctx.stop.is_set() {
            break;
        }
        let inserted = match ctx.phase {
            Phase::Load => work.insert_next(&mut db),
            Phase::Run => {
                work.transaction(&mut db);
                true
            }
        };
        if db.late() {
            // Ended at or after the time limit: outside the measured window, not
            // counted, and the thread's part of the phase is over.
            break;
        }
        if !inserted {
            insert_failed = true;
            break;
        }
        db.operation_done();
        done += 1;
        if let Some(t) = &throttle {
            let next = t.deadline(&ctx.clock, done);
            sleep_until(
                &ctx.clock,
                start.deadline.map_or(next, |d| d.min(next)),
                &ctx.stop,
            );
            if start.deadline.is_some_and(|d| ctx.clock.now() >= d) {
                // Slept until the time limit: a call now would end outside the window.
                break;
            }
            if ctx.measure_intended {
                db.set_intended_start(Some(next));
            }
        }
    }
    let error = db
        .finish()
        .map(|e| format!("thread {} cleanup: {e}", plan.thread));
    WorkerOutcome {
        error,
        insert_failed,
    }
}

/// Splits `total` operations (0 = unlimited) over `threads` as YCSB does: each gets
/// total/threads and the first total%threads one more; the rate is split evenly.
pub fn plans(total: u64, threads: usize, target_ops_per_sec: u64) -> Vec<WorkerPlan> {
    let n = threads.max(1) as u64;
    let rate = target_ops_per_sec as f64 / n as f64;
    (0..n)
        .map(|i| WorkerPlan {
            thread: i as usize,
            operations: if total == 0 {
                0
            } else {
                total / n + u64::from(i < total % n)
            },
            ops_per_sec: rate,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_matches_ycsb() {
        let p = plans(10, 3, 300);
        assert_eq!(
            p.iter().map(|w| w.operations).collect::<Vec<_>>(),
            vec![4, 3, 3]
        );
        assert!(p.iter().all(|w| w.ops_per_sec == 100.0));
        assert_eq!(plans(0, 2, 0)[1].operations, 0);
    }
}
