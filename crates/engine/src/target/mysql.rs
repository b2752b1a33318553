//! `mysql`: MySQL and MariaDB through the `mysql` crate (no TLS), with YCSB's JDBC
//! layout (`usertable`, `YCSB_KEY`, `FIELD0..n`; see `sql`).
//!
//! One pool per phase, sized to the thread count; each client thread holds one of its
//! connections for the whole phase, as YCSB's JDBC binding holds one per thread.
//! Statements are prepared once per connection (the driver's statement cache).

use mysql::consts::CapabilityFlags;
use mysql::prelude::Queryable as _;
use mysql::{OptsBuilder, Params, Pool, PoolConstraints, PoolOpts, PooledConn, Value};

use super::endpoint::{failed, identifier, Endpoint, FirstError};
use super::sql::{is_key_column, Placeholder, Statements};
use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::TargetError;
use crate::properties::Properties;

const NAME: &str = "mysql";

/// Registry entry for `mysql`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "MySQL / MariaDB (YCSB JDBC layout: usertable, YCSB_KEY, FIELD0..n)",
        properties: &[
            "mysql.host",
            "mysql.port",
            "mysql.user",
            "mysql.password",
            "mysql.database",
        ],
        open,
    }
}

fn open(props: &Properties) -> Result<Box<dyn TargetDriver>, TargetError> {
    let endpoint = Endpoint::from_properties(props, NAME, 3306, "ycsb", "ycsb")?;
    let database = identifier(props, "mysql.database", "ycsb")?;
    identifier(props, "table", "usertable")?;
    identifier(props, "fieldnameprefix", "field")?;
    let size = endpoint.pool_size;
    let constraints = PoolConstraints::new(size, size).ok_or_else(|| {
        failed(
            NAME,
            "pool size",
            format!("{size} is not a valid pool size"),
        )
    })?;
    let opts = OptsBuilder::new()
        .ip_or_hostname(Some(endpoint.host.clone()))
        .tcp_port(endpoint.port)
        .user(Some(endpoint.user.clone()))
        .pass(Some(endpoint.password.clone()))
        .db_name(Some(database.clone()))
        .tcp_nodelay(true)
        // Updates report matched rows, not changed ones, so an update that writes the
        // same bytes again is still OK and a missing key is NOT_FOUND.
        .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS)
        .pool_opts(PoolOpts::default().with_constraints(constraints));
    let where_ = format!("{}:{}/{database}", endpoint.host, endpoint.port);
    let pool = Pool::new(opts).map_err(|e| failed(NAME, &format!("connect to {where_}"), e))?;
    Ok(Box::new(MysqlDriver {
        pool,
        description: serde_json::json!({
            "server": where_, "pool_size": size, "layout": "usertable(YCSB_KEY, FIELD0..n)",
        }),
    }))
}

struct MysqlDriver {
    pool: Pool,
    description: serde_json::Value,
}

impl TargetDriver for MysqlDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        let conn = self
            .pool
            .get_conn()
            .map_err(|e| failed(NAME, "get a pooled connection", e))?;
        Ok(Box::new(MysqlSession {
            conn,
            statements: Statements::new(Placeholder::Question),
            errors: FirstError::default(),
        }))
    }

    fn describe(&self) -> serde_json::Value {
        self.description.clone()
    }
}

struct MysqlSession {
    conn: PooledConn,
    statements: Statements,
    errors: FirstError,
}

impl MysqlSession {
    fn fail(&mut self, op: &str, err: mysql::Error) -> Status {
        self.errors.report(NAME, op, err);
        Status::Error
    }

    /// Runs a write and maps the matched-row count to YCSB's statuses.
    fn write(&mut self, op: &str, query: String, params: Vec<Value>) -> Status {
        match self.conn.exec_drop(query, Params::Positional(params)) {
            Ok(()) if self.conn.affected_rows() == 1 => Status::Ok,
            Ok(()) if self.conn.affected_rows() == 0 => Status::NotFound,
            Ok(()) => Status::UnexpectedState,
            Err(e) => self.fail(op, e),
        }
    }
}

/// Copies a row's field columns into `out` (names lower-cased, as SQL folds them).
fn row_into(row: &mysql::Row, out: &mut Record) -> Option<String> {
    let mut key = None;
    for (i, column) in row.columns_ref().iter().enumerate() {
        let name = column.name_str();
        let value = match row.as_ref(i) {
            Some(Value::Bytes(b)) => b.clone(),
            Some(Value::NULL) | None => continue,
            Some(other) => other.as_sql(true).into_bytes(),
        };
        if is_key_column(&name) {
            key = Some(String::from_utf8_lossy(&value).into_owned());
        } else {
            out.fields.push((name.to_ascii_lowercase(), value));
        }
    }
    key
}

impl Session for MysqlSession {
    fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        out.fields.clear();
        let query = self.statements.read(table, fields).to_string();
        match self
            .conn
            .exec_first::<mysql::Row, _, _>(query, Params::Positional(vec![key.into()]))
        {
            Ok(Some(row)) => {
                row_into(&row, out);
                Status::Ok
            }
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
        out.clear();
        let query = self.statements.scan(table, fields).to_string();
        let params = Params::Positional(vec![start_key.into(), (count as u64).into()]);
        match self.conn.exec::<mysql::Row, _, _>(query, params) {
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
        let names = values.fields.iter().map(|(n, _)| n.as_str());
        let query = self.statements.update(table, names).to_string();
        let mut params: Vec<Value> = values
            .fields
            .iter()
            .map(|(_, v)| Value::Bytes(v.clone()))
            .collect();
        params.push(key.into());
        self.write("update", query, params)
    }

    fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let names = values.fields.iter().map(|(n, _)| n.as_str());
        let query = self.statements.insert(table, names).to_string();
        let mut params: Vec<Value> = Vec::with_capacity(values.fields.len() + 1);
        params.push(key.into());
        params.extend(values.fields.iter().map(|(_, v)| Value::Bytes(v.clone())));
        self.write("insert", query, params)
    }

    fn delete(&mut self, table: &str, key: &str) -> Status {
        let query = self.statements.delete(table).to_string();
        self.write("delete", query, vec![key.into()])
    }
}
