//! The `btree` target: an embedded copy-on-write B-tree (the `redb` crate) that
//! keeps all its data in one large file, as MongoDB's WiredTiger keeps a
//! collection in one file.
//!
//! Each YCSB table is a redb table; each record one key whose value is a row
//! (`row`). Every operation is its own transaction; redb runs one write
//! transaction at a time, so an update's read-merge-write is atomic. The page
//! cache is minimal by default (1 MiB) so reads and writes reach the file.

use std::path::PathBuf;
use std::sync::Arc;

use redb::{
    Database, Durability, ReadableDatabase, ReadableTable, TableDefinition, TableError,
    WriteTransaction,
};
use serde_json::json;

use super::embedded::{
    byte_size, data_dir, DirUsage, FirstError, SyncMode, SyncSchedule, DEFAULT_CACHE_BYTES,
};
use super::{row, Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

const NAME: &str = "btree";
/// The one file the engine keeps in `btree.dir`.
const FILE_NAME: &str = "btree.redb";

/// Registry entry for `btree`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "embedded B-tree engine (redb): one large file",
        properties: &[
            "btree.dir",
            "btree.cache_bytes",
            "btree.sync",
            "btree.sync_interval_ms",
        ],
        open: |props| Ok(Box::new(BtreeDriver::open(props)?)),
    }
}

/// The settings in effect, from the `btree.*` properties.
#[derive(Debug, Clone)]
struct Settings {
    dir: PathBuf,
    /// redb's page cache, read cache and write buffer together (`btree.cache_bytes`, default 1 MiB).
    cache_bytes: u64,
    sync: SyncMode,
}

impl Settings {
    fn from_properties(props: &Properties) -> Result<Self, PropertyError> {
        let cache_bytes = byte_size(props, "btree.cache_bytes", DEFAULT_CACHE_BYTES)?;
        if usize::try_from(cache_bytes).is_err() {
            return Err(PropertyError::BadValue {
                key: "btree.cache_bytes".into(),
                value: cache_bytes.to_string(),
                expected: "a byte count that fits in memory".into(),
            });
        }
        Ok(Settings {
            dir: data_dir(props, NAME)?,
            cache_bytes,
            sync: SyncMode::from_properties(props, NAME)?,
        })
    }

    fn file(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }
}

struct Shared {
    db: Database,
    settings: Settings,
    schedule: SyncSchedule,
}

struct BtreeDriver {
    shared: Arc<Shared>,
}

impl BtreeDriver {
    fn open(props: &Properties) -> Result<Self, TargetError> {
        let settings = Settings::from_properties(props)?;
        let path = settings.file();
        let db = Database::builder()
            .set_cache_size(settings.cache_bytes as usize)
            .create(&path)
            .map_err(|e| failed(format!("cannot open '{}': {e}", path.display())))?;
        Ok(BtreeDriver {
            shared: Arc::new(Shared {
                db,
                schedule: SyncSchedule::new(settings.sync),
                settings,
            }),
        })
    }
}

impl TargetDriver for BtreeDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(BtreeSession {
            shared: Arc::clone(&self.shared),
            buf: Vec::new(),
            errors: FirstError::default(),
        }))
    }

    /// An empty durable commit makes every earlier non-durable one durable.
    fn close(&self) -> Result<(), TargetError> {
        let mut txn = self
            .shared
            .db
            .begin_write()
            .map_err(|e| failed(format!("cannot sync: {e}")))?;
        txn.set_durability(Durability::Immediate)
            .map_err(|e| failed(format!("cannot sync: {e}")))?;
        txn.commit()
            .map_err(|e| failed(format!("cannot sync: {e}")))
    }

    fn describe(&self) -> serde_json::Value {
        let s = &self.shared.settings;
        let files = DirUsage::of(&s.dir);
        json!({
            "engine": "redb",
            "crate_version": env!("CONTIO_REDB_VERSION"),
            "layout": "copy-on-write B-tree in one file",
            "file": s.file().display().to_string(),
            "cache_bytes": s.cache_bytes,
            "sync": s.sync.name(),
            "sync_interval_ms": s.sync.interval_ms(),
            "transaction": "one per operation",
            "files": files.files,
            "disk_bytes": files.bytes,
        })
    }
}

fn failed(reason: String) -> TargetError {
    TargetError::Failed {
        target: NAME.to_string(),
        reason,
    }
}

fn table(name: &str) -> TableDefinition<'_, &'static str, &'static [u8]> {
    TableDefinition::new(name)
}

struct BtreeSession {
    shared: Arc<Shared>,
    buf: Vec<u8>,
    errors: FirstError,
}

/// Why an operation did not complete: a status to return as is, or an error to report.
enum Outcome {
    Status(Status),
    Error(String),
}

impl<E: std::fmt::Display> From<E> for Outcome {
    fn from(e: E) -> Self {
        Outcome::Error(e.to_string())
    }
}

impl BtreeSession {
    fn finish(&mut self, op: &str, result: Result<(), Outcome>) -> Status {
        match result {
            Ok(()) => Status::Ok,
            Err(Outcome::Status(s)) => s,
            Err(Outcome::Error(e)) => {
                self.errors.note(NAME, op, e);
                Status::Error
            }
        }
    }

    fn begin_write(&self) -> Result<WriteTransaction, Outcome> {
        let mut txn = self.shared.db.begin_write()?;
        // A durable commit also lets redb reuse the pages that earlier
        // non-durable commits freed, which bounds the file's growth.
        let durable = self.shared.settings.sync == SyncMode::Op || self.shared.schedule.claim();
        let durability = if durable {
            Durability::Immediate
        } else {
            Durability::None
        };
        txn.set_durability(durability)?;
        Ok(txn)
    }

    fn try_read(
        &self,
        name: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Result<(), Outcome> {
        let txn = self.shared.db.begin_read()?;
        let t = match txn.open_table(table(name)) {
            Err(TableError::TableDoesNotExist(_)) => return Err(Outcome::Status(Status::NotFound)),
            other => other?,
        };
        let value = t.get(key)?.ok_or(Outcome::Status(Status::NotFound))?;
        row::decode_into(value.value(), fields, out)?;
        Ok(())
    }

    fn try_scan(
        &self,
        name: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Result<(), Outcome> {
        let txn = self.shared.db.begin_read()?;
        let t = match txn.open_table(table(name)) {
            Err(TableError::TableDoesNotExist(_)) => return Ok(()),
            other => other?,
        };
        let mut n = 0;
        for entry in t.range(start_key..)?.take(count) {
            let (k, v) = entry?;
            if out.len() <= n {
                out.push((String::new(), Record::default()));
            }
            let (out_key, out_rec) = &mut out[n];
            out_key.clear();
            out_key.push_str(k.value());
            row::decode_into(v.value(), fields, out_rec)?;
            n += 1;
        }
        out.truncate(n);
        Ok(())
    }

    fn try_update(&mut self, name: &str, key: &str, values: &Record) -> Result<(), Outcome> {
        let txn = self.begin_write()?;
        {
            let mut t = txn.open_table(table(name))?;
            let stored = t.get(key)?.ok_or(Outcome::Status(Status::NotFound))?;
            row::merge(stored.value(), values, &mut self.buf)?;
            drop(stored);
            t.insert(key, self.buf.as_slice())?;
        }
        txn.commit()?;
        Ok(())
    }

    fn try_insert(&mut self, name: &str, key: &str, values: &Record) -> Result<(), Outcome> {
        row::encode(values, &mut self.buf)?;
        let txn = self.begin_write()?;
        txn.open_table(table(name))?
            .insert(key, self.buf.as_slice())?;
        txn.commit()?;
        Ok(())
    }

    fn try_delete(&mut self, name: &str, key: &str) -> Result<(), Outcome> {
        let txn = self.begin_write()?;
        let removed = txn.open_table(table(name))?.remove(key)?.is_some();
        if !removed {
            txn.abort()?;
            return Err(Outcome::Status(Status::NotFound));
        }
        txn.commit()?;
        Ok(())
    }
}

impl Session for BtreeSession {
    fn read(
        &mut self,
        name: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        out.fields.clear();
        let result = self.try_read(name, key, fields, out);
        if result.is_err() {
            out.fields.clear();
        }
        self.finish("read", result)
    }

    fn scan(
        &mut self,
        name: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        let result = self.try_scan(name, start_key, count, fields, out);
        if result.is_err() {
            out.clear();
        }
        self.finish("scan", result)
    }

    fn update(&mut self, name: &str, key: &str, values: &Record) -> Status {
        let result = self.try_update(name, key, values);
        self.finish("update", result)
    }

    fn insert(&mut self, name: &str, key: &str, values: &Record) -> Status {
        let result = self.try_insert(name, key, values);
        self.finish("insert", result)
    }

    fn delete(&mut self, name: &str, key: &str) -> Status {
        let result = self.try_delete(name, key);
        self.finish("delete", result)
    }
}
