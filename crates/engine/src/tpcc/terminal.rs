//! One terminal (a client thread): a home warehouse, a district for
//! Stock-Level, a deck of transactions. Each transaction is timed whole, from
//! its first statement to its commit, retries after deadlocks and
//! serialization failures included (those are counted per transaction).

use rand::Rng as _;

use super::config::{Scale, DISTRICTS};
use super::db::{Db, DbError};
use super::deck::{self, Deck};
use super::random::Constants;
use super::{delivery, new_order, order_status, payment, stock_level, Outcome};
use crate::client::throttle::sleep_until;
use crate::client::StopFlag;
use crate::generator::Rng;
use crate::measure::{Clock, Operation, Recorder, Tick};
use crate::target::Status;

/// Keying times (clause 5.2.5.7) and mean think times (5.2.5.4), seconds, in
/// the order of `deck::TRANSACTIONS`.
const KEYING_SECS: [f64; 5] = [18.0, 3.0, 2.0, 2.0, 2.0];
const THINK_SECS: [f64; 5] = [12.0, 12.0, 10.0, 5.0, 5.0];

/// What a terminal counts besides latencies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Attempts retried after a deadlock or serialization failure, per transaction.
    pub retries: [u64; 5],
    /// Transactions that failed (a fatal error, or retries exhausted).
    pub failed: [u64; 5],
    /// New-Orders rolled back on their unused item (1 %, by the spec; counted as done).
    pub rolled_back: u64,
}

impl Counters {
    /// Adds another terminal's counters.
    pub fn add(&mut self, other: &Counters) {
        for i in 0..5 {
            self.retries[i] += other.retries[i];
            self.failed[i] += other.failed[i];
        }
        self.rolled_back += other.rolled_back;
    }
}

/// One transaction's drawn input (kept across its retries).
enum Input {
    NewOrder(new_order::Input),
    Payment(payment::Input),
    OrderStatus(order_status::Input),
    Delivery(delivery::Input),
    StockLevel(stock_level::Input),
}

/// The terminal's fixed settings.
pub struct TerminalSpec {
    pub w: i64,
    /// Stock-Level's district.
    pub d: i64,
    pub scale: Scale,
    pub constants: Constants,
    pub think_time: bool,
    pub retries: u32,
}

impl TerminalSpec {
    /// Terminal `thread` spreads over the warehouses first, then the districts.
    pub fn for_thread(thread: usize, scale: Scale, constants: Constants) -> Self {
        let t = thread as i64;
        Self {
            w: t % scale.warehouses + 1,
            d: (t / scale.warehouses) % DISTRICTS + 1,
            scale,
            constants,
            think_time: false,
            retries: 0,
        }
    }
}

/// A terminal.
pub struct Terminal {
    pub spec: TerminalSpec,
    pub db: Box<dyn Db>,
    pub rng: Rng,
    pub deck: Deck,
    pub counters: Counters,
    /// The first failure, shown once on stderr.
    reported: bool,
}

/// How `step` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Recorded (successful or failed).
    Done,
    /// Ended at or after the deadline (not recorded), or stopped while thinking.
    Over,
}

impl Terminal {
    /// A terminal on an open connection.
    pub fn new(spec: TerminalSpec, db: Box<dyn Db>, rng: Rng) -> Self {
        Self {
            spec,
            db,
            rng,
            deck: Deck::new(),
            counters: Counters::default(),
            reported: false,
        }
    }

    fn draw(&mut self, op: Operation) -> Input {
        let (rng, s) = (&mut self.rng, &self.spec);
        match op {
            Operation::NewOrder => {
                Input::NewOrder(new_order::input(rng, s.w, &s.scale, &s.constants))
            }
            Operation::Payment => Input::Payment(payment::input(rng, s.w, &s.scale, &s.constants)),
            Operation::OrderStatus => {
                Input::OrderStatus(order_status::input(rng, s.w, &s.scale, &s.constants))
            }
            Operation::Delivery => Input::Delivery(delivery::input(rng, s.w)),
            _ => Input::StockLevel(stock_level::input(rng, s.w, s.d)),
        }
    }

    fn attempt(&mut self, input: &Input) -> Result<Outcome, DbError> {
        let db = self.db.as_mut();
        db.begin()?;
        let outcome = match input {
            Input::NewOrder(i) => new_order::execute(db, i),
            Input::Payment(i) => payment::execute(db, i),
            Input::OrderStatus(i) => order_status::execute(db, i),
            Input::Delivery(i) => delivery::execute(db, i),
            Input::StockLevel(i) => stock_level::execute(db, i),
        };
        match outcome {
            Ok(Outcome::Committed) => db.commit().map(|()| Outcome::Committed),
            Ok(Outcome::RolledBack) => Ok(Outcome::RolledBack),
            Err(e) => {
                // The error decides; a failed rollback shows on the next statement.
                let _ = db.rollback();
                Err(e)
            }
        }
    }

    /// Sleeps `mean`-scaled time unless stopped; false when the phase is over.
    fn pause(&mut self, clock: &Clock, secs: f64, deadline: Option<Tick>, stop: &StopFlag) -> bool {
        let until = clock.after_secs(clock.now(), secs);
        let until = deadline.map_or(until, |d| d.min(until));
        sleep_until(clock, until, stop);
        !stop.is_set() && deadline.is_none_or(|d| clock.now() < d)
    }

    /// Deals the next transaction, runs it (with retries) and records it.
    pub fn step(
        &mut self,
        recorder: &mut Recorder,
        deadline: Option<Tick>,
        stop: &StopFlag,
    ) -> Step {
        let clock = recorder.clock().clone();
        let op = self.deck.deal(&mut self.rng);
        let i = deck::index(op);
        if self.spec.think_time && !self.pause(&clock, KEYING_SECS[i], deadline, stop) {
            return Step::Over;
        }
        let input = self.draw(op);
        let start = clock.now();
        let mut retries = 0;
        let result = loop {
            match self.attempt(&input) {
                Err(e) if e.retryable && retries < self.spec.retries => retries += 1,
                other => break other,
            }
        };
        let end = clock.now();
        if deadline.is_some_and(|d| end >= d) {
            return Step::Over;
        }
        self.counters.retries[i] += u64::from(retries);
        let status = match &result {
            Ok(outcome) => {
                if *outcome == Outcome::RolledBack {
                    self.counters.rolled_back += 1;
                }
                Status::Ok
            }
            Err(e) => {
                self.counters.failed[i] += 1;
                if !self.reported {
                    self.reported = true;
                    eprintln!(
                        "contio-engine: tpcc {} failed: {e} (further errors not shown)",
                        op.name()
                    );
                }
                Status::Error
            }
        };
        recorder.record(op, status, start, end, None);
        recorder.operation_done();
        if self.spec.think_time {
            // Negative exponential, cut at ten times the mean (clause 5.2.5.4).
            let r: f64 = self.rng.random_range(f64::MIN_POSITIVE..1.0);
            let think = (-r.ln() * THINK_SECS[i]).min(10.0 * THINK_SECS[i]);
            if !self.pause(&clock, think, deadline, stop) {
                return Step::Over;
            }
        }
        Step::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminals_spread_over_warehouses_then_districts() {
        let k = Constants {
            c_last: 0,
            c_id: 0,
            ol_i_id: 0,
        };
        let homes: Vec<(i64, i64)> = (0..6)
            .map(|t| {
                let s = TerminalSpec::for_thread(t, Scale::spec(2), k);
                (s.w, s.d)
            })
            .collect();
        assert_eq!(homes, [(1, 1), (2, 1), (1, 2), (2, 2), (1, 3), (2, 3)]);
        assert_eq!(TerminalSpec::for_thread(10, Scale::spec(1), k).d, 1);
    }
}
