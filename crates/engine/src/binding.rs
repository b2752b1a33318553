//! YCSB's database bindings, as users name them (`-db site.ycsb.BasicDB`, or
//! `bin/ycsb load basic`), mapped to contio's targets; and the bindings'
//! connection properties renamed to the target's (`db.url` → `mysql.host`, …),
//! so YCSB command lines and workload files run unchanged.

use crate::error::PropertyError;
use crate::properties::Properties;

/// Which target a binding drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drives {
    Target(&'static str),
    /// JDBC: MySQL/MariaDB or PostgreSQL, by `db.url`.
    Jdbc,
}

/// One YCSB binding contio implements.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The name `bin/ycsb` takes (`basic`, `jdbc`, …).
    pub name: &'static str,
    /// The class `-db` names (current and pre-0.14 package).
    pub classes: [&'static str; 2],
    drives: Drives,
}

/// The bindings contio implements, by `bin/ycsb` name.
pub const BINDINGS: [Binding; 7] = [
    Binding {
        name: "basic",
        classes: ["site.ycsb.BasicDB", "com.yahoo.ycsb.BasicDB"],
        drives: Drives::Target("null"),
    },
    Binding {
        name: "redis",
        classes: ["site.ycsb.db.RedisClient", "com.yahoo.ycsb.db.RedisClient"],
        drives: Drives::Target("redis"),
    },
    Binding {
        name: "jdbc",
        classes: [
            "site.ycsb.db.JdbcDBClient",
            "com.yahoo.ycsb.db.JdbcDBClient",
        ],
        drives: Drives::Jdbc,
    },
    Binding {
        name: "mongodb",
        classes: [
            "site.ycsb.db.MongoDbClient",
            "com.yahoo.ycsb.db.MongoDbClient",
        ],
        drives: Drives::Target("mongodb"),
    },
    Binding {
        name: "mongodb-async",
        classes: [
            "site.ycsb.db.AsyncMongoDbClient",
            "com.yahoo.ycsb.db.AsyncMongoDbClient",
        ],
        drives: Drives::Target("mongodb"),
    },
    Binding {
        name: "cassandra-cql",
        classes: [
            "site.ycsb.db.CassandraCQLClient",
            "com.yahoo.ycsb.db.CassandraCQLClient",
        ],
        drives: Drives::Target("cassandra"),
    },
    Binding {
        name: "cassandra2-cql",
        classes: [
            "site.ycsb.db.CassandraCQLClient",
            "com.yahoo.ycsb.db.CassandraCQLClient",
        ],
        drives: Drives::Target("cassandra"),
    },
];

/// YCSB's default `db`.
pub const DEFAULT_CLASS: &str = "site.ycsb.BasicDB";

/// The binding `bin/ycsb` calls `name`.
pub fn by_name(name: &str) -> Option<&'static Binding> {
    BINDINGS.iter().find(|b| b.name == name)
}

/// The binding whose class is `class`.
pub fn by_class(class: &str) -> Option<&'static Binding> {
    BINDINGS.iter().find(|b| b.classes.contains(&class))
}

/// `basic, redis, jdbc, …` for messages.
pub fn names() -> String {
    BINDINGS.map(|b| b.name).join(", ")
}

fn unsupported_db(db: &str) -> PropertyError {
    let classes: Vec<&str> = BINDINGS.iter().map(|b| b.classes[0]).collect();
    let mut unique = classes.clone();
    unique.dedup();
    PropertyError::BadValue {
        key: "db".into(),
        value: db.into(),
        expected: format!(
            "a YCSB binding contio implements ({}) or a contio target (see `contio-engine targets`)",
            unique.join(", ")
        ),
    }
}

/// The contio target that `db` (a binding class or a contio target name) drives.
pub fn target_for(db: &str, props: &Properties, targets: &[&str]) -> Result<String, PropertyError> {
    if targets.contains(&db) {
        return Ok(db.to_string());
    }
    match by_class(db).map(|b| b.drives) {
        Some(Drives::Target(t)) => Ok(t.to_string()),
        Some(Drives::Jdbc) => jdbc_target(props).map(str::to_string),
        None => Err(unsupported_db(db)),
    }
}

const JDBC_URLS: &str =
    "jdbc:mysql://HOST[:PORT]/DATABASE, jdbc:mariadb://… or jdbc:postgresql://HOST[:PORT]/DATABASE";

fn jdbc_target(props: &Properties) -> Result<&'static str, PropertyError> {
    let url = props
        .get("db.url")
        .map(str::trim)
        .ok_or_else(|| PropertyError::Invalid {
            key: "db.url".into(),
            reason: format!("site.ycsb.db.JdbcDBClient needs it: {JDBC_URLS}"),
        })?;
    if url.starts_with("jdbc:mysql:") || url.starts_with("jdbc:mariadb:") {
        Ok("mysql")
    } else if url.starts_with("jdbc:postgresql:") {
        Ok("postgres")
    } else {
        Err(bad_url(url))
    }
}

fn bad_url(url: &str) -> PropertyError {
    PropertyError::BadValue {
        key: "db.url".into(),
        value: url.into(),
        expected: format!("one URL of the form {JDBC_URLS}"),
    }
}

/// The parts of a JDBC URL contio uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JdbcUrl {
    pub host: String,
    pub port: Option<String>,
    pub database: Option<String>,
}

/// Parses `jdbc:SCHEME://HOST[:PORT][/DATABASE][?…]` (one host; YCSB's
/// comma-separated shard URLs are refused: contio drives one database).
pub fn parse_jdbc_url(url: &str) -> Result<JdbcUrl, PropertyError> {
    let rest = url
        .split_once("://")
        .map(|(_, rest)| rest)
        .filter(|rest| !url.contains(',') && !rest.is_empty())
        .ok_or_else(|| bad_url(url))?;
    let rest = rest.split(['?', ';']).next().unwrap_or(rest);
    let (authority, database) = match rest.split_once('/') {
        Some((a, d)) => (a, Some(d).filter(|d| !d.is_empty()).map(str::to_string)),
        None => (rest, None),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, Some(p.to_string())),
        None => (authority, None),
    };
    if host.is_empty() {
        return Err(bad_url(url));
    }
    Ok(JdbcUrl {
        host: host.to_string(),
        port,
        database,
    })
}

/// Renames `from` to `to` (contio's own name wins when both are set).
fn rename(props: &mut Properties, from: &str, to: &str) {
    if let Some(value) = props.remove(from) {
        if props.get(to).is_none() {
            props.set(to, value);
        }
    }
}

/// Renames the YCSB binding properties of `target` to contio's names; `class`
/// is the binding class named with `-db`, if any. Returns warnings for binding
/// properties that have no effect in contio (see `binding_properties`).
pub fn translate(
    target: &str,
    class: Option<&str>,
    props: &mut Properties,
) -> Result<Vec<String>, PropertyError> {
    let warnings = crate::binding_properties::drop_inert(target, class, props);
    match target {
        "mysql" | "postgres" => {
            if let Some(url) = props.remove("db.url") {
                let parsed = parse_jdbc_url(url.trim())?;
                let mut set = |k: &str, v: Option<String>| {
                    let key = format!("{target}.{k}");
                    if let (Some(v), None) = (v, props.get(&key)) {
                        props.set(key, v);
                    }
                };
                set("host", Some(parsed.host));
                set("port", parsed.port);
                set("database", parsed.database);
            }
            rename(props, "db.user", &format!("{target}.user"));
            rename(props, "db.passwd", &format!("{target}.password"));
        }
        "cassandra" => {
            if let Some(hosts) = props.remove("hosts") {
                // The driver learns the other nodes from the first one it reaches.
                let first = hosts.split(',').next().unwrap_or("").trim().to_string();
                if props.get("cassandra.host").is_none() {
                    props.set("cassandra.host", first);
                }
            }
            rename(props, "port", "cassandra.port");
            rename(props, "cassandra.username", "cassandra.user");
            rename(
                props,
                "cassandra.readconsistencylevel",
                "cassandra.readconsistency",
            );
            rename(
                props,
                "cassandra.writeconsistencylevel",
                "cassandra.writeconsistency",
            );
        }
        "mongodb" => rename(props, "batchsize", "mongodb.batchsize"),
        "null" => basicdb_delay(props)?,
        _ => {}
    }
    Ok(warnings)
}

/// BasicDB's simulated delay: `basicdb.simulatedelay` ms, by default (YCSB's
/// `basicdb.randomizedelay=true`) a whole number of ms drawn from 0 to N−1.
fn basicdb_delay(props: &mut Properties) -> Result<(), PropertyError> {
    let random = props.java_bool_or("basicdb.randomizedelay", true);
    props.remove("basicdb.randomizedelay");
    let Some(ms) = props.remove("basicdb.simulatedelay") else {
        return Ok(());
    };
    let ms: u64 = ms.trim().parse().map_err(|_| PropertyError::BadValue {
        key: "basicdb.simulatedelay".into(),
        value: ms.clone(),
        expected: "a whole number of milliseconds".into(),
    })?;
    if props.get("null.delay_us").is_none() {
        props.set("null.delay_us", ms.saturating_mul(1000).to_string());
        props.set("null.delay_random", random.to_string());
        props.set("null.delay_step_us", "1000");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Properties {
        Properties::from_pairs(pairs)
    }

    const TARGETS: [&str; 3] = ["null", "redis", "mysql"];

    #[test]
    fn classes_map_to_targets() {
        let none = Properties::new();
        assert_eq!(
            target_for("site.ycsb.BasicDB", &none, &TARGETS).unwrap(),
            "null"
        );
        assert_eq!(
            target_for("com.yahoo.ycsb.db.RedisClient", &none, &TARGETS).unwrap(),
            "redis"
        );
        assert_eq!(target_for("redis", &none, &TARGETS).unwrap(), "redis");
        let err = target_for("site.ycsb.db.HBaseClient10", &none, &TARGETS).unwrap_err();
        assert!(
            err.to_string().contains("site.ycsb.db.JdbcDBClient"),
            "{err}"
        );
    }

    #[test]
    fn jdbc_chooses_by_url() {
        let class = "site.ycsb.db.JdbcDBClient";
        let mysql = props(&[("db.url", "jdbc:mariadb://db:3307/bench")]);
        assert_eq!(target_for(class, &mysql, &TARGETS).unwrap(), "mysql");
        let pg = props(&[("db.url", "jdbc:postgresql://db/ycsb")]);
        assert_eq!(target_for(class, &pg, &TARGETS).unwrap(), "postgres");
        let err = target_for(class, &Properties::new(), &TARGETS).unwrap_err();
        assert!(err.to_string().contains("db.url"), "{err}");
        let err = target_for(
            class,
            &props(&[("db.url", "jdbc:oracle:thin:@h")]),
            &TARGETS,
        );
        assert!(err.unwrap_err().to_string().contains("jdbc:postgresql"));
    }

    #[test]
    fn jdbc_properties_become_the_targets() {
        let mut p = props(&[
            ("db.url", "jdbc:mysql://10.0.0.5:3307/bench?useSSL=false"),
            ("db.user", "u"),
            ("db.passwd", "secret"),
            ("db.driver", "com.mysql.jdbc.Driver"),
        ]);
        let warnings = translate("mysql", None, &mut p).unwrap();
        assert_eq!(p.get("mysql.host"), Some("10.0.0.5"));
        assert_eq!(p.get("mysql.port"), Some("3307"));
        assert_eq!(p.get("mysql.database"), Some("bench"));
        assert_eq!(p.get("mysql.user"), Some("u"));
        assert_eq!(p.get("mysql.password"), Some("secret"));
        assert!(p.get("db.url").is_none() && p.get("db.driver").is_none());
        assert_eq!(warnings.len(), 1);
        let mut shards = props(&[("db.url", "jdbc:mysql://a/db,jdbc:mysql://b/db")]);
        assert!(translate("mysql", None, &mut shards).is_err());
    }

    #[test]
    fn cassandra_and_basicdb_names() {
        let mut p = props(&[
            ("hosts", "n1,n2"),
            ("port", "9043"),
            ("cassandra.username", "cassandra"),
            ("cassandra.readconsistencylevel", "QUORUM"),
        ]);
        translate("cassandra", None, &mut p).unwrap();
        assert_eq!(p.get("cassandra.host"), Some("n1"));
        assert_eq!(p.get("cassandra.port"), Some("9043"));
        assert_eq!(p.get("cassandra.user"), Some("cassandra"));
        assert_eq!(p.get("cassandra.readconsistency"), Some("QUORUM"));
        let mut b = props(&[("basicdb.simulatedelay", "3"), ("basicdb.verbose", "false")]);
        translate("null", None, &mut b).unwrap();
        assert_eq!(b.get("null.delay_us"), Some("3000"));
        // YCSB randomises by default, in whole milliseconds.
        assert_eq!(b.get("null.delay_random"), Some("true"));
        assert_eq!(b.get("null.delay_step_us"), Some("1000"));
        assert!(b.get("basicdb.verbose").is_none());
        let mut fixed = props(&[
            ("basicdb.simulatedelay", "3"),
            ("basicdb.randomizedelay", "no"),
        ]);
        translate("null", None, &mut fixed).unwrap();
        assert_eq!(fixed.get("null.delay_random"), Some("false"));
        let mut m = props(&[("batchsize", "100")]);
        translate("mongodb", None, &mut m).unwrap();
        assert_eq!(m.get("mongodb.batchsize"), Some("100"));
        assert!(m.get("batchsize").is_none());
    }

    #[test]
    fn every_binding_has_distinct_names() {
        assert_eq!(
            by_name("cassandra-cql").unwrap().classes[0],
            "site.ycsb.db.CassandraCQLClient"
        );
        assert_eq!(
            by_name("basic").unwrap().classes[1],
            "com.yahoo.ycsb.BasicDB"
        );
        assert!(by_name("hbase10").is_none());
        assert!(names().starts_with("basic, redis, jdbc"));
    }
}
