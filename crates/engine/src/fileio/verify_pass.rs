//! The read-back pass after a run that wrote with verification: every block the
//! run wrote is read again and checked; mismatches are reported by file and offset.

use std::os::fd::AsRawFd;

use super::block_header;
use super::buffer::AlignedBuf;
use super::io_calls::pread_full;
use super::worker::{MismatchAt, Shared, MISMATCHES_KEPT};

/// What the pass found.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    pub blocks_checked: u64,
    pub mismatches: u64,
    /// The first `MISMATCHES_KEPT`.
    pub first: Vec<MismatchAt>,
    /// A read that failed (the pass stops there).
    pub error: Option<String>,
}

/// Reads back what each stream wrote (`issued[i]` request numbers of stream i).
pub fn read_back(shared: &Shared, issued: &[u64]) -> VerifyReport {
    let mut report = VerifyReport::default();
    let Some(rule) = shared.plan.verify else {
        return report;
    };
    let mut buf = AlignedBuf::new(shared.plan.block_size as usize);
    for (sequencer, &requests) in shared.sequencers.iter().zip(issued) {
        for block in sequencer.written_blocks(requests) {
            let (file, offset) = sequencer.locate(block);
            let fd = shared.files[file].as_raw_fd();
            if let Err(e) = pread_full(fd, &mut buf, offset) {
                report.error = Some(format!(
                    "verify read at offset {offset} of {}: {e}",
                    shared.plan.files[file].path.display()
                ));
                return report;
            }
            report.blocks_checked += 1;
            if let Err(m) = block_header::check(buf.as_slice(), offset, rule.generation) {
                report.mismatches += 1;
                if report.first.len() < MISMATCHES_KEPT {
                    report.first.push(MismatchAt {
                        file,
                        offset,
                        reason: m.to_string(),
                    });
                }
            }
        }
    }
    report
}
