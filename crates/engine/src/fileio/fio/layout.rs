//! Where fio job instances work: N-to-N (no `filename`: one file per
//! instance, `DIRECTORY/NAME.INSTANCE.0` as fio names them) or N-to-1 (a shared
//! `filename`: instance i works on `[offset + i·offset_increment, + size)`),
//! and the check that written regions of one file do not overlap.

use std::path::{Path, PathBuf};

use super::job::Job;
use crate::fileio::error::FileIoError;
use crate::fileio::plan::{FileSpec, Mix, Pattern, Region, Stream};
use crate::fileio::target::{self, Target};

/// Adds one stream per instance of `job`, and its file (shared files once, at
/// the largest size any instance needs).
pub(crate) fn add_job_streams(
    job: &Job,
    files: &mut Vec<FileSpec>,
    streams: &mut Vec<Stream>,
) -> Result<(), FileIoError> {
    let verify_only = job.verify.is_some_and(|v| v.only);
    for instance in 0..job.numjobs {
        let path = match &job.filename {
            Some(p) => p.clone(),
            None => generated_file(job, instance)?,
        };
        let offset = job.offset + instance as u64 * job.offset_increment;
        let size = match job.size {
            Some(s) => s,
            None => existing_size(&path)?.saturating_sub(offset),
        };
        let length = size / job.bs * job.bs;
        if length == 0 {
            return Err(FileIoError::invalid(
                "size",
                format!(
                    "job '{}' has no whole block of {} bytes to work on",
                    job.name, job.bs
                ),
            ));
        }
        let end = offset + length;
        let file = match files.iter().position(|f| f.path == path) {
            Some(i) => {
                files[i].size = files[i].size.max(end);
                i
            }
            None => {
                files.push(FileSpec { path, size: end });
                files.len() - 1
            }
        };
        let writes = job.mix.read_share < 1.0 && !verify_only;
        let pattern = match (job.pattern, job.verify.is_some() && writes) {
            (Pattern::Random, true) => Pattern::Permuted,
            (p, _) => p,
        };
        let blocks = length / job.bs;
        let requests = if verify_only {
            Some(blocks)
        } else if job.time_based {
            None
        } else {
            Some(blocks)
        };
        streams.push(Stream {
            name: job.name.clone(),
            regions: vec![Region {
                file,
                offset,
                length,
            }],
            threads: 1,
            mix: if verify_only {
                Mix { read_share: 1.0 }
            } else {
                job.mix
            },
            pattern: if verify_only {
                Pattern::Sequential
            } else {
                pattern
            },
            fsync: job.fsync,
            requests,
        });
    }
    Ok(())
}

/// The file of an N-to-N instance, `DIRECTORY/NAME.INSTANCE.0`. Nobody named
/// it, so it must be a regular file or nothing: a device or link target found
/// under that name (planted in a shared directory, say) is not the user's choice.
fn generated_file(job: &Job, instance: usize) -> Result<PathBuf, FileIoError> {
    let path = job.directory.join(format!("{}.{instance}.0", job.name));
    match target::inspect(&path)? {
        Target::Missing | Target::Regular { .. } => Ok(path),
        found => Err(FileIoError::invalid(
            "directory",
            format!(
                "'{}' (the file of job '{}', instance {instance}) is a {}; jobs without \
                 filename work on regular files (name a device with filename)",
                path.display(),
                job.name,
                found.kind()
            ),
        )),
    }
}

/// The bytes a job without `size` works on: the file's length or the block
/// device's size (fio's rule); a character device has none to take.
pub(crate) fn existing_size(path: &Path) -> Result<u64, FileIoError> {
    let not_given = |what: String| {
        FileIoError::invalid(
            "size",
            format!("not given, and '{}' {what}", path.display()),
        )
    };
    match target::inspect(path)? {
        Target::Missing => Err(not_given("does not exist to take it from".into())),
        Target::Char => Err(not_given(
            "is a character device, which has no size; give size".into(),
        )),
        Target::Other(kind) => Err(not_given(format!(
            "is a {kind}; a job works on a regular file or a block device"
        ))),
        found => Ok(found.addressable_bytes().unwrap_or(0)),
    }
}

/// Regions of one file that overlap are allowed (fio allows them) but warned
/// about when written, and refused when verifying (the checks would race).
pub(crate) fn check_overlaps(
    jobs: &[Job],
    streams: &[Stream],
    files: &[FileSpec],
    warnings: &mut Vec<String>,
) -> Result<(), FileIoError> {
    let verify = jobs.iter().any(|j| j.verify.is_some());
    for (i, a) in streams.iter().enumerate() {
        for b in &streams[i + 1..] {
            let (ra, rb) = (a.regions[0], b.regions[0]);
            let writes = a.mix.read_share < 1.0 || b.mix.read_share < 1.0;
            if ra.file != rb.file || ra.end() <= rb.offset || rb.end() <= ra.offset || !writes {
                continue;
            }
            let message = format!(
                "jobs '{}' and '{}' write overlapping regions of {} ({}..{} and {}..{}); set \
                 offset_increment to at least size for disjoint N-to-1 regions",
                a.name,
                b.name,
                files[ra.file].path.display(),
                ra.offset,
                ra.end(),
                rb.offset,
                rb.end()
            );
            if verify {
                return Err(FileIoError::invalid("offset_increment", message));
            }
            warnings.push(message);
        }
    }
    Ok(())
}
