//! The files of a workload: checking the directory and free space, laying
//! files out before a run, opening them with the run's flags, and probing that
//! O_DIRECT works on them — all before anything is measured.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::buffer::AlignedBuf;
use super::error::FileIoError;
use super::plan::{FileSpec, Plan};
use super::target::{self, Target};

/// Chunk written when laying files out.
const LAYOUT_CHUNK: usize = 1 << 20;

fn setup_error(path: &Path, what: &'static str, source: std::io::Error) -> FileIoError {
    FileIoError::Setup {
        path: path.display().to_string(),
        what,
        source,
    }
}

/// The directory holding `path` must exist (a clear error, not ENOENT mid-run).
pub fn check_directory(option: &str, dir: &Path) -> Result<(), FileIoError> {
    if dir.is_dir() {
        return Ok(());
    }
    Err(FileIoError::invalid(
        option,
        format!("directory '{}' does not exist", dir.display()),
    ))
}

/// Bytes available to unprivileged writers on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Result<u64, FileIoError> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| FileIoError::unusable(dir, "path contains a NUL byte"))?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c is a valid C string and st a valid out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(setup_error(dir, "statvfs", std::io::Error::last_os_error()));
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}

/// How many bytes laying out `files` would write: missing or short regular
/// files only (a device is never laid out).
pub fn bytes_to_lay_out(files: &[FileSpec]) -> u64 {
    files
        .iter()
        .map(|f| match target::inspect(&f.path) {
            Ok(Target::Missing) => f.size,
            Ok(Target::Regular { len }) => f.size.saturating_sub(len),
            _ => 0,
        })
        .sum()
}

/// Exit-2 error when the file system cannot hold `needed` more bytes.
pub fn check_space(option: &str, dir: &Path, needed: u64) -> Result<(), FileIoError> {
    let free = free_bytes(dir)?;
    if needed > free {
        return Err(FileIoError::invalid(
            option,
            format!(
                "needs {needed} more bytes in '{}', but only {free} are free; \
                 use a smaller size or free space",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// Opens (creating it if missing) a regular file to write its layout, and
/// refuses anything else. Callers have checked what the path is; this check on
/// the open descriptor also holds when the path changed since (O_NONBLOCK so
/// that a FIFO put there cannot block the open).
pub fn open_regular_for_layout(path: &Path) -> Result<File, FileIoError> {
    let file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| setup_error(path, "create", e))?;
    let meta = file.metadata().map_err(|e| setup_error(path, "stat", e))?;
    if !meta.is_file() {
        return Err(FileIoError::unusable(
            path,
            "is not a regular file; only regular files are laid out",
        ));
    }
    Ok(file)
}

/// Extends each regular file to its size with non-compressible data from its
/// current end (bytes already there are kept), then syncs it. Returns bytes written.
pub fn lay_out(files: &[FileSpec]) -> Result<u64, FileIoError> {
    let mut chunk = AlignedBuf::new(LAYOUT_CHUNK);
    chunk.fill_random(0x5eed);
    let mut written = 0;
    for f in files {
        let mut file = open_regular_for_layout(&f.path)?;
        let have = file
            .metadata()
            .map_err(|e| setup_error(&f.path, "stat", e))?
            .len();
        if have >= f.size {
            continue;
        }
        use std::io::{Seek, SeekFrom};
        file.seek(SeekFrom::Start(have))
            .map_err(|e| setup_error(&f.path, "seek", e))?;
        let mut left = f.size - have;
        while left > 0 {
            let n = left.min(LAYOUT_CHUNK as u64) as usize;
            file.write_all(&chunk.as_slice()[..n])
                .map_err(|e| setup_error(&f.path, "write", e))?;
            left -= n as u64;
            written += n as u64;
        }
        file.sync_all()
            .map_err(|e| setup_error(&f.path, "fsync", e))?;
    }
    Ok(written)
}

/// Every file (or block device) must exist and hold at least its size (for
/// runs that do not lay out).
pub fn check_present(files: &[FileSpec], hint: &str) -> Result<(), FileIoError> {
    for f in files {
        let found = target::inspect(&f.path)?;
        let Some(len) = found.addressable_bytes() else {
            let what = match found {
                Target::Missing => "missing".to_string(),
                other => format!("is a {}", other.kind()),
            };
            return Err(FileIoError::unusable(&f.path, format!("{what}; {hint}")));
        };
        if len < f.size {
            return Err(FileIoError::unusable(
                &f.path,
                format!("has {len} bytes, the run needs {}; {hint}", f.size),
            ));
        }
    }
    Ok(())
}

/// Opens every file for the run: read-write when the run writes it, else
/// read-only; with O_DIRECT and the extra flags of the plan.
pub fn open_all(plan: &Plan) -> Result<Vec<File>, FileIoError> {
    let mut flags = plan.open_flags;
    if plan.direct {
        flags |= libc::O_DIRECT;
    }
    plan.files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            OpenOptions::new()
                .read(true)
                .write(plan.writes_file(i))
                .custom_flags(flags)
                .open(&f.path)
                .map_err(|e| match e.raw_os_error() {
                    Some(libc::EINVAL) if plan.direct => FileIoError::unusable(
                        &f.path,
                        "the file system does not support O_DIRECT (direct=1 / \
                         file-extra-flags=direct); use buffered I/O here",
                    ),
                    _ => setup_error(&f.path, "open", e),
                })
        })
        .collect()
}

/// With O_DIRECT, reads one block of each file so misalignment is an input error
/// now rather than a failed run later.
pub fn probe_direct(plan: &Plan, files: &[File]) -> Result<(), FileIoError> {
    if !plan.direct {
        return Ok(());
    }
    let mut buf = AlignedBuf::new(plan.block_size as usize);
    for (spec, file) in plan.files.iter().zip(files) {
        // SAFETY: buf is valid for block_size bytes.
        let n = unsafe {
            libc::pread(
                file.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                plan.block_size as usize,
                0,
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINVAL) {
                return Err(FileIoError::invalid(
                    "block size",
                    format!(
                        "{} bytes is not aligned to the logical block size of the file \
                         system of '{}' for direct I/O; use a multiple of 4096",
                        plan.block_size,
                        spec.path.display()
                    ),
                ));
            }
            return Err(setup_error(&spec.path, "direct read probe", e));
        }
    }
    Ok(())
}

/// Drops the clean cached pages of every region (fio's `invalidate`).
pub fn invalidate(plan: &Plan, files: &[File]) {
    for stream in &plan.streams {
        for r in &stream.regions {
            // Advisory: a file system that ignores it just keeps its cache.
            // SAFETY: plain syscall on an open descriptor.
            unsafe {
                libc::posix_fadvise(
                    files[r.file].as_raw_fd(),
                    r.offset as libc::off_t,
                    r.length as libc::off_t,
                    libc::POSIX_FADV_DONTNEED,
                );
            }
        }
    }
}
