//! The embedded engines (`lsm`, `btree`) through the target interface, on real
//! files: load, read back byte-identical, update, scan in key order, insert
//! beyond the loaded range, delete, and find everything again after reopening.

use std::path::PathBuf;

use contio_engine::properties::Properties;
use contio_engine::target::{self, Record, Session, Status, TargetDriver};

const TABLE: &str = "usertable";
const RECORDS: usize = 300;
const TARGETS: [&str; 2] = ["lsm", "btree"];

/// A fresh directory for one test, removed when the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!(
        "contio-embedded-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn open(name: &str, dir: &Scratch) -> Box<dyn TargetDriver> {
    let mut props = Properties::new();
    props.set(format!("{name}.dir"), dir.0.display().to_string());
    (target::find(name).unwrap().open)(&props).unwrap()
}

fn key(i: usize) -> String {
    format!("user{i}")
}

/// Ten fields whose values cover every byte value, different per key.
fn record(i: usize) -> Record {
    Record {
        fields: (0..10)
            .map(|f| {
                let value = (0..100)
                    .map(|b| ((i * 31 + f * 7 + b) % 256) as u8)
                    .collect();
                (format!("field{f}"), value)
            })
            .collect(),
    }
}

fn one_field(name: &str, value: &[u8]) -> Record {
    Record {
        fields: vec![(name.to_string(), value.to_vec())],
    }
}

fn read(s: &mut dyn Session, k: &str, fields: Option<&[String]>) -> (Status, Record) {
    let mut out = Record::default();
    let status = s.read(TABLE, k, fields, &mut out);
    (status, out)
}

fn load(s: &mut dyn Session) {
    for i in 0..RECORDS {
        assert_eq!(s.insert(TABLE, &key(i), &record(i)), Status::Ok);
    }
}

#[test]
fn load_read_update_scan_insert_delete() {
    for name in TARGETS {
        let dir = scratch(&format!("ops-{name}"));
        let driver = open(name, &dir);
        let mut s = driver.session().unwrap();
        load(s.as_mut());

        for i in 0..RECORDS {
            assert_eq!(
                read(s.as_mut(), &key(i), None),
                (Status::Ok, record(i)),
                "{name}"
            );
        }
        let wanted = ["field7".to_string(), "field2".to_string()];
        let (status, subset) = read(s.as_mut(), &key(5), Some(&wanted));
        assert_eq!(status, Status::Ok);
        let mut names: Vec<_> = subset.fields.iter().map(|(n, _)| n.as_str()).collect();
        names.sort();
        assert_eq!(names, ["field2", "field7"], "{name}: only the asked fields");
        assert_eq!(subset.get("field7"), record(5).get("field7"));

        // An update replaces only the given field.
        assert_eq!(
            s.update(TABLE, &key(7), &one_field("field3", b"new")),
            Status::Ok
        );
        let mut expected = record(7);
        expected.fields[3].1 = b"new".to_vec();
        assert_eq!(
            read(s.as_mut(), &key(7), None),
            (Status::Ok, expected),
            "{name}"
        );

        // Scans return records in key order from the start key.
        let mut sorted: Vec<usize> = (0..RECORDS).collect();
        sorted.sort_by_key(|&i| key(i));
        let mut rows = Vec::new();
        let start = key(sorted[40]);
        assert_eq!(s.scan(TABLE, &start, 25, None, &mut rows), Status::Ok);
        let got: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
        let want: Vec<String> = sorted[40..65].iter().map(|&i| key(i)).collect();
        assert_eq!(got, want, "{name}: scan order");
        assert_eq!(rows[1].1, record(sorted[41]), "{name}: scanned record");
        let field = ["field0".to_string()];
        assert_eq!(
            s.scan(TABLE, "user", 3, Some(&field), &mut rows),
            Status::Ok
        );
        assert_eq!(rows.len(), 3);
        assert!(
            rows.iter().all(|(_, r)| r.fields.len() == 1),
            "{name}: scan field subset"
        );

        // Beyond the loaded range; missing keys are NOT_FOUND.
        let beyond = key(RECORDS + 10);
        assert_eq!(read(s.as_mut(), &beyond, None).0, Status::NotFound);
        assert_eq!(
            s.update(TABLE, &beyond, &record(1)),
            Status::NotFound,
            "{name}"
        );
        assert_eq!(s.insert(TABLE, &beyond, &record(RECORDS + 10)), Status::Ok);
        assert_eq!(
            read(s.as_mut(), &beyond, None),
            (Status::Ok, record(RECORDS + 10))
        );

        assert_eq!(s.delete(TABLE, &key(9)), Status::Ok, "{name}");
        assert_eq!(
            read(s.as_mut(), &key(9), None).0,
            Status::NotFound,
            "{name}"
        );
        assert_eq!(s.delete(TABLE, &key(9)), Status::NotFound, "{name}");
        assert_eq!(read(s.as_mut(), "user", None).0, Status::NotFound);
        s.cleanup().unwrap();
        driver.close().unwrap();
    }
}

#[test]
fn data_survives_close_and_reopen() {
    for name in TARGETS {
        let dir = scratch(&format!("reopen-{name}"));
        {
            let driver = open(name, &dir);
            let mut s = driver.session().unwrap();
            load(s.as_mut());
            assert_eq!(
                s.update(TABLE, &key(3), &one_field("field0", b"kept")),
                Status::Ok
            );
            assert_eq!(s.delete(TABLE, &key(4)), Status::Ok);
            s.cleanup().unwrap();
            driver.close().unwrap();
        }
        // Each engine keeps everything under one named entry of its directory:
        // lsm a subdirectory of many files, btree one file.
        let entries: Vec<String> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let own = if name == "lsm" { "lsm" } else { "btree.redb" };
        assert_eq!(entries, [own], "{name}");
        let driver = open(name, &dir);
        let mut s = driver.session().unwrap();
        for i in (0..RECORDS).filter(|&i| i != 3 && i != 4) {
            assert_eq!(
                read(s.as_mut(), &key(i), None),
                (Status::Ok, record(i)),
                "{name}"
            );
        }
        let (status, updated) = read(s.as_mut(), &key(3), None);
        assert_eq!(
            (status, updated.get("field0")),
            (Status::Ok, Some(&b"kept"[..])),
            "{name}"
        );
        assert_eq!(
            read(s.as_mut(), &key(4), None).0,
            Status::NotFound,
            "{name}"
        );
        driver.close().unwrap();
    }
}

/// Threads updating different fields of one record must all keep their field:
/// the read-merge-write of an update is atomic per key.
#[test]
fn concurrent_updates_of_one_record_keep_every_field() {
    const THREADS: usize = 4;
    const UPDATES: usize = 300;
    for name in TARGETS {
        let dir = scratch(&format!("merge-{name}"));
        let driver = open(name, &dir);
        let mut s = driver.session().unwrap();
        assert_eq!(s.insert(TABLE, "user0", &record(0)), Status::Ok);
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let mut session = driver.session().unwrap();
                scope.spawn(move || {
                    for u in 0..UPDATES {
                        let value = format!("t{t}-u{u}");
                        let update = one_field(&format!("field{t}"), value.as_bytes());
                        assert_eq!(session.update(TABLE, "user0", &update), Status::Ok);
                    }
                });
            }
        });
        let (status, rec) = read(s.as_mut(), "user0", None);
        assert_eq!(status, Status::Ok);
        for t in 0..THREADS {
            let last = format!("t{t}-u{}", UPDATES - 1);
            assert_eq!(
                rec.get(&format!("field{t}")),
                Some(last.as_bytes()),
                "{name}"
            );
        }
        assert_eq!(rec.get("field9"), record(0).get("field9"), "{name}");
        driver.close().unwrap();
    }
}

#[test]
fn describe_reports_engine_version_and_settings() {
    for (name, engine) in [("lsm", "fjall"), ("btree", "redb")] {
        let dir = scratch(&format!("describe-{name}"));
        let driver = open(name, &dir);
        let d = driver.describe();
        assert_eq!(d["engine"], engine);
        let version = d["crate_version"].as_str().unwrap();
        assert!(
            version.chars().next().unwrap().is_ascii_digit(),
            "{version}"
        );
        assert_eq!(
            d["cache_bytes"],
            1 << 20,
            "{name}: a minimal cache by default"
        );
        assert_eq!(d["sync"], "periodic");
        assert_eq!(d["sync_interval_ms"], 1000);
        driver.close().unwrap();
    }
}
