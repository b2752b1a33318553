//! Frequency tests of the generators against what YCSB defines.
//!
//! Each test draws 10^6 values from a seeded RNG and compares observed
//! frequencies with the exact probabilities of the definition. Tolerances are
//! absolute and stated per test; with 10^6 draws one standard deviation of a
//! frequency p is sqrt(p(1−p)/10^6) ≤ 0.0005, so they sit at 6σ or more.

use contio_engine::generator::zipfian::{zeta, ZIPFIAN_CONSTANT};
use contio_engine::generator::{
    fnv_hash64, scrambled_zipfian, Exponential, Generator, Hotspot, Rng, ScrambledZipfian,
    Sequential, SkewedLatest, Uniform, Zipfian,
};
use rand::SeedableRng;

const DRAWS: usize = 1_000_000;

fn rng() -> Rng {
    Rng::seed_from_u64(0x5eed)
}

fn frequencies(n: usize, mut draw: impl FnMut() -> u64) -> Vec<f64> {
    let mut counts = vec![0u64; n];
    for _ in 0..DRAWS {
        let v = draw() as usize;
        assert!(v < n, "value {v} outside [0, {n})");
        counts[v] += 1;
    }
    counts
        .into_iter()
        .map(|c| c as f64 / DRAWS as f64)
        .collect()
}

fn assert_close(what: &str, observed: f64, expected: f64, tolerance: f64) {
    assert!(
        (observed - expected).abs() <= tolerance,
        "{what}: observed {observed:.5}, expected {expected:.5} ± {tolerance}"
    );
}

#[test]
fn uniform_is_flat() {
    let mut r = rng();
    let mut g = Uniform::new(0, 99);
    let f = frequencies(100, || g.next_value(&mut r));
    // Tolerance 0.002 per value (p = 0.01, σ ≈ 0.0001).
    for (v, p) in f.iter().enumerate() {
        assert_close(&format!("P({v})"), *p, 0.01, 0.002);
    }
}

#[test]
fn zipfian_most_popular_is_one_over_zeta() {
    let n = 1000u64;
    let mut r = rng();
    let mut g = Zipfian::new(0, n - 1);
    let f = frequencies(n as usize, || g.next_value(&mut r));
    let zn = zeta(n, ZIPFIAN_CONSTANT);
    // P(0) = 1/ζ(n, 0.99) ≈ 0.134 and P(1) = 1/(2^0.99 ζ(n)) exactly (Gray et al.); ± 0.003.
    assert_close("P(most popular)", f[0], 1.0 / zn, 0.003);
    assert_close(
        "P(second)",
        f[1],
        1.0 / (2f64.powf(ZIPFIAN_CONSTANT) * zn),
        0.003,
    );
    // The tail follows 1/i^θ approximately: item 10 is ~10× rarer than item 0.
    let ratio = f[0] / f[9];
    assert!((7.0..14.0).contains(&ratio), "P(0)/P(9) = {ratio}");
}

#[test]
fn zipfian_zeta_grows_incrementally() {
    let mut r = rng();
    let mut g = Zipfian::new(0, 99);
    g.next_long(&mut r, 1000);
    assert!((g.zetan() - zeta(1000, ZIPFIAN_CONSTANT)).abs() < 1e-9);
    assert_eq!(g.item_count(), 1000);
}

#[test]
fn scrambled_zipfian_scatters_the_popular_keys() {
    let n = 1000u64;
    let mut r = rng();
    let mut g = ScrambledZipfian::new(0, n - 1);
    let f = frequencies(n as usize, || g.next_value(&mut r));
    // Rank 0 of the inner zipfian over 10^10 items has P = 1/ζ(10^10) = 1/26.469 ≈ 0.0378; its key
    // also collects a share of the ranks that hash onto it (≈ 1/n of the rest), hence the upper bound.
    let hottest = fnv_hash64(0) as u64 % n;
    let p0 = 1.0 / scrambled_zipfian::ZETAN;
    assert!(
        f[hottest as usize] >= p0 - 0.002,
        "P(key of rank 0) = {}",
        f[hottest as usize]
    );
    assert!(
        f[hottest as usize] <= p0 + 0.004,
        "P(key of rank 0) = {}",
        f[hottest as usize]
    );
    let second = fnv_hash64(1) as u64 % n;
    assert!(f[second as usize] >= p0 / 2f64.powf(ZIPFIAN_CONSTANT) - 0.002);
    // Scattered: the hottest key is not the start of the range.
    assert_ne!(hottest, 0);
}

#[test]
fn latest_favours_the_newest_key_and_follows_growth() {
    let mut r = rng();
    let mut g = SkewedLatest::new(1000);
    let mut newest = 0usize;
    for _ in 0..DRAWS {
        let k = g.next_key(&mut r, 1000);
        assert!((1..=1000).contains(&k));
        newest += usize::from(k == 1000);
    }
    assert_close(
        "P(latest)",
        newest as f64 / DRAWS as f64,
        1.0 / zeta(1000, ZIPFIAN_CONSTANT),
        0.003,
    );
    // After inserts the latest key moves, and with it the most popular key.
    let mut newest = 0usize;
    for _ in 0..DRAWS {
        newest += usize::from(g.next_key(&mut r, 2000) == 2000);
    }
    assert_close(
        "P(latest after growth)",
        newest as f64 / DRAWS as f64,
        1.0 / zeta(2000, ZIPFIAN_CONSTANT),
        0.003,
    );
}

#[test]
fn hotspot_sends_the_op_fraction_to_the_hot_set() {
    let mut r = rng();
    let mut g = Hotspot::new(0, 999, 0.2, 0.8);
    assert_eq!(g.hot_interval(), 200);
    let f = frequencies(1000, || g.next_value(&mut r));
    let hot: f64 = f[..200].iter().sum();
    assert_close("P(hot set)", hot, 0.8, 0.003);
    // Uniform inside each part: hot items 0.8/200 = 0.004 each, cold 0.2/800 = 0.00025; ± 0.0007.
    assert_close("P(hot item 7)", f[7], 0.004, 0.0007);
    assert_close("P(cold item 700)", f[700], 0.00025, 0.0002);
}

#[test]
fn exponential_puts_the_percentile_below_the_range() {
    let mut r = rng();
    let mut g = Exponential::new(95.0, 1000.0);
    let mut below = 0usize;
    for _ in 0..DRAWS {
        below += usize::from(g.next_value(&mut r) < 1000);
    }
    // P(X < range) = percentile/100 = 0.95 by construction; ± 0.003.
    assert_close("P(x < 1000)", below as f64 / DRAWS as f64, 0.95, 0.003);
}

#[test]
fn sequential_walks_and_wraps_across_clones() {
    let mut r = rng();
    let mut a = Sequential::new(10, 14);
    let mut b = a.clone();
    let drawn: Vec<u64> = (0..6)
        .map(|i| {
            if i % 2 == 0 {
                a.next_value(&mut r)
            } else {
                b.next_value(&mut r)
            }
        })
        .collect();
    assert_eq!(drawn, vec![10, 11, 12, 13, 14, 10]);
}
