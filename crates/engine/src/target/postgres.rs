//! `postgres`: PostgreSQL through the `postgres` crate (no TLS), with YCSB's JDBC layout
//! (`usertable`, `YCSB_KEY`, `FIELD0..n`; PostgreSQL folds the names to lower case).
//!
//! Each client thread opens its own connection when its session starts, so the phase
//! holds exactly `threadcount` connections (YCSB's JDBC binding does the same).
//! Statements are prepared once per connection.

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Statement};

use super::endpoint::{failed, identifier, Endpoint, FirstError};
use super::sql::{is_key_column, Placeholder, Statements};
use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::TargetError;
use crate::properties::Properties;

const NAME: &str = "postgres";

/// Registry entry for `postgres`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "PostgreSQL (YCSB JDBC layout: usertable, ycsb_key, field0..n)",
        properties: &[
            "postgres.host",
            "postgres.port",
            "postgres.user",
            "postgres.password",
            "postgres.database",
        ],
        open,
    }
}

fn open(props: &Properties) -> Result<Box<dyn TargetDriver>, TargetError> {
    let endpoint = Endpoint::from_properties(props, NAME, 5432, "ycsb", "ycsb")?;
    let database = identifier(props, "postgres.database", "ycsb")?;
    identifier(props, "table", "usertable")?;
    identifier(props, "fieldnameprefix", "field")?;
    let mut config = Config::new();
    config
        .host(&endpoint.host)
        .port(endpoint.port)
        .user(&endpoint.user)
        .password(&endpoint.password)
        .dbname(&database)
        .application_name("contio-engine");
    let where_ = format!("{}:{}/{database}", endpoint.host, endpoint.port);
    // Connect once now, so a wrong address or password fails before any thread starts.
    config
        .connect(NoTls)
        .map_err(|e| failed(NAME, &format!("connect to {where_}"), e))?;
    Ok(Box::new(PostgresDriver {
        config,
        description: serde_json::json!({
            "server": where_, "connections": endpoint.pool_size,
            "layout": "usertable(ycsb_key, field0..n)",
        }),
    }))
}

struct PostgresDriver {
    config: Config,
    description: serde_json::Value,
}

impl TargetDriver for PostgresDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        let client = self
            .config
            .connect(NoTls)
            .map_err(|e| failed(NAME, "connect", e))?;
        Ok(Box::new(PostgresSession {
            client,
            text: Statements::new(Placeholder::Dollar),
            prepared: HashMap::new(),
            errors: FirstError::default(),
        }))
    }

    fn describe(&self) -> serde_json::Value {
        self.description.clone()
    }
}

struct PostgresSession {
    client: Client,
    text: Statements,
    prepared: HashMap<String, Statement>,
    errors: FirstError,
}

impl PostgresSession {
    fn prepare(&mut self, query: &str) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.prepared.get(query) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(query)?;
        self.prepared.insert(query.to_string(), statement.clone());
        Ok(statement)
    }

    fn fail(&mut self, op: &str, err: postgres::Error) -> Status {
        self.errors.report(NAME, op, err);
        Status::Error
    }

    fn write(&mut self, op: &str, query: String, params: &[&(dyn ToSql + Sync)]) -> Status {
        let result = self
            .prepare(&query)
            .and_then(|s| self.client.execute(&s, params));
        match result {
            Ok(1) => Status::Ok,
            Ok(0) => Status::NotFound,
            Ok(_) => Status::UnexpectedState,
            Err(e) => self.fail(op, e),
        }
    }

    fn query(
        &mut self,
        query: String,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error> {
        let statement = self.prepare(&query)?;
        self.client.query(&statement, params)
    }
}

/// Values are TEXT columns; the workload writes printable ASCII, so anything else is a
/// bad request rather than something to re-encode.
fn texts(values: &Record) -> Option<Vec<&str>> {
    values
        .fields
        .iter()
        .map(|(_, v)| std::str::from_utf8(v).ok())
        .collect()
}

/// Copies a row's field columns into `out`; returns the key column's value, if selected.
fn row_into(row: &Row, out: &mut Record) -> Option<String> {
    let mut key = None;
    for (i, column) in row.columns().iter().enumerate() {
        let Ok(Some(value)) = row.try_get::<_, Option<&str>>(i) else {
            continue;
        };
        if is_key_column(column.name()) {
            key = Some(value.to_string());
        } else {
            out.fields
                .push((column.name().to_string(), value.as_bytes().to_vec()));
        }
    }
    key
}

impl Session for PostgresSession {
    fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        out.fields.clear();
        let query = self.text.read(table, fields).to_string();
        match self.query(query, &[&key]) {
            Ok(rows) => match rows.first() {
                Some(row) => {
                    row_into(row, out);
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
        let query = self.text.scan(table, fields).to_string();
        let limit = count as i64;
        match self.query(query, &[&start_key, &limit]) {
            Ok(rows) => {
                for row in &rows {
                    let mut record = Record::default();
                    let key = row_into(row, &mut record).unwrap_or_default();
                    out.push((key, record));
                }
                Status::Ok
            }
            Err(e) => self.fail("scan", e),
        }
    }

    fn update(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let Some(texts) = texts(values) else {
            return Status::BadRequest;
        };
        let names = values.fields.iter().map(|(n, _)| n.as_str());
        let query = self.text.update(table, names).to_string();
        let mut params: Vec<&(dyn ToSql + Sync)> =
            texts.iter().map(|t| t as &(dyn ToSql + Sync)).collect();
        params.push(&key);
        self.write("update", query, &params)
    }

    fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let Some(texts) = texts(values) else {
            return Status::BadRequest;
        };
        let names = values.fields.iter().map(|(n, _)| n.as_str());
        let query = self.text.insert(table, names).to_string();
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&key];
        params.extend(texts.iter().map(|t| t as &(dyn ToSql + Sync)));
        self.write("insert", query, &params)
    }

    fn delete(&mut self, table: &str, key: &str) -> Status {
        let query = self.text.delete(table).to_string();
        self.write("delete", query, &[&key])
    }
}
