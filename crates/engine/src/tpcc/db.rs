//! The SQL connection the TPC-C terminals and the loader use: one per thread,
//! the same calls for MariaDB/MySQL (`mysql` crate) and PostgreSQL (`postgres`
//! crate). Statements are written once with `?` placeholders; the PostgreSQL
//! connection numbers them (`$1`, …) when it prepares them.

use std::fmt;

/// The SQL dialects (the two targets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// MariaDB and MySQL (target `mysql`).
    Mysql,
    /// PostgreSQL (target `postgres`).
    Postgres,
}

impl Dialect {
    /// The target name.
    pub fn target(self) -> &'static str {
        match self {
            Dialect::Mysql => "mysql",
            Dialect::Postgres => "postgres",
        }
    }
}

/// A parameter or a result column. Decimals are fixed-point in ten-thousandths
/// (`DECIMAL(4,4)` taxes and `DECIMAL(12,2)` amounts both fit), so money is
/// added exactly, as the consistency conditions compare sums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    /// A decimal, in units of 1/10000.
    Dec(i64),
    Text(String),
    /// SQL NULL, and columns the workload does not read (timestamps).
    Null,
}

/// Units of `Value::Dec` per 1.
pub const DEC_ONE: i64 = 10_000;

impl Value {
    /// The integer in the column (integers, or decimal text without a fraction).
    pub fn int(&self) -> Result<i64, DbError> {
        match self {
            Value::Int(i) => Ok(*i),
            Value::Dec(d) => Ok(d / DEC_ONE),
            Value::Text(t) => t
                .trim()
                .parse()
                .map_err(|_| DbError::fatal(format!("expected an integer, got '{t}'"))),
            Value::Null => Ok(0),
        }
    }

    /// The decimal in the column, in 1/10000 (MariaDB sends decimals as text).
    pub fn dec(&self) -> Result<i64, DbError> {
        match self {
            Value::Int(i) => Ok(i * DEC_ONE),
            Value::Dec(d) => Ok(*d),
            Value::Text(t) => parse_decimal(t)
                .ok_or_else(|| DbError::fatal(format!("expected a decimal, got '{t}'"))),
            Value::Null => Ok(0),
        }
    }

    /// The text in the column ("" for NULL and numbers).
    pub fn text(&self) -> &str {
        match self {
            Value::Text(t) => t,
            _ => "",
        }
    }
}

/// `-123.4567` → -1234567 (1/10000); digits beyond four decimals are cut.
pub fn parse_decimal(text: &str) -> Option<i64> {
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut units = 0i64;
    for (i, c) in frac.chars().enumerate() {
        let d = i64::from(c.to_digit(10)?);
        if i < 4 {
            units += d * 10i64.pow(3 - i as u32);
        }
    }
    let v = whole.checked_mul(DEC_ONE)?.checked_add(units)?;
    Some(if negative { -v } else { v })
}

/// `-1234567` → `"-123.4567"`.
pub fn format_decimal(units: i64) -> String {
    let sign = if units < 0 { "-" } else { "" };
    let a = units.unsigned_abs();
    format!("{sign}{}.{:04}", a / DEC_ONE as u64, a % DEC_ONE as u64)
}

/// A failed statement; `retryable` for deadlocks, lock wait timeouts and
/// serialization failures, which the terminal retries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    pub message: String,
    pub retryable: bool,
}

impl DbError {
    /// An error that retrying does not cure.
    pub fn fatal(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retryable: false,
        }
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result rows, each a vector of columns.
pub type Rows = Vec<Vec<Value>>;

/// One connection.
pub trait Db: Send {
    /// Runs SQL text as it is, without parameters (DDL, the loader's batches,
    /// BEGIN/COMMIT/ROLLBACK).
    fn execute_text(&mut self, sql: &str) -> Result<(), DbError>;

    /// Runs a prepared statement that returns no rows; returns the rows it matched.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, DbError>;

    /// Runs a prepared query.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Rows, DbError>;

    /// Starts a transaction.
    fn begin(&mut self) -> Result<(), DbError> {
        self.execute_text("BEGIN")
    }

    /// Commits the transaction.
    fn commit(&mut self) -> Result<(), DbError> {
        self.execute_text("COMMIT")
    }

    /// Rolls the transaction back.
    fn rollback(&mut self) -> Result<(), DbError> {
        self.execute_text("ROLLBACK")
    }
}

/// The first row of a query that must return one.
pub fn one_row(rows: Rows, what: &str) -> Result<Vec<Value>, DbError> {
    rows.into_iter()
        .next()
        .ok_or_else(|| DbError::fatal(format!("{what}: no row (is the database loaded?)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_round_trip() {
        assert_eq!(parse_decimal("300000.00"), Some(3_000_000_000));
        assert_eq!(parse_decimal("-10.5"), Some(-105_000));
        assert_eq!(parse_decimal("0.1234"), Some(1234));
        assert_eq!(parse_decimal(".5"), Some(5000));
        assert_eq!(parse_decimal("7"), Some(70_000));
        assert_eq!(parse_decimal("x"), None);
        assert_eq!(format_decimal(-105_000), "-10.5000");
        assert_eq!(format_decimal(1234), "0.1234");
        assert_eq!(Value::Text("12.34".into()).dec().unwrap(), 123_400);
        assert_eq!(Value::Int(3).dec().unwrap(), 30_000);
    }
}
