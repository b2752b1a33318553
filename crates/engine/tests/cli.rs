//! The real `contio-engine` binary: exit codes, error messages, the JSON
//! document, the YCSB text, throttling, and interrupts.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const ENGINE: &str = env!("CARGO_BIN_EXE_contio-engine");

fn workload(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/contio/workload/ycsb")
        .join(name)
        .display()
        .to_string()
}

fn engine(args: &[&str]) -> Output {
    Command::new(ENGINE)
        .args(args)
        .output()
        .expect("engine runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh directory for one test's outputs, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir =
        std::env::temp_dir().join(format!("contio-engine-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn misspelt_property_exits_2_and_names_the_closest() {
    let dir = scratch("misspelt");
    let json = dir.join("out.json");
    let o = engine(&[
        "run",
        "null",
        "-P",
        &workload("workloada"),
        "-p",
        "readproportoin=0.5",
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("'readproportoin'") && err.contains("did you mean 'readproportion'"),
        "{err}"
    );
    assert!(!json.exists(), "nothing ran, so no result is written");
}

#[test]
fn bad_values_missing_files_and_unknown_targets_exit_2() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["run", "null", "-p", "requestdistribution=zipf"],
            "requestdistribution",
        ),
        (&["run", "null", "-p", "recordcount=lots"], "recordcount"),
        (
            &["run", "null", "-P", "/nonexistent/workloadz"],
            "/nonexistent/workloadz",
        ),
        (&["run", "nosuchdb"], "nosuchdb"),
        (&["run", "null", "-p", "null.anything=1"], "null.anything"),
        (
            &["run", "null", "-p", "null.delay_us=soon"],
            "null.delay_us",
        ),
        (&["run", "null", "-p", "null.delay_us=60000001"], "60 s"),
    ];
    for (args, named) in cases {
        let o = engine(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(named), "{args:?}: {}", stderr(&o));
    }
    let o = engine(&["run", "null", "-thread", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("-threads"), "{}", stderr(&o));
}

#[test]
fn cstress_refuses_unknown_options_with_2_and_fails_without_a_server_with_1() {
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "cstress",
                "write",
                "n=10",
                "-rate",
                "threads=1",
                "-bogus",
                "x",
            ],
            "unknown option '-bogus' (did you mean '-log'?); allowed: -rate, -node",
        ),
        (
            &["cstress", "read", "n=10", "limit=5/s", "-rate", "threads=1"],
            "unknown option 'limit=5/s' of the read command; allowed: n=N",
        ),
        (&["cstress", "write", "n=10"], "-rate threads=N"),
    ];
    for (args, named) in cases {
        let o = engine(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(named), "{args:?}: {}", stderr(&o));
    }
    // Port 1 on the loopback refuses at once: exit 1, and a result saying why.
    let dir = scratch("cstress-closed");
    let json = dir.join("r.json");
    let o = engine(&[
        "cstress",
        "write",
        "cassandra",
        "n=10",
        "-rate",
        "threads=1",
        "-node",
        "127.0.0.1",
        "-port",
        "native=1",
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc = read_json(&json);
    assert_eq!(
        (doc["kind"].as_str(), doc["phase"].as_str()),
        (Some("cstress"), Some("write"))
    );
    assert_eq!(doc["status"], "failed");
    assert!(
        doc["error"].as_str().unwrap().contains("127.0.0.1:1"),
        "{doc}"
    );
}

#[test]
fn json_document_has_the_documented_fields() {
    let dir = scratch("json");
    let json = dir.join("run.json");
    let o = engine(&[
        "run",
        "null",
        "-P",
        &workload("workloadf"),
        "-p",
        "operationcount=5000",
        "-threads",
        "2",
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = read_json(&json);
    for field in [
        "schema",
        "engine_version",
        "kind",
        "phase",
        "target",
        "target_description",
        "properties",
        "threads",
        "target_ops_per_sec",
        "status",
        "error",
        "started_at",
        "runtime_ms",
        "operations",
        "throughput_ops_per_sec",
        "operations_by_type",
        "intended_by_type",
        "timeseries",
    ] {
        assert!(doc.get(field).is_some(), "missing {field}");
    }
    assert_eq!(doc["schema"], "contio.engine.result/1");
    assert_eq!(doc["kind"], "ycsb");
    assert_eq!(doc["phase"], "run");
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["threads"], 2);
    assert_eq!(doc["operations"], 5000);
    assert_eq!(doc["properties"]["readmodifywriteproportion"], "0.5");
    assert!(doc["intended_by_type"].is_null(), "not throttled");
    let by_type = &doc["operations_by_type"];
    let rmw = &by_type["READ-MODIFY-WRITE"];
    let read = &by_type["READ"];
    // Every read-modify-write also reads, so READ counts both kinds of operation.
    assert!(rmw["count"].as_u64().unwrap() > 1000);
    assert_eq!(read["count"].as_u64().unwrap(), 5000);
    assert_eq!(read["returns"]["OK"], read["count"]);
    for key in ["min", "mean", "max", "p50", "p95", "p99", "p999"] {
        assert!(read["latency_us"].get(key).is_some(), "latency_us.{key}");
    }
    assert!(read["histogram"].as_str().unwrap().starts_with("HISTF"));
    let series = doc["timeseries"].as_array().unwrap();
    assert!(!series.is_empty());
    assert_eq!(series[0]["t"], 1);
    let total: u64 = series.iter().map(|s| s["ops"].as_u64().unwrap()).sum();
    assert_eq!(total, 5000);
}

#[test]
fn ycsb_text_summary_has_the_documented_lines() {
    let o = engine(&[
        "run",
        "null",
        "-P",
        &workload("workloada"),
        "-p",
        "operationcount=2000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut sections: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        // Every line is "[SECTION], Name, value" with a numeric value.
        let parts: Vec<&str> = line.splitn(3, ", ").collect();
        assert_eq!(parts.len(), 3, "line {line:?}");
        assert!(
            parts[0].starts_with('[') && parts[0].ends_with(']'),
            "line {line:?}"
        );
        assert!(parts[2].parse::<f64>().is_ok(), "value of {line:?}");
        sections.push((
            parts[0].to_string(),
            parts[1].to_string(),
            parts[2].to_string(),
        ));
    }
    let has = |s: &str, n: &str| sections.iter().any(|(a, b, _)| a == s && b == n);
    assert!(has("[OVERALL]", "RunTime(ms)") && has("[OVERALL]", "Throughput(ops/sec)"));
    for op in ["[READ]", "[UPDATE]"] {
        for name in [
            "Operations",
            "AverageLatency(us)",
            "MinLatency(us)",
            "MaxLatency(us)",
            "95thPercentileLatency(us)",
            "99thPercentileLatency(us)",
            "Return=OK",
        ] {
            assert!(has(op, name), "{op} {name}");
        }
    }
    let ops: u64 = sections
        .iter()
        .filter(|(s, n, _)| (s == "[READ]" || s == "[UPDATE]") && n == "Operations")
        .map(|(_, _, v)| v.parse::<u64>().unwrap())
        .sum();
    assert_eq!(ops, 2000);
}

/// Coordinated omission: `null.delay_us` makes every read take 2 ms while
/// `-target` asks for one read per millisecond. The client falls further behind
/// its schedule with every read, so the k-th read's latency from its intended
/// start is at least (k + 2) ms, while each read itself takes the delay.
#[test]
fn throttled_run_measures_latency_from_the_intended_start() {
    const DELAY_US: u64 = 2000;
    const READS: u64 = 200;
    let dir = scratch("throttle");
    let json = dir.join("run.json");
    let o = engine(&[
        "run",
        "null",
        "-P",
        &workload("workloadc"),
        "-p",
        &format!("operationcount={READS}"),
        "-p",
        &format!("null.delay_us={DELAY_US}"),
        "-threads",
        "1",
        "-target",
        "1000",
        "-p",
        "measurement.interval=both",
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    // YCSB's `both`: the summary shows [READ] and [Intended-READ].
    assert!(text.contains("[Intended-READ], Operations, 200"), "{text}");
    let doc = read_json(&json);
    assert_eq!(doc["target_ops_per_sec"], 1000);
    assert_eq!(doc["target_description"]["delay_us"], DELAY_US);
    let actual = &doc["operations_by_type"]["READ"];
    let intended = &doc["intended_by_type"]["READ"];
    assert_eq!(actual["count"], READS);
    assert_eq!(intended["count"], READS);
    let us = |h: &Value, p: &str| h["latency_us"][p].as_u64().unwrap();
    // Each read sleeps at least the delay (less a clock-calibration margin).
    assert!(us(actual, "min") >= DELAY_US * 97 / 100, "{actual}");
    // Read k ends no earlier than (k + 1)·2 ms after the first intended start
    // and was meant to start k·1 ms after it: the 99th percentile (k ≈ 198)
    // is at least ~200 ms behind, whatever the machine's load.
    assert!(us(intended, "p99") >= 190_000, "{intended}");
    assert!(us(intended, "p50") >= 95_000, "{intended}");
    // Measured from the actual start, the same reads take about the delay.
    assert!(
        us(actual, "p99") * 10 <= us(intended, "p99"),
        "actual {actual} vs intended {intended}"
    );
}

#[test]
fn interrupt_keeps_what_was_measured() {
    let dir = scratch("interrupt");
    let json = dir.join("run.json");
    let mut child = Command::new(ENGINE)
        .args([
            "run",
            "null",
            "-P",
            &workload("workloada"),
            "-p",
            "operationcount=0",
            "-p",
            "maxexecutiontime=120",
            "-p",
            "status.interval=1",
            "-s",
            "-json",
            json.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first status line: operations are being measured.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first_status = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains(" sec: ") && l.contains("operations;"));
    assert!(first_status.is_some(), "no status line");
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid with a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(1),
        "interrupted is exit code 1: {rest:?}"
    );
    let doc = read_json(&json);
    assert_eq!(doc["status"], "interrupted");
    assert!(doc["operations"].as_u64().unwrap() > 0);
    assert!(doc["operations_by_type"]["READ"]["count"].as_u64().unwrap() > 0);
    assert!(!doc["timeseries"].as_array().unwrap().is_empty());
}

#[test]
fn load_phase_and_targets_and_version() {
    let o = engine(&[
        "load",
        "null",
        "-P",
        &workload("workloadc"),
        "-threads",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("[INSERT], Operations, 1000"));
    let o = engine(&["targets"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("null"));
    let o = engine(&["--version"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("contio-engine "));
}

#[test]
fn maxexecutiontime_ends_an_unlimited_run() {
    let dir = scratch("maxtime");
    let json = dir.join("run.json");
    let o = engine(&[
        "run",
        "null",
        "-P",
        &workload("workloadc"),
        "-p",
        "operationcount=0",
        "-p",
        "maxexecutiontime=1",
        "-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc = read_json(&json);
    assert_eq!(doc["status"], "ok");
    assert!(doc["operations"].as_u64().unwrap() > 0);
}

#[test]
fn json_to_stdout_moves_the_text_to_stderr() {
    let o = engine(&[
        "run",
        "null",
        "-P",
        &workload("workloadb"),
        "-p",
        "operationcount=100",
        "-json",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON document");
    assert_eq!(doc["operations"], 100);
    assert!(stderr(&o).contains("[OVERALL], RunTime(ms), "));
}
