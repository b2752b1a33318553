//! TPC-C's random inputs (clause 2.1.6 and 4.3.2): uniform integers, the
//! non-uniform `NURand(A, x, y)`, its run-time constants `C`, customer last
//! names from syllables, and the random strings of the data set.

use rand::Rng as _;

use crate::generator::Rng;

/// The ten syllables of customer last names (clause 4.3.2.3).
pub const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The constants `C` of `NURand` for `C_LAST`, `C_ID` and `OL_I_ID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    pub c_last: i64,
    pub c_id: i64,
    pub ol_i_id: i64,
}

impl Constants {
    /// Random constants for the load phase.
    pub fn for_load(rng: &mut Rng) -> Self {
        Self {
            c_last: rng.random_range(0..=255),
            c_id: rng.random_range(0..=1023),
            ol_i_id: rng.random_range(0..=8191),
        }
    }

    /// Constants for the run phase: `C_LAST` differs from the load's by 65..=119
    /// but neither 96 nor 112 (clause 2.1.6.1), so the run's last names are not
    /// the load's; the others are drawn afresh.
    pub fn for_run(load_c_last: i64, rng: &mut Rng) -> Self {
        let c_last = loop {
            let c = rng.random_range(0..=255);
            if valid_delta((c - load_c_last).abs()) {
                break c;
            }
        };
        Self {
            c_last,
            c_id: rng.random_range(0..=1023),
            ol_i_id: rng.random_range(0..=8191),
        }
    }
}

/// Whether `|C_run - C_load|` is allowed for `C_LAST` (clause 2.1.6.1).
pub fn valid_delta(delta: i64) -> bool {
    (65..=119).contains(&delta) && delta != 96 && delta != 112
}

/// `NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x`.
pub fn nurand(rng: &mut Rng, a: i64, x: i64, y: i64, c: i64) -> i64 {
    let r = rng.random_range(0..=a) | rng.random_range(x..=y);
    ((r + c) % (y - x + 1)) + x
}

/// A uniform integer in `[x, y]`.
pub fn uniform(rng: &mut Rng, x: i64, y: i64) -> i64 {
    rng.random_range(x..=y)
}

/// The last name of number `n` (0..=999): the syllables of its three digits.
pub fn last_name(n: i64) -> String {
    let n = n.clamp(0, 999) as usize;
    let mut name = String::with_capacity(15);
    for digit in [n / 100, (n / 10) % 10, n % 10] {
        name.push_str(SYLLABLES[digit]);
    }
    name
}

const ALPHANUMERIC: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// A random alphanumeric string of `min..=max` characters (clause 4.3.2.2's a-string).
pub fn a_string(rng: &mut Rng, min: usize, max: usize) -> String {
    let len = rng.random_range(min..=max);
    (0..len)
        .map(|_| ALPHANUMERIC[rng.random_range(0..ALPHANUMERIC.len())] as char)
        .collect()
}

/// A random string of `min..=max` digits (n-string).
pub fn n_string(rng: &mut Rng, min: usize, max: usize) -> String {
    let len = rng.random_range(min..=max);
    (0..len)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// `I_DATA` and `S_DATA`: 26..=50 characters, 10 % of them with `ORIGINAL`
/// at a random place (clause 4.3.3.1).
pub fn data_with_original(rng: &mut Rng) -> String {
    let mut data = a_string(rng, 26, 50);
    if rng.random_range(0..10) == 0 {
        let at = rng.random_range(0..=data.len() - 8);
        data.replace_range(at..at + 8, "ORIGINAL");
    }
    data
}

/// A zip code: four random digits and `11111`.
pub fn zip(rng: &mut Rng) -> String {
    let mut z = n_string(rng, 4, 4);
    z.push_str("11111");
    z
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    #[test]
    fn nurand_stays_in_range_and_is_skewed() {
        let mut rng = Rng::seed_from_u64(7);
        let mut counts = vec![0u32; 3001];
        for _ in 0..300_000 {
            let v = nurand(&mut rng, 1023, 1, 3000, 259);
            assert!((1..=3000).contains(&v), "{v}");
            counts[v as usize] += 1;
        }
        // Uniform would give 100 each; NURand's OR makes some values far more likely.
        let max = *counts.iter().max().unwrap();
        let min = *counts[1..].iter().min().unwrap();
        assert!(max > 3 * min.max(1), "max {max} min {min}");
        for (a, x, y) in [(255, 0, 999), (8191, 1, 100_000)] {
            for _ in 0..10_000 {
                let v = nurand(&mut rng, a, x, y, 123);
                assert!((x..=y).contains(&v));
            }
        }
    }

    #[test]
    fn run_constant_respects_the_delta_rule() {
        let mut rng = Rng::seed_from_u64(1);
        for load in [0, 17, 128, 255] {
            for _ in 0..200 {
                let run = Constants::for_run(load, &mut rng);
                assert!(valid_delta((run.c_last - load).abs()), "{load} {run:?}");
            }
        }
        assert!(!valid_delta(96) && !valid_delta(112) && !valid_delta(64));
        assert!(valid_delta(65) && valid_delta(119));
    }

    #[test]
    fn last_names_are_built_from_syllables() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
    }

    #[test]
    fn strings_have_their_lengths() {
        let mut rng = Rng::seed_from_u64(3);
        for _ in 0..1000 {
            let s = a_string(&mut rng, 8, 16);
            assert!((8..=16).contains(&s.len()));
            assert!(s.bytes().all(|b| b.is_ascii_alphanumeric()));
            assert!(data_with_original(&mut rng).len() >= 26);
        }
        assert_eq!(zip(&mut rng).len(), 9);
        let originals = (0..10_000)
            .filter(|_| data_with_original(&mut rng).contains("ORIGINAL"))
            .count();
        assert!((800..1200).contains(&originals), "{originals}");
    }
}
