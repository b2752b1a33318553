//! A user's data the engine must not change: a loop device over a sparse
//! image holding known bytes (optionally an ext4 on it, mounted read-only so
//! that nothing but the engine could write it), and SHA-256 digests of
//! devices and files taken with `sha256sum`. Torn down on drop, also when the
//! test panics; skipped (a failure under `CONTIO_TEST_STRICT=1`) where loop
//! devices cannot be made.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::mounts::skip;

/// Size of the images: small enough to digest in a blink.
pub const DEVICE_BYTES: u64 = 32 << 20;

/// A loop device holding a user's data.
pub struct LoopDevice {
    pub device: String,
    root: PathBuf,
    mounted: Option<PathBuf>,
}

fn run(argv: &[&str]) -> Result<String, String> {
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .output()
        .map_err(|e| format!("{}: {e}", argv[0]))?;
    if !out.status.success() {
        return Err(format!(
            "{argv:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Bytes the user "owns": distinct in every 4 KiB so a moved or lost block shows.
pub fn user_bytes(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i / 4096) as u8 ^ (i as u8).wrapping_mul(31) ^ salt)
        .collect()
}

/// Writes `data` at `offset` of `path` without truncating it.
pub fn write_at(path: &Path, offset: u64, data: &[u8]) {
    use std::os::unix::fs::FileExt as _;
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(data, offset).unwrap();
    f.sync_all().unwrap();
}

/// The SHA-256 of everything `path` holds (a file or a whole device).
pub fn sha256(path: &Path) -> String {
    let out = run(&["sha256sum", path.to_str().unwrap()]).unwrap();
    out.split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

impl LoopDevice {
    /// A loop device of `DEVICE_BYTES` over a sparse image with user data at
    /// its start, middle and end, or None (reported) when none can be made.
    pub fn with_data(test: &str) -> Option<LoopDevice> {
        Self::make(test, false)
    }

    /// The same device with an ext4 holding a file, mounted read-only.
    pub fn mounted(test: &str) -> Option<LoopDevice> {
        Self::make(test, true)
    }

    fn make(test: &str, mount: bool) -> Option<LoopDevice> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            skip(test, "loop device", "losetup needs root");
            return None;
        }
        let root =
            std::env::temp_dir().join(format!("contio-fileio-{}-{test}-loop", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("mnt")).unwrap();
        let mut dev = LoopDevice {
            device: String::new(),
            root,
            mounted: None,
        };
        if let Err(e) = dev.build(mount) {
            skip(test, "loop device", &e);
            return None;
        }
        Some(dev)
    }

    fn build(&mut self, mount: bool) -> Result<(), String> {
        let image = self.root.join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(DEVICE_BYTES))
            .map_err(|e| format!("image: {e}"))?;
        let image_s = image.to_str().unwrap_or_default();
        if mount {
            // Inode tables and journal written now, not by a lazy-init thread
            // that would change the device while a test compares digests.
            run(&[
                "mkfs.ext4",
                "-q",
                "-F",
                "-E",
                "lazy_itable_init=0,lazy_journal_init=0",
                image_s,
            ])?;
        } else {
            let chunk = user_bytes(1 << 20, 0x11);
            for at in [0, DEVICE_BYTES / 2, DEVICE_BYTES - (1 << 20)] {
                write_at(&image, at, &chunk);
            }
        }
        self.device = run(&["losetup", "--find", "--show", image_s])?;
        if mount {
            let at = self.root.join("mnt");
            let at_s = at.to_str().unwrap_or_default();
            run(&["mount", "-t", "ext4", &self.device, at_s])?;
            std::fs::write(at.join("users-file"), user_bytes(1 << 16, 0x22))
                .map_err(|e| format!("file on ext4: {e}"))?;
            // Read-only from here on: nothing but the engine could change a byte.
            run(&["mount", "-o", "remount,ro", at_s])?;
            self.mounted = Some(at);
        }
        Ok(())
    }

    /// The device node.
    pub fn path(&self) -> &Path {
        Path::new(&self.device)
    }

    /// A scratch directory beside the image (job files, documents).
    pub fn scratch(&self) -> &Path {
        &self.root
    }

    /// The device's digest.
    pub fn digest(&self) -> String {
        sha256(self.path())
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        if let Some(at) = &self.mounted {
            let at = at.to_str().unwrap_or_default();
            if run(&["umount", at]).is_err() {
                let _ = run(&["umount", "-l", at]);
            }
        }
        if !self.device.is_empty() {
            let _ = run(&["losetup", "-d", &self.device]);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
