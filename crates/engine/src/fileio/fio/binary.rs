//! Which fio to run: `CONTIO_FIO` if set, else `fio` on the `PATH`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::error::FioError;

/// The environment variable that names the fio binary.
pub const FIO_ENV: &str = "CONTIO_FIO";

/// The fio binary, or why there is none.
pub fn fio_path() -> Result<PathBuf, FioError> {
    if let Some(given) = std::env::var_os(FIO_ENV).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(given);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(FioError::NotInstalled {
                reason: format!("{FIO_ENV}={} is not a file", path.display()),
            })
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("fio"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| FioError::NotInstalled {
            reason: "no fio on the PATH".into(),
        })
}

/// fio's answer to `question` (`--parse-only`, `--showcmd`) about `args`.
pub fn ask(fio: &Path, question: &'static str, args: &[&str]) -> Result<Output, FioError> {
    Command::new(fio)
        .arg(question)
        .args(args)
        .output()
        .map_err(|source| FioError::Process {
            what: question,
            source,
        })
}
