//! Chooses the key number of reads, updates, scans and read-modify-writes from
//! `requestdistribution`, never beyond the highest acknowledged insert (YCSB
//! redraws; `exponential` counts back from that key instead).

use std::sync::Arc;

use super::properties::{CoreConfig, RequestDistribution};
use crate::generator::{
    AcknowledgedCounter, Exponential, Generator, Hotspot, Rng, ScrambledZipfian, Sequential,
    SkewedLatest, Uniform,
};

/// The highest key number that may be chosen.
#[derive(Debug, Clone)]
pub enum KeyLimit {
    /// No inserts in this phase: the loaded range never grows (no shared state to read).
    Fixed(u64),
    /// Run-phase inserts extend the key space.
    Acknowledged(Arc<AcknowledgedCounter>),
}

impl KeyLimit {
    /// The highest key number that exists now.
    #[inline]
    pub fn last(&self) -> u64 {
        match self {
            KeyLimit::Fixed(n) => *n,
            KeyLimit::Acknowledged(c) => c.last(),
        }
    }
}

/// One of YCSB's request distributions.
#[derive(Debug, Clone)]
pub enum KeyChooser {
    Uniform(Uniform),
    Zipfian(ScrambledZipfian),
    Latest(SkewedLatest),
    Hotspot(Hotspot),
    Sequential(Sequential),
    Exponential(Exponential),
}

/// Redraws before giving up and clamping (only reachable with a degenerate range).
const MAX_REDRAWS: u32 = 10_000;

impl KeyChooser {
    /// The chooser of `config`, for a key space whose highest key is `last` now.
    pub fn new(config: &CoreConfig, last: u64) -> Self {
        let lo = config.insert_start;
        let hi = config.insert_start + config.insert_count.max(1) - 1;
        match config.request_distribution {
            RequestDistribution::Uniform => Self::Uniform(Uniform::new(lo, hi)),
            RequestDistribution::Zipfian => Self::Zipfian(ScrambledZipfian::new(
                lo,
                hi + 1 + config.expected_new_keys(),
            )),
            RequestDistribution::Latest => Self::Latest(SkewedLatest::new(last)),
            RequestDistribution::Hotspot => Self::Hotspot(Hotspot::new(
                lo,
                hi,
                config.hotspot_data_fraction,
                config.hotspot_opn_fraction,
            )),
            RequestDistribution::Sequential => Self::Sequential(Sequential::new(lo, hi)),
            RequestDistribution::Exponential => Self::Exponential(Exponential::new(
                config.exponential_percentile,
                config.record_count as f64 * config.exponential_frac,
            )),
        }
    }

    /// The next key number, at most `limit.last()`.
    #[inline]
    pub fn next_keynum(&mut self, rng: &mut Rng, limit: &KeyLimit) -> u64 {
        let last = limit.last();
        match self {
            Self::Latest(g) => g.next_key(rng, last),
            Self::Exponential(g) => {
                for _ in 0..MAX_REDRAWS {
                    if let Some(k) = last.checked_sub(g.next_value(rng)) {
                        return k;
                    }
                }
                last
            }
            _ => {
                for _ in 0..MAX_REDRAWS {
                    let k = self.draw(rng);
                    if k <= last {
                        return k;
                    }
                }
                last
            }
        }
    }

    #[inline]
    fn draw(&mut self, rng: &mut Rng) -> u64 {
        match self {
            Self::Uniform(g) => g.next_value(rng),
            Self::Zipfian(g) => g.next_value(rng),
            Self::Hotspot(g) => g.next_value(rng),
            Self::Sequential(g) => g.next_value(rng),
            Self::Exponential(g) => g.next_value(rng),
            Self::Latest(_) => 0,
        }
    }
}
