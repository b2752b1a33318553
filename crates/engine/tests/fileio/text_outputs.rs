//! Parsers for the human outputs, written from the formats fio and sysbench
//! print (not from contio's printing code), and checks that every figure
//! they show agrees with the JSON document of the same run.

use std::collections::BTreeMap;

use contio_engine::measure::histogram::decode_base64;
use serde_json::Value;

/// fio's 17 default completion-latency percentiles.
const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// One direction (`read`, `write`) of a fio report.
#[derive(Debug, Default)]
pub struct FioDirection {
    pub iops: f64,
    pub bw_mib: f64,
    pub io_mib: f64,
    pub run_ms: f64,
    pub clat_min: u64,
    pub clat_max: u64,
    pub clat_avg: f64,
    pub percentiles: Vec<(f64, u64)>,
}

/// A `Run status group` line (`READ: bw=…, io=…, run=…`).
#[derive(Debug, Default)]
pub struct FioGroupLine {
    pub bw_mib: f64,
    pub io_mib: f64,
}

/// A fio report.
#[derive(Debug, Default)]
pub struct FioText {
    pub name: String,
    pub jobs: u64,
    pub errors: u64,
    pub directions: BTreeMap<String, FioDirection>,
    pub fsync_count: Option<u64>,
    pub group: BTreeMap<String, FioGroupLine>,
}

/// `12.3k` → 12300, `987` → 987.
fn compact_number(text: &str) -> f64 {
    match text.strip_suffix('k') {
        Some(k) => k.parse::<f64>().unwrap() * 1000.0,
        None => text.parse().unwrap(),
    }
}

/// The text between `after` and the next `until` in `line`.
fn between<'a>(line: &'a str, after: &str, until: &str) -> &'a str {
    let start = line
        .find(after)
        .unwrap_or_else(|| panic!("no '{after}' in '{line}'"))
        + after.len();
    let rest = &line[start..];
    let end = rest.find(until).unwrap_or(rest.len());
    rest[..end].trim()
}

/// `48.0MiB/s` or `1.0MiB` → 48.0, 1.0.
fn mib(text: &str) -> f64 {
    let number = text
        .trim_end_matches("/s")
        .strip_suffix("MiB")
        .unwrap_or_else(|| panic!("not MiB: {text}"));
    number.parse().unwrap()
}

/// Parses fio's text report.
pub fn parse_fio(text: &str) -> FioText {
    let mut out = FioText::default();
    let mut current: Option<String> = None;
    let mut in_group = false;
    for line in text.lines() {
        let t = line.trim();
        if line.contains("(groupid=") {
            out.name = line[..line.find(':').unwrap()].to_string();
            out.jobs = between(line, "jobs=", ")").parse().unwrap();
            out.errors = between(line, "err=", ":").parse().unwrap();
        } else if t.starts_with("Run status group") {
            in_group = true;
        } else if in_group && (t.starts_with("READ:") || t.starts_with("WRITE:")) {
            let label = t[..t.find(':').unwrap()].to_string();
            let bw = between(t, "bw=", " ");
            let io = between(t, "io=", " ");
            out.group.insert(
                label,
                FioGroupLine {
                    bw_mib: mib(bw),
                    io_mib: mib(io),
                },
            );
        } else if let Some(rest) = t.strip_prefix("read:").or(t.strip_prefix("write:")) {
            let name = if t.starts_with("read") {
                "read"
            } else {
                "write"
            };
            let bw = between(rest, "BW=", " ");
            let span = between(rest, ")(", ")");
            let (io, run) = span.split_once('/').unwrap();
            out.directions.insert(
                name.to_string(),
                FioDirection {
                    iops: compact_number(between(rest, "IOPS=", ",")),
                    bw_mib: mib(bw),
                    io_mib: mib(io),
                    run_ms: run.trim_end_matches("msec").parse().unwrap(),
                    ..FioDirection::default()
                },
            );
            current = Some(name.to_string());
        } else if t.starts_with("clat (usec):") {
            let d = out.directions.get_mut(current.as_ref().unwrap()).unwrap();
            d.clat_min = between(t, "min=", ",").parse().unwrap();
            d.clat_max = between(t, "max=", ",").parse().unwrap();
            d.clat_avg = between(t, "avg=", ",").parse().unwrap();
        } else if let Some(row) = t.strip_prefix('|') {
            let d = out.directions.get_mut(current.as_ref().unwrap()).unwrap();
            for cell in row.split("],").map(str::trim).filter(|c| !c.is_empty()) {
                let (p, v) = cell.split_once("th=[").unwrap();
                let v = v.trim_end_matches(']').trim();
                d.percentiles
                    .push((p.trim().parse().unwrap(), v.parse().unwrap()));
            }
        } else if t.starts_with("fsync/fdatasync:") {
            out.fsync_count = Some(between(t, "count=", ",").parse().unwrap());
        }
    }
    out
}

/// Asserts that `text` (fio's report) shows what the document `doc` holds.
pub fn check_fio(text: &str, doc: &Value, what: &str) {
    let report = parse_fio(text);
    let io = &doc["io"];
    assert_eq!(
        report.jobs,
        io["threads"].as_array().unwrap().len() as u64,
        "{what}: jobs"
    );
    assert_eq!(report.errors, 0, "{what}: err");
    let seconds = doc["runtime_ms"].as_f64().unwrap() / 1000.0;
    let mib = (1u64 << 20) as f64;
    for (name, op, bytes) in [
        ("read", "READ", "bytes_read"),
        ("write", "WRITE", "bytes_written"),
    ] {
        let calls = &doc["operations_by_type"][op];
        let Some(d) = report.directions.get(name) else {
            assert_eq!(
                calls["count"].as_u64().unwrap_or(0),
                0,
                "{what}: no {name} line"
            );
            continue;
        };
        let count = calls["count"].as_u64().unwrap() as f64;
        let iops = count / seconds;
        // `12.3k` keeps three significant digits.
        let rounding = if iops >= 10_000.0 {
            500.0
        } else if iops >= 1000.0 {
            50.0
        } else {
            0.5
        };
        assert!(
            (d.iops - iops).abs() <= rounding,
            "{what}: IOPS {} vs {iops}",
            d.iops
        );
        let bytes = io[bytes].as_u64().unwrap() as f64;
        assert!(
            (d.io_mib - bytes / mib).abs() <= 0.051,
            "{what}: io {}",
            d.io_mib
        );
        assert!(
            (d.bw_mib - bytes / mib / seconds).abs() <= 0.051,
            "{what}: BW {}",
            d.bw_mib
        );
        assert!(
            (d.run_ms - seconds * 1000.0).abs() <= 0.5,
            "{what}: run {}",
            d.run_ms
        );
        let group = &report.group[&op.to_string()];
        assert!((group.io_mib - d.io_mib).abs() < 1e-9, "{what}: group io");
        assert!((group.bw_mib - d.bw_mib).abs() < 1e-9, "{what}: group bw");
        let latency = &calls["latency_us"];
        assert_eq!(
            d.clat_min,
            latency["min"].as_u64().unwrap(),
            "{what}: clat min"
        );
        assert_eq!(
            d.clat_max,
            latency["max"].as_u64().unwrap(),
            "{what}: clat max"
        );
        assert!(
            (d.clat_avg - latency["mean"].as_f64().unwrap()).abs() <= 0.006,
            "{what}: avg"
        );
        // Every percentile is the document's histogram at that percentile.
        let h = decode_base64(calls["histogram"].as_str().unwrap()).unwrap();
        let shown: Vec<f64> = d.percentiles.iter().map(|(p, _)| *p).collect();
        assert_eq!(shown, FIO_PERCENTILES, "{what}: percentile rows");
        for (p, v) in &d.percentiles {
            assert_eq!(*v, h.value_at_percentile(*p), "{what}: {p}th");
        }
        assert!(
            d.percentiles.windows(2).all(|w| w[0].1 <= w[1].1),
            "{what}: monotone"
        );
    }
    assert_eq!(
        report.fsync_count.unwrap_or(0),
        doc["operations_by_type"]["FSYNC"]["count"]
            .as_u64()
            .unwrap_or(0),
        "{what}: fsync count"
    );
}

/// sysbench's report as `label → number` (`reads/s`, `total number of events`,
/// `min`, `95th percentile`, …; latencies in ms, as printed).
pub fn parse_sysbench(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some((label, value)) = line.trim().split_once(':') else {
            continue;
        };
        let value = value.trim();
        if let Some((avg, sd)) = value.split_once('/') {
            if let (Ok(a), Ok(s)) = (avg.parse::<f64>(), sd.parse::<f64>()) {
                out.insert(format!("{label} avg"), a);
                out.insert(format!("{label} stddev"), s);
            }
        } else if let Ok(v) = value.trim_end_matches('s').parse::<f64>() {
            out.insert(label.to_string(), v);
        }
    }
    out
}

/// Asserts that `text` (sysbench's report of a `run`) shows what `doc` holds.
pub fn check_sysbench(text: &str, doc: &Value, what: &str) {
    let shown = parse_sysbench(text);
    let get = |label: &str| -> f64 {
        *shown
            .get(label)
            .unwrap_or_else(|| panic!("{what}: no '{label}' in\n{text}"))
    };
    let seconds = doc["runtime_ms"].as_f64().unwrap() / 1000.0;
    assert!(
        (get("total time") - seconds).abs() <= 0.000051,
        "{what}: total time"
    );
    // sysbench counts the final fsyncs of file-fsync-end among the fsyncs.
    let end_syncs = doc["io"]["end_syncs"].as_u64().unwrap_or(0) as f64;
    let count = |op: &str| {
        let n = doc["operations_by_type"][op]["count"].as_u64().unwrap_or(0) as f64;
        n + if op == "FSYNC" { end_syncs } else { 0.0 }
    };
    for (label, op) in [
        ("reads/s", "READ"),
        ("writes/s", "WRITE"),
        ("fsyncs/s", "FSYNC"),
    ] {
        let rate = count(op) / seconds;
        assert!(
            (get(label) - rate).abs() <= 0.0051,
            "{what}: {label} {} vs {rate}",
            get(label)
        );
    }
    let mib = (1u64 << 20) as f64;
    for (label, key) in [
        ("read, MiB/s", "bytes_read"),
        ("written, MiB/s", "bytes_written"),
    ] {
        let rate = doc["io"][key].as_u64().unwrap() as f64 / mib / seconds;
        assert!((get(label) - rate).abs() <= 0.0051, "{what}: {label}");
    }
    assert_eq!(
        get("total number of events") as u64,
        doc["operations"].as_u64().unwrap(),
        "{what}: events"
    );
    // Latency over every event (reads, writes, fsyncs), ms with two decimals.
    let ops = ["READ", "WRITE", "FSYNC"];
    let present: Vec<&Value> = ops
        .iter()
        .map(|op| &doc["operations_by_type"][op])
        .filter(|r| r["count"].as_u64().unwrap_or(0) > 0)
        .collect();
    let min = present
        .iter()
        .map(|r| r["latency_us"]["min"].as_u64().unwrap())
        .min()
        .unwrap();
    let max = present
        .iter()
        .map(|r| r["latency_us"]["max"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(
        (get("min") - min as f64 / 1000.0).abs() <= 0.0051,
        "{what}: min"
    );
    assert!(
        (get("max") - max as f64 / 1000.0).abs() <= 0.0051,
        "{what}: max"
    );
    assert!(
        get("min") <= get("avg") && get("avg") <= get("max"),
        "{what}: avg"
    );
    assert!(get("95th percentile") <= get("max") + 0.005, "{what}: p95");
    let threads = doc["io"]["threads"].as_array().unwrap();
    let events: Vec<f64> = threads
        .iter()
        .map(|t| t["events"].as_f64().unwrap())
        .collect();
    let mean = events.iter().sum::<f64>() / events.len() as f64;
    assert!(
        (get("events (avg/stddev) avg") - mean).abs() <= 0.000051,
        "{what}: fairness"
    );
}
