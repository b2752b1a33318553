//! Binding properties that contio accepts without acting on them, so YCSB
//! command lines and PerfKitBenchmarker's benchmarks run unchanged: each is
//! removed before the names are checked, with a warning that says why it has
//! no effect. Anything not listed here (a misspelt core property, an unknown
//! name in a target's namespace) is still refused.

use crate::properties::Properties;

/// Why a property is accepted and dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// YCSB's binding reads it; contio's target has no counterpart.
    NoCounterpart,
    /// PerfKitBenchmarker passes it; no YCSB 0.17 binding of this kind reads it.
    UnreadByYcsb,
    /// Read by the other MongoDB binding only (`batchsize` / `mongodb.batchsize`).
    OtherMongoBinding,
}

/// Properties of YCSB 0.17's bindings without a counterpart in contio, by target.
const NO_COUNTERPART: &[(&str, &[&str])] = &[
    (
        "jdbc",
        &[
            "db.driver",
            "db.batchsize",
            "jdbc.fetchsize",
            "jdbc.autocommit",
            "jdbc.batchupdateapi",
        ],
    ),
    (
        "cassandra",
        &[
            "cassandra.maxconnections",
            "cassandra.coreconnections",
            "cassandra.connecttimeoutmillis",
            "cassandra.readtimeoutmillis",
            "cassandra.tracing",
            "cassandra.useSSL",
            "debug",
        ],
    ),
    (
        "mongodb",
        &[
            "mongodb.maxconnections",
            "mongodb.writeConcern",
            "mongodb.readPreference",
        ],
    ),
    ("redis", &["redis.cluster"]),
    ("null", &["basicdb.verbose", "basicdb.count"]),
];

/// What PerfKitBenchmarker's `cassandra_ycsb` passes that YCSB 0.17's CQL binding
/// never reads (names of the older Thrift binding).
const UNREAD: &[(&str, &[&str])] = &[(
    "cassandra",
    &[
        "cassandra.scanconsistencylevel",
        "cassandra.deleteconsistencylevel",
        "columnfamily",
    ],
)];

fn family(target: &str) -> &str {
    match target {
        "mysql" | "postgres" => "jdbc",
        other => other,
    }
}

fn message(key: &str, why: Why) -> String {
    match why {
        Why::NoCounterpart => format!("property '{key}' has no effect in contio"),
        Why::UnreadByYcsb => {
            format!("property '{key}' has no effect (YCSB 0.17's binding does not read it either)")
        }
        Why::OtherMongoBinding => format!(
            "property '{key}' has no effect with this binding (YCSB 0.17 reads `batchsize` \
             in site.ycsb.db.MongoDbClient and `mongodb.batchsize` in AsyncMongoDbClient)"
        ),
    }
}

/// Removes from `props` what `target`'s binding accepts without acting on;
/// `class` is the YCSB binding class named with `-db`, if any (the MongoDB
/// bindings read their batch size under different names). One warning each.
pub fn drop_inert(target: &str, class: Option<&str>, props: &mut Properties) -> Vec<String> {
    let mut inert: Vec<(&str, Why)> = Vec::new();
    for (table, why) in [
        (NO_COUNTERPART, Why::NoCounterpart),
        (UNREAD, Why::UnreadByYcsb),
    ] {
        for (name, keys) in table {
            if *name == family(target) {
                inert.extend(keys.iter().map(|k| (*k, why)));
            }
        }
    }
    match class.and_then(crate::binding::by_class).map(|b| b.name) {
        Some("mongodb") => inert.push(("mongodb.batchsize", Why::OtherMongoBinding)),
        Some("mongodb-async") => inert.push(("batchsize", Why::OtherMongoBinding)),
        _ => {}
    }
    inert
        .into_iter()
        .filter(|(key, _)| props.remove(key).is_some())
        .map(|(key, why)| message(key, why))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkb_cassandra_properties_are_dropped_with_a_reason() {
        let mut p = Properties::from_pairs(&[
            ("columnfamily", "data"),
            ("cassandra.scanconsistencylevel", "QUORUM"),
            ("cassandra.deleteconsistencylevel", "QUORUM"),
            ("cassandra.tracing", "false"),
            ("readproportoin", "1"),
        ]);
        let warnings = drop_inert("cassandra", Some("site.ycsb.db.CassandraCQLClient"), &mut p);
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(warnings
            .iter()
            .any(|w| w.contains("does not read it either")));
        // A typo is not this module's business: it stays for the name check to refuse.
        assert_eq!(p.keys().collect::<Vec<_>>(), ["readproportoin"]);
    }

    #[test]
    fn each_mongodb_binding_ignores_the_others_batch_size() {
        let pairs = [("batchsize", "5"), ("mongodb.batchsize", "10")];
        let mut sync = Properties::from_pairs(&pairs);
        drop_inert("mongodb", Some("site.ycsb.db.MongoDbClient"), &mut sync);
        assert_eq!(sync.keys().collect::<Vec<_>>(), ["batchsize"]);
        let mut not_sync = Properties::from_pairs(&pairs);
        drop_inert(
            "mongodb",
            Some("site.ycsb.db.AsyncMongoDbClient"),
            &mut not_sync,
        );
        assert_eq!(not_sync.keys().collect::<Vec<_>>(), ["mongodb.batchsize"]);
        // contio's own target name: both kept (batchsize is YCSB's alias there).
        let mut own = Properties::from_pairs(&pairs);
        assert!(drop_inert("mongodb", None, &mut own).is_empty());
    }
}
