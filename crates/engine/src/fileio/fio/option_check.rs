//! Every option fio does not know, listed at once. fio's own parser decides
//! (`fio --parse-only`: its option table, its ioengines' options, `${VAR}`
//! substitution), but fio stops at the first job with a bad option. So the job
//! files are copied, each round without the options fio named, and fio asked
//! again until it names no new one.

use std::path::{Path, PathBuf};

use super::binary;
use super::error::{BadOption, FioError};
use super::own_flags::job_files;
use super::scratch::ScratchDir;

/// Rounds at most: one per job section is enough; more means fio loops.
const MAX_ROUNDS: usize = 256;

/// fio's `--parse-only` answer: exit success, and its combined text.
fn parse_only(fio: &Path, args: &[String]) -> Result<(bool, String), FioError> {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = binary::ask(fio, "--parse-only", &args)?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok((out.status.success(), text))
}

/// The bad options fio names in `text`: `Bad option <x>` lines, the
/// `Did you mean y?` after each, and the `fio: job J dropped` that ends them.
pub fn bad_options(text: &str) -> Vec<BadOption> {
    let mut found: Vec<BadOption> = Vec::new();
    let mut open = 0; // the options not yet given their job
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Bad option <") {
            let option = rest.strip_suffix('>').unwrap_or(rest).to_string();
            found.push(BadOption {
                job: String::new(),
                option,
                suggestion: None,
            });
            open += 1;
        } else if let Some(rest) = line.strip_prefix("Did you mean ") {
            if let Some(last) = found.last_mut() {
                last.suggestion = Some(rest.trim_end_matches('?').to_string());
            }
        } else if let Some(job) = line
            .strip_prefix("fio: job ")
            .and_then(|r| r.strip_suffix(" dropped"))
        {
            let n = found.len();
            for o in &mut found[n - open..] {
                o.job = job.to_string();
            }
            open = 0;
        }
    }
    found
}

/// A job file can be copied elsewhere and still parse the same: it includes
/// no other file (an `include` is found relative to the job file).
fn copyable(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let includes = text.lines().any(|l| l.trim_start().starts_with("include "));
    (!includes).then_some(text)
}

/// `text` without the lines that are one of `options`.
fn without(text: &str, options: &[BadOption]) -> String {
    text.lines()
        .filter(|line| !options.iter().any(|o| line.trim() == o.option))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Every option of `args` that fio does not know. Ok(()) when fio parses the
/// job; `UnknownOptions` listing them all, or `Refused` with fio's text when
/// it refuses the job for another reason.
pub fn check(fio: &Path, args: &[String], with_json: bool) -> Result<(), FioError> {
    let (ok, text) = parse_only(fio, args)?;
    if ok {
        return Ok(());
    }
    let mut bad = bad_options(&text);
    if bad.is_empty() {
        return Err(FioError::Refused { text, with_json });
    }
    let files: Vec<(String, String)> = job_files(args)
        .into_iter()
        .filter_map(|f| copyable(f).map(|t| (f.to_string(), t)))
        .collect();
    if files.len() == job_files(args).len() && !files.is_empty() {
        bad = all_rounds(fio, args, &files, bad)?;
    }
    Err(FioError::UnknownOptions {
        options: bad,
        with_json,
    })
}

/// Asks fio again on copies without the options found so far, until it
/// names no new one.
fn all_rounds(
    fio: &Path,
    args: &[String],
    files: &[(String, String)],
    mut bad: Vec<BadOption>,
) -> Result<Vec<BadOption>, FioError> {
    // Where nothing can be written (a read-only root), the first round's list stands.
    let Ok(dir) = ScratchDir::new_in(&std::env::temp_dir()) else {
        return Ok(bad);
    };
    for _ in 0..MAX_ROUNDS {
        let mut copied: Vec<(String, PathBuf)> = Vec::new();
        for (index, (original, text)) in files.iter().enumerate() {
            let copy = dir.path().join(format!("{index}.fio"));
            std::fs::write(&copy, without(text, &bad)).map_err(|source| FioError::Process {
                what: "write a job file copy",
                source,
            })?;
            copied.push((original.clone(), copy));
        }
        let round: Vec<String> = args
            .iter()
            .map(|a| {
                copied
                    .iter()
                    .find(|(o, _)| o == a)
                    .map_or(a.clone(), |(_, c)| c.display().to_string())
            })
            .collect();
        let (ok, text) = parse_only(fio, &round)?;
        let new: Vec<BadOption> = bad_options(&text)
            .into_iter()
            .filter(|o| !bad.iter().any(|b| b.option == o.option))
            .collect();
        if ok || new.is_empty() {
            break;
        }
        bad.extend(new);
    }
    Ok(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fio_33_words() {
        let text = "Bad option <foo=1>\nDid you mean flow?\nBad option <bar>\n\
                    fio: job global dropped\n";
        let got = bad_options(text);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].option, "foo=1");
        assert_eq!(got[0].suggestion.as_deref(), Some("flow"));
        assert_eq!(got[1].job, "global");
        assert_eq!(got[1].suggestion, None);
    }
}
