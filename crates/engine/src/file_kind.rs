//! Files the engine is handed by path: a property file it reads (`-P`) and the
//! result document it replaces (`-json`). Only regular files: reading a FIFO
//! blocks until someone writes to it and `/dev/zero` never ends, and renaming
//! a document over `/dev/null` (as root) replaces the device itself.

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::Path;

/// What a path that is not a regular file is (`a FIFO (named pipe)`).
pub fn kind_of(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

/// The text of a regular file; the error says what the path is instead.
/// Opened without blocking (a FIFO put there after the check cannot hang the
/// read) and checked again on the open file.
pub fn read_regular_text(path: &Path) -> Result<String, String> {
    let refuse = |kind: &str| format!("is {kind}, not a regular file");
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if let Some(kind) = kind_of(&meta) {
        return Err(refuse(kind));
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| e.to_string())?;
    if let Some(kind) = kind_of(&file.metadata().map_err(|e| e.to_string())?) {
        return Err(refuse(kind));
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(|e| e.to_string())?;
    Ok(text)
}

/// Why a document may not be written to `path` (None: it may): something there
/// that is not a regular file (a link to one is followed, as the rename would
/// replace the link only).
pub fn output_problem(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    kind_of(&meta).map(|kind| {
        format!(
            "'{}' is {kind}, not a regular file; the engine replaces only a regular file",
            path.display()
        )
    })
}

/// A new file at `path`, made exclusively: a stale partial file (or a link
/// planted at its name) is removed first, never written through.
pub fn create_new(path: &Path) -> std::io::Result<File> {
    if std::fs::symlink_metadata(path).is_ok() {
        std::fs::remove_file(path)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}
