//! Java-style properties, as YCSB reads them: `-P file` and `-p key=value`.
//!
//! Later sources override earlier ones. Lookups are typed and name the key and
//! the expected form on failure, so a bad value never reaches a workload.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use crate::error::PropertyError;

/// An ordered map of property names to raw string values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    values: BTreeMap<String, String>,
}

impl Properties {
    /// An empty property set.
    pub fn new() -> Self {
        Self::default()
    }

    /// A property set holding `pairs` (tests build their inputs with it).
    #[cfg(test)]
    pub(crate) fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        let mut properties = Self::new();
        for (key, value) in pairs {
            properties.set(*key, *value);
        }
        properties
    }

    /// Sets `key` to `value`, replacing an earlier value.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.values.insert(key.into(), value.into());
    }

    /// Removes `key`, returning its value if it was set.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        self.values.remove(key)
    }

    /// Parses a `key=value` override as given to `-p`.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), PropertyError> {
        match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                self.set(k.trim(), v.trim());
                Ok(())
            }
            _ => Err(PropertyError::Invalid {
                key: pair.to_string(),
                reason: "expected KEY=VALUE".to_string(),
            }),
        }
    }

    /// Loads a properties file (`key=value` or `key: value` lines; `#` and `!` comments).
    pub fn load_file(&mut self, path: &Path) -> Result<(), PropertyError> {
        let text =
            crate::file_kind::read_regular_text(path).map_err(|reason| PropertyError::File {
                path: path.display().to_string(),
                reason,
            })?;
        self.load_str(&text);
        Ok(())
    }

    /// Loads properties from text in the Java properties format (the subset YCSB files use).
    pub fn load_str(&mut self, text: &str) {
        let mut pending = String::new();
        for raw in text.lines() {
            let line = raw.trim_start();
            if pending.is_empty()
                && (line.is_empty() || line.starts_with('#') || line.starts_with('!'))
            {
                continue;
            }
            // A trailing backslash continues the logical line.
            if let Some(stripped) = line.strip_suffix('\\') {
                pending.push_str(stripped);
                continue;
            }
            pending.push_str(line);
            let logical = std::mem::take(&mut pending);
            if let Some((k, v)) = split_property_line(&logical) {
                self.set(k, v);
            }
        }
    }

    /// The raw value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// The value of `key` parsed as `T`, or `default` when unset.
    /// `expected` describes the allowed form for the error message.
    pub fn parse_or<T: FromStr>(
        &self,
        key: &str,
        default: T,
        expected: &str,
    ) -> Result<T, PropertyError> {
        match self.get(key) {
            None => Ok(default),
            Some(raw) => raw
                .trim()
                .parse::<T>()
                .map_err(|_| PropertyError::BadValue {
                    key: key.to_string(),
                    value: raw.to_string(),
                    expected: expected.to_string(),
                }),
        }
    }

    /// A boolean property of contio's own (`true`/`false`, case-insensitive;
    /// anything else is refused), or `default`. YCSB's use `java_bool_or`.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool, PropertyError> {
        match self.get(key).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if v == "true" => Ok(true),
            Some(v) if v == "false" => Ok(false),
            Some(v) => Err(PropertyError::BadValue {
                key: key.to_string(),
                value: v,
                expected: "true or false".to_string(),
            }),
        }
    }

    /// A boolean property of YCSB's, read as YCSB reads it (Java's
    /// `Boolean.parseBoolean`): `true` in any case is true, anything else —
    /// `false`, `yes`, `1` — is false; `default` when unset.
    pub fn java_bool_or(&self, key: &str, default: bool) -> bool {
        self.get(key)
            .map_or(default, |v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// A property whose value must be one of `allowed`, or `default`.
    pub fn choice_or<'a>(
        &'a self,
        key: &str,
        default: &'a str,
        allowed: &[&str],
    ) -> Result<&'a str, PropertyError> {
        let value = self.get(key).map(str::trim).unwrap_or(default);
        if allowed.contains(&value) {
            Ok(value)
        } else {
            Err(PropertyError::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                expected: format!("one of {}", allowed.join(", ")),
            })
        }
    }

    /// All keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// All key/value pairs, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The pairs whose key starts with `prefix` followed by a dot (a binding's namespace).
    pub fn namespace<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.iter().filter(move |(k, _)| {
            k.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('.'))
        })
    }
}

/// Splits one logical properties line at the first unescaped `=`, `:` or whitespace.
fn split_property_line(line: &str) -> Option<(String, String)> {
    let idx = line
        .find(['=', ':'])
        .or_else(|| line.find(char::is_whitespace))?;
    let key = line[..idx].trim();
    if key.is_empty() {
        return None;
    }
    let value = line[idx + 1..].trim();
    Some((key.to_string(), value.to_string()))
}

/// The known name closest to `unknown`, if any is close enough to be a likely typo.
pub fn closest<'a>(unknown: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    known
        .into_iter()
        .map(|k| (strsim::damerau_levenshtein(unknown, k), k))
        .filter(|(d, k)| *d <= 3.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ycsb_style_file() {
        let mut p = Properties::new();
        p.load_str("# comment\nrecordcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\n\nreadproportion = 0.5\n");
        assert_eq!(p.get("recordcount"), Some("1000"));
        assert_eq!(p.get("readproportion"), Some("0.5"));
        assert_eq!(p.parse_or("recordcount", 0u64, "an integer").unwrap(), 1000);
    }

    #[test]
    fn bad_value_names_key_and_form() {
        let mut p = Properties::new();
        p.set("recordcount", "many");
        let err = p
            .parse_or("recordcount", 0u64, "a non-negative integer")
            .unwrap_err();
        assert!(err.to_string().contains("recordcount"));
        assert!(err.to_string().contains("non-negative integer"));
    }

    #[test]
    fn suggests_closest_known_key() {
        let known = ["readproportion", "updateproportion", "recordcount"];
        assert_eq!(
            closest("readproportoin", known).as_deref(),
            Some("readproportion")
        );
        assert_eq!(closest("zzzzzzzzzzzzzzzzzzzz", known), None);
    }

    #[test]
    fn ycsb_booleans_read_as_java_reads_them() {
        let p = Properties::from_pairs(&[("a", "True"), ("b", "yes"), ("c", "FALSE"), ("d", "1")]);
        assert!(p.java_bool_or("a", false));
        assert!(!p.java_bool_or("b", true));
        assert!(!p.java_bool_or("c", true));
        assert!(!p.java_bool_or("d", true));
        assert!(p.java_bool_or("unset", true));
        assert!(p.bool_or("b", false).is_err());
    }

    #[test]
    fn namespace_selects_binding_keys() {
        let mut p = Properties::new();
        p.set("redis.host", "h");
        p.set("redisx", "1");
        let ns: Vec<_> = p.namespace("redis").collect();
        assert_eq!(ns, vec![("redis.host", "h")]);
    }
}
