//! Runs one phase: starts the client threads, collects their intervals on this
//! thread (printing status lines), and decides how the phase ended.

use std::sync::mpsc::channel;
use std::time::{Duration, Instant, SystemTime};

use super::config::ClientConfig;
use super::stop::StopFlag;
use super::worker::{self, WorkerContext, WorkerOutcome};
use crate::measure::extras::ExtrasConfig;
use crate::measure::hdr_log::HdrLog;
use crate::measure::{Clock, Collector, MeasurementConfig, Measurements, Operation, Reporting};
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

/// A finished phase.
#[derive(Debug)]
pub struct PhaseOutcome {
    pub measurements: Measurements,
    pub started_at: SystemTime,
    pub runtime: Duration,
    pub threads: usize,
    pub status: PhaseStatus,
    pub error: Option<String>,
}

/// The operations a phase does in all (0 = unlimited).
pub fn planned_operations(workload: &CoreWorkload, phase: Phase) -> u64 {
    match phase {
        Phase::Load => workload.config().insert_count,
        Phase::Run => workload.config().operation_count,
    }
}

/// What the threads keep besides histograms, for the measurement type.
fn extras(m: &MeasurementConfig) -> ExtrasConfig {
    ExtrasConfig {
        series_unit_ns: m
            .kind
            .keeps_series()
            .then(|| m.granularity_ms.saturating_mul(1_000_000)),
        raw: m.kind.keeps_raw(),
    }
}

/// How the collector reports while the phase runs.
fn reporting(client: &ClientConfig, started_at: SystemTime) -> Reporting {
    let m = &client.measurement;
    Reporting {
        kind: m.kind,
        label: client.label.clone(),
        status_to_stdout: client.status_to_stdout,
        hdr_log: m
            .hdr_log_prefix
            .as_ref()
            .map(|prefix| HdrLog::new(prefix.clone(), started_at)),
    }
}

/// Runs `phase` of `workload` against `driver`.
pub fn run_phase(
    phase: Phase,
    workload: &CoreWorkload,
    driver: &dyn TargetDriver,
    client: &ClientConfig,
    stop: &StopFlag,
) -> PhaseOutcome {
    let total = planned_operations(workload, phase);
    // Never more threads than operations, as YCSB.
    let threads = if total > 0 {
        client
            .threads
            .min(usize::try_from(total).unwrap_or(usize::MAX))
    } else {
        client.threads
    };
    let (sink, receiver) = channel();
    // Created (and the TSC calibrated) before the phase's clock starts.
    let clock = Clock::new();
    let started_at = SystemTime::now();
    let mut collector =
        Collector::new(receiver, threads).with_reporting(reporting(client, started_at));
    let origin = Instant::now();
    let origin_tick = clock.now();
    let ctx = WorkerContext {
        workload,
        driver,
        phase,
        clock: &clock,
        origin: origin_tick,
        deadline: client
            .max_execution_time
            .map(|d| clock.after(origin_tick, d)),
        stop,
        measure_intended: client.measure_intended,
        extras: extras(&client.measurement),
    };
    let mut outcomes: Vec<WorkerOutcome> = Vec::with_capacity(threads);
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for plan in worker::plans(total, threads, client.target_ops_per_sec) {
            let sink = sink.clone();
            let ctx = &ctx;
            let spawned = std::thread::Builder::new()
                .name(format!("client-{}", plan.thread))
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, move || worker::run(plan, ctx, sink));
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    stop.set();
                    outcomes.push(WorkerOutcome {
                        error: Some(format!(
                            "could not start client thread {}: {e}",
                            plan.thread
                        )),
                        insert_failed: false,
                    });
                }
            }
        }
        drop(sink);
        let status_every = client.show_status.then_some(client.status_interval);
        collector.run_until_done(status_every, origin, total);
        for (i, handle) in handles.into_iter().enumerate() {
            outcomes.push(handle.join().unwrap_or_else(|_| WorkerOutcome {
                error: Some(format!("client thread {i} panicked")),
                insert_failed: false,
            }));
        }
    });
    let runtime = origin.elapsed();
    let measurements = collector.finish();
    let (status, error) = judge(&measurements, &outcomes, stop);
    PhaseOutcome {
        measurements,
        started_at,
        runtime,
        threads,
        status,
        error,
    }
}

fn judge(
    m: &Measurements,
    outcomes: &[WorkerOutcome],
    stop: &StopFlag,
) -> (PhaseStatus, Option<String>) {
    let errors: Vec<&str> = outcomes.iter().filter_map(|o| o.error.as_deref()).collect();
    let failed_inserts = outcomes.iter().filter(|o| o.insert_failed).count();
    if stop.is_set() {
        let mut why = "interrupted by a signal; the results cover what ran until then".to_string();
        if let Some(first) = errors.first() {
            why.push_str(&format!("; {first}"));
        }
        return (PhaseStatus::Interrupted, Some(why));
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
