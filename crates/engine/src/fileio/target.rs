//! What a workload's path names before anything touches it: nothing yet, a
//! regular file, a block device (with its real size), a character device, or
//! something a workload cannot use. Devices report `st_size` 0, so treating
//! every path as a file would "lay out" a device by writing over its data;
//! everything that sizes, lays out or opens files asks here first.

use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::error::FileIoError;

/// `_IOR(0x12, 114, size_t)`: the byte size of a block device (linux/fs.h).
/// Not in the libc crate for every target, so spelled out here.
const BLKGETSIZE64: u32 = 0x8008_1272;

/// What a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Nothing there: a file the workload may create.
    Missing,
    /// A regular file of `len` bytes.
    Regular { len: u64 },
    /// A block device of `size` bytes; `rdev` is its device number.
    Block { size: u64, rdev: u64 },
    /// A character device (`/dev/null`, `/dev/zero`): no size, nothing to lay out.
    Char,
    /// A directory, FIFO, socket or (not followed) symbolic link: unusable.
    Other(&'static str),
}

impl Target {
    /// The kind, for messages.
    pub fn kind(self) -> &'static str {
        match self {
            Target::Missing => "missing file",
            Target::Regular { .. } => "regular file",
            Target::Block { .. } => "block device",
            Target::Char => "character device",
            Target::Other(kind) => kind,
        }
    }

    /// Bytes a workload can address: the file's length or the device's size.
    pub fn addressable_bytes(self) -> Option<u64> {
        match self {
            Target::Regular { len } => Some(len),
            Target::Block { size, .. } => Some(size),
            _ => None,
        }
    }
}

fn stat_error(path: &Path, source: std::io::Error) -> FileIoError {
    FileIoError::Setup {
        path: path.display().to_string(),
        what: "stat",
        source,
    }
}

/// What `path` names, following symbolic links (fio's `filename` may be one).
pub fn inspect(path: &Path) -> Result<Target, FileIoError> {
    match std::fs::metadata(path) {
        Ok(m) => classify(path, &m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Target::Missing),
        Err(e) => Err(stat_error(path, e)),
    }
}

/// What `path` names itself, a symbolic link being `Other` (sysbench's test
/// files are regular files the engine made; a link there is someone else's).
pub fn inspect_entry(path: &Path) -> Result<Target, FileIoError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Ok(Target::Other("symbolic link")),
        Ok(m) => classify(path, &m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Target::Missing),
        Err(e) => Err(stat_error(path, e)),
    }
}

fn classify(path: &Path, m: &std::fs::Metadata) -> Result<Target, FileIoError> {
    let t = m.file_type();
    Ok(if t.is_file() {
        Target::Regular { len: m.len() }
    } else if t.is_block_device() {
        Target::Block {
            size: block_device_size(path)?,
            rdev: m.rdev(),
        }
    } else if t.is_char_device() {
        Target::Char
    } else if t.is_dir() {
        Target::Other("directory")
    } else if t.is_fifo() {
        Target::Other("FIFO")
    } else if t.is_socket() {
        Target::Other("socket")
    } else {
        Target::Other("special file")
    })
}

/// The size of the block device at `path`, read through a read-only descriptor
/// (opening a block device read-only writes nothing).
fn block_device_size(path: &Path) -> Result<u64, FileIoError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
        .map_err(|source| FileIoError::Setup {
            path: path.display().to_string(),
            what: "open to read the device size",
            source,
        })?;
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is valid.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size) };
    if rc != 0 {
        return Err(FileIoError::Setup {
            path: path.display().to_string(),
            what: "BLKGETSIZE64",
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_paths() {
        let dir = std::env::temp_dir().join(format!("contio-target-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, b"abc").unwrap();
        let link = dir.join("l");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(inspect(&file).unwrap(), Target::Regular { len: 3 });
        assert_eq!(inspect(&link).unwrap(), Target::Regular { len: 3 });
        assert_eq!(
            inspect_entry(&link).unwrap(),
            Target::Other("symbolic link")
        );
        assert_eq!(inspect(&dir.join("none")).unwrap(), Target::Missing);
        assert_eq!(inspect(&dir).unwrap(), Target::Other("directory"));
        assert_eq!(inspect(Path::new("/dev/null")).unwrap(), Target::Char);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
