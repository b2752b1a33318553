//! Chooses the next operation from the proportions, as YCSB's `DiscreteGenerator`:
//! weights above zero in the order read, update, insert, scan, read-modify-write;
//! U ∈ [0, 1) picks the first whose cumulative share exceeds U.

use super::properties::Proportions;
use crate::generator::{unit_f64, Rng};

/// An operation of the core workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CoreOperation {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

/// Weighted choice of operations.
#[derive(Debug, Clone)]
pub struct OperationChooser {
    cumulative: Vec<(f64, CoreOperation)>,
}

impl OperationChooser {
    /// The chooser for `p`, or None when every weight is zero.
    pub fn new(p: &Proportions) -> Option<Self> {
        let weights = [
            (p.read, CoreOperation::Read),
            (p.update, CoreOperation::Update),
            (p.insert, CoreOperation::Insert),
            (p.scan, CoreOperation::Scan),
            (p.read_modify_write, CoreOperation::ReadModifyWrite),
        ];
        let total: f64 = weights.iter().map(|(w, _)| w).sum();
        if total <= 0.0 {
            return None;
        }
        let mut sum = 0.0;
        let cumulative = weights
            .into_iter()
            .filter(|(w, _)| *w > 0.0)
            .map(|(w, op)| {
                sum += w / total;
                (sum, op)
            })
            .collect();
        Some(Self { cumulative })
    }

    /// The next operation.
    #[inline]
    pub fn next(&self, rng: &mut Rng) -> CoreOperation {
        let u = unit_f64(rng);
        for (edge, op) in &self.cumulative {
            if u < *edge {
                return *op;
            }
        }
        // Rounding can leave the last edge a hair below 1.
        self.cumulative
            .last()
            .map_or(CoreOperation::Read, |(_, op)| *op)
    }
}
