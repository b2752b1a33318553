//! Whether a block device is in use, checked before a job writes it. fio writes
//! a block device its job names (the user asked for it) but, by default
//! (`allow_mounted_write=0`), not one that is mounted; contio refuses, besides,
//! a device one of whose partitions is mounted, one with holders (device
//! mapper, RAID, bcache), one used as swap, and one another program holds
//! exclusively — each of which a write would corrupt under its user.

use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use super::error::FileIoError;

/// A device number as sysfs and mountinfo spell it.
fn major_minor(rdev: u64) -> String {
    format!("{}:{}", libc::major(rdev), libc::minor(rdev))
}

/// The device and its partitions: (name for messages, "major:minor").
fn device_and_partitions(path: &Path, rdev: u64) -> Vec<(String, String)> {
    let own = major_minor(rdev);
    let mut out = vec![(path.display().to_string(), own.clone())];
    let Ok(entries) = std::fs::read_dir(format!("/sys/dev/block/{own}")) else {
        return out;
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        if !dir.join("partition").exists() {
            continue;
        }
        if let Ok(dev) = std::fs::read_to_string(dir.join("dev")) {
            let name = format!("partition /dev/{}", entry.file_name().to_string_lossy());
            out.push((name, dev.trim().to_string()));
        }
    }
    out
}

/// The device number of `source` when it is a block device path.
fn source_device(source: &str) -> Option<String> {
    if !source.starts_with('/') {
        return None;
    }
    let m = std::fs::metadata(source).ok()?;
    m.file_type()
        .is_block_device()
        .then(|| major_minor(m.rdev()))
}

/// Where `dev` is mounted, from /proc/self/mountinfo: by the mount's device
/// number, and by its source path (btrfs reports an anonymous number).
fn mount_point(mountinfo: &str, dev: &str) -> Option<String> {
    mountinfo.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(' ').collect();
        let source = line
            .split(" - ")
            .nth(1)
            .and_then(|rest| rest.split(' ').nth(1));
        let by_number = fields.get(2) == Some(&dev);
        let by_source = source.and_then(source_device).as_deref() == Some(dev);
        (by_number || by_source).then(|| fields.get(4).unwrap_or(&"?").to_string())
    })
}

fn holders(dev: &str) -> Vec<String> {
    std::fs::read_dir(format!("/sys/dev/block/{dev}/holders"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn is_swap(dev: &str) -> bool {
    std::fs::read_to_string("/proc/swaps").is_ok_and(|swaps| {
        swaps
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .any(|p| source_device(p).as_deref() == Some(dev))
    })
}

/// Why the device (or a partition of it) must not be written, if anything uses it.
fn in_use(path: &Path, rdev: u64) -> Option<String> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for (name, dev) in device_and_partitions(path, rdev) {
        if let Some(at) = mount_point(&mountinfo, &dev) {
            return Some(format!("{name} is mounted at {at}"));
        }
        let held = holders(&dev);
        if !held.is_empty() {
            return Some(format!("{name} is held by {}", held.join(", ")));
        }
        if is_swap(&dev) {
            return Some(format!("{name} is in use as swap"));
        }
    }
    // What the files above do not show (a file system this mount namespace
    // cannot see, a program's exclusive claim): the kernel refuses an
    // exclusive open of a claimed device, or of a disk with a claimed partition.
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL | libc::O_CLOEXEC)
        .open(path)
    {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(format!(
            "{} is in use (another program or a file system holds it exclusively)",
            path.display()
        )),
        _ => None,
    }
}

/// Exit-2 error when a job would write the block device at `path` while
/// something uses it.
pub fn check_writable(path: &Path, rdev: u64) -> Result<(), FileIoError> {
    match in_use(path, rdev) {
        None => Ok(()),
        Some(why) => Err(FileIoError::invalid(
            "filename",
            format!(
                "a job writes the block device '{}', but {why}; contio writes a device \
                 only when nothing uses it (unmount it or release it first, or name an \
                 unused device)",
                path.display()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_points_by_number() {
        let info = "36 35 8:3 / /home rw,relatime shared:1 - ext4 /nonexistent/sda3 rw\n";
        assert_eq!(mount_point(info, "8:3").as_deref(), Some("/home"));
        assert_eq!(mount_point(info, "8:4"), None);
    }
}
