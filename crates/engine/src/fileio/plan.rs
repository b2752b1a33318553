//! What a file workload does, whichever tool's vocabulary described it: the
//! files, the streams of requests over them, and how the run stops. Both
//! `sysbench` and `fio` options are turned into a `Plan`; the run loop knows
//! only this.

use std::path::PathBuf;
use std::time::Duration;

/// Most threads a plan may run (as YCSB phases: `client::config::MAX_THREADS`).
pub const MAX_THREADS: usize = crate::client::config::MAX_THREADS;
/// Most requests in flight per io_uring thread (each has its own buffer; the
/// kernel's ring limit is 32768 entries).
pub const MAX_DEPTH: u64 = 4096;

/// Checks a count option (`threads`, `numjobs`, `iodepth`, …) against `1..=max`.
/// 0 is refused: running one thread (or one request in flight) when asked for
/// none would be silently different from what was asked.
pub fn bounded(option: &str, value: u64, max: u64) -> Result<usize, super::error::FileIoError> {
    if value == 0 || value > max {
        return Err(super::error::FileIoError::bad_value(
            option,
            &value.to_string(),
            &format!("an integer from 1 to {max}"),
        ));
    }
    usize::try_from(value).map_err(|_| {
        super::error::FileIoError::bad_value(
            option,
            &value.to_string(),
            &format!("an integer from 1 to {max}"),
        )
    })
}

/// How requests are issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoEngine {
    /// `pread`/`pwrite`, one request at a time per thread.
    Sync,
    /// io_uring, up to `Plan::depth` requests in flight per thread.
    Uring,
    /// The files mapped into memory; reads and writes are copies.
    Mmap,
}

impl IoEngine {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            IoEngine::Sync => "sync",
            IoEngine::Uring => "io_uring",
            IoEngine::Mmap => "mmap",
        }
    }
}

/// Which call makes written data durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncCall {
    Fsync,
    Fdatasync,
}

/// The order of blocks within a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Block after block, wrapping at the end.
    Sequential,
    /// Uniformly random blocks.
    Random,
    /// Every block once per pass in a scattered order (random writes that verify).
    Permuted,
}

/// The read share of read/write requests, as a fraction in [0, 1].
///
/// Requests alternate deterministically (the k-th is a read when
/// ⌊(k+1)·share⌋ > ⌊k·share⌋), so any prefix holds the configured mix to
/// within one request; sysbench's counters and fio's `rwmixread` aim at the same.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix {
    pub read_share: f64,
}

impl Mix {
    /// Whether the k-th read/write request of a stream is a read.
    #[inline]
    pub fn is_read(self, k: u64) -> bool {
        if self.read_share >= 1.0 {
            return true;
        }
        if self.read_share <= 0.0 {
            return false;
        }
        ((k + 1) as f64 * self.read_share).floor() > (k as f64 * self.read_share).floor()
    }

    /// Reads among the first `k` requests.
    pub fn reads_in(self, k: u64) -> u64 {
        (k as f64 * self.read_share.clamp(0.0, 1.0)).floor() as u64
    }
}

/// A file the workload uses and the size it must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    pub path: PathBuf,
    pub size: u64,
}

/// A byte range of one file that a stream works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Index into `Plan::files`.
    pub file: usize,
    pub offset: u64,
    pub length: u64,
}

impl Region {
    /// End offset (exclusive).
    pub fn end(&self) -> u64 {
        self.offset + self.length
    }
}

/// Requests that make data durable, besides reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FsyncRule {
    /// sysbench `file-fsync-freq`: after this many read/write requests of the
    /// stream, one sync request per region's file (each an event); 0 = never.
    pub cycle_every: u64,
    /// fio `fsync=N`: a sync of the file after every N writes of a thread; 0 = never.
    pub after_writes: u64,
    /// sysbench `file-fsync-all`: a sync of the file after every write.
    pub every_write: bool,
    /// sysbench `file-fsync-end`, fio `end_fsync`: sync every file when done (not measured).
    pub at_end: bool,
}

/// Requests over a set of regions, shared by `threads` threads.
#[derive(Debug, Clone)]
pub struct Stream {
    /// The job or test name (fio section, `fileio`).
    pub name: String,
    pub regions: Vec<Region>,
    pub threads: usize,
    pub mix: Mix,
    pub pattern: Pattern,
    pub fsync: FsyncRule,
    /// Requests in the stream (sync requests included when they are events); None = until the time limit.
    pub requests: Option<u64>,
}

/// Block verification: every written block carries a header; reads are checked after the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyRule {
    /// Written into every block and expected back.
    pub generation: u64,
    /// Only read back and check; write nothing.
    pub only: bool,
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `sysbench` or `fio`.
    pub kind: &'static str,
    /// `prepare`, `run`, `cleanup`.
    pub phase: &'static str,
    pub files: Vec<FileSpec>,
    pub streams: Vec<Stream>,
    pub block_size: u64,
    pub engine: IoEngine,
    /// Requests in flight per thread (io_uring).
    pub depth: usize,
    pub direct: bool,
    /// Extra `open` flags (`O_SYNC`, `O_DSYNC`).
    pub open_flags: i32,
    pub sync_call: SyncCall,
    /// Stop after this long (measured part, after the ramp).
    pub time_limit: Option<Duration>,
    /// Requests before this are done but not measured.
    pub ramp: Duration,
    pub verify: Option<VerifyRule>,
    /// Drop the clean pages of the regions before starting (fio `invalidate`).
    pub invalidate: bool,
    /// Seed for the random offsets; None = from the OS.
    pub seed: Option<u64>,
}

impl Plan {
    /// Threads over all streams.
    pub fn threads(&self) -> usize {
        self.streams.iter().map(|s| s.threads).sum()
    }

    /// True when any stream writes.
    pub fn writes(&self) -> bool {
        self.streams.iter().any(|s| s.mix.read_share < 1.0)
    }

    /// True when the run writes `file`: a stream that writes works on it (and
    /// the run is not `verify_only`). Files no stream writes are opened
    /// read-only, so a read job beside a write job cannot write them either.
    pub fn writes_file(&self, file: usize) -> bool {
        !self.verify.is_some_and(|v| v.only)
            && self
                .streams
                .iter()
                .any(|s| s.mix.read_share < 1.0 && s.regions.iter().any(|r| r.file == file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_holds_its_share_in_every_prefix() {
        let mix = Mix { read_share: 0.6 };
        let mut reads = 0;
        for k in 0..1000u64 {
            if mix.is_read(k) {
                reads += 1;
            }
            assert_eq!(reads, mix.reads_in(k + 1), "after {}", k + 1);
        }
        assert_eq!(reads, 600);
        assert!((0..10).all(|k| Mix { read_share: 1.0 }.is_read(k)));
        assert!((0..10).all(|k| !Mix { read_share: 0.0 }.is_read(k)));
    }
}
