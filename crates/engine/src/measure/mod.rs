//! Measurement: per-thread recorders on the hot path, a collector that merges
//! them each second, and the reports made from the merged result (JSON parts,
//! YCSB text, status lines). Workload-agnostic: YCSB and file I/O workloads
//! both record `Operation`s with a `Status`.
//!
//! Flow: each client thread owns a `Recorder` → at its own second boundaries
//! it sends an `Interval` over a channel → the phase's `Collector` merges →
//! `Measurements` → `report` / `text` / `status_line`.

pub mod clock;
pub mod collector;
pub mod histogram;
pub mod operation;
pub mod recorder;
pub mod report;
pub mod status_line;
pub mod text;

pub use clock::{Clock, Tick};
pub use collector::{Collector, Measurements, Received, SecondStats, SecondSummary};
pub use operation::{Operation, Slot};
pub use recorder::{Interval, Recorder};
