//! The client's settings: threads, throttling, time limit, status lines and
//! what is measured (YCSB `Client` properties).

use std::time::Duration;

use crate::error::PropertyError;
use crate::measure::{MeasurementConfig, MeasurementType};
use crate::properties::Properties;

/// Most client threads accepted (each is an OS thread).
pub const MAX_THREADS: usize = 4096;

/// How the client runs a phase.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientConfig {
    /// Client threads (`threadcount`, `-threads`).
    pub threads: usize,
    /// Total ops/s over all threads (`target`, `-target`); 0 = unlimited.
    pub target_ops_per_sec: u64,
    /// Stop after this long (`maxexecutiontime`, seconds); None = no limit.
    pub max_execution_time: Option<Duration>,
    /// Status line period (`status.interval`, seconds).
    pub status_interval: Duration,
    /// Print status lines (`-s`).
    pub show_status: bool,
    /// Also print status lines on stdout (YCSB does for `timeseries`).
    pub status_to_stdout: bool,
    /// Status line prefix (`-l LABEL`).
    pub label: String,
    /// `measurementtype` and its properties.
    pub measurement: MeasurementConfig,
    /// Also measure from intended start times: when throttled (for the JSON
    /// document, whatever the interval) or when `measurement.interval` shows them.
    pub measure_intended: bool,
    /// Unthrottled calls measure their intended latency from their actual start,
    /// as YCSB does with `measurement.interval` `intended` or `both`.
    pub intended_from_start: bool,
}

impl ClientConfig {
    /// Reads the client properties; `show_status` comes from `-s`.
    pub fn from_properties(p: &Properties, show_status: bool) -> Result<Self, PropertyError> {
        let threads: usize = p.parse_or("threadcount", 1, "an integer >= 1")?;
        if threads == 0 || threads > MAX_THREADS {
            return Err(PropertyError::BadValue {
                key: "threadcount".into(),
                value: threads.to_string(),
                expected: format!("an integer from 1 to {MAX_THREADS}"),
            });
        }
        let status_secs: u64 = p.parse_or("status.interval", 10, "an integer >= 1 (seconds)")?;
        if status_secs == 0 {
            return Err(PropertyError::BadValue {
                key: "status.interval".into(),
                value: "0".into(),
                expected: "an integer >= 1 (seconds)".into(),
            });
        }
        let max_secs: u64 = p.parse_or(
            "maxexecutiontime",
            0,
            "a non-negative integer (seconds; 0 = no limit)",
        )?;
        let measurement = MeasurementConfig::from_properties(p)?;
        let target_ops_per_sec =
            p.parse_or("target", 0, "a non-negative integer (ops/s; 0 = unlimited)")?;
        let shows_intended = measurement.interval.shows_intended();
        Ok(Self {
            threads,
            target_ops_per_sec,
            max_execution_time: (max_secs > 0).then(|| Duration::from_secs(max_secs)),
            status_interval: Duration::from_secs(status_secs),
            show_status,
            status_to_stdout: measurement.kind == MeasurementType::TimeSeries,
            label: p.get("label").unwrap_or("").to_string(),
            measurement,
            measure_intended: target_ops_per_sec > 0 || shows_intended,
            intended_from_start: shows_intended,
        })
    }
}
