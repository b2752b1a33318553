//! Real file systems for the tests: a tmpfs, XFS on a loop device over a
//! sparse image, and XFS whose image sits on a full tmpfs (a thin-provisioned
//! disk that ran out: writes land in the page cache, writeback and fsync fail
//! with ENOSPC). Each is torn down on drop — also when the test panics — so no
//! mount or loop device outlives a test.
//!
//! Facilities a case needs (root, mount, losetup, mkfs.xfs, io_uring, a
//! writable /proc/sys) may be missing, e.g. in a container; the case is then
//! skipped with the reason on stderr. `CONTIO_TEST_STRICT=1` (set by `make
//! test`) turns every skip into a failure, so CI cannot pass by skipping.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// XFS's smallest file system (mkfs.xfs refuses less than 300 MiB).
const XFS_IMAGE_BYTES: u64 = 320 << 20;
/// The tmpfs under a thin XFS: room for what mkfs.xfs writes (its 64 MiB log
/// and the allocation-group headers), then filled up.
const THIN_BACKING_MIB: u64 = 80;

/// A mounted scratch file system.
pub struct Mounted {
    pub kind: &'static str,
    mount_point: PathBuf,
    root: PathBuf,
    device: Option<String>,
    /// The tmpfs holding the image of a thin XFS.
    backing: Option<PathBuf>,
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

/// Reports that `test` cannot run its `case` here, and why; fails instead
/// under `CONTIO_TEST_STRICT=1`.
pub fn skip(test: &str, case: &str, reason: &str) {
    let strict = std::env::var("CONTIO_TEST_STRICT").is_ok_and(|v| v == "1");
    assert!(
        !strict,
        "{test}: {case} cannot run here: {reason} (CONTIO_TEST_STRICT=1 forbids skipping)"
    );
    // Straight to the file descriptor: the test harness captures `eprintln!`.
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {case}: {reason}");
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

fn mount_tmpfs(at: &Path, megabytes: u64) -> Result<String, String> {
    let size = format!("size={megabytes}m");
    run(&[
        "mount",
        "-t",
        "tmpfs",
        "-o",
        &size,
        "tmpfs",
        at.to_str().unwrap(),
    ])
}

/// A tmpfs of `megabytes` MiB for `test`, or None (reported) when this machine cannot mount one.
pub fn tmpfs(test: &str, megabytes: u64) -> Option<Mounted> {
    if !is_root() {
        skip(test, "tmpfs", "mounting needs root");
        return None;
    }
    let root = scratch_root(test, "tmpfs");
    let mounted = Mounted {
        kind: "tmpfs",
        mount_point: root.join("mnt"),
        root,
        device: None,
        backing: None,
    };
    if let Err(e) = mount_tmpfs(&mounted.mount_point, megabytes) {
        skip(test, "tmpfs", &e);
        return None;
    }
    Some(mounted)
}

/// XFS on a loop device for `test`, or None (reported) when this machine cannot make one.
pub fn xfs(test: &str) -> Option<Mounted> {
    make_xfs(test, "xfs", false)
}

/// XFS on a loop device whose image lies on a full tmpfs: the file system has
/// free space, but blocks it has not written before cannot reach the device,
/// so buffered writes succeed and their writeback (an fsync) fails with ENOSPC.
/// Files for a run must be created sparse (`set_len`) so the run's writes
/// fill holes.
pub fn thin_xfs(test: &str) -> Option<Mounted> {
    make_xfs(test, "thin-xfs", true)
}

fn make_xfs(test: &str, kind: &'static str, thin: bool) -> Option<Mounted> {
    if !is_root() {
        skip(test, kind, "mounting needs root");
        return None;
    }
    let root = scratch_root(test, kind);
    let mut mounted = Mounted {
        kind: "xfs",
        mount_point: root.join("mnt"),
        root,
        device: None,
        backing: None,
    };
    if let Err(e) = build_xfs(&mut mounted, thin) {
        skip(test, kind, &e);
        return None;
    }
    Some(mounted)
}

/// mkfs, losetup, mount; for a thin one, then fill the tmpfs under the image.
fn build_xfs(mounted: &mut Mounted, thin: bool) -> Result<(), String> {
    let image_dir = if thin {
        let back = mounted.root.join("back");
        std::fs::create_dir_all(&back).map_err(|e| e.to_string())?;
        mount_tmpfs(&back, THIN_BACKING_MIB)?;
        mounted.backing = Some(back.clone());
        back
    } else {
        mounted.root.clone()
    };
    let image = image_dir.join("xfs.img");
    std::fs::File::create(&image)
        .and_then(|f| f.set_len(XFS_IMAGE_BYTES))
        .map_err(|e| format!("image: {e}"))?;
    run(&["mkfs.xfs", "-q", "-f", image.to_str().unwrap()])?;
    let device = run(&["losetup", "--find", "--show", image.to_str().unwrap()])?;
    mounted.device = Some(device.clone());
    run(&[
        "mount",
        "-t",
        "xfs",
        &device,
        mounted.mount_point.to_str().unwrap(),
    ])?;
    if thin {
        make_thin(mounted, &image_dir)?;
    }
    Ok(())
}

/// Leaves no free XFS block whose image block exists, then fills the tmpfs.
///
/// mkfs.xfs zeroes the first 128 KiB of the image, part of which XFS then
/// has as free space: a file placed there would be written partly into
/// existing image pages and partly into holes, and the loop driver reports
/// such a short write of the image as success (observed on Linux 6.18: the
/// data beyond the existing pages is silently lost, fsync returns 0). A
/// synced spacer file takes those blocks first, so every later write starts
/// in a hole and fails as a whole. A probe then checks that a sync fails.
fn make_thin(mounted: &Mounted, image_dir: &Path) -> Result<(), String> {
    let spacer = mounted.mount_point.join(".spacer");
    std::fs::write(&spacer, vec![0x5a; 1 << 20])
        .and_then(|()| std::fs::File::open(&spacer)?.sync_all())
        .map_err(|e| format!("spacer: {e}"))?;
    fill_up(&image_dir.join("filler"))?;
    let probe = mounted.mount_point.join(".probe");
    let mut f = std::fs::File::create(&probe).map_err(|e| format!("probe: {e}"))?;
    f.write_all(&[0xa5; 64 << 10])
        .map_err(|e| format!("probe: {e}"))?;
    match f.sync_all() {
        Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => Ok(()),
        other => Err(format!(
            "a sync on XFS over a full image should fail with ENOSPC, got {other:?}"
        )),
    }
}

/// Writes `path` until its file system is full.
fn fill_up(path: &Path) -> Result<(), String> {
    let mut f = std::fs::File::create(path).map_err(|e| format!("filler: {e}"))?;
    let chunk = vec![0u8; 1 << 20];
    loop {
        match f.write(&chunk) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => return Ok(()),
            Err(e) => return Err(format!("filler: {e}")),
        }
    }
}

/// Both kinds that are available here, for tests that run every mode on each.
pub fn both(test: &str) -> Vec<Mounted> {
    [xfs(test), tmpfs(test, 128)]
        .into_iter()
        .flatten()
        .collect()
}

/// Whether io_uring works here (seccomp in containers often blocks it); reports a skip if not.
pub fn io_uring_works(test: &str) -> bool {
    match io_uring::IoUring::new(2) {
        Ok(_) => true,
        Err(e) => {
            skip(test, "io_uring cases", &format!("io_uring_setup: {e}"));
            false
        }
    }
}

/// Whether `--drop-caches` can work here (root, writable /proc/sys); reports a skip if not.
pub fn can_drop_caches(test: &str) -> bool {
    let writable = std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches");
    match (is_root(), writable) {
        (true, Ok(_)) => true,
        (false, _) => {
            skip(test, "--drop-caches", "needs root");
            false
        }
        (true, Err(e)) => {
            skip(
                test,
                "--drop-caches",
                &format!("/proc/sys/vm/drop_caches: {e}"),
            );
            false
        }
    }
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
        if let Some(back) = &self.backing {
            // The loop device lets go of its image asynchronously; a lazy
            // unmount frees the tmpfs as soon as it has.
            let back = back.to_str().unwrap_or_default();
            if run(&["umount", back]).is_err() {
                let _ = run(&["umount", "-l", back]);
            }
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
