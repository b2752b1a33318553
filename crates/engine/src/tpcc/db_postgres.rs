//! `Db` on PostgreSQL (the `postgres` crate): statements prepared once per
//! connection, parameters and columns converted by the column's type, NUMERIC
//! in its binary form (see `numeric`).

use std::collections::HashMap;
use std::error::Error;

use postgres::error::SqlState;
use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use postgres::{Client, Config, NoTls, Statement};

use super::db::{Db, DbError, Rows, Value, DEC_ONE};
use super::numeric;
use crate::target::endpoint::Endpoint;

/// A connection.
pub struct PostgresDb {
    client: Client,
    prepared: HashMap<String, Statement>,
}

impl PostgresDb {
    /// Connects to `database` at `endpoint`.
    pub fn connect(endpoint: &Endpoint, database: &str) -> Result<Self, DbError> {
        let client = Config::new()
            .host(&endpoint.host)
            .port(endpoint.port)
            .user(&endpoint.user)
            .password(&endpoint.password)
            .dbname(database)
            .application_name("contio-engine tpcc")
            .connect(NoTls)
            .map_err(|e| {
                DbError::fatal(format!(
                    "connect to {}:{}/{database}: {e}",
                    endpoint.host, endpoint.port
                ))
            })?;
        Ok(Self {
            client,
            prepared: HashMap::new(),
        })
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, DbError> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self
            .client
            .prepare(&dollar_placeholders(sql))
            .map_err(error)?;
        self.prepared.insert(sql.to_string(), s.clone());
        Ok(s)
    }
}

/// `?` → `$1`, `$2`, … (the statements contain no `?` inside strings).
pub fn dollar_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(c);
        }
    }
    out
}

fn error(e: postgres::Error) -> DbError {
    let retryable = e.code().is_some_and(|c| {
        *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    });
    DbError {
        message: e.to_string(),
        retryable,
    }
}

type BoxError = Box<dyn Error + Sync + Send>;

impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT8 => i.to_sql(ty, out),
                Type::NUMERIC => numeric::encode(i * DEC_ONE, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                _ => Err(format!("cannot send an integer as {ty}").into()),
            },
            Value::Dec(d) => match *ty {
                Type::NUMERIC => numeric::encode(*d, out),
                Type::FLOAT8 => (*d as f64 / DEC_ONE as f64).to_sql(ty, out),
                _ => Err(format!("cannot send a decimal as {ty}").into()),
            },
            Value::Text(t) => t.as_str().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, BoxError> {
        Ok(match *ty {
            Type::INT2 => Value::Int(i64::from(i16::from_sql(ty, raw)?)),
            Type::INT4 => Value::Int(i64::from(i32::from_sql(ty, raw)?)),
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::NUMERIC => Value::Dec(numeric::decode(raw)?),
            Type::FLOAT8 => Value::Dec((f64::from_sql(ty, raw)? * DEC_ONE as f64).round() as i64),
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => {
                Value::Text(<&str>::from_sql(ty, raw)?.to_string())
            }
            // Timestamps: shown to the terminal's user in TPC-C, never computed with.
            _ => Value::Null,
        })
    }

    fn from_sql_null(_: &Type) -> Result<Self, BoxError> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

impl Db for PostgresDb {
    fn execute_text(&mut self, sql: &str) -> Result<(), DbError> {
        self.client.batch_execute(sql).map_err(error)
    }

    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError> {
        let statement = self.statement(sql)?;
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        self.client.execute(&statement, &refs).map_err(error)
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Rows, DbError> {
        let statement = self.statement(sql)?;
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as _).collect();
        let rows = self.client.query(&statement, &refs).map_err(error)?;
        rows.iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| row.try_get::<_, Value>(i).map_err(error))
                    .collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_placeholders() {
        assert_eq!(
            dollar_placeholders("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
        );
    }
}
