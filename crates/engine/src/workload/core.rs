//! The core workload: shared state for a phase (`CoreWorkload`) and each client
//! thread's part of it (`ThreadWorkload`), which chooses and issues operations.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng as _;

use super::fields::{field_names, fill_deterministic, fill_printable, LengthGenerator};
use super::key_chooser::{KeyChooser, KeyLimit};
use super::keys::{KeyName, KeyNamer};
use super::operation_chooser::{CoreOperation, OperationChooser};
use super::properties::CoreConfig;
use crate::client::MeasuredSession;
use crate::error::PropertyError;
use crate::generator::{thread_rng, AcknowledgedCounter, Counter, Rng, Uniform};
use crate::measure::Operation;
use crate::target::{Record, Status};

/// The phase a workload runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Insert the initial records (YCSB `-load`).
    Load,
    /// Run the operation mix (YCSB `-t`).
    Run,
}

impl Phase {
    /// `load` or `run`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Load => "load",
            Phase::Run => "run",
        }
    }
}

/// State shared by every client thread of a phase.
pub struct CoreWorkload {
    config: CoreConfig,
    field_names: Vec<String>,
    namer: KeyNamer,
    load_keys: Counter,
    limit: KeyLimit,
    key_chooser: KeyChooser,
    operations: Option<OperationChooser>,
}

impl CoreWorkload {
    /// The workload of `config` for `phase`. The run phase needs a non-empty
    /// key range and at least one operation with a weight above zero.
    pub fn new(config: CoreConfig, phase: Phase) -> Result<Self, PropertyError> {
        let operations = OperationChooser::new(&config.proportions);
        if phase == Phase::Run {
            if operations.is_none() {
                return Err(PropertyError::Invalid {
                    key: "readproportion".into(),
                    reason: "every operation proportion is 0; set at least one of readproportion, \
                             updateproportion, insertproportion, scanproportion, readmodifywriteproportion"
                        .into(),
                });
            }
            if config.insert_count == 0 {
                return Err(PropertyError::Invalid {
                    key: "insertcount".into(),
                    reason: "the run phase needs at least one loaded key (insertcount >= 1)".into(),
                });
            }
        }
        let loaded_last = config.record_count - 1;
        let limit = if phase == Phase::Run && config.proportions.insert > 0.0 {
            KeyLimit::Acknowledged(Arc::new(AcknowledgedCounter::new(config.record_count)))
        } else {
            KeyLimit::Fixed(loaded_last)
        };
        Ok(Self {
            field_names: field_names(&config),
            namer: KeyNamer::new(config.ordered_inserts, config.zero_padding),
            load_keys: Counter::new(config.insert_start),
            // The load phase chooses no keys; a `latest` or zipfian chooser would
            // compute ζ over the key space for nothing.
            key_chooser: if phase == Phase::Run {
                KeyChooser::new(&config, loaded_last)
            } else {
                KeyChooser::Uniform(Uniform::new(config.insert_start, config.insert_start))
            },
            limit,
            operations,
            config,
        })
    }

    /// The settings in effect.
    pub fn config(&self) -> &CoreConfig {
        &self.config
    }

    /// A client thread's part (its own RNG, generators and buffers).
    pub fn thread(&self) -> ThreadWorkload<'_> {
        let c = &self.config;
        let record = |names: &[String]| Record {
            fields: names
                .iter()
                .map(|n| (n.clone(), Vec::with_capacity(c.field_length as usize)))
                .collect(),
        };
        ThreadWorkload {
            shared: self,
            rng: thread_rng(),
            keys: self.key_chooser.clone(),
            limit: self.limit.clone(),
            field_length: LengthGenerator::new(
                c.field_length_distribution,
                c.min_field_length,
                c.field_length,
            ),
            scan_length: LengthGenerator::new(
                c.scan_length_distribution,
                c.min_scan_length,
                c.max_scan_length,
            ),
            key: self.namer.new_name(),
            all_values: record(&self.field_names),
            one_values: self.field_names.chunks(1).map(&record).collect(),
            one_field: 0,
            read_out: Record::default(),
            scan_out: Vec::new(),
            verify_buf: Vec::new(),
        }
    }
}

/// One client thread's workload state; no allocation per operation once warm.
pub struct ThreadWorkload<'a> {
    shared: &'a CoreWorkload,
    rng: Rng,
    keys: KeyChooser,
    limit: KeyLimit,
    field_length: LengthGenerator,
    scan_length: LengthGenerator,
    key: KeyName,
    all_values: Record,
    /// One single-field record per field, its name set once: an update of one
    /// field fills the value of `one_values[one_field]` instead of copying the
    /// chosen name into a shared record (a `memcpy` call per update).
    one_values: Vec<Record>,
    one_field: usize,
    read_out: Record,
    scan_out: Vec<(String, Record)>,
    /// The expected value under `dataintegrity`, reused.
    verify_buf: Vec<u8>,
}

impl ThreadWorkload<'_> {
    /// Load phase: inserts the next key of the shared load sequence, retrying as
    /// `core_workload_insertion_retry_limit` says. False when the insert failed
    /// (YCSB then stops the thread).
    pub fn insert_next(&mut self, db: &mut MeasuredSession) -> bool {
        let keynum = self.shared.load_keys.next();
        self.shared.namer.write(keynum, &mut self.key);
        self.fill_all_values();
        let c = &self.shared.config;
        let mut retries = 0;
        loop {
            if db.insert(&c.table, &self.key, &self.all_values).is_ok() {
                return true;
            }
            retries += 1;
            if retries > c.insertion_retry_limit {
                return false;
            }
            // YCSB waits 0.8–1.2 × the interval so that retrying threads spread out.
            let jitter = self.rng.random_range(0.8..1.2);
            std::thread::sleep(Duration::from_secs_f64(
                c.insertion_retry_interval.as_secs_f64() * jitter,
            ));
        }
    }

    /// Run phase: one operation of the mix.
    #[inline]
    pub fn transaction(&mut self, db: &mut MeasuredSession) {
        let Some(chooser) = self.shared.operations.as_ref() else {
            return;
        };
        match chooser.next(&mut self.rng) {
            CoreOperation::Read => self.read(db),
            CoreOperation::Update => self.update(db),
            CoreOperation::Insert => self.insert(db),
            CoreOperation::Scan => self.scan(db),
            CoreOperation::ReadModifyWrite => self.read_modify_write(db),
        }
    }

    #[inline]
    fn choose_key(&mut self) {
        let keynum = self.keys.next_keynum(&mut self.rng, &self.limit);
        self.shared.namer.write(keynum, &mut self.key);
    }

    /// The fields a read asks for: None (all) or one random field.
    #[inline]
    fn read_fields(&mut self) -> Option<std::ops::Range<usize>> {
        if self.shared.config.read_all_fields {
            None
        } else {
            let i = self.rng.random_range(0..self.shared.field_names.len());
            Some(i..i + 1)
        }
    }

    fn read(&mut self, db: &mut MeasuredSession) {
        let shared = self.shared;
        self.choose_key();
        let fields = self.read_fields().map(|r| &shared.field_names[r]);
        let status = db.read(&shared.config.table, &self.key, fields, &mut self.read_out);
        if shared.config.data_integrity && status.is_ok() {
            self.verify(db, fields.map_or(shared.field_names.len(), <[String]>::len));
        }
    }

    /// `dataintegrity`: checks the record just read against the values its key implies,
    /// timed as VERIFY: OK, UNEXPECTED_STATE when a value differs or a field is
    /// missing, ERROR when the record came back empty.
    fn verify(&mut self, db: &mut MeasuredSession, expected_fields: usize) {
        let start = db.clock().now();
        let len = self.shared.config.field_length as usize;
        let status = if self.read_out.fields.is_empty() {
            Status::Error
        } else if self.read_out.fields.len() != expected_fields {
            Status::UnexpectedState
        } else {
            let mut expected = std::mem::take(&mut self.verify_buf);
            let all_match = self.read_out.fields.iter().all(|(field, value)| {
                fill_deterministic(&self.key, field, &mut expected, len);
                *value == expected
            });
            self.verify_buf = expected;
            if all_match {
                Status::Ok
            } else {
                Status::UnexpectedState
            }
        };
        let end = db.clock().now();
        db.record(Operation::Verify, status, start, end);
    }

    fn update(&mut self, db: &mut MeasuredSession) {
        let shared = self.shared;
        self.choose_key();
        self.fill_update_values();
        db.update(&shared.config.table, &self.key, self.update_values());
    }

    fn insert(&mut self, db: &mut MeasuredSession) {
        let shared = self.shared;
        let KeyLimit::Acknowledged(counter) = &self.limit else {
            return;
        };
        let counter = Arc::clone(counter);
        let keynum = counter.next();
        shared.namer.write(keynum, &mut self.key);
        self.fill_all_values();
        db.insert(&shared.config.table, &self.key, &self.all_values);
        // Acknowledged whatever the outcome, as YCSB does, so `last` keeps moving.
        // An overflow means 2^20 inserts are in flight; `last` then lags, which is safe.
        let _ = counter.acknowledge(keynum);
    }

    fn scan(&mut self, db: &mut MeasuredSession) {
        let shared = self.shared;
        self.choose_key();
        let count = self.scan_length.next(&mut self.rng) as usize;
        let fields = self.read_fields().map(|r| &shared.field_names[r]);
        db.scan(
            &shared.config.table,
            &self.key,
            count,
            fields,
            &mut self.scan_out,
        );
    }

    /// A read then an update of the same key, timed together as READ-MODIFY-WRITE
    /// (the read and the update are also timed on their own, as in YCSB).
    fn read_modify_write(&mut self, db: &mut MeasuredSession) {
        let shared = self.shared;
        self.choose_key();
        let fields = self.read_fields().map(|r| &shared.field_names[r]);
        // Values are built before the read, as YCSB does, so only the calls are timed.
        self.fill_update_values();
        // Taken out while `values` borrows self (put back before `verify` reads it).
        let mut read_out = std::mem::take(&mut self.read_out);
        let values = self.update_values();
        let start = db.clock().now();
        let read = db.read(&shared.config.table, &self.key, fields, &mut read_out);
        let update = db.update(&shared.config.table, &self.key, values);
        let end = db.clock().now();
        self.read_out = read_out;
        let status = if !read.is_ok() { read } else { update };
        db.record(Operation::ReadModifyWrite, status, start, end);
        if shared.config.data_integrity && read.is_ok() {
            self.verify(db, fields.map_or(shared.field_names.len(), <[String]>::len));
        }
    }

    /// Fills the values of an update: all fields or one random field (`writeallfields`).
    fn fill_update_values(&mut self) {
        if self.shared.config.write_all_fields {
            self.fill_all_values();
        } else {
            self.fill_one_value();
        }
    }

    /// The record `fill_update_values` filled last.
    #[inline]
    fn update_values(&self) -> &Record {
        if self.shared.config.write_all_fields {
            &self.all_values
        } else {
            &self.one_values[self.one_field]
        }
    }

    /// Fills every field's value for the current key (`self.key` is set first).
    fn fill_all_values(&mut self) {
        let deterministic = self.shared.config.data_integrity;
        for (name, value) in self.all_values.fields.iter_mut() {
            let len = self.field_length.next(&mut self.rng) as usize;
            if deterministic {
                fill_deterministic(&self.key, name, value, len);
            } else {
                fill_printable(&mut self.rng, value, len);
            }
        }
    }

    fn fill_one_value(&mut self) {
        self.one_field = self.rng.random_range(0..self.one_values.len());
        let len = self.field_length.next(&mut self.rng) as usize;
        let record = &mut self.one_values[self.one_field];
        if let Some((name, value)) = record.fields.first_mut() {
            if self.shared.config.data_integrity {
                fill_deterministic(&self.key, name, value, len);
            } else {
                fill_printable(&mut self.rng, value, len);
            }
        }
    }

    /// The highest key number that may be chosen now (for tests and status).
    pub fn last_key(&self) -> u64 {
        self.limit.last()
    }

    /// The name of the most recently chosen or inserted key.
    pub fn current_key(&self) -> &str {
        &self.key
    }
}
