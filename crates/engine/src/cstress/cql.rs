//! cassandra-stress's table and its two statements over the `cassandra` target's
//! CQL connection (`crate::target::cassandra::CqlConnection`).
//!
//! The table is `KEYSPACE.standard1 (key blob PRIMARY KEY, "C0" blob, …)`, created
//! with the keyspace (SimpleStrategy, the replication factor asked for) when missing,
//! with the server's default table options. A write sets every column of one
//! partition (`UPDATE … SET "C0" = ?, … WHERE key = ?`, as the real tool); a read
//! selects them by key and checks them against the values the seed gives.

use scylla::deserialize::row::ColumnIterator;
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::Consistency;

use super::keys::{Layout, Row};
use crate::target::cassandra::CqlConnection;

/// The table's name (fixed in cassandra-stress).
pub const TABLE: &str = "standard1";

/// The `CREATE KEYSPACE` and `CREATE TABLE` statements.
pub fn schema(keyspace: &str, replication: u32, layout: &Layout) -> [String; 2] {
    let columns: String = layout
        .column_names()
        .iter()
        .map(|c| format!(", \"{c}\" blob"))
        .collect();
    [
        format!(
            "CREATE KEYSPACE IF NOT EXISTS {keyspace} WITH replication = \
             {{'class': 'SimpleStrategy', 'replication_factor': '{replication}'}}"
        ),
        format!("CREATE TABLE IF NOT EXISTS {keyspace}.{TABLE} (key blob PRIMARY KEY{columns})"),
    ]
}

/// The write (`UPDATE`) and read (`SELECT`) statements' text.
pub fn statements(keyspace: &str, layout: &Layout) -> (String, String) {
    let names = layout.column_names();
    let sets: Vec<String> = names.iter().map(|c| format!("\"{c}\" = ?")).collect();
    let selected: Vec<String> = names.iter().map(|c| format!("\"{c}\"")).collect();
    (
        format!(
            "UPDATE {keyspace}.{TABLE} SET {} WHERE key = ?",
            sets.join(", ")
        ),
        format!(
            "SELECT {} FROM {keyspace}.{TABLE} WHERE key = ?",
            selected.join(", ")
        ),
    )
}

/// Creates the keyspace and table when missing.
pub fn create_schema(
    conn: &CqlConnection,
    keyspace: &str,
    replication: u32,
    layout: &Layout,
) -> Result<(), String> {
    for cql in schema(keyspace, replication, layout) {
        conn.runtime
            .block_on(conn.session.query_unpaged(cql.as_str(), ()))
            .map_err(|e| format!("{cql}: {e}"))?;
    }
    // A single node agrees at once; a cluster must before the statements are prepared.
    conn.runtime
        .block_on(conn.session.await_schema_agreement())
        .map_err(|e| format!("schema agreement: {e}"))?;
    Ok(())
}

/// The prepared statements, at the run's consistency level.
#[derive(Clone)]
pub struct Statements {
    write: PreparedStatement,
    read: PreparedStatement,
}

impl Statements {
    pub fn prepare(
        conn: &CqlConnection,
        keyspace: &str,
        layout: &Layout,
        consistency: Consistency,
    ) -> Result<Self, String> {
        let (write, read) = statements(keyspace, layout);
        let prepare = |cql: &str| -> Result<PreparedStatement, String> {
            let mut p = conn
                .runtime
                .block_on(conn.session.prepare(cql))
                .map_err(|e| format!("prepare {cql}: {e}"))?;
            p.set_consistency(consistency);
            Ok(p)
        };
        Ok(Self {
            write: prepare(&write)?,
            read: prepare(&read)?,
        })
    }
}

/// How one attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    /// Done; for a read, the row matched.
    Ok,
    /// The read found no row: a partition never written.
    Missing,
    /// The read found a row with other values than the seed gives.
    Mismatch,
    /// The server or the driver failed the request (retried).
    Failed(String),
}

/// Writes `row`.
pub fn write(conn: &CqlConnection, st: &Statements, row: &Row) -> Attempt {
    let mut values: Vec<&[u8]> = row.values.iter().map(Vec::as_slice).collect();
    values.push(&row.key);
    match conn
        .runtime
        .block_on(conn.session.execute_unpaged(&st.write, values))
    {
        Ok(_) => Attempt::Ok,
        Err(e) => Attempt::Failed(e.to_string()),
    }
}

/// Reads `row`'s partition and checks its values against `row`'s.
pub fn read(conn: &CqlConnection, st: &Statements, row: &Row) -> Attempt {
    let result = match conn
        .runtime
        .block_on(conn.session.execute_unpaged(&st.read, (&row.key[..],)))
    {
        Ok(r) => r,
        Err(e) => return Attempt::Failed(e.to_string()),
    };
    match matches(result, row) {
        Ok(Some(true)) => Attempt::Ok,
        Ok(Some(false)) => Attempt::Mismatch,
        Ok(None) => Attempt::Missing,
        Err(e) => Attempt::Failed(e),
    }
}

/// Whether the result's first row holds `row`'s values (None: no row).
fn matches(
    result: scylla::response::query_result::QueryResult,
    row: &Row,
) -> Result<Option<bool>, String> {
    let rows = result.into_rows_result().map_err(|e| e.to_string())?;
    let mut iter = rows.rows::<ColumnIterator>().map_err(|e| e.to_string())?;
    let Some(first) = iter.next() else {
        return Ok(None);
    };
    let mut same = true;
    let mut seen = 0;
    for (column, expected) in first.map_err(|e| e.to_string())?.zip(&row.values) {
        let column = column.map_err(|e| e.to_string())?;
        let got = column.slice.map(|s| s.as_slice());
        same &= got == Some(expected.as_slice());
        seen += 1;
    }
    Ok(Some(same && seen == row.values.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_match_the_real_tools_table() {
        let layout = Layout {
            columns: 2,
            column_size: 34,
        };
        let [ks, table] = schema("keyspace1", 1, &layout);
        assert!(ks.contains("'replication_factor': '1'"), "{ks}");
        assert_eq!(
            table,
            "CREATE TABLE IF NOT EXISTS keyspace1.standard1 \
             (key blob PRIMARY KEY, \"C0\" blob, \"C1\" blob)"
        );
        let (write, read) = statements("keyspace1", &layout);
        assert_eq!(
            write,
            "UPDATE keyspace1.standard1 SET \"C0\" = ?, \"C1\" = ? WHERE key = ?"
        );
        assert_eq!(
            read,
            "SELECT \"C0\", \"C1\" FROM keyspace1.standard1 WHERE key = ?"
        );
    }
}
