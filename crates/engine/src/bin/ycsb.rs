//! `ycsb`: YCSB's `bin/ycsb` launcher in front of `contio-engine` (see
//! `contio_engine::launcher`). It finds `contio-engine` (`CONTIO_ENGINE`, then
//! beside itself, then on PATH), prints the command it runs on stderr as
//! `bin/ycsb` does, and replaces itself with it. Exit code 2 for bad arguments
//! or a missing engine.

use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::process::Command;

use contio_engine::launcher::{self, Launch, USAGE};

const ENGINE: &str = "contio-engine";

/// Where contio-engine is, and every place looked at.
fn find_engine() -> Result<PathBuf, Vec<PathBuf>> {
    let mut looked = Vec::new();
    if let Some(path) = std::env::var_os("CONTIO_ENGINE").map(PathBuf::from) {
        if path.is_file() {
            return Ok(path);
        }
        looked.push(path);
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(ENGINE)));
    let on_path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(ENGINE)).collect())
        .unwrap_or_default();
    for candidate in beside.into_iter().chain(on_path) {
        if candidate.is_file() {
            return Ok(candidate);
        }
        looked.push(candidate);
    }
    Err(looked)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (engine_args, warnings) = match launcher::translate(&args) {
        Ok(Launch::Engine { args, warnings }) => (args, warnings),
        Ok(Launch::Help) => {
            println!("usage: {USAGE}");
            return;
        }
        Err(e) => {
            eprintln!("ycsb: {e}");
            std::process::exit(2);
        }
    };
    let engine = match find_engine() {
        Ok(path) => path,
        Err(looked) => {
            let list: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
            eprintln!(
                "ycsb: cannot find {ENGINE} (looked at: {}); set CONTIO_ENGINE to its path",
                list.join(", ")
            );
            std::process::exit(2);
        }
    };
    for warning in warnings {
        eprintln!("ycsb: warning: {warning}");
    }
    eprintln!("{} {}", engine.display(), engine_args.join(" "));
    let err = Command::new(&engine).args(&engine_args).exec();
    eprintln!("ycsb: cannot run {}: {err}", engine.display());
    std::process::exit(2);
}
