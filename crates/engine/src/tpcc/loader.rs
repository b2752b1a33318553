//! The load phase: drops and creates the tables, then fills them with one
//! thread per warehouse at a time (the item table is a job of its own), in
//! multi-row INSERTs of literal values (every generated value is alphanumeric
//! or a number, so it needs no escaping). Each INSERT is timed as `INSERT`;
//! `operations` counts rows.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::channel;
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};

use super::config::{Scale, TpccConfig, DISTRICTS};
use super::db::{Db, DbError};
use super::random::{self, a_string, n_string, nurand, uniform, zip};
use super::schema;
use crate::client::StopFlag;
use crate::generator::Rng;
use crate::measure::{Clock, Collector, Measurements, Operation, Recorder};
use crate::target::Status;

/// Rows per INSERT statement.
const BATCH_ROWS: usize = 500;

/// `C` of `NURand(255, 0, 999)` for the loaded last names. Fixed, so that the
/// run can choose its own `C` by the spec's delta rule (clause 2.1.6.1)
/// without the load having to store it.
pub const LOAD_C_LAST: i64 = 157;

/// What the load did.
pub struct LoadOutcome {
    pub measurements: Measurements,
    pub started_at: SystemTime,
    pub runtime_ms: f64,
    pub threads: usize,
    pub error: Option<String>,
}

/// Creates the schema, then loads `config.scale`.
pub fn load(config: &TpccConfig, stop: &StopFlag) -> Result<LoadOutcome, DbError> {
    let mut db = config.connect()?;
    for sql in schema::drop_statements()
        .into_iter()
        .chain(schema::create_statements(config.dialect))
    {
        db.execute_text(&sql)
            .map_err(|e| DbError::fatal(format!("{sql}: {e}")))?;
    }
    drop(db);
    let scale = config.scale;
    // Job 0 is the item table, jobs 1..=W the warehouses.
    let jobs = scale.warehouses + 1;
    let threads = config.client.threads.min(jobs as usize).max(1);
    let next = AtomicI64::new(0);
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    let clock = Clock::new();
    let origin = clock.now();
    let started_at = SystemTime::now();
    let started = Instant::now();
    let (tx, rx) = channel();
    let mut collector = Collector::new(rx, threads);
    let status_every = config
        .client
        .show_status
        .then_some(config.client.status_interval);
    std::thread::scope(|s| {
        for t in 0..threads {
            let recorder = Recorder::new(t, clock.clone(), origin, tx.clone());
            let (next, first_error) = (&next, &first_error);
            s.spawn(move || {
                let mut loader = match config.connect() {
                    Ok(db) => Loader {
                        db,
                        recorder,
                        rng: Rng::from_os_rng(),
                        scale,
                    },
                    Err(e) => {
                        recorder.finish();
                        stop_with(first_error, e.to_string());
                        return;
                    }
                };
                loop {
                    let job = next.fetch_add(1, Ordering::Relaxed);
                    if job >= jobs || stop.is_set() || first_error_set(first_error) {
                        break;
                    }
                    let done = if job == 0 {
                        loader.items()
                    } else {
                        loader.warehouse(job)
                    };
                    if let Err(e) = done {
                        stop_with(first_error, e.to_string());
                        break;
                    }
                }
                loader.recorder.finish();
            });
        }
        drop(tx);
        collector.run_until_done(status_every, started, 0);
    });
    let error = first_error.into_inner().unwrap_or_else(|e| e.into_inner());
    if error.is_none() && !stop.is_set() {
        // Fresh statistics, so the first run plans with the loaded sizes.
        let mut db = config.connect()?;
        for t in schema::TABLES {
            db.execute_text(&format!("ANALYZE {}{t}", analyze_prefix(config)))?;
        }
    }
    Ok(LoadOutcome {
        measurements: collector.finish(),
        started_at,
        runtime_ms: started.elapsed().as_secs_f64() * 1000.0,
        threads,
        error,
    })
}

fn analyze_prefix(config: &TpccConfig) -> &'static str {
    match config.dialect {
        super::db::Dialect::Mysql => "TABLE ",
        super::db::Dialect::Postgres => "",
    }
}

fn first_error_set(e: &Mutex<Option<String>>) -> bool {
    e.lock().map(|g| g.is_some()).unwrap_or(true)
}

fn stop_with(e: &Mutex<Option<String>>, message: String) {
    if let Ok(mut g) = e.lock() {
        g.get_or_insert(message);
    }
}

/// One loading thread.
struct Loader {
    db: Box<dyn Db>,
    recorder: Recorder,
    rng: Rng,
    scale: Scale,
}

/// Rows of one table, flushed every `BATCH_ROWS`.
struct Batch {
    head: String,
    values: String,
    rows: usize,
}

impl Batch {
    fn new(table: &str, columns: &str) -> Self {
        Self {
            head: format!("INSERT INTO {table} ({columns}) VALUES "),
            values: String::new(),
            rows: 0,
        }
    }
}

/// A quoted string literal (the values are alphanumeric: nothing to escape).
fn q(s: &str) -> String {
    format!("'{s}'")
}

/// A decimal literal with two places from hundredths.
fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

/// A tax or discount literal from ten-thousandths.
fn rate(units: i64) -> String {
    format!("0.{units:04}")
}

impl Loader {
    fn add(&mut self, batch: &mut Batch, row: &str) -> Result<(), DbError> {
        if batch.rows > 0 {
            batch.values.push(',');
        }
        let _ = write!(batch.values, "({row})");
        batch.rows += 1;
        if batch.rows >= BATCH_ROWS {
            self.flush(batch)?;
        }
        Ok(())
    }

    fn flush(&mut self, batch: &mut Batch) -> Result<(), DbError> {
        if batch.rows == 0 {
            return Ok(());
        }
        let sql = format!("{}{}", batch.head, batch.values);
        let clock = self.recorder.clock().clone();
        let start = clock.now();
        let result = self.db.execute_text(&sql);
        let end = clock.now();
        let status = if result.is_ok() {
            Status::Ok
        } else {
            Status::Error
        };
        self.recorder
            .record(Operation::Insert, status, start, end, None);
        for _ in 0..batch.rows {
            self.recorder.operation_done();
        }
        batch.values.clear();
        batch.rows = 0;
        result
    }

    fn items(&mut self) -> Result<(), DbError> {
        let mut b = Batch::new("item", "i_id, i_im_id, i_name, i_price, i_data");
        for i in 1..=self.scale.items {
            let rng = &mut self.rng;
            let row = format!(
                "{i},{},{},{},{}",
                uniform(rng, 1, 10_000),
                q(&a_string(rng, 14, 24)),
                money(uniform(rng, 100, 10_000)),
                q(&random::data_with_original(rng)),
            );
            self.add(&mut b, &row)?;
        }
        self.flush(&mut b)
    }

    fn warehouse(&mut self, w: i64) -> Result<(), DbError> {
        let rng = &mut self.rng;
        let row = format!(
            "{w},{},{},{},{},{},{},{},300000.00",
            q(&a_string(rng, 6, 10)),
            q(&a_string(rng, 10, 20)),
            q(&a_string(rng, 10, 20)),
            q(&a_string(rng, 10, 20)),
            q(&a_string(rng, 2, 2)),
            q(&zip(rng)),
            rate(uniform(rng, 0, 2000)),
        );
        let mut b = Batch::new(
            "warehouse",
            "w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd",
        );
        self.add(&mut b, &row)?;
        self.flush(&mut b)?;
        self.stock(w)?;
        for d in 1..=DISTRICTS {
            self.district(w, d)?;
        }
        Ok(())
    }

    fn stock(&mut self, w: i64) -> Result<(), DbError> {
        let mut b = Batch::new(
            "stock",
            "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, \
             s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, \
             s_order_cnt, s_remote_cnt, s_data",
        );
        for i in 1..=self.scale.items {
            let rng = &mut self.rng;
            let mut row = format!("{i},{w},{}", uniform(rng, 10, 100));
            for _ in 0..10 {
                let _ = write!(row, ",{}", q(&a_string(rng, 24, 24)));
            }
            let _ = write!(row, ",0,0,0,{}", q(&random::data_with_original(rng)));
            self.add(&mut b, &row)?;
        }
        self.flush(&mut b)
    }

    fn district(&mut self, w: i64, d: i64) -> Result<(), DbError> {
        let customers = self.scale.customers;
        let rng = &mut self.rng;
        let row = format!(
            "{d},{w},{},{},{},{},{},{},{},30000.00,{}",
            q(&a_string(rng, 6, 10)),
            q(&a_string(rng, 10, 20)),
            q(&a_string(rng, 10, 20)),
            q(&a_string(rng, 10, 20)),
            q(&a_string(rng, 2, 2)),
            q(&zip(rng)),
            rate(uniform(rng, 0, 2000)),
            customers + 1,
        );
        let mut b = Batch::new(
            "district",
            "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, \
             d_ytd, d_next_o_id",
        );
        self.add(&mut b, &row)?;
        self.flush(&mut b)?;
        self.customers(w, d)?;
        self.orders(w, d)
    }

    fn customers(&mut self, w: i64, d: i64) -> Result<(), DbError> {
        let mut c_batch = Batch::new(
            "customer",
            "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, \
             c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, \
             c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data",
        );
        let mut h_batch = Batch::new(
            "history",
            "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data",
        );
        let names = self.scale.last_names();
        for c in 1..=self.scale.customers {
            let rng = &mut self.rng;
            // The first 1000 customers take the 1000 names in order; the rest are drawn.
            let last = if c <= names {
                random::last_name(c - 1)
            } else {
                random::last_name(nurand(rng, 255, 0, names - 1, LOAD_C_LAST))
            };
            let credit = if rng.random_range(0..10) == 0 {
                "BC"
            } else {
                "GC"
            };
            let row = format!(
                "{c},{d},{w},{},'OE',{},{},{},{},{},{},{},CURRENT_TIMESTAMP,'{credit}',50000.00,\
                 {},-10.00,10.00,1,0,{}",
                q(&a_string(rng, 8, 16)),
                q(&last),
                q(&a_string(rng, 10, 20)),
                q(&a_string(rng, 10, 20)),
                q(&a_string(rng, 10, 20)),
                q(&a_string(rng, 2, 2)),
                q(&zip(rng)),
                q(&n_string(rng, 16, 16)),
                rate(uniform(rng, 0, 5000)),
                q(&a_string(rng, 300, 500)),
            );
            self.add(&mut c_batch, &row)?;
            let h = format!(
                "{c},{d},{w},{d},{w},CURRENT_TIMESTAMP,10.00,{}",
                q(&a_string(&mut self.rng, 12, 24))
            );
            self.add(&mut h_batch, &h)?;
        }
        self.flush(&mut c_batch)?;
        self.flush(&mut h_batch)
    }

    fn orders(&mut self, w: i64, d: i64) -> Result<(), DbError> {
        let mut o_batch = Batch::new(
            "orders",
            "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
        );
        let mut ol_batch = Batch::new(
            "order_line",
            "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, \
             ol_quantity, ol_amount, ol_dist_info",
        );
        let mut no_batch = Batch::new("new_order", "no_o_id, no_d_id, no_w_id");
        let first_new = self.scale.first_new_order();
        let mut customers: Vec<i64> = (1..=self.scale.customers).collect();
        customers.shuffle(&mut self.rng);
        for (o, &c) in (1..).zip(&customers) {
            let delivered = o < first_new;
            let rng = &mut self.rng;
            let lines = uniform(rng, 5, 15);
            let carrier = if delivered {
                uniform(rng, 1, 10).to_string()
            } else {
                "NULL".to_string()
            };
            let row = format!("{o},{d},{w},{c},CURRENT_TIMESTAMP,{carrier},{lines},1");
            self.add(&mut o_batch, &row)?;
            for n in 1..=lines {
                let rng = &mut self.rng;
                let (delivery, amount) = if delivered {
                    ("CURRENT_TIMESTAMP", 0)
                } else {
                    ("NULL", uniform(rng, 1, 999_999))
                };
                let row = format!(
                    "{o},{d},{w},{n},{},{w},{delivery},5,{},{}",
                    uniform(rng, 1, self.scale.items),
                    money(amount),
                    q(&a_string(rng, 24, 24)),
                );
                self.add(&mut ol_batch, &row)?;
            }
            if !delivered {
                self.add(&mut no_batch, &format!("{o},{d},{w}"))?;
            }
        }
        self.flush(&mut o_batch)?;
        self.flush(&mut ol_batch)?;
        self.flush(&mut no_batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(money(30_000_000), "300000.00");
        assert_eq!(money(-1000), "-10.00");
        assert_eq!(money(5), "0.05");
        assert_eq!(rate(1234), "0.1234");
        assert_eq!(rate(5), "0.0005");
    }
}
