//! Real file systems for the tests: a tmpfs, and XFS on a loop device over a
//! sparse image. Each is torn down on drop — also when the test panics — so no
//! mount or loop device outlives a test. Needs root (mount, losetup).

use std::path::{Path, PathBuf};
use std::process::Command;

/// XFS's smallest file system (mkfs.xfs refuses less than 300 MiB).
const XFS_IMAGE_BYTES: u64 = 320 << 20;

/// A mounted scratch file system.
pub struct Mounted {
    pub kind: &'static str,
    mount_point: PathBuf,
    root: PathBuf,
    device: Option<String>,
}

impl Mounted {
    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.mount_point
    }

    /// `name` inside the mount point.
    pub fn join(&self, name: &str) -> PathBuf {
        self.mount_point.join(name)
    }
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

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn scratch_root(test: &str, kind: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "contio-fileio-{}-{test}-{kind}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("mnt")).unwrap();
    root
}

/// A tmpfs of `megabytes` MiB for `test`.
pub fn tmpfs(test: &str, megabytes: u64) -> Mounted {
    assert!(
        is_root(),
        "the file I/O tests mount file systems: run them as root"
    );
    let root = scratch_root(test, "tmpfs");
    let mount_point = root.join("mnt");
    let size = format!("size={megabytes}m");
    let target = mount_point.to_str().unwrap();
    run(&["mount", "-t", "tmpfs", "-o", &size, "tmpfs", target]).unwrap();
    Mounted {
        kind: "tmpfs",
        mount_point,
        root,
        device: None,
    }
}

/// XFS on a loop device for `test`.
pub fn xfs(test: &str) -> Mounted {
    assert!(
        is_root(),
        "the file I/O tests mount file systems: run them as root"
    );
    let root = scratch_root(test, "xfs");
    let mount_point = root.join("mnt");
    let image = root.join("xfs.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(XFS_IMAGE_BYTES)
        .unwrap();
    let mut mounted = Mounted {
        kind: "xfs",
        mount_point,
        root,
        device: None,
    };
    run(&["mkfs.xfs", "-q", "-f", image.to_str().unwrap()]).unwrap();
    let device = run(&["losetup", "--find", "--show", image.to_str().unwrap()]).unwrap();
    mounted.device = Some(device.clone());
    run(&[
        "mount",
        "-t",
        "xfs",
        &device,
        mounted.mount_point.to_str().unwrap(),
    ])
    .unwrap();
    mounted
}

/// Both kinds, for tests that run every mode on each.
pub fn both(test: &str) -> Vec<Mounted> {
    vec![xfs(test), tmpfs(test, 128)]
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let target = self.mount_point.to_str().unwrap_or_default().to_string();
        if run(&["umount", &target]).is_err() {
            // Busy only if a child is still exiting; detach lazily rather than leak.
            let _ = run(&["umount", "-l", &target]);
        }
        if let Some(device) = &self.device {
            let _ = run(&["losetup", "-d", device]);
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
