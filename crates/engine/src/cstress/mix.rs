//! Which operation a thread does next. `write` and `read` do one kind only; `mixed`
//! picks a kind by `ratio(write=W,read=R)` and keeps to it for a run of operations
//! whose length is drawn from `clustering` (GAUSSIAN(1..10) by default), as
//! cassandra-stress's mixed command does.

use rand::Rng as _;

use super::args::{Command, Ratio};
use super::population::Dist;
use crate::generator::Rng;
use crate::measure::Operation;

/// One thread's operation picker.
#[derive(Debug, Clone)]
pub struct Mix {
    command: Command,
    write_share: f64,
    clustering: Dist,
    current: Operation,
    left: u64,
}

impl Mix {
    pub fn new(command: Command, ratio: Ratio, clustering: Dist) -> Self {
        Self {
            command,
            write_share: ratio.write / (ratio.write + ratio.read),
            clustering,
            current: Operation::Write,
            left: 0,
        }
    }

    /// The next operation.
    pub fn next(&mut self, rng: &mut Rng) -> Operation {
        match self.command {
            Command::Write => Operation::Write,
            Command::Read => Operation::Read,
            Command::Mixed => {
                if self.left == 0 {
                    self.current = if rng.random::<f64>() < self.write_share {
                        Operation::Write
                    } else {
                        Operation::Read
                    };
                    self.left = self.clustering.sample(rng).max(1);
                }
                self.left -= 1;
                self.current
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng as _;

    use super::*;

    #[test]
    fn mixed_follows_the_ratio_in_runs() {
        let ratio = Ratio {
            write: 1.0,
            read: 3.0,
        };
        let mut mix = Mix::new(Command::Mixed, ratio, Dist::gaussian(1, 10, 3.0));
        let mut rng = Rng::seed_from_u64(11);
        let ops: Vec<Operation> = (0..100_000).map(|_| mix.next(&mut rng)).collect();
        let writes = ops.iter().filter(|&&o| o == Operation::Write).count() as f64;
        let share = writes / ops.len() as f64;
        assert!((share - 0.25).abs() < 0.02, "{share}");
        // Runs of one kind, about 5.5 long on average (the kind may repeat across runs).
        let switches = ops.windows(2).filter(|w| w[0] != w[1]).count() as f64;
        let mean_run = ops.len() as f64 / (switches + 1.0);
        assert!(mean_run > 5.0, "{mean_run}");
        let mut only = Mix::new(Command::Read, ratio, Dist::Fixed(1));
        assert!((0..10).all(|_| only.next(&mut rng) == Operation::Read));
        let mut one = Mix::new(
            Command::Mixed,
            Ratio {
                write: 0.0,
                read: 1.0,
            },
            Dist::Fixed(3),
        );
        assert!((0..10).all(|_| one.next(&mut rng) == Operation::Read));
    }
}
