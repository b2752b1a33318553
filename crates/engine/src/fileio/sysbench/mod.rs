//! The sysbench front end: `contio-engine sysbench fileio`, with sysbench 1.0's
//! option names, defaults, request sequence and human output. It turns its
//! options into the shared `fileio::plan::Plan` and leaves running to the core.
//!
//! `options` (arguments → `Plan`), `command` (prepare, run, cleanup), `text`
//! (sysbench's output layout).

pub mod command;
pub mod options;
pub mod text;

pub use command::sysbench_main;
