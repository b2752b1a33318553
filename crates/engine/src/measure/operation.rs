//! The operation types that are measured, with the names YCSB prints.
//!
//! One enum for every workload kind (YCSB and file I/O), so recorders can keep
//! fixed arrays indexed by operation instead of maps on the hot path.

use std::fmt;

/// A measured operation type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
    Delete,
    Write,
    Fsync,
    Open,
    Close,
    /// A client thread's `Session::cleanup` (YCSB reports it as `[CLEANUP]`).
    Cleanup,
    /// Checking a read's values under `dataintegrity` (YCSB's `[VERIFY]`).
    Verify,
    /// TPC-C's five transactions (`contio-engine tpcc run`), each timed whole:
    /// from its first statement to its commit, retries included.
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

impl Operation {
    /// Every operation, in report order.
    pub const ALL: [Operation; 17] = [
        Operation::Read,
        Operation::Update,
        Operation::Insert,
        Operation::Scan,
        Operation::ReadModifyWrite,
        Operation::Delete,
        Operation::Write,
        Operation::Fsync,
        Operation::Open,
        Operation::Close,
        Operation::Cleanup,
        Operation::Verify,
        Operation::NewOrder,
        Operation::Payment,
        Operation::OrderStatus,
        Operation::Delivery,
        Operation::StockLevel,
    ];

    /// The number of operation types (array sizes).
    pub const COUNT: usize = Self::ALL.len();

    /// The name in reports: `READ`, `READ-MODIFY-WRITE`, …
    pub fn name(self) -> &'static str {
        match self {
            Operation::Read => "READ",
            Operation::Update => "UPDATE",
            Operation::Insert => "INSERT",
            Operation::Scan => "SCAN",
            Operation::ReadModifyWrite => "READ-MODIFY-WRITE",
            Operation::Delete => "DELETE",
            Operation::Write => "WRITE",
            Operation::Fsync => "FSYNC",
            Operation::Open => "OPEN",
            Operation::Close => "CLOSE",
            Operation::Cleanup => "CLEANUP",
            Operation::Verify => "VERIFY",
            Operation::NewOrder => "NEW_ORDER",
            Operation::Payment => "PAYMENT",
            Operation::OrderStatus => "ORDER_STATUS",
            Operation::Delivery => "DELIVERY",
            Operation::StockLevel => "STOCK_LEVEL",
        }
    }

    /// The name failures of this operation are timed under (`READ-FAILED`).
    pub fn failed_name(self) -> String {
        format!("{}-FAILED", self.name())
    }

    /// Position in `ALL`.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The operation named `name` (as `name()` prints it).
    pub fn from_name(name: &str) -> Option<Operation> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a latency is filed: the operation, and whether it succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot {
    pub operation: Operation,
    pub failed: bool,
}

impl Slot {
    /// The number of slots (array sizes).
    pub const COUNT: usize = Operation::COUNT * 2;

    /// Position in slot arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.operation.index() * 2 + usize::from(self.failed)
    }

    /// The slot at position `index`.
    pub fn from_index(index: usize) -> Slot {
        Slot {
            operation: Operation::ALL[(index / 2) % Operation::COUNT],
            failed: index % 2 == 1,
        }
    }

    /// The report name: `READ` or `READ-FAILED`.
    pub fn name(self) -> String {
        if self.failed {
            self.operation.failed_name()
        } else {
            self.operation.name().to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_round_trip() {
        for i in 0..Slot::COUNT {
            assert_eq!(Slot::from_index(i).index(), i);
        }
        assert_eq!(
            Slot {
                operation: Operation::Read,
                failed: true
            }
            .name(),
            "READ-FAILED"
        );
        assert_eq!(
            Operation::from_name("READ-MODIFY-WRITE"),
            Some(Operation::ReadModifyWrite)
        );
    }
}
