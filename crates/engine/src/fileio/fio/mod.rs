//! The fio front end: `contio-engine fio JOBFILE`, reading fio's job files and
//! printing fio's kind of output. It turns the job sections into the shared
//! `fileio::plan::Plan` and leaves running to the core.
//!
//! `ini` (job-file syntax) → `job` (each section's options resolved) →
//! `layout` (which file region each job instance works on) → `setup` (what
//! each path is; laying out regular files); `command` (the
//! subcommand), `text` (fio's output layout).

pub mod command;
pub mod ini;
pub mod job;
pub mod layout;
pub mod setup;
pub mod text;

pub use command::fio_main;
