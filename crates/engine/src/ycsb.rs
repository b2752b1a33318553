//! The `load` and `run` commands: validate every property before anything
//! runs, open the target, run the phase, and write the JSON document and the
//! YCSB text summary.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::binding;
use crate::cli::{PhaseArgs, PropertySource};
use crate::client::{run_phase, ClientConfig, PhaseStatus, StartBarrier, StopFlag};
use crate::error::{EngineError, PropertyError, TargetError};
use crate::measure::text_raw;
use crate::measure::{text, Measurements};
use crate::properties::{closest, Properties};
use crate::result::{PhaseFacts, ResultDocument};
use crate::target::{self, TargetDriver, TargetInfo};
use crate::workload::{properties as core_props, CoreConfig, CoreWorkload, Phase};

/// Property files, then the command line's own properties, as YCSB's `Client`
/// merges them: `-P` files in order (a later file wins), then every `-p`,
/// `-threads`, `-target` and `-l` over them whatever their position (a later
/// `-p` wins over an earlier one).
pub fn assemble(sources: &[PropertySource]) -> Result<Properties, PropertyError> {
    let mut props = Properties::new();
    for source in sources {
        if let PropertySource::File(path) = source {
            props.load_file(path)?;
        }
    }
    for source in sources {
        if let PropertySource::Pair(k, v) = source {
            props.set(k.clone(), v.clone());
        }
    }
    Ok(props)
}

/// Every key must be a known core property or belong to the chosen target's
/// namespace; the error names the closest known name.
pub fn check_names(props: &Properties, info: &TargetInfo) -> Result<(), PropertyError> {
    target::check_namespace(info, props)?;
    let targets = target::registry();
    for key in props.keys() {
        if core_props::is_known(key) || props.namespace(info.name).any(|(k, _)| k == key) {
            continue;
        }
        if let Some(owner) = targets
            .iter()
            .find(|t| key.strip_prefix(t.name).is_some_and(|r| r.starts_with('.')))
        {
            return Err(PropertyError::Invalid {
                key: key.to_string(),
                reason: format!(
                    "belongs to target '{}', but this phase runs target '{}'",
                    owner.name, info.name
                ),
            });
        }
        let candidates = core_props::known().chain(info.properties.iter().copied());
        return Err(PropertyError::Unknown {
            key: key.to_string(),
            suggestion: closest(key, candidates),
        });
    }
    Ok(())
}

/// A JSON path whose directory does not exist is bad input: say so before running.
pub(crate) fn check_output(path: Option<&str>) -> Result<(), PropertyError> {
    let Some(path) = path.filter(|p| *p != "-") else {
        return Ok(());
    };
    let parent = Path::new(path)
        .parent()
        .filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent {
        if !dir.is_dir() {
            return Err(PropertyError::File {
                path: path.to_string(),
                reason: format!("-json: directory '{}' does not exist", dir.display()),
            });
        }
    }
    match crate::file_kind::output_problem(Path::new(path)) {
        Some(problem) => Err(PropertyError::Invalid {
            key: "-json".into(),
            reason: problem,
        }),
        None => Ok(()),
    }
}

fn effective_properties(
    props: &Properties,
    core: &CoreConfig,
    client: &ClientConfig,
) -> BTreeMap<String, String> {
    let mut all: BTreeMap<String, String> = core
        .effective()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    all.insert("threadcount".into(), client.threads.to_string());
    all.insert("target".into(), client.target_ops_per_sec.to_string());
    all.insert(
        "maxexecutiontime".into(),
        client
            .max_execution_time
            .map_or(0, |d| d.as_secs())
            .to_string(),
    );
    all.insert(
        "status.interval".into(),
        client.status_interval.as_secs().to_string(),
    );
    for (k, v) in props.iter() {
        all.entry(k.to_string()).or_insert_with(|| v.to_string());
    }
    all
}

/// The target a phase drives: `-db`/`TARGET`, else the `db` property, else
/// YCSB's default BasicDB; YCSB binding classes map to contio targets. Also
/// the binding class, when `db` names one.
fn resolve_target(
    args: &PhaseArgs,
    props: &Properties,
) -> Result<(TargetInfo, Option<String>), EngineError> {
    let db = args
        .db
        .as_deref()
        .or_else(|| props.get("db").map(str::trim))
        .unwrap_or(binding::DEFAULT_CLASS);
    let names: Vec<&str> = target::registry().iter().map(|t| t.name).collect();
    let name = binding::target_for(db, props, &names)?;
    let class = binding::by_class(db).map(|_| db.to_string());
    Ok((target::find(&name)?, class))
}

/// `-load`/`-t` (or `load`/`run`), else `dotransactions` (default true), as YCSB.
fn resolve_phase(args: &PhaseArgs, props: &Properties) -> Result<Phase, PropertyError> {
    if let Some(phase) = args.phase {
        return Ok(phase);
    }
    Ok(if props.java_bool_or("dotransactions", true) {
        Phase::Run
    } else {
        Phase::Load
    })
}

/// Runs a `load` or `run` command; returns the exit code (0 ok, 1 failed or interrupted).
pub fn execute(args: &PhaseArgs) -> Result<i32, EngineError> {
    let mut props = assemble(&args.sources)?;
    let (info, class) = resolve_target(args, &props)?;
    let phase = resolve_phase(args, &props)?;
    let binding_warnings = binding::translate(info.name, class.as_deref(), &mut props)?;
    check_names(&props, &info)?;
    for warning in binding_warnings {
        eprintln!("contio-engine: warning: {warning}");
    }
    for key in props.keys().filter(|k| core_props::NO_EFFECT.contains(k)) {
        eprintln!("contio-engine: warning: property '{key}' has no effect in contio");
    }
    let core = CoreConfig::from_properties(&props)?;
    let mut client = ClientConfig::from_properties(&props, args.show_status)?;
    // With the JSON on stdout, stdout carries nothing else.
    client.status_to_stdout &= args.json.as_deref() != Some("-");
    let barrier = StartBarrier::from_properties(&props)?;
    let workload = CoreWorkload::new(core.clone(), phase)?;
    check_output(args.json.as_deref())?;
    let stop = StopFlag::for_phase()?;
    crate::result::print_banner("YCSB 0.17 core workload semantics", &args.command_line);
    // The start barrier is passed once the target is open (connections made), so
    // clients of several containers start their phase clocks together.
    let opened = (info.open)(&props).and_then(|driver| match &barrier {
        Some(b) => b.arrive_and_wait(&stop).map(|()| driver),
        None => Ok(driver),
    });
    let driver: Arc<dyn TargetDriver> = match opened {
        Ok(driver) => Arc::from(driver),
        // A target's own property errors are bad input: nothing ran.
        Err(TargetError::Property(e)) => return Err(e.into()),
        Err(e) => {
            // The target could not start: still leave a result saying why.
            let facts = PhaseFacts {
                kind: "ycsb",
                phase: phase.name(),
                target: info.name,
                target_description: serde_json::Value::Null,
                properties: effective_properties(&props, &core, &client),
                threads: 0,
                target_ops_per_sec: client.target_ops_per_sec,
                status: PhaseStatus::Failed.name(),
                error: Some(e.to_string()),
                started_at: std::time::SystemTime::now(),
                runtime_ms: 0.0,
            };
            if let Some(path) = args.json.as_deref() {
                ResultDocument::new(facts, &Measurements::empty()).write(path)?;
            }
            return Err(e.into());
        }
    };
    eprintln!(
        "Starting {} phase: {} thread(s) against target '{}'",
        phase.name(),
        client.threads,
        info.name
    );
    let outcome = run_phase(
        phase,
        Arc::new(workload),
        Arc::clone(&driver),
        info.name,
        &client,
        &stop,
    );
    let (mut status, mut error) = (outcome.status, outcome.error);
    let (closed, description) = close_target(&driver, outcome.stall.is_some());
    if let Err(e) = closed {
        if status == PhaseStatus::Ok {
            status = PhaseStatus::Failed;
        }
        error = Some(error.map_or(e.clone(), |prev| format!("{prev}; close: {e}")));
    }
    let runtime_ms = outcome.runtime.as_secs_f64() * 1000.0;
    let doc = ResultDocument::new(
        PhaseFacts {
            kind: "ycsb",
            phase: phase.name(),
            target: info.name,
            target_description: description,
            properties: effective_properties(&props, &core, &client),
            threads: outcome.threads,
            target_ops_per_sec: client.target_ops_per_sec,
            status: status.name(),
            error: error.clone(),
            started_at: outcome.started_at,
            runtime_ms,
        },
        &outcome.measurements,
    );
    let m = &outcome.measurements;
    let summary = text::render(
        runtime_ms,
        doc.throughput_ops_per_sec,
        m,
        &client.measurement,
    );
    let raw_error = write_text(args, &client, m, outcome.started_at, summary);
    if let Some(path) = args.json.as_deref() {
        doc.write(path)?;
    }
    let hdr_error = m.hdr_log_error.as_deref().map(|e| {
        let (path, reason) = e.split_once(": ").unwrap_or((e, ""));
        (path.to_string(), reason.to_string())
    });
    if let Some(e) = raw_error.or(hdr_error) {
        return Err(EngineError::Output {
            path: e.0,
            reason: e.1,
        });
    }
    if let Some(e) = &error {
        eprintln!("contio-engine: phase {}: {e}", status.name());
    }
    Ok(if status == PhaseStatus::Ok { 0 } else { 1 })
}

/// Prints the summary (stdout, or stderr with `-json -`; or into `exportfile`,
/// in the `exporter`'s format) and the raw data of `raw` measurements, where
/// YCSB puts them: on stdout before the summary, or appended to
/// `measurement.raw.output_file`. Returns the file that could not be written.
fn write_text(
    args: &PhaseArgs,
    client: &ClientConfig,
    m: &Measurements,
    started_at: std::time::SystemTime,
    summary: String,
) -> Option<(String, String)> {
    let config = &client.measurement;
    let mut text = text_raw::destination_lines(m, config);
    let mut error = None;
    if config.kind.keeps_raw() {
        let started_ms = started_at
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let data = text_raw::data_lines(m, config, started_ms);
        match &config.raw_output {
            Some(path) => {
                if let Err(e) = text_raw::append_to(path, &data) {
                    error = Some((path.display().to_string(), e.to_string()));
                }
            }
            None => text.push_str(&data),
        }
    }
    let summary = config.export.render(&summary);
    match &config.export.file {
        Some(path) => {
            if let Err(e) = crate::measure::exporter::write_file(path, &summary) {
                error.get_or_insert((path.display().to_string(), e.to_string()));
            }
        }
        None => text.push_str(&summary),
    }
    match args.json.as_deref() {
        Some("-") => eprint!("{text}"),
        _ => print!("{text}"),
    }
    error
}

/// How long a stalled target gets to close before the results are written without it.
const CLOSE_AFTER_STALL: Duration = Duration::from_secs(2);

/// Closes the target (syncs its files) and asks it to describe itself. After a
/// stall this runs on a helper thread that is waited for `CLOSE_AFTER_STALL` at
/// most: the stuck call may hold what closing needs (btree's write
/// transaction), and the results must still be written.
fn close_target(
    driver: &Arc<dyn TargetDriver>,
    stalled: bool,
) -> (Result<(), String>, serde_json::Value) {
    let close = |d: &dyn TargetDriver| (d.close().map_err(|e| e.to_string()), d.describe());
    if !stalled {
        return close(driver.as_ref());
    }
    let (done, result) = mpsc::channel();
    let d = Arc::clone(driver);
    let spawned = std::thread::Builder::new()
        .name("close".into())
        .spawn(move || done.send(close(d.as_ref())));
    spawned
        .ok()
        .and_then(|_| result.recv_timeout(CLOSE_AFTER_STALL).ok())
        .unwrap_or_else(|| {
            let why = format!(
                "did not return within {} s of the stall; the target's files may not be synced",
                CLOSE_AFTER_STALL.as_secs()
            );
            (Err(why), serde_json::Value::Null)
        })
}

/// `contio-engine targets`: each target, its summary and its properties.
pub fn list_targets() -> String {
    let mut out = String::new();
    for t in target::registry() {
        out.push_str(&format!("{:<8} {}\n", t.name, t.summary));
        if !t.properties.is_empty() {
            out.push_str(&format!(
                "         properties: {}\n",
                t.properties.join(", ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_wins_over_p_files_whatever_the_order() {
        let dir = std::env::temp_dir().join(format!("contio-assemble-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::write(&a, "readproportion=0.5\nfieldcount=3\n").unwrap();
        std::fs::write(&b, "readproportion=0.7\n").unwrap();
        let pair = |k: &str, v: &str| PropertySource::Pair(k.into(), v.into());
        let props = assemble(&[
            pair("readproportion", "1"),
            PropertySource::File(a),
            pair("threadcount", "4"),
            PropertySource::File(b),
            pair("threadcount", "8"),
        ])
        .unwrap();
        assert_eq!(props.get("readproportion"), Some("1"));
        assert_eq!(props.get("threadcount"), Some("8"));
        assert_eq!(props.get("fieldcount"), Some("3"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
