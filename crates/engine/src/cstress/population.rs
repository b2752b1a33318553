//! The population: which partition (by its seed, a number) each operation visits.
//!
//! As in cassandra-stress, `seq=A..B` hands the seeds A, A+1, …, B out in order to
//! whichever thread asks next, and starts again at A after B (so `write n=N` with
//! `seq=1..N` writes every partition once); `dist=DIST(..)` draws each seed from a
//! distribution. The defaults are the real tool's: `seq=1..N` for `write`, and
//! `dist=GAUSSIAN(1..N)` (mean in the middle, the ends three standard deviations
//! away, draws clamped to the range) for `read` and `mixed`, where N is the
//! operation count (`n=`) or 1,000,000.

use std::sync::atomic::{AtomicU64, Ordering};

use rand::Rng as _;

use crate::generator::Rng;

/// The population size cassandra-stress assumes when no operation count is given.
pub const DEFAULT_SIZE: u64 = 1_000_000;

/// A distribution of whole numbers, as cassandra-stress writes them (`GAUSSIAN(1..100,3)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dist {
    /// Normal with `mean` and `stdev`, each draw truncated to a whole number and
    /// clamped to `min..=max`.
    Gaussian {
        min: u64,
        max: u64,
        mean: f64,
        stdev: f64,
    },
    /// Every value of `min..=max` equally likely.
    Uniform { min: u64, max: u64 },
    /// Always the same value.
    Fixed(u64),
}

const ALLOWED_DISTS: &str = "GAUSSIAN(min..max[,stdvrng]), GAUSSIAN(min..max,mean,stdev), \
     UNIFORM(min..max), FIXED(val) (aliases GAUSS, NORMAL, NORM)";

impl Dist {
    /// cassandra-stress's `GAUSSIAN(min..max)`: mean in the middle, `stdvrng` (3)
    /// standard deviations from the mean to either end.
    pub fn gaussian(min: u64, max: u64, stdvrng: f64) -> Self {
        let mean = (min as f64 + max as f64) / 2.0;
        Dist::Gaussian {
            min,
            max,
            mean,
            stdev: (max as f64 - min as f64) / 2.0 / stdvrng,
        }
    }

    /// Parses `NAME(args)` (case-insensitive); the error lists the supported ones.
    pub fn parse(text: &str) -> Result<Self, String> {
        let unsupported = || format!("'{text}' is not supported; allowed: {ALLOWED_DISTS}");
        let open = text.find('(').ok_or_else(unsupported)?;
        let inner = text[open + 1..].strip_suffix(')').ok_or_else(unsupported)?;
        let params: Vec<&str> = inner.split(',').map(str::trim).collect();
        let number = |s: &str| -> Result<f64, String> {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("'{s}' is not a number in '{text}'"))
        };
        match text[..open].to_ascii_lowercase().as_str() {
            "gaussian" | "gauss" | "normal" | "norm" => {
                let (min, max) = super::args::range(params[0])?;
                let dist = match params.len() {
                    1 => Dist::gaussian(min, max, 3.0),
                    2 => Dist::gaussian(min, max, number(params[1])?),
                    3 => Dist::Gaussian {
                        min,
                        max,
                        mean: number(params[1])?,
                        stdev: number(params[2])?,
                    },
                    _ => return Err(unsupported()),
                };
                if let Dist::Gaussian { stdev, .. } = dist {
                    if stdev.is_nan() || stdev < 0.0 || stdev.is_infinite() {
                        return Err(format!("'{text}': the standard deviation must be >= 0"));
                    }
                }
                Ok(dist)
            }
            "uniform" if params.len() == 1 => {
                let (min, max) = super::args::range(params[0])?;
                Ok(Dist::Uniform { min, max })
            }
            "fixed" if params.len() == 1 => Ok(Dist::Fixed(super::args::count(params[0])?)),
            _ => Err(unsupported()),
        }
    }

    /// The smallest and largest values it draws.
    pub fn bounds(&self) -> (u64, u64) {
        match *self {
            Dist::Gaussian { min, max, .. } | Dist::Uniform { min, max } => (min, max),
            Dist::Fixed(v) => (v, v),
        }
    }

    /// One draw.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match *self {
            Dist::Gaussian {
                min,
                max,
                mean,
                stdev,
            } => {
                let v = mean + stdev * standard_normal(rng);
                // Truncated towards zero, then clamped, as the real tool bounds its draws.
                (v.trunc().max(0.0) as u64).clamp(min, max)
            }
            Dist::Uniform { min, max } => rng.random_range(min..=max),
            Dist::Fixed(v) => v,
        }
    }

    /// How the result names it: `GAUSSIAN(1..1000,mean=500.5,stdev=166.5)`.
    pub fn describe(&self) -> String {
        match *self {
            Dist::Gaussian {
                min,
                max,
                mean,
                stdev,
            } => format!("GAUSSIAN({min}..{max},mean={mean},stdev={stdev})"),
            Dist::Uniform { min, max } => format!("UNIFORM({min}..{max})"),
            Dist::Fixed(v) => format!("FIXED({v})"),
        }
    }
}

/// One standard normal draw (Box–Muller, the cosine half).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// `-pop`: sequential seeds or a distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PopulationSpec {
    Seq { first: u64, last: u64 },
    Dist(Dist),
}

impl PopulationSpec {
    /// The smallest and largest seed visited.
    pub fn bounds(&self) -> (u64, u64) {
        match *self {
            PopulationSpec::Seq { first, last } => (first, last),
            PopulationSpec::Dist(d) => d.bounds(),
        }
    }

    /// `seq=1..1000` or the distribution's description.
    pub fn describe(&self) -> String {
        match *self {
            PopulationSpec::Seq { first, last } => format!("seq={first}..{last}"),
            PopulationSpec::Dist(d) => format!("dist={}", d.describe()),
        }
    }
}

/// The population shared by every client thread of a run.
#[derive(Debug)]
pub struct Population {
    spec: PopulationSpec,
    /// Seeds handed out so far (`seq` only).
    next: AtomicU64,
}

impl Population {
    pub fn new(spec: PopulationSpec) -> Self {
        Self {
            spec,
            next: AtomicU64::new(0),
        }
    }

    pub fn spec(&self) -> &PopulationSpec {
        &self.spec
    }

    /// The next seed for a thread drawing with `rng`.
    pub fn seed(&self, rng: &mut Rng) -> u64 {
        match self.spec {
            PopulationSpec::Seq { first, last } => {
                let size = last - first + 1;
                first + self.next.fetch_add(1, Ordering::Relaxed) % size
            }
            PopulationSpec::Dist(d) => d.sample(rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng as _;

    use super::*;

    #[test]
    fn sequences_hand_out_every_seed_once_then_wrap() {
        let p = Population::new(PopulationSpec::Seq { first: 5, last: 7 });
        let mut rng = Rng::seed_from_u64(1);
        let seeds: Vec<u64> = (0..7).map(|_| p.seed(&mut rng)).collect();
        assert_eq!(seeds, [5, 6, 7, 5, 6, 7, 5]);
    }

    #[test]
    fn the_default_gaussian_stays_in_range_around_the_middle() {
        let d = Dist::parse("GAUSSIAN(1..1000)").unwrap();
        assert_eq!(d, Dist::gaussian(1, 1000, 3.0));
        let Dist::Gaussian { mean, stdev, .. } = d else {
            unreachable!()
        };
        assert_eq!((mean, stdev), (500.5, 999.0 / 6.0));
        let mut rng = Rng::seed_from_u64(7);
        let draws: Vec<u64> = (0..20_000).map(|_| d.sample(&mut rng)).collect();
        assert!(draws.iter().all(|&s| (1..=1000).contains(&s)));
        let avg = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((avg - 500.0).abs() < 10.0, "{avg}");
        // About 68 % within one standard deviation of the mean.
        let near = draws
            .iter()
            .filter(|&&s| (s as f64 - mean).abs() <= stdev)
            .count() as f64
            / draws.len() as f64;
        assert!((0.64..0.72).contains(&near), "{near}");
    }

    #[test]
    fn parses_the_supported_distributions() {
        assert_eq!(
            Dist::parse("uniform(1..10)"),
            Ok(Dist::Uniform { min: 1, max: 10 })
        );
        assert_eq!(Dist::parse("FIXED(34)"), Ok(Dist::Fixed(34)));
        assert_eq!(
            Dist::parse("gauss(1..1m,500000,1000)"),
            Ok(Dist::Gaussian {
                min: 1,
                max: 1_000_000,
                mean: 500_000.0,
                stdev: 1000.0
            })
        );
        assert!(Dist::parse("extreme(1..10,1.5)").is_err());
        assert!(Dist::parse("~exp(1..10)").is_err());
        let mut rng = Rng::seed_from_u64(3);
        let u = Dist::Uniform { min: 3, max: 4 };
        assert!((0..100).all(|_| (3..=4).contains(&u.sample(&mut rng))));
    }
}
