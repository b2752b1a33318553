//! The run: one CQL session shared by the client threads, each doing its share of
//! `n=` (or running until `duration=`), timing every operation whole (its retries
//! included) under `WRITE` or `READ`. The phase clock starts once every thread is
//! ready and the start barrier, if any, is passed, as for YCSB phases; operations
//! that end after the duration are not counted.
//!
//! An operation that fails — the server's error after every try, or a read that
//! finds no row or other values than the seed gives — is timed under
//! `WRITE-FAILED`/`READ-FAILED` and counted as an error. As in cassandra-stress,
//! the first error stops the run (status `failed`) unless `-errors ignore`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use rand::SeedableRng as _;

use super::config::CstressConfig;
use super::cql::{self, Attempt, Statements};
use super::keys::Row;
use super::mix::Mix;
use super::population::Population;
use crate::client::phase::{extras, reporting};
use crate::client::start_gate::{PhaseStart, StartGate};
use crate::client::worker::plans;
use crate::client::StopFlag;
use crate::generator::Rng;
use crate::measure::{Clock, Collector, Measurements, Operation, Recorder};
use crate::target::cassandra::CqlConnection;
use crate::target::Status;

/// What the run did.
pub struct RunOutcome {
    pub measurements: Measurements,
    pub started_at: SystemTime,
    pub runtime_ms: f64,
    pub threads: usize,
    /// The error that stopped the run, or the start barrier's failure.
    pub error: Option<String>,
}

/// The first error, which stops every thread unless errors are ignored.
#[derive(Default)]
struct FirstError {
    stopped: AtomicBool,
    message: Mutex<Option<String>>,
}

impl FirstError {
    /// Keeps `message` if it is the first; stops the run when `stop`.
    fn report(&self, message: String, stop: bool) {
        let mut first = self.message.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            let then = if stop {
                "the run stops (-errors ignore counts errors and goes on)"
            } else {
                "further errors are counted, not shown"
            };
            eprintln!("contio-engine: cstress: {message}; {then}");
            *first = Some(message);
        }
        if stop {
            self.stopped.store(true, Ordering::Relaxed);
        }
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    fn take(&self) -> Option<String> {
        self.message
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

/// The status an attempt is recorded with.
pub fn status_of(attempt: &Attempt) -> Status {
    match attempt {
        Attempt::Ok => Status::Ok,
        Attempt::Missing => Status::NotFound,
        Attempt::Mismatch => Status::UnexpectedState,
        Attempt::Failed(_) => Status::Error,
    }
}

/// What went wrong with `op` on `row`, for the error report.
pub fn describe_failure(op: Operation, row: &Row, tries: u32, attempt: &Attempt) -> String {
    let what = format!(
        "{} of key {} (seed {})",
        op.name().to_lowercase(),
        row.key_hex(),
        row.seed
    );
    match attempt {
        Attempt::Missing => format!(
            "{what} found no row: the partition was never written (write the population first)"
        ),
        Attempt::Mismatch => format!("{what} found other values than were written"),
        Attempt::Failed(e) => format!("{what} failed after {tries} tries: {e}"),
        Attempt::Ok => format!("{what} succeeded"),
    }
}

/// One operation, retried after exceptions up to `tries` attempts in all; a read
/// that finds the wrong row is not retried (the real tool does not either).
fn attempt(
    conn: &CqlConnection,
    st: &Statements,
    op: Operation,
    row: &Row,
    tries: u32,
) -> (Attempt, u32) {
    let mut done = 0;
    loop {
        done += 1;
        let result = match op {
            Operation::Write => cql::write(conn, st, row),
            _ => cql::read(conn, st, row),
        };
        match result {
            Attempt::Failed(_) if done < tries => continue,
            other => return (other, done),
        }
    }
}

/// Runs the client threads on an open connection with prepared statements.
pub fn run(
    config: &CstressConfig,
    conn: &CqlConnection,
    statements: &Statements,
    stop: &StopFlag,
) -> RunOutcome {
    let client = &config.client;
    let threads = if config.operation_count > 0 {
        client.threads.min(config.operation_count as usize)
    } else {
        client.threads
    };
    let population = Population::new(config.population);
    let failure = Arc::new(FirstError::default());
    let clock = Clock::new();
    let gate = StartGate::new();
    let (tx, rx) = channel();
    let collector = Collector::new(rx, threads);
    let mut errors: Vec<String> = Vec::new();
    let (collector, started_at, origin) = std::thread::scope(|s| {
        for plan in plans(config.operation_count, threads, 0) {
            let (tx, clock, gate) = (tx.clone(), clock.clone(), &gate);
            let (population, failure) = (&population, Arc::clone(&failure));
            s.spawn(move || {
                let start: PhaseStart = gate.arrive_and_wait();
                let mut recorder = Recorder::new(plan.thread, clock.clone(), start.origin, tx)
                    .with_extras(extras(&client.measurement));
                let mut rng = Rng::from_os_rng();
                let mut mix = Mix::new(config.command, config.ratio, config.clustering);
                let mut row = Row::new(config.layout);
                let mut done = 0u64;
                while (plan.operations == 0 || done < plan.operations)
                    && !stop.is_set()
                    && !failure.stopped()
                {
                    let op = mix.next(&mut rng);
                    row.fill(population.seed(&mut rng));
                    let begin = clock.now();
                    let (result, tries) = attempt(conn, statements, op, &row, config.tries);
                    let end = clock.now();
                    if start.deadline.is_some_and(|d| end >= d) {
                        break;
                    }
                    let status = status_of(&result);
                    recorder.record(op, status, begin, end, None);
                    recorder.operation_done();
                    done += 1;
                    if status != Status::Ok {
                        let message = describe_failure(op, &row, tries, &result);
                        failure.report(message, !config.ignore_errors);
                    }
                }
                recorder.finish();
            });
        }
        drop(tx);
        gate.wait_for(threads, stop);
        if let Some(barrier) = &config.barrier {
            if let Err(e) = barrier.arrive_and_wait(stop) {
                errors.push(e.to_string());
                stop.set();
            }
        }
        let started_at = SystemTime::now();
        let origin = Instant::now();
        let origin_tick = clock.now();
        let mut collector = collector.with_reporting(reporting(client, started_at));
        gate.open(PhaseStart {
            origin: origin_tick,
            deadline: client
                .max_execution_time
                .map(|d| clock.after(origin_tick, d)),
        });
        let status_every = client.show_status.then_some(client.status_interval);
        collector.run_until_done(status_every, origin, config.operation_count);
        (collector, started_at, origin)
    });
    let elapsed = origin.elapsed();
    let runtime = client
        .max_execution_time
        .map_or(elapsed, |limit| elapsed.min(limit));
    let error = errors
        .into_iter()
        .next()
        .or_else(|| failure.stopped().then(|| failure.take()).flatten());
    RunOutcome {
        measurements: collector.finish(),
        started_at,
        runtime_ms: runtime.as_secs_f64() * 1000.0,
        threads,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cstress::keys::Layout;

    #[test]
    fn failures_say_which_key_and_why() {
        let mut row = Row::new(Layout::default());
        row.fill(7);
        let missing = describe_failure(Operation::Read, &row, 1, &Attempt::Missing);
        assert!(missing.starts_with("read of key 0x"), "{missing}");
        assert!(missing.contains("(seed 7)") && missing.contains("never written"));
        let failed = describe_failure(
            Operation::Write,
            &row,
            10,
            &Attempt::Failed("timeout".into()),
        );
        assert!(failed.contains("after 10 tries: timeout"), "{failed}");
        assert_eq!(status_of(&Attempt::Missing), Status::NotFound);
        assert_eq!(status_of(&Attempt::Mismatch), Status::UnexpectedState);
        assert_eq!(status_of(&Attempt::Ok), Status::Ok);
    }
}
