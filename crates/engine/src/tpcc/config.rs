//! The `tpcc` properties: scale, connection, client settings. Every name is
//! checked (a misspelt one exits 2 naming the closest known name).

use super::db::{Db, DbError, Dialect};
use super::db_mysql::MysqlDb;
use super::db_postgres::PostgresDb;
use crate::binding;
use crate::client::{ClientConfig, StartBarrier};
use crate::error::PropertyError;
use crate::properties::{closest, Properties};
use crate::target::endpoint::{identifier, Endpoint};
use crate::workload::property_names::MEASUREMENT;

/// Districts per warehouse (fixed by the spec).
pub const DISTRICTS: i64 = 10;
/// Items in the spec's `item` table (and stock rows per warehouse).
pub const SPEC_ITEMS: i64 = 100_000;
/// Customers (and orders) per district in the spec.
pub const SPEC_CUSTOMERS: i64 = 3_000;

/// `tpcc`'s own properties (besides the target's namespace and
/// `property_names::MEASUREMENT`).
pub const PROPERTIES: &[&str] = &[
    "warehouses",
    "tpcc.items",
    "tpcc.customers",
    "tpcc.think_time",
    "tpcc.retries",
    "threadcount",
    "operationcount",
    "maxexecutiontime",
];

/// The data set's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    pub warehouses: i64,
    /// Items, and stock rows per warehouse (spec: 100,000).
    pub items: i64,
    /// Customers and initial orders per district (spec: 3,000).
    pub customers: i64,
}

impl Scale {
    /// The spec's scale at `warehouses`.
    pub fn spec(warehouses: i64) -> Self {
        Self {
            warehouses,
            items: SPEC_ITEMS,
            customers: SPEC_CUSTOMERS,
        }
    }

    /// The first initial order still undelivered (spec: 2101; the last 900 of
    /// 3000 orders are in `new_order`), scaled with the customers.
    pub fn first_new_order(&self) -> i64 {
        self.customers - self.customers * 900 / SPEC_CUSTOMERS + 1
    }

    /// Last-name numbers the run draws (spec: 0..=999), fewer when a small
    /// test scale has fewer customers, so every name drawn exists.
    pub fn last_names(&self) -> i64 {
        self.customers.min(1000)
    }
}

/// What a `tpcc` command needs.
#[derive(Debug, Clone)]
pub struct TpccConfig {
    pub dialect: Dialect,
    pub endpoint: Endpoint,
    pub database: String,
    /// `warehouses` (load: required; run: 0 = every warehouse loaded), and
    /// the test-only `tpcc.items`/`tpcc.customers` (load only).
    pub scale: Scale,
    /// Keying and think times of clause 5.2.5 (off by default: terminals run flat out).
    pub think_time: bool,
    /// Retries of a transaction after a deadlock or serialization failure.
    pub retries: u32,
    /// Transactions in all, 0 = until `maxexecutiontime` or a signal.
    pub operation_count: u64,
    pub client: ClientConfig,
    pub barrier: Option<StartBarrier>,
}

fn check_names(props: &Properties, target: &str) -> Result<(), PropertyError> {
    let own: Vec<String> = ["host", "port", "user", "password", "database"]
        .iter()
        .map(|k| format!("{target}.{k}"))
        .collect();
    for key in props.keys() {
        let mut known = PROPERTIES.iter().chain(MEASUREMENT).copied();
        if known.any(|k| k == key) || own.iter().any(|k| k == key) {
            continue;
        }
        let known = PROPERTIES
            .iter()
            .chain(MEASUREMENT)
            .copied()
            .chain(own.iter().map(String::as_str));
        return Err(PropertyError::Unknown {
            key: key.to_string(),
            suggestion: closest(key, known),
        });
    }
    Ok(())
}

fn positive(props: &Properties, key: &str, default: i64) -> Result<i64, PropertyError> {
    let v: i64 = props.parse_or(key, default, "a positive integer")?;
    if v < 1 {
        return Err(PropertyError::BadValue {
            key: key.into(),
            value: v.to_string(),
            expected: "a positive integer".into(),
        });
    }
    Ok(v)
}

impl TpccConfig {
    /// Reads and checks the properties of `target` (`mysql` or `postgres`);
    /// `load` requires `warehouses`. YCSB's `db.url`, `db.user` and `db.passwd`
    /// are accepted as for the `load`/`run` commands.
    pub fn from_properties(
        target: &str,
        mut props: Properties,
        load: bool,
        show_status: bool,
    ) -> Result<(Self, Properties), PropertyError> {
        let dialect = match target {
            "mysql" => Dialect::Mysql,
            "postgres" => Dialect::Postgres,
            other => {
                return Err(PropertyError::Invalid {
                    key: "TARGET".into(),
                    reason: format!(
                        "tpcc runs against 'mysql' (MariaDB, MySQL) or 'postgres', not '{other}'"
                    ),
                })
            }
        };
        binding::translate(target, None, &mut props)?;
        check_names(&props, target)?;
        let (port, user) = match dialect {
            Dialect::Mysql => (3306, "ycsb"),
            Dialect::Postgres => (5432, "ycsb"),
        };
        let endpoint = Endpoint::from_properties(&props, target, port, user, "ycsb")?;
        let database = identifier(&props, &format!("{target}.database"), "ycsb")?;
        let warehouses = if load {
            if props.get("warehouses").is_none() {
                return Err(PropertyError::Invalid {
                    key: "warehouses".into(),
                    reason: "the load needs the number of warehouses (-p warehouses=N)".into(),
                });
            }
            positive(&props, "warehouses", 1)?
        } else {
            let w: i64 = props.parse_or(
                "warehouses",
                0,
                "a non-negative integer (0 = every warehouse loaded)",
            )?;
            w.max(0)
        };
        let scale = Scale {
            warehouses,
            items: positive(&props, "tpcc.items", SPEC_ITEMS)?,
            customers: positive(&props, "tpcc.customers", SPEC_CUSTOMERS)?,
        };
        if scale.customers < 10 {
            return Err(PropertyError::BadValue {
                key: "tpcc.customers".into(),
                value: scale.customers.to_string(),
                expected: "at least 10 (the spec's 3000; fewer only for tests)".into(),
            });
        }
        let config = Self {
            dialect,
            endpoint,
            database,
            scale,
            think_time: props.bool_or("tpcc.think_time", false)?,
            retries: props.parse_or("tpcc.retries", 10, "a non-negative integer")?,
            operation_count: props.parse_or(
                "operationcount",
                0,
                "a non-negative integer (0 = unlimited)",
            )?,
            client: ClientConfig::from_properties(&props, show_status)?,
            barrier: StartBarrier::from_properties(&props)?,
        };
        Ok((config, props))
    }

    /// A new connection.
    pub fn connect(&self) -> Result<Box<dyn Db>, DbError> {
        Ok(match self.dialect {
            Dialect::Mysql => Box::new(MysqlDb::connect(&self.endpoint, &self.database)?),
            Dialect::Postgres => Box::new(PostgresDb::connect(&self.endpoint, &self.database)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Properties {
        Properties::from_pairs(pairs)
    }

    #[test]
    fn checks_names_and_targets() {
        let p = props(&[("warehouses", "2"), ("mysql.host", "db")]);
        let (c, _) = TpccConfig::from_properties("mysql", p, true, false).unwrap();
        assert_eq!(c.scale, Scale::spec(2));
        assert_eq!(c.endpoint.host, "db");
        let p = props(&[("warehouse", "2")]);
        let err = TpccConfig::from_properties("mysql", p, true, false).unwrap_err();
        assert!(err.to_string().contains("warehouses"), "{err}");
        let err = TpccConfig::from_properties("redis", Properties::new(), false, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("'mysql'") && err.contains("'postgres'"),
            "{err}"
        );
        let err = TpccConfig::from_properties("postgres", Properties::new(), true, false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("warehouses"), "{err}");
        let p = props(&[("db.url", "jdbc:postgresql://pg:5433/tpcc")]);
        let (c, _) = TpccConfig::from_properties("postgres", p, false, false).unwrap();
        assert_eq!((c.endpoint.port, c.database.as_str()), (5433, "tpcc"));
    }

    #[test]
    fn scales_the_new_orders_with_the_customers() {
        assert_eq!(Scale::spec(1).first_new_order(), 2101);
        let small = Scale {
            warehouses: 1,
            items: 1000,
            customers: 300,
        };
        assert_eq!(small.first_new_order(), 211);
        assert_eq!(small.last_names(), 300);
    }
}
