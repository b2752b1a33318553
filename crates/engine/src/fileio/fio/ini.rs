//! fio's job-file syntax: `[section]` headers, `key=value` or bare `key` lines
//! (a bare key is a switch set to 1), comments after `;` or `#`. `[global]`
//! options apply to the jobs after it, as in fio.
//!
//! Own parser rather than an INI crate: fio's bare switches, its comment rules
//! and its global-then-job inheritance are what matter here, and they are a few
//! lines; generic INI crates treat bare keys and repeated sections differently.

use std::collections::BTreeMap;

use crate::fileio::error::FileIoError;

/// Refuses a job file that is not a regular file, naming it: a FIFO would block
/// the read forever and `/dev/zero` would never end.
pub fn check_regular_file(path: &str) -> Result<(), FileIoError> {
    let reason = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return Ok(()),
        Ok(_) => "is not a regular file".to_string(),
        Err(e) => e.to_string(),
    };
    Err(FileIoError::JobFile {
        path: path.to_string(),
        reason,
    })
}

/// A job file's text, once `check_regular_file` accepts it.
pub fn read_job_file(path: &str) -> Result<String, FileIoError> {
    check_regular_file(path)?;
    std::fs::read_to_string(path).map_err(|e| FileIoError::JobFile {
        path: path.to_string(),
        reason: e.to_string(),
    })
}

/// One job section with the options in effect for it (globals merged in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSection {
    pub name: String,
    /// Option name → value, with the line it came from (for errors).
    pub options: BTreeMap<String, String>,
}

/// Parses a job file's text into its job sections, in order.
pub fn parse(path: &str, text: &str) -> Result<Vec<JobSection>, FileIoError> {
    let mut global: BTreeMap<String, String> = BTreeMap::new();
    let mut jobs: Vec<JobSection> = Vec::new();
    let mut in_global = false;
    let mut seen_section = false;
    for (number, raw) in text.lines().enumerate() {
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some(name) = rest
                .strip_suffix(']')
                .map(str::trim)
                .filter(|n| !n.is_empty())
            else {
                return Err(FileIoError::JobFile {
                    path: path.to_string(),
                    reason: format!("line {}: malformed section header '{line}'", number + 1),
                });
            };
            seen_section = true;
            in_global = name == "global";
            if !in_global {
                jobs.push(JobSection {
                    name: name.to_string(),
                    options: global.clone(),
                });
            }
            continue;
        }
        if !seen_section {
            return Err(FileIoError::JobFile {
                path: path.to_string(),
                reason: format!("line {}: option '{line}' outside any section", number + 1),
            });
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, "1"),
        };
        let target = if in_global {
            &mut global
        } else {
            match jobs.last_mut() {
                Some(job) => &mut job.options,
                None => &mut global,
            }
        };
        // Two spellings of one setting: the later line wins, as in fio.
        if let Some(other) = counterpart(key) {
            target.remove(other);
        }
        target.insert(key.to_string(), value.to_string());
    }
    if jobs.is_empty() {
        return Err(FileIoError::JobFile {
            path: path.to_string(),
            reason: "no job section (a [name] other than [global])".to_string(),
        });
    }
    Ok(jobs)
}

/// The option that sets the same thing as `key` from the other side, if any
/// (`rwmixread=70` and `rwmixwrite=30` both set the read share).
fn counterpart(key: &str) -> Option<&'static str> {
    match key {
        "rwmixread" => Some("rwmixwrite"),
        "rwmixwrite" => Some("rwmixread"),
        _ => None,
    }
}

fn strip_comment(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with(';') || trimmed.starts_with('#') {
        return "";
    }
    // fio also ends a line at an inline ';' or '#' preceded by whitespace.
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if (b == b';' || b == b'#') && i > 0 && bytes[i - 1].is_ascii_whitespace() {
            return &line[..i];
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_later_of_rwmixread_and_rwmixwrite_wins() {
        let text = "[global]\nrwmixread=70\n[a]\nrwmixwrite=10\n[b]\nrwmixwrite=10\nrwmixread=60\n";
        let jobs = parse("j.fio", text).unwrap();
        assert_eq!(jobs[0].options.get("rwmixread"), None);
        assert_eq!(jobs[0].options["rwmixwrite"], "10");
        assert_eq!(jobs[1].options["rwmixread"], "60");
        assert_eq!(jobs[1].options.get("rwmixwrite"), None);
    }

    #[test]
    fn globals_apply_to_later_jobs_and_switches_are_bare() {
        let text = "; a job file\n[global]\nbs=4k\ntime_based\n\n[a]\nrw=read # inline\n\
                    [global]\nbs=8k\n[b]\nrw=write\n";
        let jobs = parse("j.fio", text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].options["bs"], "4k");
        assert_eq!(jobs[0].options["time_based"], "1");
        assert_eq!(jobs[0].options["rw"], "read");
        assert_eq!(jobs[1].options["bs"], "8k");
        assert!(parse("j", "bs=4k\n[a]\n").is_err());
        assert!(parse("j", "[global]\nbs=4k\n").is_err());
    }
}
