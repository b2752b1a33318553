//! File I/O workloads: sysbench `fileio` and fio-style jobs, measured like
//! every other engine workload (HDR histograms, one-second time series, the
//! JSON result document with an `io` object).
//!
//! Two front ends, one core. `sysbench/` and `fio/` read their tool's options
//! and print their tool's text; everything between is shared and lives here.
//!
//! Flow: front-end options (`sysbench::options`, `fio::ini` + `fio::job`) → a
//! `plan::Plan` → files checked (`target`: what a path is, devices with their
//! real size; `device_use`: a device written only when unused), laid out and
//! opened (`files`, `page_cache`) →
//! `run`: threads (`worker` for sync/mmap, `queued_worker` for io_uring) take
//! request numbers from their stream and map them to requests (`requests`),
//! issuing them through `io_calls` into `buffer`s → the measurement collector
//! → `io_report` (JSON) and the front end's text (`sysbench::text`,
//! `fio::text`). Verification: `block_header` (format), `verify_pass`
//! (read-back). `command` holds what both subcommands do around a run; `size`
//! parses sizes, counts and durations; `error` is the one error type.

pub mod fio;
pub mod sysbench;

pub mod block_header;
pub mod buffer;
pub mod command;
pub mod device_use;
pub mod error;
pub mod files;
pub mod io_calls;
pub mod io_report;
pub mod page_cache;
pub mod plan;
pub mod queued_worker;
pub mod requests;
pub mod run;
pub mod size;
pub mod target;
pub mod verify_pass;
pub mod worker;

pub use error::FileIoError;
pub use fio::fio_main;
pub use sysbench::sysbench_main;
