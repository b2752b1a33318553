//! `contio-engine fio`: fio's jobs, run by the real fio (`driver`), or on
//! contio's own I/O core with `--contio-core` (`core_command`).
//!
//! Real fio: `own_flags` (contio's flags apart from fio's) → `option_check`
//! (every unknown option at once, by fio's parser) → `device_guard` (a writing
//! job's devices unused) → `process` (exec fio, or run it and read its json+
//! report, `report_json`, and its per-second latency logs, `hist_log`) →
//! `series`, `document` (contio's result document).
//!
//! contio's core: `ini` (job-file syntax) → `job` (each section's options
//! resolved) → `layout` (which file region each job instance works on) →
//! `setup` (what each path is; laying out regular files); `text` (fio's
//! output layout).

pub mod binary;
pub mod core_command;
pub mod device_guard;
pub mod document;
pub mod driver;
pub mod error;
pub mod hist_log;
pub mod ini;
pub mod job;
pub mod layout;
pub mod option_check;
pub mod own_flags;
pub mod process;
pub mod report_json;
pub mod scratch;
pub mod series;
pub mod setup;
pub mod text;

pub use driver::fio_main;
