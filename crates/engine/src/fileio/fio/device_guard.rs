//! Before fio runs: a job that writes a block device must find it unused
//! (`fileio::device_use`). fio resolves the job files itself (`--showcmd`
//! prints each job as command-line options, `${VAR}` and includes applied), so
//! the devices checked are the ones fio would open.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use super::binary;
use super::error::FioError;
use super::own_flags::job_files;
use crate::fileio::device_use;

/// One job's options as `(name, value)`, `[global]`'s first.
type JobOptions = Vec<(String, String)>;

/// The jobs of fio's command-line form: options before the first `--name`
/// apply to every job.
pub fn jobs_of_command_line(words: &[String]) -> Vec<JobOptions> {
    let mut global: JobOptions = Vec::new();
    let mut jobs: Vec<JobOptions> = Vec::new();
    for word in words {
        let Some(option) = word.strip_prefix("--") else {
            continue;
        };
        let (key, value) = option.split_once('=').unwrap_or((option, "1"));
        let pair = (key.to_string(), value.to_string());
        if key == "name" {
            jobs.push(global.clone());
        }
        match jobs.last_mut() {
            Some(job) => job.push(pair),
            None => global.push(pair),
        }
    }
    jobs
}

fn last<'a>(job: &'a JobOptions, keys: &[&str]) -> Option<&'a str> {
    job.iter()
        .rev()
        .find(|(k, _)| keys.contains(&k.as_str()))
        .map(|(_, v)| v.as_str())
}

/// Whether a job's `rw` writes or trims (fio's default is `read`).
pub fn writes(job: &JobOptions) -> bool {
    let rw = last(job, &["rw", "readwrite"]).unwrap_or("read");
    let rw = rw.split(':').next().unwrap_or(rw);
    !matches!(rw, "read" | "randread")
}

/// The files a job names: `filename` split at `:` (fio's separator, `\:`
/// escapes it), each relative one under `directory`.
pub fn filenames(job: &JobOptions) -> Vec<PathBuf> {
    let Some(names) = last(job, &["filename"]) else {
        return Vec::new();
    };
    let dir = last(job, &["directory"]).map(PathBuf::from);
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = names.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => current.push(chars.next().unwrap_or(':')),
            ':' => out.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    out.push(current);
    out.into_iter()
        .filter(|n| !n.is_empty())
        .map(|n| match &dir {
            Some(d) if !n.starts_with('/') => d.join(n),
            _ => PathBuf::from(n),
        })
        .collect()
}

/// The jobs fio would run for `args`: its `--showcmd` of the job files,
/// then the jobs given on the command line.
fn resolved_jobs(fio: &Path, args: &[String]) -> Result<Vec<JobOptions>, FioError> {
    let mut jobs = Vec::new();
    for file in job_files(args) {
        let out = binary::ask(fio, "--showcmd", &[file])?;
        let text = String::from_utf8_lossy(&out.stdout);
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        jobs.extend(jobs_of_command_line(&words));
    }
    jobs.extend(jobs_of_command_line(args));
    Ok(jobs)
}

/// Refuses a run whose writing job names a block device that is in use.
pub fn check(fio: &Path, args: &[String]) -> Result<(), FioError> {
    for job in resolved_jobs(fio, args)?.iter().filter(|j| writes(j)) {
        for path in filenames(job) {
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.file_type().is_block_device() {
                device_use::check_writable(&path, meta.rdev())?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn globals_reach_every_job_and_names_split_at_colons() {
        let jobs = jobs_of_command_line(&words(
            "fio --directory=/d --name=a --rw=write --filename=x:y\\:z --name=b",
        ));
        assert_eq!(jobs.len(), 2);
        assert!(writes(&jobs[0]));
        assert!(!writes(&jobs[1]));
        let files = filenames(&jobs[0]);
        assert_eq!(files, vec![PathBuf::from("/d/x"), PathBuf::from("/d/y:z")]);
    }

    #[test]
    fn mixed_and_trim_jobs_write() {
        for rw in ["rw", "randrw", "trim", "randwrite", "trimwrite", "write:4k"] {
            let job = vec![("rw".to_string(), rw.to_string())];
            assert!(writes(&job), "{rw}");
        }
    }
}
