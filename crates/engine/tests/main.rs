//! The engine's integration tests, one module per subject, linked into one test binary:
//! each test binary links the engine and its dependencies with thin LTO (the release
//! profile the wheel ships), and one link instead of eleven saves most of the build.

mod cli;
mod embedded_cli;
mod embedded_targets;
mod exponential_keys;
mod file_kinds;
mod fileio;
mod generators;
mod launcher;
mod phase_clock;
mod stalls;
mod workloads;
mod ycsb_measurements;
