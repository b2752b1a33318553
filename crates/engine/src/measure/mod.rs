//! Measurement: per-thread recorders on the hot path, a collector that merges
//! them each second, and the reports made from the merged result (JSON parts,
//! YCSB text, status lines). Workload-agnostic: YCSB and file I/O workloads
//! both record `Operation`s with a `Status`.
//!
//! Flow: each client thread owns a `Recorder` → at its own second boundaries
//! it sends an `Interval` over a channel → the phase's `Collector` merges →
//! `Measurements` → `report` / `text` / `status_line`.
//!
//! Measuring another kind of workload (file I/O, …):
//! 1. `let clock = Clock::new(); let origin = clock.now();` and
//!    `let (tx, rx) = std::sync::mpsc::channel(); let mut collector = Collector::new(rx, threads);`
//! 2. each thread: `let mut rec = Recorder::new(i, clock.clone(), origin, tx.clone());`
//!    per call `let s = clock.now(); …; let e = clock.now();`
//!    `rec.record(Operation::Write, Status::Ok, s, e, intended_start);` then
//!    `rec.operation_done();` once per workload operation; `rec.finish()` at the end;
//! 3. main thread: `drop(tx); collector.run_until_done(status_period, started, planned);`
//!    `let m = collector.finish();` then `crate::result::ResultDocument::new(facts, &m)`
//!    (set its `io`) and `text::render(runtime_ms, throughput, &m, &MeasurementConfig::default())`.

pub mod clock;
pub mod collector;
pub mod exporter;
pub mod extras;
pub mod hdr_log;
pub mod histogram;
pub mod java_format;
pub mod measurement_type;
pub mod operation;
pub mod progress_log;
pub mod recorder;
pub mod report;
pub mod status_line;
pub mod text;
pub mod text_buckets;
pub mod text_raw;
pub mod text_series;

pub use clock::{Clock, Tick};
pub use collector::{Collector, Measurements, Received, Reporting, SecondStats, SecondSummary};
pub use measurement_type::{MeasurementConfig, MeasurementInterval, MeasurementType};
pub use operation::{Operation, Slot};
pub use recorder::{Interval, Recorder};
