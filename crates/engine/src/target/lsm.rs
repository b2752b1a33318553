//! The `lsm` target: an embedded log-structured merge tree (the `fjall` crate)
//! that keeps its data in many small files, as Cassandra does: a journal, and
//! sorted tables that memtable flushes write and compactions rewrite.
//!
//! Each YCSB table is a fjall keyspace; each record one key whose value is a
//! row (`row`). Defaults keep the engine's own memory small so operations reach
//! the files: a 1 MiB block cache (bloom filters and index blocks stay pinned in
//! memory, as Cassandra's do), a 1 MiB memtable and 2 MiB tables.
//!
//! A compaction assistant (`lsm_compaction`) makes the compaction attempts that
//! fjall 3.1 stops scheduling once its writers are halted; without it a long
//! load stopped for good at about half a million records.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use fjall::config::PinningPolicy;
use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};
use serde_json::json;

use super::embedded::{
    byte_size, data_dir, DirUsage, FirstError, SyncMode, SyncSchedule, DEFAULT_CACHE_BYTES,
};
use super::lsm_compaction::{CompactionAssist, Keyspaces};
use super::{row, Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

const NAME: &str = "lsm";
/// The subdirectory of `lsm.dir` that holds the journal and the tables.
const SUBDIR: &str = "lsm";

/// Registry entry for `lsm`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "embedded log-structured engine (fjall): many small files",
        properties: &[
            "lsm.dir",
            "lsm.cache_bytes",
            "lsm.memtable_bytes",
            "lsm.table_bytes",
            "lsm.sync",
            "lsm.sync_interval_ms",
        ],
        open: |props| Ok(Box::new(LsmDriver::open(props)?)),
    }
}

/// The settings in effect, from the `lsm.*` properties.
#[derive(Debug, Clone)]
struct Settings {
    /// `lsm.dir`; the engine's files go in its subdirectory `lsm`.
    dir: PathBuf,
    /// Block cache for table reads (`lsm.cache_bytes`, default 1 MiB).
    cache_bytes: u64,
    /// Write buffer flushed to a new table when full (`lsm.memtable_bytes`, default 1 MiB).
    memtable_bytes: u64,
    /// Size at which compaction cuts its output tables (`lsm.table_bytes`, default 2 MiB).
    table_bytes: u64,
    sync: SyncMode,
}

impl Settings {
    /// Where fjall keeps its files: a subdirectory, so `lsm.dir` may hold other things.
    fn data(&self) -> PathBuf {
        self.dir.join(SUBDIR)
    }

    fn from_properties(props: &Properties) -> Result<Self, PropertyError> {
        let memtable_bytes = byte_size(props, "lsm.memtable_bytes", 1 << 20)?;
        let table_bytes = byte_size(props, "lsm.table_bytes", 2 << 20)?;
        for (key, value) in [
            ("lsm.memtable_bytes", memtable_bytes),
            ("lsm.table_bytes", table_bytes),
        ] {
            if value < 64 << 10 {
                return Err(PropertyError::BadValue {
                    key: key.to_string(),
                    value: value.to_string(),
                    expected: "at least 64K".to_string(),
                });
            }
        }
        Ok(Settings {
            dir: data_dir(props, NAME)?,
            cache_bytes: byte_size(props, "lsm.cache_bytes", DEFAULT_CACHE_BYTES)?,
            memtable_bytes,
            table_bytes,
            sync: SyncMode::from_properties(props, NAME)?,
        })
    }
}

/// Serializes the read-merge-write of updates (and deletes) per key, so two
/// threads updating different fields of one record both keep their field.
/// Striped: 256 mutexes shared by all keys.
struct RowLocks(Vec<Mutex<()>>);

impl RowLocks {
    fn new() -> Self {
        RowLocks((0..256).map(|_| Mutex::new(())).collect())
    }

    fn lock(&self, key: &str) -> MutexGuard<'_, ()> {
        // FNV-1a over the key bytes picks the stripe.
        let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let stripe = &self.0[(hash % self.0.len() as u64) as usize];
        // A poisoned stripe only means another thread panicked mid-update; the data is in fjall.
        stripe.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct Shared {
    db: Database,
    settings: Settings,
    locks: RowLocks,
    schedule: SyncSchedule,
    /// Every keyspace a session opened, for the compaction assistant.
    keyspaces: Keyspaces,
}

struct LsmDriver {
    shared: Arc<Shared>,
    /// Makes up for fjall's lost compaction attempts (`lsm_compaction`); stops when dropped.
    assist: CompactionAssist,
}

impl LsmDriver {
    fn open(props: &Properties) -> Result<Self, TargetError> {
        let settings = Settings::from_properties(props)?;
        let data = settings.data();
        let db = Database::builder(&data)
            .cache_size(settings.cache_bytes)
            // Journal writes reach the OS on every operation; `sync=op` adds an fsync.
            .manual_journal_persist(false)
            .open()
            .map_err(|e| failed(format!("cannot open '{}': {e}", data.display())))?;
        let keyspaces = Keyspaces::default();
        let assist = CompactionAssist::start(db.clone(), Arc::clone(&keyspaces))
            .map_err(|e| failed(format!("cannot start the compaction assistant: {e}")))?;
        Ok(LsmDriver {
            shared: Arc::new(Shared {
                db,
                schedule: SyncSchedule::new(settings.sync),
                settings,
                locks: RowLocks::new(),
                keyspaces,
            }),
            assist,
        })
    }
}

impl TargetDriver for LsmDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(LsmSession {
            shared: Arc::clone(&self.shared),
            keyspaces: HashMap::new(),
            buf: Vec::new(),
            errors: FirstError::default(),
        }))
    }

    fn close(&self) -> Result<(), TargetError> {
        self.shared
            .db
            .persist(PersistMode::SyncAll)
            .map_err(|e| failed(format!("cannot sync the journal: {e}")))
    }

    fn describe(&self) -> serde_json::Value {
        let s = &self.shared.settings;
        let files = DirUsage::of(&s.data());
        json!({
            "engine": "fjall",
            "crate_version": env!("CONTIO_FJALL_VERSION"),
            "layout": "log-structured merge tree: journal + many small sorted table files",
            "dir": s.data().display().to_string(),
            "cache_bytes": s.cache_bytes,
            "memtable_bytes": s.memtable_bytes,
            "table_bytes": s.table_bytes,
            "compaction": "leveled",
            "assisted_compactions": self.assist.compactions(),
            "pinned_in_memory": "bloom filters and index blocks",
            "compression": "none",
            "sync": s.sync.name(),
            "sync_interval_ms": s.sync.interval_ms(),
            "files": files.files,
            "disk_bytes": files.bytes,
        })
    }
}

fn options(s: &Settings) -> impl FnOnce() -> KeyspaceCreateOptions {
    let (memtable, table) = (s.memtable_bytes, s.table_bytes);
    move || {
        // Bloom filters and index blocks stay in memory at every level, as
        // Cassandra keeps its bloom filters and index summaries off-heap with
        // its caches off; data blocks are read from the table files.
        KeyspaceCreateOptions::default()
            .filter_block_pinning_policy(PinningPolicy::all(true))
            .index_block_pinning_policy(PinningPolicy::all(true))
            .max_memtable_size(memtable)
            .compaction_strategy(Arc::new(
                fjall::compaction::Leveled::default().with_table_target_size(table),
            ))
    }
}

fn failed(reason: String) -> TargetError {
    TargetError::Failed {
        target: NAME.to_string(),
        reason,
    }
}

struct LsmSession {
    shared: Arc<Shared>,
    keyspaces: HashMap<String, Keyspace>,
    buf: Vec<u8>,
    errors: FirstError,
}

impl LsmSession {
    /// The keyspace of YCSB table `table`, created on first use.
    fn keyspace(&mut self, table: &str) -> Result<Keyspace, String> {
        if let Some(ks) = self.keyspaces.get(table) {
            return Ok(ks.clone());
        }
        // fjall asserts on names it cannot store; say so instead.
        if table.is_empty() || table.len() > 255 {
            return Err(format!("table name '{table}' must be 1 to 255 bytes"));
        }
        let ks = {
            let mut shared = self
                .shared
                .keyspaces
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match shared.get(table) {
                Some(ks) => ks.clone(),
                None => {
                    let ks = self
                        .shared
                        .db
                        .keyspace(table, options(&self.shared.settings))
                        .map_err(|e| e.to_string())?;
                    shared.insert(table.to_string(), ks.clone());
                    ks
                }
            }
        };
        self.keyspaces.insert(table.to_string(), ks.clone());
        Ok(ks)
    }

    /// Fsyncs the journal after a write when `lsm.sync=op`, or when the periodic sync is due.
    fn after_write(&mut self, op: &str) -> Status {
        if self.shared.settings.sync == SyncMode::Op || self.shared.schedule.claim() {
            if let Err(e) = self.shared.db.persist(PersistMode::SyncData) {
                self.errors.note(NAME, op, e);
                return Status::Error;
            }
        }
        Status::Ok
    }

    fn fail(&mut self, op: &str, e: impl std::fmt::Display) -> Status {
        self.errors.note(NAME, op, e);
        Status::Error
    }
}

impl Session for LsmSession {
    fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        out.fields.clear();
        let ks = match self.keyspace(table) {
            Ok(ks) => ks,
            Err(e) => return self.fail("read", e),
        };
        match ks.get(key) {
            Ok(Some(value)) => match row::decode_into(&value, fields, out) {
                Ok(()) => Status::Ok,
                Err(e) => self.fail("read", e),
            },
            Ok(None) => Status::NotFound,
            Err(e) => self.fail("read", e),
        }
    }

    fn scan(
        &mut self,
        table: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        let ks = match self.keyspace(table) {
            Ok(ks) => ks,
            Err(e) => {
                out.clear();
                return self.fail("scan", e);
            }
        };
        let mut n = 0;
        for guard in ks.range(start_key..).take(count) {
            let (k, v) = match guard.into_inner() {
                Ok(kv) => kv,
                Err(e) => {
                    out.truncate(n);
                    return self.fail("scan", e);
                }
            };
            if out.len() <= n {
                out.push((String::new(), Record::default()));
            }
            let (out_key, out_rec) = &mut out[n];
            out_key.clear();
            out_key.push_str(&String::from_utf8_lossy(&k));
            if let Err(e) = row::decode_into(&v, fields, out_rec) {
                out.truncate(n);
                return self.fail("scan", e);
            }
            n += 1;
        }
        out.truncate(n);
        Status::Ok
    }

    fn update(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let ks = match self.keyspace(table) {
            Ok(ks) => ks,
            Err(e) => return self.fail("update", e),
        };
        let shared = Arc::clone(&self.shared);
        let _row = shared.locks.lock(key);
        let stored = match ks.get(key) {
            Ok(Some(v)) => v,
            Ok(None) => return Status::NotFound,
            Err(e) => return self.fail("update", e),
        };
        if let Err(e) = row::merge(&stored, values, &mut self.buf) {
            return self.fail("update", e);
        }
        if let Err(e) = ks.insert(key, self.buf.as_slice()) {
            return self.fail("update", e);
        }
        self.after_write("update")
    }

    fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let ks = match self.keyspace(table) {
            Ok(ks) => ks,
            Err(e) => return self.fail("insert", e),
        };
        if let Err(e) = row::encode(values, &mut self.buf) {
            return self.fail("insert", e);
        }
        if let Err(e) = ks.insert(key, self.buf.as_slice()) {
            return self.fail("insert", e);
        }
        self.after_write("insert")
    }

    fn delete(&mut self, table: &str, key: &str) -> Status {
        let ks = match self.keyspace(table) {
            Ok(ks) => ks,
            Err(e) => return self.fail("delete", e),
        };
        let shared = Arc::clone(&self.shared);
        let _row = shared.locks.lock(key);
        // NOT_FOUND for a missing key, as the btree target (and MongoDB's binding) return it.
        match ks.contains_key(key) {
            Ok(true) => {}
            Ok(false) => return Status::NotFound,
            Err(e) => return self.fail("delete", e),
        }
        if let Err(e) = ks.remove(key) {
            return self.fail("delete", e);
        }
        self.after_write("delete")
    }
}
