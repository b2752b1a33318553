//! Zipfian integers, the algorithm of Gray et al., "Quickly Generating
//! Billion-Record Synthetic Databases" (SIGMOD 1994), as YCSB's `ZipfianGenerator`.
//!
//! With ζ(n) = Σ_{i=1..n} 1/i^θ, item `base` is drawn with probability 1/ζ(n),
//! `base + 1` with 1/(2^θ ζ(n)), and so on. The item count may grow between
//! draws (the `latest` distribution follows inserts); ζ is then extended
//! incrementally instead of recomputed.

use super::{unit_f64, Generator, Rng};

/// YCSB's zipfian constant θ.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// ζ(n, θ) = Σ_{i=1..n} 1/i^θ.
pub fn zeta(n: u64, theta: f64) -> f64 {
    zeta_extend(0, n, theta, 0.0)
}

/// Extends `sum` = ζ(from, θ) to ζ(to, θ).
pub fn zeta_extend(from: u64, to: u64, theta: f64, sum: f64) -> f64 {
    let mut sum = sum;
    for i in from..to {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

/// `x^y` for x in (0, 1] as 2^(y·log2 x): cheaper than the general `powf`.
/// With y ≈ 100 the result is within about 1e-14 of `powf`'s, far below what
/// truncating to a rank sees. Used when α is not (nearly) an integer.
#[inline]
fn pow_unit(x: f64, y: f64) -> f64 {
    (y * x.log2()).exp2()
}

/// `x^n` by repeated squaring (7 squarings and 3 multiplies for n = 100): a
/// few nanoseconds against ≈ 25 ns for libm's `log2` + `exp2` on every draw.
#[inline]
fn pow_int(x: f64, n: u32) -> f64 {
    let (mut base, mut n, mut acc) = (x, n, 1.0);
    while n > 0 {
        if n & 1 == 1 {
            acc *= base;
        }
        base *= base;
        n >>= 1;
    }
    acc
}

/// α rounded to an integer when it is one up to rounding (θ = 0.99 gives
/// α = 1/(1 − 0.99) = 99.99999999999991 in f64, not 100). Using the rounded
/// exponent changes x^α by the factor x^(−Δα), a relative 9e-14·|ln x| here; a
/// draw's rank n·x^α is ≥ 1 only where x^α ≥ 1/n, i.e. |ln x| ≤ ln(n)/α ≤ 0.5
/// for any u64 n, so ranks move by at most ~5e-14 of themselves (with the
/// ≈ 1e-14 of the squarings): a rank changes only if n·x^α falls that close
/// to an integer, which no frequency test can see.
fn integral_alpha(alpha: f64) -> Option<u32> {
    let rounded = alpha.round();
    ((alpha - rounded).abs() <= 1e-9 * rounded && (1.0..=1024.0).contains(&rounded))
        .then_some(rounded as u32)
}

/// Zipfian over `[base, base + items − 1]`, most popular first.
#[derive(Debug, Clone)]
pub struct Zipfian {
    base: u64,
    items: u64,
    theta: f64,
    alpha: f64,
    /// `alpha` when it is an integer up to rounding (see `integral_alpha`).
    alpha_int: Option<u32>,
    zeta2: f64,
    half_pow_theta: f64,
    zetan: f64,
    eta: f64,
    count_for_zeta: u64,
}

impl Zipfian {
    /// Zipfian over `[min, max]` with θ = 0.99, computing ζ(max − min + 1).
    pub fn new(min: u64, max: u64) -> Self {
        let items = max.saturating_sub(min) + 1;
        Self::with_zeta(min, max, ZIPFIAN_CONSTANT, zeta(items, ZIPFIAN_CONSTANT))
    }

    /// Zipfian over `[min, max]` with a known ζ(max − min + 1, θ) (saves the O(n) sum).
    pub fn with_zeta(min: u64, max: u64, theta: f64, zetan: f64) -> Self {
        let (min, max) = (min.min(max), min.max(max));
        let items = max - min + 1;
        let zeta2 = zeta(2, theta);
        let mut z = Self {
            base: min,
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            alpha_int: integral_alpha(1.0 / (1.0 - theta)),
            zeta2,
            half_pow_theta: 0.5f64.powf(theta),
            zetan,
            eta: 0.0,
            count_for_zeta: items,
        };
        z.eta = z.eta_for(items);
        z
    }

    fn eta_for(&self, items: u64) -> f64 {
        (1.0 - (2.0 / items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// ζ(n) of the current item count.
    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// The number of items of the last draw.
    pub fn item_count(&self) -> u64 {
        self.count_for_zeta
    }

    /// A draw over `item_count` items (which may have grown since the last call).
    #[inline]
    pub fn next_long(&mut self, rng: &mut Rng, item_count: u64) -> u64 {
        if item_count != self.count_for_zeta && item_count > 0 {
            self.resize(item_count);
        }
        let u = unit_f64(rng);
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + self.half_pow_theta {
            return self.base + 1;
        }
        let offset =
            (self.count_for_zeta as f64 * self.pow_alpha(self.eta * u - self.eta + 1.0)) as u64;
        self.base + offset.min(self.count_for_zeta - 1)
    }

    /// `x^α` for x in (0, 1].
    #[inline]
    fn pow_alpha(&self, x: f64) -> f64 {
        match self.alpha_int {
            Some(n) => pow_int(x, n),
            None => pow_unit(x, self.alpha),
        }
    }

    #[cold]
    fn resize(&mut self, item_count: u64) {
        self.zetan = if item_count > self.count_for_zeta {
            zeta_extend(self.count_for_zeta, item_count, self.theta, self.zetan)
        } else {
            // Shrinking is rare (YCSB only warns); recompute from scratch.
            zeta(item_count, self.theta)
        };
        self.count_for_zeta = item_count;
        self.eta = self.eta_for(item_count);
    }
}

impl Generator for Zipfian {
    #[inline]
    fn next_value(&mut self, rng: &mut Rng) -> u64 {
        let items = self.items;
        self.next_long(rng, items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow_unit_agrees_with_powf() {
        let alpha = 1.0 / (1.0 - ZIPFIAN_CONSTANT);
        for i in 1..=10_000 {
            let x = 0.7 + 0.3 * f64::from(i) / 10_000.0;
            let (fast, exact) = (pow_unit(x, alpha), x.powf(alpha));
            assert!(
                (fast - exact).abs() <= 1e-13 * exact.max(1e-300),
                "{x}: {fast} vs {exact}"
            );
        }
    }

    #[test]
    fn integral_alpha_is_found_only_up_to_rounding() {
        assert_eq!(integral_alpha(1.0 / (1.0 - ZIPFIAN_CONSTANT)), Some(100));
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.5)), Some(2));
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.9)), Some(10));
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.8)), Some(5));
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.75)), Some(4));
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.95)), Some(20));
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.3)), None);
        // 100,000 is past the squaring bound: the general path.
        assert_eq!(integral_alpha(1.0 / (1.0 - 0.99999)), None);
    }

    #[test]
    fn draws_with_an_integral_alpha_match_powf() {
        // The default θ = 0.99 takes the squaring path; its x^α agrees with
        // `powf` at YCSB's exact (non-integral) α to the bound in `integral_alpha`.
        let z = Zipfian::new(0, 999_999);
        assert_eq!(z.alpha_int, Some(100));
        for i in 1..=10_000 {
            let x = 0.5 + 0.5 * f64::from(i) / 10_000.0;
            let (fast, exact) = (z.pow_alpha(x), x.powf(z.alpha));
            assert!(
                (fast - exact).abs() <= 1e-13 * exact.max(1e-300),
                "{x}: {fast} vs {exact}"
            );
        }
        assert_eq!(pow_int(0.5, 0), 1.0);
        assert_eq!(pow_int(0.5, 3), 0.125);
    }
}
