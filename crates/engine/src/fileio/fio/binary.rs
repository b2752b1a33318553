//! Which fio to run: `CONTIO_FIO` if set, else `fio` on the `PATH`.

use std::path::PathBuf;

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
