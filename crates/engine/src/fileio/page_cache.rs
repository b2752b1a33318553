//! Dropping the kernel's page cache before a run (`--drop-caches`), as paper
//! 004 (docs/papers.md) does before each test: write back dirty pages, then
//! ask the kernel to drop clean pages, dentries and inodes. Needs root and a
//! writable /proc/sys.

use super::error::FileIoError;

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Checks that dropping is possible, before anything runs.
pub fn check_can_drop() -> Result<(), FileIoError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(FileIoError::invalid(
            "--drop-caches",
            "needs root (it writes /proc/sys/vm/drop_caches); run as root or leave it out",
        ));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)
        .map(|_| ())
        .map_err(|e| {
            FileIoError::invalid(
                "--drop-caches",
                format!("cannot open {DROP_CACHES} for writing ({e}); in a container, /proc/sys is read-only"),
            )
        })
}

/// Writes back dirty data and drops the page cache (3 = page cache, dentries, inodes).
pub fn drop_caches() -> Result<(), FileIoError> {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    std::fs::write(DROP_CACHES, "3\n").map_err(|source| FileIoError::Setup {
        path: DROP_CACHES.to_string(),
        what: "drop caches",
        source,
    })
}
