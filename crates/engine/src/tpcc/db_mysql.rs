//! `Db` on MariaDB/MySQL (the `mysql` crate, binary protocol, statements
//! prepared once per connection by the driver's statement cache).

use mysql::consts::CapabilityFlags;
use mysql::prelude::Queryable as _;
use mysql::{Conn, OptsBuilder, Params};

use super::db::{format_decimal, Db, DbError, Rows, Value};
use crate::target::endpoint::Endpoint;

/// MariaDB's and MySQL's deadlock and lock wait timeout errors.
const RETRYABLE: [u16; 2] = [1213, 1205];

/// Distinct statements a terminal uses (with its IN lists), with room to spare.
const STATEMENT_CACHE: usize = 512;

/// A connection.
pub struct MysqlDb {
    conn: Conn,
}

impl MysqlDb {
    /// Connects to `database` at `endpoint`.
    pub fn connect(endpoint: &Endpoint, database: &str) -> Result<Self, DbError> {
        let opts = OptsBuilder::new()
            .ip_or_hostname(Some(endpoint.host.clone()))
            .tcp_port(endpoint.port)
            .user(Some(endpoint.user.clone()))
            .pass(Some(endpoint.password.clone()))
            .db_name(Some(database.to_string()))
            .tcp_nodelay(true)
            .stmt_cache_size(STATEMENT_CACHE)
            // Updates report the rows they matched, not the rows they changed.
            .additional_capabilities(CapabilityFlags::CLIENT_FOUND_ROWS);
        let conn = Conn::new(opts).map_err(|e| {
            DbError::fatal(format!(
                "connect to {}:{}/{database}: {e}",
                endpoint.host, endpoint.port
            ))
        })?;
        Ok(Self { conn })
    }
}

fn error(e: mysql::Error) -> DbError {
    let retryable = matches!(&e, mysql::Error::MySqlError(m) if RETRYABLE.contains(&m.code));
    DbError {
        message: e.to_string(),
        retryable,
    }
}

fn param(v: &Value) -> mysql::Value {
    match v {
        Value::Int(i) => mysql::Value::Int(*i),
        // Exact: the server converts the text to the column's DECIMAL.
        Value::Dec(d) => mysql::Value::Bytes(format_decimal(*d).into_bytes()),
        Value::Text(t) => mysql::Value::Bytes(t.as_bytes().to_vec()),
        Value::Null => mysql::Value::NULL,
    }
}

fn column(v: mysql::Value) -> Value {
    match v {
        mysql::Value::Int(i) => Value::Int(i),
        mysql::Value::UInt(u) => Value::Int(u as i64),
        mysql::Value::Bytes(b) => Value::Text(String::from_utf8_lossy(&b).into_owned()),
        mysql::Value::Double(f) => Value::Dec((f * 10_000.0).round() as i64),
        mysql::Value::Float(f) => Value::Dec((f64::from(f) * 10_000.0).round() as i64),
        _ => Value::Null,
    }
}

impl Db for MysqlDb {
    fn execute_text(&mut self, sql: &str) -> Result<(), DbError> {
        self.conn.query_drop(sql).map_err(error)
    }

    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
        let params = Params::Positional(params.iter().map(param).collect());
        self.conn.exec_drop(sql, params).map_err(error)?;
        Ok(self.conn.affected_rows())
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Rows, DbError> {
        let params = Params::Positional(params.iter().map(param).collect());
        let rows: Vec<mysql::Row> = self.conn.exec(sql, params).map_err(error)?;
        Ok(rows
            .into_iter()
            .map(|row| row.unwrap().into_iter().map(column).collect())
            .collect())
    }
}
