//! Number generators with the semantics of YCSB 0.17's `site.ycsb.generator`.
//!
//! Every generator takes the random source as an argument, so each client
//! thread owns one fast RNG and the generators themselves stay plain data
//! (cloned per thread; only the counters are shared). One generator per file.

pub mod constant;
pub mod counter;
pub mod exponential;
pub mod fnv;
pub mod hotspot;
pub mod scrambled_zipfian;
pub mod sequential;
pub mod skewed_latest;
pub mod uniform;
pub mod zipfian;

pub use constant::Constant;
pub use counter::{AcknowledgedCounter, Counter};
pub use exponential::Exponential;
pub use fnv::fnv_hash64;
pub use hotspot::Hotspot;
pub use scrambled_zipfian::ScrambledZipfian;
pub use sequential::Sequential;
pub use skewed_latest::SkewedLatest;
pub use uniform::Uniform;
pub use zipfian::Zipfian;

/// The random source every generator draws from: one per client thread.
pub type Rng = rand::rngs::SmallRng;

/// A source of integers (key numbers, lengths) drawn from a distribution.
pub trait Generator {
    /// The next value.
    fn next_value(&mut self, rng: &mut Rng) -> u64;
}

/// A uniform double in [0, 1), as Java's `Random.nextDouble`.
#[inline]
pub fn unit_f64(rng: &mut Rng) -> f64 {
    use rand::Rng as _;
    rng.random::<f64>()
}

/// A per-thread RNG seeded from the OS.
pub fn thread_rng() -> Rng {
    use rand::SeedableRng as _;
    Rng::from_os_rng()
}
