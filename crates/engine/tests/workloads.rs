//! The shipped workload files, the operation mixes they produce, and load-phase
//! key partitioning across threads.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use contio_engine::client::{run_phase, ClientConfig, PhaseStatus, StopFlag};
use contio_engine::error::TargetError;
use contio_engine::generator::Rng;
use contio_engine::properties::Properties;
use contio_engine::target::{Record, Session, Status, TargetDriver};
use contio_engine::workload::keys::KeyNamer;
use contio_engine::workload::operation_chooser::{CoreOperation, OperationChooser};
use contio_engine::workload::{CoreConfig, CoreWorkload, Phase};
use rand::SeedableRng;

const NINE: [&str; 9] = [
    "workloada",
    "workloadb",
    "workloadc",
    "workloadd",
    "workloade",
    "workloadf",
    "ms-cloud-storage",
    "ms-web-search",
    "heavy-update",
];

fn workload_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/contio/workload/ycsb")
        .join(name)
}

fn load(name: &str) -> Properties {
    let mut p = Properties::new();
    p.load_file(&workload_path(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    p
}

#[test]
fn all_nine_workload_files_load_and_validate() {
    for name in NINE {
        let p = load(name);
        for key in p.keys() {
            assert!(
                contio_engine::workload::properties::is_known(key),
                "{name}: unknown key {key}"
            );
        }
        let c = CoreConfig::from_properties(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (c.field_count, c.field_length),
            (10, 100),
            "{name}: 1 KB records"
        );
        CoreWorkload::new(c.clone(), Phase::Load).unwrap_or_else(|e| panic!("{name}: {e}"));
        CoreWorkload::new(c, Phase::Run).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The mix each file should produce: read, update, insert, scan, read-modify-write.
fn published_mix(name: &str) -> [f64; 5] {
    match name {
        "workloada" => [0.5, 0.5, 0.0, 0.0, 0.0],
        "workloadb" => [0.95, 0.05, 0.0, 0.0, 0.0],
        "workloadc" => [1.0, 0.0, 0.0, 0.0, 0.0],
        "workloadd" => [0.95, 0.0, 0.05, 0.0, 0.0],
        "workloade" => [0.0, 0.0, 0.05, 0.95, 0.0],
        "workloadf" => [0.5, 0.0, 0.0, 0.0, 0.5],
        "ms-cloud-storage" => [0.262, 0.738, 0.0, 0.0, 0.0],
        "ms-web-search" => [0.83, 0.17, 0.0, 0.0, 0.0],
        "heavy-update" => [0.0, 1.0, 0.0, 0.0, 0.0],
        other => panic!("no published mix for {other}"),
    }
}

#[test]
fn operation_mixes_are_within_one_percent_over_a_million_choices() {
    const DRAWS: usize = 1_000_000;
    for name in NINE {
        let c = CoreConfig::from_properties(&load(name)).unwrap();
        let chooser = OperationChooser::new(&c.proportions).unwrap();
        let mut rng = Rng::seed_from_u64(7);
        let mut counts = [0usize; 5];
        for _ in 0..DRAWS {
            let i = match chooser.next(&mut rng) {
                CoreOperation::Read => 0,
                CoreOperation::Update => 1,
                CoreOperation::Insert => 2,
                CoreOperation::Scan => 3,
                CoreOperation::ReadModifyWrite => 4,
            };
            counts[i] += 1;
        }
        for (i, expected) in published_mix(name).iter().enumerate() {
            let observed = counts[i] as f64 / DRAWS as f64;
            // "Within 1%": an absolute tolerance of 0.01 on each share.
            assert!(
                (observed - expected).abs() < 0.01,
                "{name} op {i}: {observed} vs {expected}"
            );
            if *expected == 0.0 {
                assert_eq!(counts[i], 0, "{name}: op {i} has weight 0 but was chosen");
            }
        }
    }
}

/// A target that remembers every key inserted, and by which thread.
#[derive(Default)]
struct KeyRecorder {
    inserted: Arc<Mutex<Vec<(usize, String)>>>,
    sessions: Mutex<usize>,
}

struct KeyRecorderSession {
    thread: usize,
    inserted: Arc<Mutex<Vec<(usize, String)>>>,
}

impl TargetDriver for KeyRecorder {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        let mut n = self.sessions.lock().unwrap();
        *n += 1;
        Ok(Box::new(KeyRecorderSession {
            thread: *n - 1,
            inserted: Arc::clone(&self.inserted),
        }))
    }
}

impl Session for KeyRecorderSession {
    fn read(&mut self, _: &str, _: &str, _: Option<&[String]>, _: &mut Record) -> Status {
        Status::Ok
    }
    fn scan(
        &mut self,
        _: &str,
        _: &str,
        _: usize,
        _: Option<&[String]>,
        _: &mut Vec<(String, Record)>,
    ) -> Status {
        Status::Ok
    }
    fn update(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn insert(&mut self, _: &str, key: &str, values: &Record) -> Status {
        assert_eq!(values.fields.len(), 10);
        self.inserted
            .lock()
            .unwrap()
            .push((self.thread, key.to_string()));
        Status::Ok
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        Status::Ok
    }
}

#[test]
fn load_partitions_the_insert_range_across_threads() {
    let mut p = Properties::new();
    for (k, v) in [
        ("recordcount", "1000"),
        ("insertstart", "100"),
        ("insertcount", "901"),
        ("threadcount", "4"),
    ] {
        p.set(k, v);
    }
    // insertstart + insertcount must fit in recordcount.
    assert!(CoreConfig::from_properties(&p).is_err());
    p.set("insertcount", "900");
    let config = CoreConfig::from_properties(&p).unwrap();
    let workload = CoreWorkload::new(config, Phase::Load).unwrap();
    let client = ClientConfig::from_properties(&p, false).unwrap();
    let target = Arc::new(KeyRecorder::default());
    let outcome = run_phase(
        Phase::Load,
        Arc::new(workload),
        target.clone(),
        "test",
        &client,
        &StopFlag::new(),
    );
    assert_eq!(outcome.status, PhaseStatus::Ok);
    assert_eq!(outcome.measurements.operations, 900);
    let inserted = target.inserted.lock().unwrap();
    // Every key of [insertstart, insertstart + insertcount) exactly once, none outside.
    let namer = KeyNamer::new(false, 1);
    let mut expected: Vec<String> = (100..1000).map(|n| namer.name(n)).collect();
    let mut got: Vec<String> = inserted.iter().map(|(_, k)| k.clone()).collect();
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    // YCSB's split: 900 / 4 threads = 225 each.
    let mut per_thread: HashMap<usize, usize> = HashMap::new();
    for (t, _) in inserted.iter() {
        *per_thread.entry(*t).or_default() += 1;
    }
    assert_eq!(per_thread.len(), 4);
    assert!(per_thread.values().all(|&n| n == 225), "{per_thread:?}");
}

#[test]
fn run_phase_inserts_extend_the_key_space() {
    let mut p = load("workloadd");
    p.set("recordcount", "100");
    p.set("operationcount", "2000");
    p.set("threadcount", "2");
    let config = CoreConfig::from_properties(&p).unwrap();
    let workload = CoreWorkload::new(config, Phase::Run).unwrap();
    let client = ClientConfig::from_properties(&p, false).unwrap();
    let target = Arc::new(KeyRecorder::default());
    let outcome = run_phase(
        Phase::Run,
        Arc::new(workload),
        target.clone(),
        "test",
        &client,
        &StopFlag::new(),
    );
    assert_eq!(outcome.status, PhaseStatus::Ok);
    let namer = KeyNamer::new(false, 1);
    let inserted = target.inserted.lock().unwrap();
    assert!(!inserted.is_empty(), "workload D inserts");
    // Run-phase inserts continue the key sequence at recordcount, without gaps or repeats.
    let mut got: Vec<String> = inserted.iter().map(|(_, k)| k.clone()).collect();
    let mut expected: Vec<String> = (100..100 + got.len() as u64)
        .map(|n| namer.name(n))
        .collect();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
}

/// A target that remembers the keys read and inserted, in order.
#[derive(Default)]
struct AccessLog {
    log: Arc<Mutex<Vec<(bool, String)>>>,
}

struct AccessLogSession {
    log: Arc<Mutex<Vec<(bool, String)>>>,
}

impl TargetDriver for AccessLog {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(AccessLogSession {
            log: Arc::clone(&self.log),
        }))
    }
}

impl Session for AccessLogSession {
    fn read(&mut self, _: &str, key: &str, _: Option<&[String]>, _: &mut Record) -> Status {
        self.log.lock().unwrap().push((false, key.to_string()));
        Status::Ok
    }
    fn scan(
        &mut self,
        _: &str,
        _: &str,
        _: usize,
        _: Option<&[String]>,
        _: &mut Vec<(String, Record)>,
    ) -> Status {
        Status::Ok
    }
    fn update(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn insert(&mut self, _: &str, key: &str, _: &Record) -> Status {
        self.log.lock().unwrap().push((true, key.to_string()));
        Status::Ok
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        Status::Ok
    }
}

#[test]
fn latest_reads_follow_run_phase_inserts_and_never_run_ahead() {
    let mut p = load("workloadd");
    p.set("recordcount", "1000");
    p.set("operationcount", "20000");
    let config = CoreConfig::from_properties(&p).unwrap();
    let workload = CoreWorkload::new(config, Phase::Run).unwrap();
    let client = ClientConfig::from_properties(&p, false).unwrap();
    let target = Arc::new(AccessLog::default());
    let outcome = run_phase(
        Phase::Run,
        Arc::new(workload),
        target.clone(),
        "test",
        &client,
        &StopFlag::new(),
    );
    assert_eq!(outcome.status, PhaseStatus::Ok);
    let namer = KeyNamer::new(false, 1);
    let number_of: HashMap<String, u64> = (0..3000).map(|n| (namer.name(n), n)).collect();
    let log = target.log.lock().unwrap();
    let mut newest = 999u64;
    let mut reads_of_new_keys = 0;
    for (is_insert, key) in log.iter() {
        let n = number_of[key];
        if *is_insert {
            newest = newest.max(n);
        } else {
            assert!(
                n <= newest,
                "read key {n} before it was inserted (newest {newest})"
            );
            reads_of_new_keys += usize::from(n >= 1000);
        }
    }
    assert!(newest > 1000, "inserts happened");
    // `latest` favours the newest keys, so many reads go to keys inserted during the run.
    assert!(
        reads_of_new_keys > 1000,
        "only {reads_of_new_keys} reads of inserted keys"
    );
}

/// A target that remembers, for every update, the names and values it was given.
#[derive(Default)]
struct UpdateLog {
    updates: Arc<Mutex<Vec<Record>>>,
}

struct UpdateLogSession {
    updates: Arc<Mutex<Vec<Record>>>,
}

impl TargetDriver for UpdateLog {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(UpdateLogSession {
            updates: Arc::clone(&self.updates),
        }))
    }
}

impl Session for UpdateLogSession {
    fn read(&mut self, _: &str, _: &str, _: Option<&[String]>, _: &mut Record) -> Status {
        Status::Ok
    }
    fn scan(
        &mut self,
        _: &str,
        _: &str,
        _: usize,
        _: Option<&[String]>,
        _: &mut Vec<(String, Record)>,
    ) -> Status {
        Status::Ok
    }
    fn update(&mut self, _: &str, _: &str, values: &Record) -> Status {
        self.updates.lock().unwrap().push(values.clone());
        Status::Ok
    }
    fn insert(&mut self, _: &str, _: &str, _: &Record) -> Status {
        Status::Ok
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        Status::Ok
    }
}

/// The updates of a 4,000-operation run of `workload` with `extra` properties.
fn updates_of(workload: &str, extra: &[(&str, &str)]) -> Vec<Record> {
    let mut p = load(workload);
    p.set("operationcount", "4000");
    for &(k, v) in extra {
        p.set(k, v);
    }
    let config = CoreConfig::from_properties(&p).unwrap();
    let workload = CoreWorkload::new(config, Phase::Run).unwrap();
    let client = ClientConfig::from_properties(&p, false).unwrap();
    let target = Arc::new(UpdateLog::default());
    let outcome = run_phase(
        Phase::Run,
        Arc::new(workload),
        target.clone(),
        "test",
        &client,
        &StopFlag::new(),
    );
    assert_eq!(outcome.status, PhaseStatus::Ok);
    let updates = target.updates.lock().unwrap().clone();
    assert!(updates.len() > 1000, "{} updates", updates.len());
    updates
}

#[test]
fn updates_write_one_random_field_unless_writeallfields() {
    let names: Vec<String> = (0..10).map(|i| format!("field{i}")).collect();
    // Workload A updates; F's read-modify-writes update too.
    for workload in ["workloada", "workloadf"] {
        let mut seen = vec![0usize; names.len()];
        for Record { fields } in updates_of(workload, &[("fieldlength", "37")]) {
            assert_eq!(fields.len(), 1, "{workload}: one field per update");
            let (name, value) = &fields[0];
            let i = names.iter().position(|n| n == name);
            let i = i.unwrap_or_else(|| panic!("{workload}: unknown field {name}"));
            seen[i] += 1;
            assert_eq!(value.len(), 37);
            assert!(value.iter().all(|b| (32..=126).contains(b)), "{value:?}");
        }
        // Uniform over 10 fields: > 1000 updates put well over 30 on each.
        assert!(seen.iter().all(|&n| n > 30), "{workload}: {seen:?}");
    }
    for Record { fields } in updates_of("workloada", &[("writeallfields", "true")]) {
        let got: Vec<&String> = fields.iter().map(|(n, _)| n).collect();
        assert_eq!(got, names.iter().collect::<Vec<_>>());
        assert!(fields.iter().all(|(_, v)| v.len() == 100));
    }
}
