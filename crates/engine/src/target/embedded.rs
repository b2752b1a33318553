//! What the embedded engines (`lsm`, `btree`) share: their data directory,
//! byte-size and sync properties, and how a session reports a failed operation.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::PropertyError;
use crate::properties::Properties;

/// The default of `<target>.cache_bytes`: 1 MiB, minimal. Room for the upper
/// levels of the B-tree (without it every btree operation re-reads its whole
/// path from the file, which is not how a database with a small cache behaves)
/// and about 5% of the default experiment's 20 MB of records, so most reads
/// and all writes reach the files.
pub const DEFAULT_CACHE_BYTES: u64 = 1 << 20;

/// When written data is forced to the device (fsync), from `<target>.sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncMode {
    /// Every write operation is fsynced before it returns.
    Op,
    /// Each write reaches the OS at once; a write fsyncs when the interval has
    /// passed since the last sync, and the engine fsyncs at close. The default
    /// (1 s), between Cassandra's periodic commit-log sync (10 s) and
    /// WiredTiger's journal flush (100 ms): the device sees writeback and a
    /// regular fsync, not one per operation.
    Periodic(Duration),
    /// Only at close. The B-tree cannot reuse the pages that non-durable
    /// commits free, so its file grows with every update until then.
    Close,
}

impl SyncMode {
    /// The allowed values of `<target>.sync`.
    pub const NAMES: [&'static str; 3] = ["periodic", "op", "close"];

    /// The name used in the property and in `describe()`.
    pub fn name(self) -> &'static str {
        match self {
            SyncMode::Op => "op",
            SyncMode::Periodic(_) => "periodic",
            SyncMode::Close => "close",
        }
    }

    /// The periodic interval in milliseconds, if periodic.
    pub fn interval_ms(self) -> Option<u128> {
        match self {
            SyncMode::Periodic(d) => Some(d.as_millis()),
            _ => None,
        }
    }

    /// Reads `<target>.sync` (default `periodic`) and `<target>.sync_interval_ms` (default 1000).
    pub fn from_properties(props: &Properties, target: &str) -> Result<Self, PropertyError> {
        let key = format!("{target}.sync");
        let interval_key = format!("{target}.sync_interval_ms");
        let interval: u64 = props.parse_or(&interval_key, 1000, "a positive integer (ms)")?;
        if interval == 0 {
            return Err(PropertyError::BadValue {
                key: interval_key,
                value: "0".into(),
                expected: "a positive integer (ms)".into(),
            });
        }
        Ok(match props.choice_or(&key, "periodic", &Self::NAMES)? {
            "op" => SyncMode::Op,
            "close" => SyncMode::Close,
            _ => SyncMode::Periodic(Duration::from_millis(interval)),
        })
    }
}

/// Decides which write performs the periodic sync: the first to find the
/// interval passed claims it, so threads do not all sync at once.
#[derive(Debug)]
pub struct SyncSchedule {
    interval: Option<Duration>,
    start: Instant,
    /// Nanoseconds since `start` of the last claimed sync.
    last: AtomicU64,
}

impl SyncSchedule {
    /// A schedule for `mode` (never due unless periodic).
    pub fn new(mode: SyncMode) -> Self {
        SyncSchedule {
            interval: match mode {
                SyncMode::Periodic(d) => Some(d),
                _ => None,
            },
            start: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    /// True for exactly one caller once per interval.
    pub fn claim(&self) -> bool {
        let Some(interval) = self.interval else {
            return false;
        };
        let now = self.start.elapsed().as_nanos() as u64;
        let last = self.last.load(Ordering::Relaxed);
        now.saturating_sub(last) >= interval.as_nanos() as u64
            && self
                .last
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}

/// Reads the required `<target>.dir`: an existing directory this process can write in.
pub fn data_dir(props: &Properties, target: &str) -> Result<PathBuf, PropertyError> {
    let key = format!("{target}.dir");
    let invalid = |reason: String| PropertyError::Invalid {
        key: key.clone(),
        reason,
    };
    let raw = props.get(&key).map(str::trim).unwrap_or_default();
    if raw.is_empty() {
        return Err(invalid(format!(
            "required: the directory where {target} keeps its data (-p {key}=/path/to/dir)"
        )));
    }
    let dir = PathBuf::from(raw);
    match std::fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(invalid(format!("'{raw}' is not a directory"))),
        Err(e) => {
            return Err(invalid(format!(
                "directory '{raw}' cannot be used: {e} (create it first)"
            )))
        }
    }
    check_writable(&dir).map_err(|e| invalid(format!("directory '{raw}' is not writable: {e}")))?;
    Ok(dir)
}

/// Proves the directory writable by creating and removing a file (permission
/// bits say nothing for root or on a read-only mount).
fn check_writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".contio-write-probe-{}", std::process::id()));
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

/// Reads a byte count: an integer with an optional binary suffix (`K`, `M`, `G`, with or without `iB`).
pub fn byte_size(props: &Properties, key: &str, default: u64) -> Result<u64, PropertyError> {
    let Some(raw) = props.get(key) else {
        return Ok(default);
    };
    parse_byte_size(raw).ok_or_else(|| PropertyError::BadValue {
        key: key.to_string(),
        value: raw.to_string(),
        expected: "a byte count such as 0, 65536, 64K or 4MiB".to_string(),
    })
}

fn parse_byte_size(raw: &str) -> Option<u64> {
    let s = raw.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// How many files an engine keeps and their total size (reported by `describe()`,
/// so results show the layout: many small files or one large one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DirUsage {
    pub files: u64,
    pub bytes: u64,
}

impl DirUsage {
    /// Regular files under `dir`, recursively (unreadable entries are skipped).
    pub fn of(dir: &Path) -> Self {
        let mut usage = DirUsage::default();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return usage;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => {
                    let sub = DirUsage::of(&entry.path());
                    usage.files += sub.files;
                    usage.bytes += sub.bytes;
                }
                Ok(m) if m.is_file() => {
                    usage.files += 1;
                    usage.bytes += m.len();
                }
                _ => {}
            }
        }
        usage
    }
}

/// Reports the first failed operation of a session on stderr, so an engine
/// error is visible once instead of only as ERROR counts.
#[derive(Debug, Default)]
pub struct FirstError {
    reported: bool,
}

impl FirstError {
    /// Prints `target: operation failed: error` if nothing was printed before.
    pub fn note(&mut self, target: &str, operation: &str, error: impl Display) {
        if !self.reported {
            self.reported = true;
            eprintln!(
                "contio-engine: {target}: {operation} failed: {error} (later failures of this thread are only counted)"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes() {
        assert_eq!(parse_byte_size("0"), Some(0));
        assert_eq!(parse_byte_size("64K"), Some(65536));
        assert_eq!(parse_byte_size("4MiB"), Some(4 << 20));
        assert_eq!(parse_byte_size("1 G"), Some(1 << 30));
        assert_eq!(parse_byte_size("-1"), None);
        assert_eq!(parse_byte_size("4TB"), None);
        assert_eq!(parse_byte_size(""), None);
    }

    #[test]
    fn dir_must_exist() {
        let mut p = Properties::new();
        let err = data_dir(&p, "lsm").unwrap_err().to_string();
        assert!(err.contains("lsm.dir") && err.contains("required"), "{err}");
        p.set("lsm.dir", "/nonexistent/contio");
        let err = data_dir(&p, "lsm").unwrap_err().to_string();
        assert!(
            err.contains("lsm.dir") && err.contains("/nonexistent/contio"),
            "{err}"
        );
    }
}
