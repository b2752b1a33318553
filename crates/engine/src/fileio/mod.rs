//! File I/O workloads: sysbench `fileio` and fio-style jobs, measured like
//! every other engine workload (HDR histograms, one-second time series, the
//! JSON result document with an `io` object).
//!
//! Flow: options (`sysbench_options`, `fio_ini` + `fio_job`) → a `plan::Plan`
//! → files checked, laid out and opened (`files`, `page_cache`) → `run`:
//! threads (`worker` for sync/mmap, `queued_worker` for io_uring) take request
//! numbers from their stream and map them to requests (`requests`) → the
//! measurement collector → `io_report` (JSON) and `sysbench_text`/`fio_text`.
//! Verification: `block_header` (format), `verify_pass` (read-back).

pub mod block_header;
pub mod buffer;
pub mod command;
pub mod error;
pub mod files;
pub mod fio_ini;
pub mod fio_job;
pub mod fio_layout;
pub mod fio_text;
pub mod io_calls;
pub mod io_report;
pub mod page_cache;
pub mod plan;
pub mod queued_worker;
pub mod requests;
pub mod run;
pub mod size;
pub mod sysbench_options;
pub mod sysbench_text;
pub mod verify_pass;
pub mod worker;

pub use command::{fio_main, sysbench_main};
pub use error::FileIoError;
