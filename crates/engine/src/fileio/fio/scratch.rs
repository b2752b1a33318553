//! A private directory for what contio asks fio to write beside a run (job
//! file copies, latency logs), removed when dropped. It is made where the
//! engine may write: in a container the root is read-only, so beside the
//! result document rather than in /tmp.

use std::path::{Path, PathBuf};

/// A directory contio made, with a name no one else uses.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// A new directory in `parent`.
    pub fn new_in(parent: &Path) -> std::io::Result<Self> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(".contio-fio-{}-{nanos}", std::process::id());
        let path = parent.join(name);
        // create_dir (not _all) fails if the name exists: never reuse a directory.
        std::fs::create_dir(&path)?;
        Ok(Self(path))
    }

    /// A new directory beside `json` (the `-json` path), else in the system's
    /// temporary directory.
    pub fn beside(json: Option<&str>) -> std::io::Result<Self> {
        let parent = json
            .filter(|p| *p != "-")
            .map(|p| Path::new(p).parent().unwrap_or(Path::new("")).to_path_buf())
            .map(|p| {
                if p.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    p
                }
            });
        match parent {
            Some(dir) => Self::new_in(&dir),
            None => Self::new_in(&std::env::temp_dir()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
