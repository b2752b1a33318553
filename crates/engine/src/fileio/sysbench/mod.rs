//! The sysbench front end: `contio-engine sysbench fileio`, with sysbench
//! 1.0.20's command line, option names, defaults, request sequence, text and
//! exit codes. It turns its options into the shared `fileio::plan::Plan` and
//! leaves running to the core.
//!
//! `args` (command line), `options` (options → `Plan`), `test_files` (what
//! prepare and run find on disk), `command` (prepare, run, cleanup), `text`
//! and `help` (sysbench's output), `log` (verbosity), `error` (how a stop
//! is printed and its exit code).

pub mod args;
pub mod command;
pub mod error;
pub mod help;
pub mod interval;
pub mod log;
pub mod options;
pub mod test_files;
pub mod text;

pub use command::sysbench_main;
