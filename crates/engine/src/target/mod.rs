//! Targets: what the workload drives. A database binding, an embedded engine, or
//! `null`, which does nothing and so measures the client itself.
//!
//! A target is opened once per phase (`TargetDriver`), and each client thread
//! gets its own `Session`, as YCSB gives each thread its own `DB` instance.
//! Sessions never time themselves: the client wraps every call and records its
//! latency from the intended start time (see `measure`).

use std::fmt;

use crate::error::TargetError;
use crate::properties::Properties;

pub mod btree;
pub mod cassandra;
mod embedded;
pub mod endpoint;
pub mod lsm;
mod lsm_compaction;
pub mod mongodb;
pub mod mysql;
pub mod null;
pub mod postgres;
pub mod redis;
mod redis_conn;
mod reply_poller;
mod reply_spin;
mod resp;
pub mod row;
pub mod sql;

/// The outcome of one operation, with YCSB's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    Ok,
    Error,
    NotFound,
    NotImplemented,
    UnexpectedState,
    BadRequest,
    Forbidden,
    ServiceUnavailable,
    BatchedOk,
}

impl Status {
    /// Every status, in a fixed order (for per-status counters).
    pub const ALL: [Status; 9] = [
        Status::Ok,
        Status::Error,
        Status::NotFound,
        Status::NotImplemented,
        Status::UnexpectedState,
        Status::BadRequest,
        Status::Forbidden,
        Status::ServiceUnavailable,
        Status::BatchedOk,
    ];

    /// OK and BATCHED_OK count as success, as in YCSB.
    pub fn is_ok(self) -> bool {
        matches!(self, Status::Ok | Status::BatchedOk)
    }

    /// The name YCSB prints after `Return=`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Error => "ERROR",
            Status::NotFound => "NOT_FOUND",
            Status::NotImplemented => "NOT_IMPLEMENTED",
            Status::UnexpectedState => "UNEXPECTED_STATE",
            Status::BadRequest => "BAD_REQUEST",
            Status::Forbidden => "FORBIDDEN",
            Status::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            Status::BatchedOk => "BATCHED_OK",
        }
    }

    /// Position in `ALL`, for array-indexed counters.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One row: field names and values in field order.
///
/// The workload reuses one `Record` per thread and overwrites values in place,
/// so the hot path does not allocate once warmed up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub fields: Vec<(String, Vec<u8>)>,
}

impl Record {
    /// The value of field `name`, if present.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// One thread's connection to a target.
pub trait Session: Send {
    /// Reads `key`; all fields when `fields` is None. Fills `out` (cleared first).
    fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status;
    /// Reads up to `count` records in key order starting at `start_key`, into `out` (cleared first).
    fn scan(
        &mut self,
        table: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status;
    /// Replaces the given fields of an existing record.
    fn update(&mut self, table: &str, key: &str, values: &Record) -> Status;
    /// Inserts a new record with all its fields.
    fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status;
    /// Deletes a record.
    fn delete(&mut self, table: &str, key: &str) -> Status;
    /// Called once when the thread finishes (flush, close).
    fn cleanup(&mut self) -> Result<(), TargetError> {
        Ok(())
    }
}

/// A target opened for one phase; hands out one session per client thread.
pub trait TargetDriver: Send + Sync {
    /// A new session for one client thread.
    fn session(&self) -> Result<Box<dyn Session>, TargetError>;
    /// Called once after all sessions are done (flush to storage, close files).
    fn close(&self) -> Result<(), TargetError> {
        Ok(())
    }
    /// A description saved with the result (engine, version, settings in effect).
    fn describe(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// What the registry knows about a target before opening it.
pub struct TargetInfo {
    /// The name used on the command line (`contio-engine run NAME`).
    pub name: &'static str,
    /// One line for `contio-engine targets`.
    pub summary: &'static str,
    /// The properties this target accepts in its namespace (`NAME.key`).
    pub properties: &'static [&'static str],
    /// Opens the target with the given properties.
    pub open: fn(&Properties) -> Result<Box<dyn TargetDriver>, TargetError>,
}

/// Every target this build knows, by name.
pub fn registry() -> Vec<TargetInfo> {
    vec![
        null::info(),
        lsm::info(),
        btree::info(),
        mysql::info(),
        postgres::info(),
        redis::info(),
        mongodb::info(),
        cassandra::info(),
    ]
}

/// Looks up a target by name; the error lists the known names.
pub fn find(name: &str) -> Result<TargetInfo, TargetError> {
    let all = registry();
    let known = all.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
    all.into_iter()
        .find(|t| t.name == name)
        .ok_or(TargetError::UnknownTarget {
            name: name.to_string(),
            known,
        })
}

/// Rejects properties in `info`'s namespace that it does not know, naming the closest.
pub fn check_namespace(
    info: &TargetInfo,
    props: &Properties,
) -> Result<(), crate::error::PropertyError> {
    for (key, _) in props.namespace(info.name) {
        if !info.properties.contains(&key) {
            return Err(crate::error::PropertyError::Unknown {
                key: key.to_string(),
                suggestion: crate::properties::closest(key, info.properties.iter().copied()),
            });
        }
    }
    Ok(())
}
