//! The `contio-engine` binary: parse arguments, run one phase, exit.
//!
//! Exit codes: 0 success, 1 the run failed (operations errored, a goal was
//! missed), 2 the input or the tool is broken (bad property, missing file).

fn main() {
    eprintln!("contio-engine: not implemented yet");
    std::process::exit(2);
}
