//! A target that never returns from a call (`null.test_hang_after`, the
//! test-only stand-in for a write stall or a hung connection): the engine still
//! ends the phase at the time limit or on SIGTERM, writes the JSON document
//! with what was measured, names the stall and exits 1.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ENGINE: &str = env!("CARGO_BIN_EXE_contio-engine");
/// Far beyond the time limit plus the engine's 5 s grace: a bound that tells
/// a process that stops from one that hangs, not a speed goal.
const MUST_EXIT_WITHIN: Duration = Duration::from_secs(30);
/// Calls before the target hangs: 1 ms each over two threads, so both threads
/// are stuck about 0.1 s into the phase, long before its 2 s time limit.
const CALLS: u64 = 200;

fn workload(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../python/contio/workload/ycsb")
        .join(name)
        .display()
        .to_string()
}

/// A fresh directory for one test's outputs, removed when the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("contio-stall-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// `run null` against a target that hangs after CALLS calls, plus `extra` arguments.
fn hanging_run(json: &Path, extra: &[&str]) -> Child {
    let calls = format!("null.test_hang_after={CALLS}");
    Command::new(ENGINE)
        .args(["run", "null", "-P", &workload("workloada")])
        .args(["-p", "operationcount=0", "-p", "null.delay_us=1000"])
        .args(["-p", &calls, "-threads", "2", "-json"])
        .arg(json)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("engine starts")
}

/// Waits for `child` to exit; kills it and fails if it does not within MUST_EXIT_WITHIN.
fn wait_bounded(child: &mut Child) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > MUST_EXIT_WITHIN {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the engine was still running {} s after it should have stopped",
                MUST_EXIT_WITHIN.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no result document at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// What every stalled phase's document says.
fn assert_names_the_stall(doc: &Value) {
    let error = doc["error"].as_str().unwrap_or_default();
    assert!(error.contains("target 'null' stalled"), "{error}");
    assert!(
        error.contains("2 of 2 client thread(s) still inside a target call"),
        "{error}"
    );
    assert!(error.contains("2 operation(s) in flight"), "{error}");
    // Every call that returned is counted, also those of the last second that
    // the stuck threads never handed over.
    assert_eq!(doc["operations"], CALLS, "{doc}");
}

#[test]
fn a_stalled_target_ends_at_the_time_limit() {
    let dir = scratch("limit");
    let json = dir.0.join("run.json");
    let mut child = hanging_run(&json, &["-p", "maxexecutiontime=2"]);
    let stderr = child.stderr.take().unwrap();
    let status = wait_bounded(&mut child);
    let text = std::io::read_to_string(stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{text}");
    assert!(text.contains("stalled"), "{text}");
    let doc = read_json(&json);
    assert_eq!(doc["status"], "failed");
    assert_names_the_stall(&doc);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("after the time limit (maxexecutiontime=2)"),
        "{doc}"
    );
    assert_eq!(doc["runtime_ms"], 2000.0);
    // The seconds after the stall are there, with no operations.
    let series = doc["timeseries"].as_array().unwrap();
    assert_eq!(series.len(), 2, "{series:?}");
    assert_eq!(series[1]["ops"], 0);
}

#[test]
fn sigterm_ends_a_stalled_phase() {
    let dir = scratch("sigterm");
    let json = dir.0.join("run.json");
    let mut child = hanging_run(&json, &["-s", "-p", "status.interval=1"]);
    // The second status line comes at 2 s, well after both threads got stuck.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let status_lines = lines
        .by_ref()
        .map_while(Result::ok)
        .filter(|l| l.contains(" sec: "))
        .take(2)
        .count();
    assert_eq!(status_lines, 2, "no status lines");
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid with a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    // Keep reading stderr so the engine never blocks on a full pipe.
    let rest = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    let status = wait_bounded(&mut child);
    let rest = rest.join().unwrap();
    assert_eq!(status.code(), Some(1), "{rest:?}");
    let doc = read_json(&json);
    assert_eq!(doc["status"], "interrupted");
    assert_names_the_stall(&doc);
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("after the stop signal"),
        "{doc}"
    );
}
