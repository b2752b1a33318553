//! What a fio job file's files need before the run, decided by what each path
//! is. Regular files that are missing or shorter than the jobs need are laid
//! out, as fio does, even for read jobs (fio reads data, not holes), and each is
//! said on stderr. A block device is never laid out: its real size bounds the
//! jobs, and a job writes it only when nothing uses it. A character device is
//! never laid out or synced. Anything else is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::fileio::command::say;
use crate::fileio::device_use;
use crate::fileio::error::FileIoError;
use crate::fileio::files;
use crate::fileio::plan::{FileSpec, IoEngine, Plan};
use crate::fileio::target::{self, Target};

/// A regular file to lay out: the spec, and the bytes it has now (None: missing).
struct Layout<'a> {
    spec: &'a FileSpec,
    have: Option<u64>,
}

fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Checks every file of `plan`, then lays out the regular files that need it.
pub(crate) fn prepare(plan: &Plan, json: Option<&str>) -> Result<(), FileIoError> {
    let verify_only = plan.verify.is_some_and(|v| v.only);
    let mut layouts = Vec::new();
    for (i, spec) in plan.files.iter().enumerate() {
        files::check_directory("directory/filename", parent(&spec.path))?;
        let found = target::inspect(&spec.path)?;
        match found {
            Target::Missing | Target::Regular { .. } if verify_only => files::check_present(
                std::slice::from_ref(spec),
                "verify_only reads files a verifying write job wrote",
            )?,
            Target::Missing => layouts.push(Layout { spec, have: None }),
            Target::Regular { len } if len < spec.size => layouts.push(Layout {
                spec,
                have: Some(len),
            }),
            Target::Regular { .. } => {}
            Target::Block { size, rdev } => {
                check_device_size(spec, size)?;
                if plan.writes_file(i) {
                    device_use::check_writable(&spec.path, rdev)?;
                }
            }
            Target::Char => check_char_device(plan, i)?,
            Target::Other(kind) => {
                return Err(FileIoError::invalid(
                    "filename",
                    format!(
                        "'{}' is a {kind}; a job works on a regular file or a block device",
                        spec.path.display()
                    ),
                ))
            }
        }
    }
    lay_out(plan, &layouts, json)
}

fn check_device_size(spec: &FileSpec, size: u64) -> Result<(), FileIoError> {
    if spec.size <= size {
        return Ok(());
    }
    Err(FileIoError::invalid(
        "size",
        format!(
            "the jobs need {} bytes of '{}' (offset + size), but the block device holds \
             {size} bytes; use a smaller size, or leave size out to use the whole device",
            spec.size,
            spec.path.display()
        ),
    ))
}

/// A character device takes plain reads and writes only: fio 3.33 fails the
/// rest at run time (fsync: EINVAL, O_DIRECT: EINVAL, verify: nothing to read
/// back); here they are refused before anything runs.
fn check_char_device(plan: &Plan, file: usize) -> Result<(), FileIoError> {
    let path = plan.files[file].path.display();
    let refuse = |option: &str, why: &str| {
        Err(FileIoError::invalid(
            option,
            format!("'{path}' is a character device, {why}"),
        ))
    };
    if plan.verify.is_some() {
        return refuse(
            "verify",
            "which cannot give back what was written; verify a regular file or a block device",
        );
    }
    if plan.direct {
        return refuse(
            "direct",
            "which O_DIRECT does not apply to; use buffered I/O",
        );
    }
    if plan.engine == IoEngine::Mmap {
        return refuse("ioengine", "which cannot be mapped; use psync or io_uring");
    }
    let syncs = plan.streams.iter().any(|s| {
        s.mix.read_share < 1.0
            && (s.fsync.after_writes > 0 || s.fsync.at_end)
            && s.regions.iter().any(|r| r.file == file)
    });
    if syncs {
        return refuse(
            "fsync",
            "which cannot be synced; leave fsync, fdatasync and end_fsync out for it",
        );
    }
    Ok(())
}

/// Checks free space per directory, says what it does, and lays the files out.
fn lay_out(plan: &Plan, layouts: &[Layout], json: Option<&str>) -> Result<(), FileIoError> {
    if layouts.is_empty() {
        return Ok(());
    }
    let mut per_dir: BTreeMap<PathBuf, u64> = BTreeMap::new();
    for l in layouts {
        let need = l.spec.size - l.have.unwrap_or(0);
        *per_dir
            .entry(parent(&l.spec.path).to_path_buf())
            .or_default() += need;
    }
    for (dir, need) in &per_dir {
        files::check_space("size", dir, *need)?;
    }
    let total: u64 = per_dir.values().sum();
    say(
        json,
        &format!(
            "{}: Laying out IO files ({} files / {total} bytes)\n",
            plan.streams[0].name,
            layouts.len(),
        ),
    );
    for l in layouts {
        let path = l.spec.path.display();
        match l.have {
            None => eprintln!(
                "contio-engine: laying out '{path}' ({} bytes): it does not exist",
                l.spec.size
            ),
            // By design, as fio: a job reads data, not holes. Unlike fio 3.33
            // (which rewrites such a file whole), the bytes already there are kept.
            Some(have) => eprintln!(
                "contio-engine: extending '{path}' from {have} to {} bytes: it is shorter \
                 than the jobs need (its first {have} bytes are kept)",
                l.spec.size
            ),
        }
    }
    let specs: Vec<FileSpec> = layouts.iter().map(|l| l.spec.clone()).collect();
    files::lay_out(&specs)?;
    Ok(())
}
