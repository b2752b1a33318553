//! The client: threads, throttling, stop handling, and running a phase
//! (YCSB's `Client` and `ClientThread`).

pub mod barrier;
pub mod config;
pub mod measured_session;
pub mod phase;
pub mod stall;
pub mod start_gate;
pub mod stop;
pub mod throttle;
pub mod worker;

pub use barrier::StartBarrier;
pub use config::ClientConfig;
pub use measured_session::MeasuredSession;
pub use phase::{run_phase, PhaseOutcome, PhaseStatus};
pub use stop::StopFlag;
