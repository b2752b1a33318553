//! The `contio-engine` binary: parse arguments, run one phase, exit.
//!
//! Exit codes: 0 success, 1 the run failed (operations errored, interrupted,
//! results could not be written), 2 the input is broken (bad argument or
//! property, missing file, unknown target); nothing runs in that case.

use contio_engine::cli::{self, Command, USAGE};
use contio_engine::parent;
use contio_engine::ycsb;

// See the musl dependency section of Cargo.toml: musl's malloc is slow under threads.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if let Some(value) = std::env::var_os(parent::PARENT_ENV) {
        match parent::die_with_parent(&value.to_string_lossy()) {
            Ok(true) => {}
            Ok(false) => std::process::exit(1), // the parent is gone: nobody to run for
            Err(e) => {
                eprintln!("contio-engine: {e}");
                std::process::exit(2);
            }
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match cli::parse(&args) {
        Err(e) => {
            eprintln!("contio-engine: {e}");
            2
        }
        Ok(Command::Version) => {
            println!("contio-engine {}", contio_engine::result::ENGINE_VERSION);
            0
        }
        Ok(Command::Help) => {
            println!("usage: {USAGE}");
            0
        }
        Ok(Command::Sysbench(args)) => contio_engine::fileio::sysbench_main(&args),
        Ok(Command::Fio(args)) => contio_engine::fileio::fio_main(&args),
        Ok(Command::Tpcc(args)) => contio_engine::tpcc::main(&args),
        Ok(Command::Cstress(args)) => contio_engine::cstress::main(&args),
        Ok(Command::Slowdev(args)) => contio_engine::slowdev::main(&args),
        Ok(Command::Targets) => {
            print!("{}", ycsb::list_targets());
            0
        }
        Ok(Command::Phase(phase)) => match ycsb::execute(&phase) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("contio-engine: {e}");
                e.exit_code()
            }
        },
    };
    std::process::exit(code);
}
