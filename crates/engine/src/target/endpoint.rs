//! What every network binding reads from its namespace (`NAME.host`, `NAME.port`, …),
//! and the small helpers the bindings share: pool size, SQL identifiers, error reports.

use std::fmt::Display;

use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

/// Where a database server listens and how to log in.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    /// Connections to open: one per client thread (`threadcount`).
    pub pool_size: usize,
}

impl Endpoint {
    /// Reads `TARGET.host` (default localhost), `TARGET.port`, `TARGET.user`,
    /// `TARGET.password` and the pool size from `threadcount`.
    pub fn from_properties(
        props: &Properties,
        target: &str,
        default_port: u16,
        default_user: &str,
        default_password: &str,
    ) -> Result<Self, PropertyError> {
        let key = |name: &str| format!("{target}.{name}");
        let host = props
            .get(&key("host"))
            .map(str::trim)
            .unwrap_or("localhost");
        if host.is_empty() {
            return Err(PropertyError::Invalid {
                key: key("host"),
                reason: "must name a host (a container name on the experiment's network, \
                         or an address)"
                    .into(),
            });
        }
        let port: u16 = props.parse_or(&key("port"), default_port, "a TCP port (1-65535)")?;
        if port == 0 {
            return Err(PropertyError::BadValue {
                key: key("port"),
                value: "0".into(),
                expected: "a TCP port (1-65535)".into(),
            });
        }
        Ok(Self {
            host: host.to_string(),
            port,
            user: props.get(&key("user")).unwrap_or(default_user).to_string(),
            password: props
                .get(&key("password"))
                .unwrap_or(default_password)
                .to_string(),
            pool_size: thread_count(props)?,
        })
    }
}

/// The client's thread count (`threadcount`, at least 1): the size of connection pools.
pub fn thread_count(props: &Properties) -> Result<usize, PropertyError> {
    let threads: usize = props.parse_or("threadcount", 1, "an integer >= 1")?;
    Ok(threads.max(1))
}

/// `props[key]` (or `default`) when it is a plain identifier (letters, digits, `_`, not
/// starting with a digit). SQL and CQL statements are built from table and field names,
/// so anything else is refused rather than quoted.
pub fn identifier(props: &Properties, key: &str, default: &str) -> Result<String, PropertyError> {
    let value = props.get(key).map(str::trim).unwrap_or(default);
    let mut chars = value.chars();
    let ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(value.to_string())
    } else {
        Err(PropertyError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            expected: "an identifier (letters, digits and '_', not starting with a digit)".into(),
        })
    }
}

/// A `TargetError::Failed` for `target` with `what` and the driver's error.
pub fn failed(target: &str, what: &str, err: impl Display) -> TargetError {
    TargetError::Failed {
        target: target.to_string(),
        reason: format!("{what}: {err}"),
    }
}

/// Reports a session's first failed call on stderr, so a run full of errors says why
/// without printing one line per operation.
#[derive(Debug, Default)]
pub struct FirstError {
    reported: bool,
}

impl FirstError {
    /// Prints `target: op failed: err` the first time only.
    pub fn report(&mut self, target: &str, op: &str, err: impl Display) {
        if !self.reported {
            self.reported = true;
            eprintln!("target '{target}': {op} failed: {err} (further errors not shown)");
        }
    }
}

/// Java's `String.hashCode` over the bytes of an ASCII string (keys are ASCII). YCSB's
/// Redis binding scores each key in its scan index with this, so the order matches.
pub fn java_string_hash(s: &str) -> i32 {
    s.bytes()
        .fold(0i32, |h, b| h.wrapping_mul(31).wrapping_add(i32::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_matches_known_values() {
        // "hello".hashCode() == 99162322 and "".hashCode() == 0 in Java.
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash(""), 0);
        // Overflow wraps as in Java: this string is a known Integer.MIN_VALUE.
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn identifiers_are_checked() {
        let mut p = Properties::new();
        assert_eq!(identifier(&p, "table", "usertable").unwrap(), "usertable");
        p.set("table", "user table; DROP");
        assert!(matches!(
            identifier(&p, "table", "usertable"),
            Err(PropertyError::BadValue { .. })
        ));
    }

    #[test]
    fn endpoint_defaults_and_errors() {
        let mut p = Properties::new();
        p.set("threadcount", "4");
        let e = Endpoint::from_properties(&p, "redis", 6379, "", "").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.pool_size),
            ("localhost", 6379, 4)
        );
        p.set("redis.port", "70000");
        let err = Endpoint::from_properties(&p, "redis", 6379, "", "").unwrap_err();
        assert!(err.to_string().contains("redis.port"), "{err}");
    }
}
