//! SQL text for the relational bindings, with the layout of YCSB's JDBC binding:
//! table `usertable`, key column `YCSB_KEY`, one column per field (`FIELD0..n`).
//!
//! Table and field names are identifiers checked when the target opens
//! (`endpoint::identifier`), so they can be placed in the text; values and keys are
//! always bound parameters.

use std::collections::HashMap;

/// How a dialect numbers its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholder {
    /// `?` (MySQL, MariaDB).
    Question,
    /// `$1, $2, …` (PostgreSQL).
    Dollar,
}

impl Placeholder {
    fn nth(self, n: usize) -> String {
        match self {
            Placeholder::Question => "?".to_string(),
            Placeholder::Dollar => format!("${n}"),
        }
    }
}

/// The key column of YCSB's JDBC layout.
pub const KEY_COLUMN: &str = "YCSB_KEY";

/// Builds statements once per shape (table and field list) and keeps them.
#[derive(Debug)]
pub struct Statements {
    placeholder: Placeholder,
    cache: HashMap<String, String>,
}

impl Statements {
    /// An empty cache for `placeholder`'s dialect.
    pub fn new(placeholder: Placeholder) -> Self {
        Self {
            placeholder,
            cache: HashMap::new(),
        }
    }

    fn cached(&mut self, shape: String, build: impl FnOnce(Placeholder) -> String) -> &str {
        let p = self.placeholder;
        self.cache.entry(shape).or_insert_with(|| build(p))
    }

    /// `SELECT <fields or *> FROM t WHERE YCSB_KEY = ?`.
    pub fn read(&mut self, table: &str, fields: Option<&[String]>) -> &str {
        let columns = column_list(fields);
        self.cached(format!("r {table} {columns}"), |p| {
            format!(
                "SELECT {columns} FROM {table} WHERE {KEY_COLUMN} = {}",
                p.nth(1)
            )
        })
    }

    /// `SELECT … WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?`.
    pub fn scan(&mut self, table: &str, fields: Option<&[String]>) -> &str {
        // The key is selected too, so each scanned record can be named.
        let columns = match fields {
            None => "*".to_string(),
            Some(f) => format!("{KEY_COLUMN}, {}", f.join(", ")),
        };
        self.cached(format!("s {table} {columns}"), |p| {
            format!(
                "SELECT {columns} FROM {table} WHERE {KEY_COLUMN} >= {} ORDER BY {KEY_COLUMN} LIMIT {}",
                p.nth(1),
                p.nth(2)
            )
        })
    }

    /// `UPDATE t SET f1 = ?, … WHERE YCSB_KEY = ?` (values first, key last).
    pub fn update<'a>(&mut self, table: &str, fields: impl Iterator<Item = &'a str>) -> &str {
        let fields: Vec<&str> = fields.collect();
        self.cached(format!("u {table} {}", fields.join(",")), |p| {
            let sets: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| format!("{f} = {}", p.nth(i + 1)))
                .collect();
            format!(
                "UPDATE {table} SET {} WHERE {KEY_COLUMN} = {}",
                sets.join(", "),
                p.nth(fields.len() + 1)
            )
        })
    }

    /// `INSERT INTO t (YCSB_KEY, f…) VALUES (?, ?…)` (key first).
    pub fn insert<'a>(&mut self, table: &str, fields: impl Iterator<Item = &'a str>) -> &str {
        let fields: Vec<&str> = fields.collect();
        self.cached(format!("i {table} {}", fields.join(",")), |p| {
            let values: Vec<String> = (1..=fields.len() + 1).map(|n| p.nth(n)).collect();
            format!(
                "INSERT INTO {table} ({KEY_COLUMN}, {}) VALUES ({})",
                fields.join(", "),
                values.join(", ")
            )
        })
    }

    /// `DELETE FROM t WHERE YCSB_KEY = ?`.
    pub fn delete(&mut self, table: &str) -> &str {
        self.cached(format!("d {table}"), |p| {
            format!("DELETE FROM {table} WHERE {KEY_COLUMN} = {}", p.nth(1))
        })
    }
}

fn column_list(fields: Option<&[String]>) -> String {
    match fields {
        None => "*".to_string(),
        Some(f) => f.join(", "),
    }
}

/// Whether a result column is the key (compared without case: SQL folds unquoted names).
pub fn is_key_column(name: &str) -> bool {
    name.eq_ignore_ascii_case(KEY_COLUMN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialects_number_parameters() {
        let mut my = Statements::new(Placeholder::Question);
        let mut pg = Statements::new(Placeholder::Dollar);
        let fields = ["field1", "field2"];
        assert_eq!(
            my.update("usertable", fields.iter().copied()),
            "UPDATE usertable SET field1 = ?, field2 = ? WHERE YCSB_KEY = ?"
        );
        assert_eq!(
            pg.insert("usertable", fields.iter().copied()),
            "INSERT INTO usertable (YCSB_KEY, field1, field2) VALUES ($1, $2, $3)"
        );
        assert_eq!(
            pg.scan("usertable", None),
            "SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2"
        );
        let one = vec!["field3".to_string()];
        assert_eq!(
            my.read("usertable", Some(&one)),
            "SELECT field3 FROM usertable WHERE YCSB_KEY = ?"
        );
    }
}
