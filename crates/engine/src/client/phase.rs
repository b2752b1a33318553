//! Runs one phase: starts the client threads, starts the clock once they are
//! all ready, collects their intervals on this thread (printing status lines),
//! and decides how the phase ended, also when a thread never comes back from
//! a target call (see `stall`).

use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use super::config::ClientConfig;
use super::stall::{heartbeats, Stall, StopWatch};
use super::start_gate::{PhaseStart, StartGate};
use super::stop::StopFlag;
use super::worker::{self, WorkerContext, WorkerOutcome};
use crate::measure::extras::ExtrasConfig;
use crate::measure::hdr_log::HdrLog;
use crate::measure::{
    Clock, Collector, Interval, MeasurementConfig, Measurements, Operation, Reporting,
};
use crate::target::TargetDriver;
use crate::workload::{CoreWorkload, Phase};

/// Client threads' stack size: enough for embedded engines, small enough for 100s of threads.
const THREAD_STACK: usize = 1 << 20;

/// How a phase ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseStatus {
    Ok,
    Interrupted,
    Failed,
}

impl PhaseStatus {
    /// The name in the result document.
    pub fn name(self) -> &'static str {
        match self {
            PhaseStatus::Ok => "ok",
            PhaseStatus::Interrupted => "interrupted",
            PhaseStatus::Failed => "failed",
        }
    }
}

/// How a phase that keeps its first error ended (the TPC-C-like and the
/// cassandra-stress-like phases): interrupted by a signal (the error, if any,
/// appended), failed with the error, failed when every call failed
/// (`all_failed` says so in that tool's words), else ok.
pub fn status_of(
    m: &Measurements,
    error: Option<String>,
    stop: &StopFlag,
    all_failed: &str,
) -> (PhaseStatus, Option<String>) {
    if stop.is_set() {
        let mut why = "interrupted by a signal; the results cover what ran until then".to_string();
        if let Some(e) = error {
            why.push_str(&format!("; {e}"));
        }
        return (PhaseStatus::Interrupted, Some(why));
    }
    if error.is_some() {
        return (PhaseStatus::Failed, error);
    }
    if m.any_call() && !m.any_success() {
        return (PhaseStatus::Failed, Some(all_failed.to_string()));
    }
    (PhaseStatus::Ok, None)
}

/// A finished phase.
#[derive(Debug)]
pub struct PhaseOutcome {
    pub measurements: Measurements,
    pub started_at: SystemTime,
    pub runtime: Duration,
    pub threads: usize,
    pub status: PhaseStatus,
    pub error: Option<String>,
    /// Threads were left inside target calls that did not return (their
    /// sessions were neither finished nor cleaned up).
    pub stall: Option<Stall>,
}

/// The operations a phase does in all (0 = unlimited).
pub fn planned_operations(workload: &CoreWorkload, phase: Phase) -> u64 {
    match phase {
        Phase::Load => workload.config().insert_count,
        Phase::Run => workload.config().operation_count,
    }
}

/// What the threads keep besides histograms, for the measurement type.
pub(crate) fn extras(m: &MeasurementConfig) -> ExtrasConfig {
    ExtrasConfig {
        series_unit_ns: m
            .kind
            .keeps_series()
            .then(|| m.granularity_ms.saturating_mul(1_000_000)),
        raw: m.kind.keeps_raw(),
    }
}

/// How the collector reports while the phase runs.
pub(crate) fn reporting(client: &ClientConfig, started_at: SystemTime) -> Reporting {
    let m = &client.measurement;
    Reporting {
        kind: m.kind,
        interval: m.interval,
        label: client.label.clone(),
        status_to_stdout: client.status_to_stdout,
        hdr_log: m
            .hdr_log_prefix
            .as_ref()
            .map(|prefix| HdrLog::new(prefix.clone(), started_at)),
        status_format: None,
    }
}

/// Runs `phase` of `workload` against `driver`; `target` names it in messages.
pub fn run_phase(
    phase: Phase,
    workload: Arc<CoreWorkload>,
    driver: Arc<dyn TargetDriver>,
    target: &str,
    client: &ClientConfig,
    stop: &StopFlag,
) -> PhaseOutcome {
    let total = planned_operations(&workload, phase);
    // Never more threads than operations, as YCSB.
    let threads = if total > 0 {
        client
            .threads
            .min(usize::try_from(total).unwrap_or(usize::MAX))
    } else {
        client.threads
    };
    let (sink, receiver) = channel();
    let collector = Collector::new(receiver, threads);
    let ctx = Arc::new(WorkerContext {
        workload,
        driver,
        phase,
        // Created (and the TSC calibrated) before the phase's clock starts.
        clock: Clock::new(),
        stop: stop.clone(),
        measure_intended: client.measure_intended,
        intended_from_start: client.intended_from_start,
        extras: extras(&client.measurement),
        gate: StartGate::new(),
        heartbeats: heartbeats(threads),
    });
    let plans = worker::plans(total, threads, client.target_ops_per_sec);
    let (handles, mut outcomes) = spawn_workers(&ctx, plans, sink, stop);
    // The clock starts once every thread has its session (or a stop came).
    ctx.gate.wait_for(handles.len(), stop);
    let started_at = SystemTime::now();
    let origin = Instant::now();
    let origin_tick = ctx.clock.now();
    let mut collector = collector.with_reporting(reporting(client, started_at));
    ctx.gate.open(PhaseStart {
        origin: origin_tick,
        deadline: client
            .max_execution_time
            .map(|d| ctx.clock.after(origin_tick, d)),
    });
    let mut watch = StopWatch::new(origin, client.max_execution_time, stop.clone());
    let mut gave_up = None;
    let status_every = client.show_status.then_some(client.status_interval);
    collector.run_until(status_every, origin, total, |now| {
        gave_up = watch.give_up(now);
        gave_up.is_some()
    });
    let runtime = match gave_up {
        // Stalled: up to the time limit or the signal that ended the phase.
        Some((_, at)) => at.saturating_duration_since(origin),
        // Up to the time limit when it ended the phase (calls that end later are
        // not recorded), else until the last thread finished.
        None => {
            let elapsed = origin.elapsed();
            client
                .max_execution_time
                .map_or(elapsed, |limit| elapsed.min(limit))
        }
    };
    collector.drain();
    let stuck = if gave_up.is_some() {
        collector.unfinished_threads()
    } else {
        Vec::new()
    };
    outcomes.extend(join_all_but(handles, &stuck));
    let stall = gave_up.filter(|_| !stuck.is_empty()).map(|(cause, _)| {
        for h in stuck.iter().filter_map(|&i| ctx.heartbeats.get(i)) {
            let (second, operations) = h.pending();
            collector.add_unreported(second, operations);
        }
        collector.cover(runtime);
        Stall::measure(
            cause,
            &stuck,
            threads,
            &ctx.heartbeats,
            &ctx.clock,
            origin_tick,
        )
    });
    let measurements = collector.finish();
    let (status, error) = judge(&measurements, &outcomes, stop, stall.as_ref(), target);
    PhaseOutcome {
        measurements,
        started_at,
        runtime,
        threads,
        status,
        error,
        stall,
    }
}

type Handles = Vec<(usize, JoinHandle<WorkerOutcome>)>;

/// Starts one thread per plan. A thread that cannot be started stops the phase
/// (its outcome says why).
fn spawn_workers(
    ctx: &Arc<WorkerContext>,
    plans: Vec<worker::WorkerPlan>,
    sink: Sender<Interval>,
    stop: &StopFlag,
) -> (Handles, Vec<WorkerOutcome>) {
    let mut handles = Vec::with_capacity(plans.len());
    let mut failed = Vec::new();
    for plan in plans {
        let (ctx, sink) = (Arc::clone(ctx), sink.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("client-{}", plan.thread))
            .stack_size(THREAD_STACK)
            .spawn(move || worker::run(plan, &ctx, sink));
        match spawned {
            Ok(handle) => handles.push((plan.thread, handle)),
            Err(e) => {
                stop.set();
                failed.push(WorkerOutcome {
                    error: Some(format!(
                        "could not start client thread {}: {e}",
                        plan.thread
                    )),
                    insert_failed: false,
                });
            }
        }
    }
    (handles, failed)
}

/// Joins every thread except the `stuck` ones, which stay inside their target
/// call: the process ends them when it exits.
fn join_all_but(handles: Handles, stuck: &[usize]) -> Vec<WorkerOutcome> {
    handles
        .into_iter()
        .filter(|(thread, _)| !stuck.contains(thread))
        .map(|(thread, handle)| {
            handle.join().unwrap_or_else(|_| WorkerOutcome {
                error: Some(format!("client thread {thread} panicked")),
                insert_failed: false,
            })
        })
        .collect()
}

fn judge(
    m: &Measurements,
    outcomes: &[WorkerOutcome],
    stop: &StopFlag,
    stall: Option<&Stall>,
    target: &str,
) -> (PhaseStatus, Option<String>) {
    let errors: Vec<&str> = outcomes.iter().filter_map(|o| o.error.as_deref()).collect();
    let failed_inserts = outcomes.iter().filter(|o| o.insert_failed).count();
    let stalled = stall.map(|s| format!("target '{target}' {s}"));
    if stop.is_set() {
        let mut why = "interrupted by a signal; the results cover what ran until then".to_string();
        for part in stalled
            .iter()
            .map(String::as_str)
            .chain(errors.first().copied())
        {
            why.push_str(&format!("; {part}"));
        }
        return (PhaseStatus::Interrupted, Some(why));
    }
    if let Some(stalled) = stalled {
        return (PhaseStatus::Failed, Some(stalled));
    }
    if let Some(first) = errors.first() {
        let more = if errors.len() > 1 {
            format!(" (and {} more)", errors.len() - 1)
        } else {
            String::new()
        };
        return (PhaseStatus::Failed, Some(format!("{first}{more}")));
    }
    if failed_inserts > 0 {
        return (
            PhaseStatus::Failed,
            Some(format!(
                "{failed_inserts} load thread(s) stopped at an insert that failed \
                 (after core_workload_insertion_retry_limit retries), as YCSB does"
            )),
        );
    }
    let workload_calls = |ok_only: bool| {
        m.returns
            .iter()
            .enumerate()
            .filter(|(op, _)| *op != Operation::Cleanup.index() && *op != Operation::Verify.index())
            .any(|(_, counts)| {
                crate::target::Status::ALL
                    .iter()
                    .any(|s| (!ok_only || s.is_ok()) && counts[s.index()] > 0)
            })
    };
    if workload_calls(false) && !workload_calls(true) {
        return (
            PhaseStatus::Failed,
            Some("every operation failed (see the Return= counts)".to_string()),
        );
    }
    (PhaseStatus::Ok, None)
}
