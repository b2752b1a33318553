//! `cassandra`: Apache Cassandra (and ScyllaDB) over CQL through the `scylla` crate (no
//! TLS), with the layout of YCSB's Cassandra binding: table `ycsb.usertable`, key
//! column `y_id`, one `varchar` column per field; scans walk the token ring
//! (`token(y_id) >= token(?)`); consistency ONE unless set.
//!
//! The driver is asynchronous: one small Tokio runtime per phase drives one shared CQL
//! session, and each client thread blocks on its own requests. The session keeps
//! `threadcount` connections per node.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::Arc;

use scylla::client::session::Session as CqlSession;
use scylla::client::session_builder::SessionBuilder;
use scylla::client::PoolSize;
use scylla::deserialize::row::ColumnIterator;
use scylla::response::query_result::QueryResult;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::Consistency;
use tokio::runtime::Runtime;

use super::endpoint::{identifier, Endpoint, FirstError};
use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

const NAME: &str = "cassandra";
/// The key column of YCSB's Cassandra layout.
const KEY_COLUMN: &str = "y_id";
/// Every consistency level `consistency_named` knows: YCSB's binding (its
/// `ConsistencyLevel.valueOf`) and cassandra-stress's `cl=` accept them all.
pub const CONSISTENCY_LEVELS: [&str; 9] = [
    "ONE",
    "TWO",
    "THREE",
    "QUORUM",
    "ALL",
    "LOCAL_ONE",
    "LOCAL_QUORUM",
    "EACH_QUORUM",
    "ANY",
];

/// Registry entry for `cassandra`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "Cassandra CQL (YCSB layout: ycsb.usertable, y_id, field0..n)",
        properties: &[
            "cassandra.host",
            "cassandra.port",
            "cassandra.user",
            "cassandra.password",
            "cassandra.keyspace",
            "cassandra.readconsistency",
            "cassandra.writeconsistency",
        ],
        open,
    }
}

/// The driver's consistency level named `name` (CQL's spelling: `ONE`, `LOCAL_QUORUM`, …).
pub fn consistency_named(name: &str) -> Option<Consistency> {
    Some(match name {
        "ONE" => Consistency::One,
        "TWO" => Consistency::Two,
        "THREE" => Consistency::Three,
        "QUORUM" => Consistency::Quorum,
        "ALL" => Consistency::All,
        "LOCAL_ONE" => Consistency::LocalOne,
        "LOCAL_QUORUM" => Consistency::LocalQuorum,
        "EACH_QUORUM" => Consistency::EachQuorum,
        "ANY" => Consistency::Any,
        _ => return None,
    })
}

fn consistency(props: &Properties, key: &str) -> Result<Consistency, PropertyError> {
    let name = props.choice_or(key, "ONE", &CONSISTENCY_LEVELS)?;
    Ok(consistency_named(name).unwrap_or(Consistency::One))
}

/// One CQL session and the small Tokio runtime that drives it, shared by the client
/// threads (each blocks on its own requests). The YCSB binding and `cstress` use it.
pub struct CqlConnection {
    pub runtime: Runtime,
    pub session: CqlSession,
}

impl CqlConnection {
    /// Connects to `nodes` (host names or addresses) at `port`, `connections` per node,
    /// logging in when `user` is not empty, in `keyspace` when given. The error says
    /// which server could not be reached.
    pub fn connect(
        nodes: &[String],
        port: u16,
        user: &str,
        password: &str,
        keyspace: Option<&str>,
        connections: usize,
    ) -> Result<Self, String> {
        // Two workers: the client threads do the waiting; the runtime only moves frames.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("start the I/O runtime: {e}"))?;
        let addresses: Vec<String> = nodes.iter().map(|n| format!("{n}:{port}")).collect();
        let connections = NonZeroUsize::new(connections).unwrap_or(NonZeroUsize::MIN);
        let mut builder = SessionBuilder::new()
            .known_nodes(&addresses)
            .pool_size(PoolSize::PerHost(connections));
        if let Some(keyspace) = keyspace {
            builder = builder.use_keyspace(keyspace, false);
        }
        if !user.is_empty() {
            builder = builder.user(user, password);
        }
        let session = runtime.block_on(builder.build()).map_err(|e| {
            let within = keyspace
                .map(|k| format!(" (keyspace {k})"))
                .unwrap_or_default();
            format!("connect to {}{within}: {e}", addresses.join(", "))
        })?;
        Ok(Self { runtime, session })
    }
}

fn open(props: &Properties) -> Result<Box<dyn TargetDriver>, TargetError> {
    let endpoint = Endpoint::from_properties(props, NAME, 9042, "", "")?;
    let keyspace = identifier(props, "cassandra.keyspace", "ycsb")?;
    identifier(props, "table", "usertable")?;
    identifier(props, "fieldnameprefix", "field")?;
    let read = consistency(props, "cassandra.readconsistency")?;
    let write = consistency(props, "cassandra.writeconsistency")?;
    let where_ = format!("{}:{}", endpoint.host, endpoint.port);
    let connections = endpoint.pool_size.max(1);
    let connection = CqlConnection::connect(
        std::slice::from_ref(&endpoint.host),
        endpoint.port,
        &endpoint.user,
        &endpoint.password,
        Some(&keyspace),
        connections,
    )
    .map_err(|reason| TargetError::Failed {
        target: NAME.to_string(),
        reason,
    })?;
    Ok(Box::new(CassandraDriver {
        shared: Arc::new(Shared {
            connection,
            read,
            write,
        }),
        description: serde_json::json!({
            "server": where_, "keyspace": keyspace, "connections_per_node": connections,
            "read_consistency": format!("{read:?}"), "write_consistency": format!("{write:?}"),
            "layout": "usertable(y_id, field0..n varchar)",
        }),
    }))
}

struct Shared {
    connection: CqlConnection,
    read: Consistency,
    write: Consistency,
}

struct CassandraDriver {
    shared: Arc<Shared>,
    description: serde_json::Value,
}

impl TargetDriver for CassandraDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(CassandraSession {
            shared: Arc::clone(&self.shared),
            prepared: HashMap::new(),
            errors: FirstError::default(),
        }))
    }

    fn describe(&self) -> serde_json::Value {
        self.description.clone()
    }
}

struct CassandraSession {
    shared: Arc<Shared>,
    prepared: HashMap<String, PreparedStatement>,
    errors: FirstError,
}

/// Whether a statement reads (read consistency) or writes.
#[derive(Clone, Copy)]
enum Kind {
    Read,
    Write,
}

impl CassandraSession {
    /// The prepared statement for `cql`, prepared on first use.
    fn prepare(&mut self, cql: String, kind: Kind) -> Result<PreparedStatement, String> {
        if let Some(p) = self.prepared.get(&cql) {
            return Ok(p.clone());
        }
        let shared = &self.shared;
        let cql_connection = &shared.connection;
        let mut statement = cql_connection
            .runtime
            .block_on(cql_connection.session.prepare(cql.as_str()))
            .map_err(|e| e.to_string())?;
        statement.set_consistency(match kind {
            Kind::Read => shared.read,
            Kind::Write => shared.write,
        });
        self.prepared.insert(cql, statement.clone());
        Ok(statement)
    }

    fn execute(
        &mut self,
        cql: String,
        kind: Kind,
        values: impl scylla::serialize::row::SerializeRow,
    ) -> Result<QueryResult, String> {
        let statement = self.prepare(cql, kind)?;
        let c = &self.shared.connection;
        c.runtime
            .block_on(c.session.execute_unpaged(&statement, values))
            .map_err(|e| e.to_string())
    }

    fn fail(&mut self, op: &str, err: String) -> Status {
        self.errors.report(NAME, op, err);
        Status::Error
    }

    fn write(&mut self, op: &str, cql: String, values: Vec<&str>) -> Status {
        match self.execute(cql, Kind::Write, values) {
            Ok(_) => Status::Ok,
            Err(e) => self.fail(op, e),
        }
    }
}

/// The rows of a result: (key if selected, fields).
fn rows_of(result: QueryResult) -> Result<Vec<(String, Record)>, String> {
    let rows = result.into_rows_result().map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(rows.rows_num());
    for row in rows.rows::<ColumnIterator>().map_err(|e| e.to_string())? {
        let mut key = String::new();
        let mut record = Record::default();
        for column in row.map_err(|e| e.to_string())? {
            let column = column.map_err(|e| e.to_string())?;
            let Some(slice) = column.slice else { continue };
            let name = column.spec.name();
            if name == KEY_COLUMN {
                key = String::from_utf8_lossy(slice.as_slice()).into_owned();
            } else {
                record
                    .fields
                    .push((name.to_string(), slice.as_slice().to_vec()));
            }
        }
        out.push((key, record));
    }
    Ok(out)
}

fn columns(fields: Option<&[String]>) -> String {
    match fields {
        None => "*".to_string(),
        Some(f) => f.join(", "),
    }
}

/// Field values as text (`varchar` columns); None if one is not UTF-8.
fn texts(values: &Record) -> Option<Vec<&str>> {
    values
        .fields
        .iter()
        .map(|(_, v)| std::str::from_utf8(v).ok())
        .collect()
}

impl Session for CassandraSession {
    fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        out.fields.clear();
        let cql = format!(
            "SELECT {} FROM {table} WHERE {KEY_COLUMN} = ?",
            columns(fields)
        );
        match self.execute(cql, Kind::Read, (key,)).and_then(rows_of) {
            Ok(rows) => match rows.into_iter().next() {
                Some((_, record)) => {
                    *out = record;
                    Status::Ok
                }
                None => Status::NotFound,
            },
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
        out.clear();
        let selected = match fields {
            None => "*".to_string(),
            Some(f) => format!("{KEY_COLUMN}, {}", f.join(", ")),
        };
        let cql =
            format!("SELECT {selected} FROM {table} WHERE token({KEY_COLUMN}) >= token(?) LIMIT ?");
        let limit = i32::try_from(count).unwrap_or(i32::MAX);
        match self
            .execute(cql, Kind::Read, (start_key, limit))
            .and_then(rows_of)
        {
            Ok(rows) => {
                *out = rows;
                Status::Ok
            }
            Err(e) => self.fail("scan", e),
        }
    }

    fn update(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let Some(mut params) = texts(values) else {
            return Status::BadRequest;
        };
        let sets: Vec<String> = values
            .fields
            .iter()
            .map(|(n, _)| format!("{n} = ?"))
            .collect();
        let cql = format!(
            "UPDATE {table} SET {} WHERE {KEY_COLUMN} = ?",
            sets.join(", ")
        );
        params.push(key);
        self.write("update", cql, params)
    }

    fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let Some(texts) = texts(values) else {
            return Status::BadRequest;
        };
        let names: Vec<&str> = values.fields.iter().map(|(n, _)| n.as_str()).collect();
        let marks = vec!["?"; names.len() + 1].join(", ");
        let cql = format!(
            "INSERT INTO {table} ({KEY_COLUMN}, {}) VALUES ({marks})",
            names.join(", ")
        );
        let mut params = Vec::with_capacity(texts.len() + 1);
        params.push(key);
        params.extend(texts);
        self.write("insert", cql, params)
    }

    fn delete(&mut self, table: &str, key: &str) -> Status {
        let cql = format!("DELETE FROM {table} WHERE {KEY_COLUMN} = ?");
        self.write("delete", cql, vec![key])
    }
}
