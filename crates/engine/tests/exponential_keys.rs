//! `requestdistribution=exponential` through the whole key-choice path, against
//! YCSB 0.17's definition: γ = −ln(1 − exponential.percentile/100) /
//! (recordcount × exponential.frac); key = (last inserted) − ⌊−ln(U)/γ⌋,
//! redrawn while negative. So a key is never above the last inserted one, and
//! the distance d from it has P(d = j) ∝ e^(−γj)·(1 − e^(−γ)) for 0 ≤ j ≤ last.
//! Each run is compared with that law by a Kolmogorov–Smirnov distance.

use std::sync::{Arc, Mutex};

use contio_engine::client::{run_phase, ClientConfig, PhaseStatus, StopFlag};
use contio_engine::error::TargetError;
use contio_engine::properties::Properties;
use contio_engine::target::{Record, Session, Status, TargetDriver};
use contio_engine::workload::{CoreConfig, CoreWorkload, Phase};

/// Every read and insert in order: (is_insert, key number).
type Log = Arc<Mutex<Vec<(bool, u64)>>>;

#[derive(Default)]
struct KeyLog {
    log: Log,
}

struct KeyLogSession {
    log: Log,
}

impl TargetDriver for KeyLog {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(KeyLogSession {
            log: Arc::clone(&self.log),
        }))
    }
}

/// `user<n>` (insertorder=ordered, zeropadding=1) → n.
fn number(key: &str) -> u64 {
    key.strip_prefix("user").unwrap().parse().unwrap()
}

impl Session for KeyLogSession {
    fn read(&mut self, _: &str, key: &str, _: Option<&[String]>, _: &mut Record) -> Status {
        self.log.lock().unwrap().push((false, number(key)));
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
        self.log.lock().unwrap().push((true, number(key)));
        Status::Ok
    }
    fn delete(&mut self, _: &str, _: &str) -> Status {
        Status::Ok
    }
}

/// Runs a one-thread run phase with `settings` and returns its key log.
fn run(settings: &[(&str, &str)]) -> Vec<(bool, u64)> {
    let mut p = Properties::new();
    p.set("requestdistribution", "exponential");
    p.set("insertorder", "ordered");
    p.set("threadcount", "1");
    for (k, v) in settings {
        p.set(*k, *v);
    }
    let config = CoreConfig::from_properties(&p).unwrap();
    let workload = CoreWorkload::new(config, Phase::Run).unwrap();
    let client = ClientConfig::from_properties(&p, false).unwrap();
    let target = Arc::new(KeyLog::default());
    let outcome = run_phase(
        Phase::Run,
        Arc::new(workload),
        target.clone(),
        "test",
        &client,
        &StopFlag::new(),
    );
    assert_eq!(outcome.status, PhaseStatus::Ok);
    let log = target.log.lock().unwrap().clone();
    log
}

/// YCSB's rate: γ = −ln(1 − percentile/100) / (recordcount × frac).
fn gamma(percentile: f64, recordcount: f64, frac: f64) -> f64 {
    -(1.0 - percentile / 100.0).ln() / (recordcount * frac)
}

/// P(X < n) for X ~ Exp(γ): P(d ≤ j) is this at n = j + 1; conditioned on
/// d ≤ last (the redraw), divide by its value at n = last + 1.
fn below(gamma: f64, n: u64) -> f64 {
    1.0 - (-gamma * n as f64).exp()
}

/// The distances (last inserted − key) of the reads, with the last inserted key
/// at each read; asserts that no read chose a key above it.
fn distances(log: &[(bool, u64)], loaded_last: u64) -> Vec<(u64, u64)> {
    let mut last = loaded_last;
    let mut out = Vec::new();
    for &(is_insert, n) in log {
        if is_insert {
            last = last.max(n);
        } else {
            assert!(n <= last, "read key {n} above the last inserted {last}");
            out.push((last - n, last));
        }
    }
    out
}

/// Kolmogorov–Smirnov distance between the distances and the law with rate γ
/// (truncated at each read's own last key).
fn ks_distance(reads: &[(u64, u64)], gamma: f64) -> f64 {
    let max_d = reads.iter().map(|(d, _)| *d).max().unwrap();
    let horizon = max_d.max((12.0 / gamma) as u64);
    let mut observed = vec![0u64; horizon as usize + 1];
    let mut lasts = std::collections::BTreeMap::<u64, u64>::new();
    for (d, last) in reads {
        observed[*d as usize] += 1;
        *lasts.entry(*last).or_default() += 1;
    }
    // Reads grouped by their last key: one normaliser per group.
    let groups: Vec<(f64, f64)> = lasts
        .iter()
        .map(|(last, count)| (below(gamma, last + 1), *count as f64))
        .collect();
    let n = reads.len() as f64;
    let mut seen = 0u64;
    let mut worst = 0.0f64;
    for j in 0..=horizon {
        seen += observed[j as usize];
        let p = below(gamma, j + 1);
        let expected = groups
            .iter()
            .map(|(norm, count)| (p / norm).min(1.0) * count)
            .sum::<f64>()
            / n;
        worst = worst.max((seen as f64 / n - expected).abs());
    }
    worst
}

/// The KS bound at which a true law is rejected with probability ≈ 2e^(−2·2.5²) ≈ 7e-6.
fn bound(n: usize) -> f64 {
    2.5 / (n as f64).sqrt()
}

#[test]
fn keys_count_back_from_the_last_key_with_ycsbs_rate() {
    // Defaults: percentile 95, frac 0.8571428571; last loaded key 999. The
    // truncation at 999 matters (e^(−1000γ) ≈ 3%): redrawing, not clamping to 0.
    let log = run(&[
        ("recordcount", "1000"),
        ("operationcount", "200000"),
        ("readproportion", "1"),
        ("updateproportion", "0"),
    ]);
    let reads = distances(&log, 999);
    assert_eq!(reads.len(), 200_000);
    let g = gamma(95.0, 1000.0, 0.8571428571);
    let ks = ks_distance(&reads, g);
    assert!(ks < bound(reads.len()), "KS {ks} against YCSB's law");
    // The same reads are far from nearby wrong laws (γ without frac, no redraw).
    assert!(ks_distance(&reads, gamma(95.0, 1000.0, 1.0)) > 5.0 * bound(reads.len()));
    let at_zero = reads.iter().filter(|(d, _)| *d == 999).count() as f64;
    assert!(at_zero / (reads.len() as f64) < 0.001, "clamped to key 0");
}

#[test]
fn gamma_comes_from_recordcount_not_the_insert_range() {
    // Another percentile and frac, and a client that loaded only keys 500..999:
    // γ still uses recordcount (YCSB), and keys below insertstart are drawn.
    let log = run(&[
        ("recordcount", "1000"),
        ("insertstart", "500"),
        ("insertcount", "500"),
        ("exponential.percentile", "50"),
        ("exponential.frac", "0.4"),
        ("operationcount", "100000"),
        ("readproportion", "1"),
        ("updateproportion", "0"),
    ]);
    let reads = distances(&log, 999);
    let g = gamma(50.0, 1000.0, 0.4);
    let ks = ks_distance(&reads, g);
    assert!(ks < bound(reads.len()), "KS {ks}");
    assert!(
        reads.iter().any(|(d, _)| *d > 500),
        "keys below insertstart are chosen"
    );
    assert!(ks_distance(&reads, gamma(50.0, 500.0, 0.4)) > 5.0 * bound(reads.len()));
}

#[test]
fn keys_follow_run_phase_inserts_and_never_run_ahead() {
    // Half the operations insert: the last key moves from 999 to ~20999 while
    // γ stays at YCSB's value for recordcount 1000.
    let log = run(&[
        ("recordcount", "1000"),
        ("operationcount", "40000"),
        ("readproportion", "0.5"),
        ("updateproportion", "0"),
        ("insertproportion", "0.5"),
    ]);
    let reads = distances(&log, 999);
    let newest = log
        .iter()
        .filter(|(i, _)| *i)
        .map(|(_, n)| *n)
        .max()
        .unwrap();
    assert!(
        newest > 15_000,
        "inserts extended the key space to {newest}"
    );
    let g = gamma(95.0, 1000.0, 0.8571428571);
    let ks = ks_distance(&reads, g);
    assert!(ks < bound(reads.len()), "KS {ks}");
    // Reads follow the newest key: most land on keys inserted during the run.
    let new_keys = reads.iter().filter(|(d, last)| last - d >= 1000).count();
    assert!(
        new_keys * 10 > reads.len() * 9,
        "{new_keys} of {}",
        reads.len()
    );
}
