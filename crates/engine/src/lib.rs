//! contio-engine: generates load against a target and measures it.
//!
//! The engine never orchestrates: it takes arguments, runs one phase, and writes
//! a versioned JSON result (see `docs/engine-interface.md`). Python drives it.

pub mod binding;
pub mod binding_properties;
pub mod cli;
pub mod client;
pub mod cstress;
pub mod error;
pub mod file_kind;
pub mod fileio;
pub mod generator;
pub mod launcher;
pub mod measure;
pub mod parent;
pub mod properties;
pub mod result;
pub mod slowdev;
pub mod target;
pub mod tpcc;
pub mod workload;
pub mod ycsb;
