//! Records the resolved versions of the embedded storage crates, so each
//! target's `describe()` reports the exact version it was built with.

use std::path::Path;

fn main() {
    // Read at run time, not baked in with env!(): one compiled build script serves every
    // checkout sharing the target directory, and a baked-in path of a checkout since
    // removed made cargo see a missing file, so rebuild the engine, on every build.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock = Path::new(&manifest_dir).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    for (krate, var) in [
        ("fjall", "CONTIO_FJALL_VERSION"),
        ("redb", "CONTIO_REDB_VERSION"),
    ] {
        println!("cargo:rustc-env={var}={}", locked_version(&text, krate));
    }
}

/// The version of `krate` in Cargo.lock's `[[package]]` entries, or "unknown".
fn locked_version(lock: &str, krate: &str) -> String {
    let name_line = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name_line {
            if let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return v.trim_matches('"').to_string();
            }
        }
    }
    "unknown".to_string()
}
