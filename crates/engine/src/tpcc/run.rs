//! The run phase: one terminal per client thread, each with its own
//! connection; the phase clock starts once every terminal is connected (and
//! the start barrier, if any, is passed), as for YCSB phases. Ends after
//! `operationcount` transactions, at `maxexecutiontime` (transactions that end
//! later are not counted) or on SIGINT/SIGTERM.

use std::sync::mpsc::channel;
use std::time::{Instant, SystemTime};

use rand::SeedableRng as _;

use super::config::{Scale, TpccConfig};
use super::db::{one_row, DbError, Value};
use super::loader::LOAD_C_LAST;
use super::random::Constants;
use super::terminal::{Counters, Step, Terminal, TerminalSpec};
use crate::client::phase::{extras, reporting};
use crate::client::start_gate::{PhaseStart, StartGate};
use crate::client::worker::plans;
use crate::client::StopFlag;
use crate::generator::Rng;
use crate::measure::{Clock, Collector, Measurements, Recorder};

/// What the run did.
pub struct RunOutcome {
    pub measurements: Measurements,
    pub started_at: SystemTime,
    pub runtime_ms: f64,
    pub threads: usize,
    pub scale: Scale,
    pub counters: Counters,
    /// Terminals that could not connect, or the start barrier's failure.
    pub error: Option<String>,
}

/// The loaded scale: warehouses, items and customers per district, read from
/// the database (so a run needs only the connection).
pub fn loaded_scale(config: &TpccConfig) -> Result<Scale, DbError> {
    let mut db = config.connect()?;
    let int = |rows, what| -> Result<i64, DbError> { one_row(rows, what)?[0].int() };
    let warehouses = int(
        db.query("SELECT COUNT(*) FROM warehouse", &[])?,
        "warehouse",
    )?;
    if warehouses == 0 {
        return Err(DbError::fatal(
            "no warehouse loaded: run `contio-engine tpcc load` first",
        ));
    }
    let items = int(db.query("SELECT MAX(i_id) FROM item", &[])?, "item")?;
    let customers = int(
        db.query(
            "SELECT MAX(c_id) FROM customer WHERE c_w_id = ? AND c_d_id = ?",
            &[Value::Int(1), Value::Int(1)],
        )?,
        "customer",
    )?;
    let wanted = config.scale.warehouses;
    if wanted > warehouses {
        return Err(DbError::fatal(format!(
            "warehouses={wanted}, but the database holds {warehouses}: load it with \
             warehouses={wanted}"
        )));
    }
    Ok(Scale {
        warehouses: if wanted == 0 { warehouses } else { wanted },
        items,
        customers,
    })
}

/// Runs the terminals.
pub fn run(config: &TpccConfig, stop: &StopFlag) -> Result<RunOutcome, DbError> {
    let scale = loaded_scale(config)?;
    let client = &config.client;
    let threads = if config.operation_count > 0 {
        client.threads.min(config.operation_count as usize)
    } else {
        client.threads
    };
    let constants = Constants::for_run(LOAD_C_LAST, &mut Rng::from_os_rng());
    let clock = Clock::new();
    let gate = StartGate::new();
    let (tx, rx) = channel();
    let collector = Collector::new(rx, threads);
    let mut errors: Vec<String> = Vec::new();
    let (collector, started_at, origin, counters) = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for plan in plans(config.operation_count, threads, 0) {
            let (tx, clock, gate) = (tx.clone(), clock.clone(), &gate);
            handles.push(s.spawn(move || -> Result<Counters, String> {
                let db = config.connect();
                let start = gate.arrive_and_wait();
                let mut recorder = Recorder::new(plan.thread, clock, start.origin, tx)
                    .with_extras(extras(&client.measurement));
                let db = match db {
                    Ok(db) => db,
                    Err(e) => {
                        recorder.finish();
                        return Err(format!("terminal {}: {e}", plan.thread));
                    }
                };
                let mut spec = TerminalSpec::for_thread(plan.thread, scale, constants);
                spec.think_time = config.think_time;
                spec.retries = config.retries;
                let mut terminal = Terminal::new(spec, db, Rng::from_os_rng());
                let mut done = 0u64;
                while (plan.operations == 0 || done < plan.operations) && !stop.is_set() {
                    if terminal.step(&mut recorder, start.deadline, stop) == Step::Over {
                        break;
                    }
                    done += 1;
                }
                recorder.finish();
                Ok(terminal.counters)
            }));
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
        let mut counters = Counters::default();
        for h in handles {
            match h.join() {
                Ok(Ok(c)) => counters.add(&c),
                Ok(Err(e)) => errors.push(e),
                Err(_) => errors.push("a terminal thread panicked".into()),
            }
        }
        (collector, started_at, origin, counters)
    });
    let elapsed = origin.elapsed();
    let runtime = client
        .max_execution_time
        .map_or(elapsed, |limit| elapsed.min(limit));
    let error = errors.first().map(|first| match errors.len() {
        1 => first.clone(),
        n => format!("{first} (and {} more)", n - 1),
    });
    Ok(RunOutcome {
        measurements: collector.finish(),
        started_at,
        runtime_ms: runtime.as_secs_f64() * 1000.0,
        threads,
        scale,
        counters,
        error,
    })
}
