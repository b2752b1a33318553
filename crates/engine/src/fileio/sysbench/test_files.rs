//! sysbench's `test_file.N`: what `prepare` finds and writes (create, extend
//! from the current end, or reuse a file already long enough; never
//! truncate), what `run` expects (each file there and at least
//! `file-total-size / file-num` long), and that each one is a regular file
//! or missing — a device, a link or a folder under that name is someone
//! else's and refused before any command touches it.

use std::path::Path;

use super::error::SysbenchError;
use super::options::FileSet;
use crate::fileio::error::FileIoError;
use crate::fileio::files;
use crate::fileio::plan::{FileSpec, Region};
use crate::fileio::target::{self, Target};

/// What `prepare` does with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preparation {
    Create,
    /// Write from `from` (its current length) on.
    Extend {
        from: u64,
    },
    Reuse,
}

impl Preparation {
    /// sysbench's line for it.
    pub fn line(self, name: &str) -> String {
        match self {
            Preparation::Create => format!("Creating file {name}"),
            Preparation::Extend { .. } => format!("Extending existing file {name}"),
            Preparation::Reuse => format!("Reusing existing file {name}"),
        }
    }
}

/// The file name without its folder, as sysbench prints it.
pub fn name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Refuses a `test_file.N` that is neither missing nor a regular file.
pub fn check_regular(files: &[FileSpec]) -> Result<(), FileIoError> {
    for f in files {
        match target::inspect_entry(&f.path)? {
            Target::Missing | Target::Regular { .. } => {}
            other => {
                return Err(FileIoError::invalid(
                    "--file-dir",
                    format!(
                        "'{}' is a {}, not a test file; sysbench fileio prepares, runs on \
                         and removes only regular files named test_file.N",
                        f.path.display(),
                        other.kind()
                    ),
                ))
            }
        }
    }
    Ok(())
}

fn current_len(path: &Path) -> Result<u64, FileIoError> {
    Ok(match target::inspect(path)? {
        Target::Regular { len } => len,
        _ => 0,
    })
}

/// What `prepare` will do.
pub struct PreparationPlan {
    /// Per file, what is done with it.
    pub steps: Vec<Preparation>,
    /// What is written: whole blocks from each file's current end until it
    /// reaches `file_size`.
    pub regions: Vec<Region>,
    /// Per file, its length afterwards.
    pub sizes: Vec<u64>,
}

/// What `prepare` does with each file.
pub fn plan_preparation(set: &FileSet, bs: u64) -> Result<PreparationPlan, FileIoError> {
    let mut steps = Vec::new();
    let mut regions = Vec::new();
    let mut sizes = Vec::new();
    for (file, spec) in set.files(set.file_size).iter().enumerate() {
        let have = current_len(&spec.path)?;
        let step = match have {
            0 => Preparation::Create,
            n if n >= set.file_size => Preparation::Reuse,
            n => Preparation::Extend { from: n },
        };
        let length = if step == Preparation::Reuse {
            0
        } else {
            (set.file_size - have).div_ceil(bs) * bs
        };
        if length > 0 {
            regions.push(Region {
                file,
                offset: have,
                length,
            });
        }
        sizes.push(have + length);
        steps.push(step);
    }
    Ok(PreparationPlan {
        steps,
        regions,
        sizes,
    })
}

/// Creates (empty) the files `prepare` will write, so the run can open them.
pub fn create(files: &[FileSpec]) -> Result<(), FileIoError> {
    for f in files {
        files::open_regular_for_layout(&f.path)?;
    }
    Ok(())
}

/// `run`'s check, with sysbench's messages: each file opens and holds at
/// least `file_size` bytes.
pub fn check_prepared(files: &[FileSpec], file_size: u64) -> Result<(), SysbenchError> {
    for f in files {
        let file = name(&f.path);
        let len = match target::inspect(&f.path)? {
            Target::Regular { len } => len,
            _ => {
                return Err(SysbenchError::FatalWithHint {
                    message: format!(
                        "Cannot open file '{file}' errno = 2 (No such file or directory)"
                    ),
                    hint: "Did you forget to run the prepare step?".into(),
                })
            }
        };
        if len < file_size {
            return Err(SysbenchError::FatalWithHint {
                message: format!(
                    "Size of file '{file}' is {}B, but at least {}B is expected.",
                    value_size(len as f64),
                    value_size(file_size as f64)
                ),
                hint: "Did you run 'prepare' with different --file-total-size or --file-num \
                       values?"
                    .into(),
            });
        }
    }
    Ok(())
}

/// Removes `path`; a file that is not there is no error (cleanup may run twice).
pub fn remove_if_present(path: &std::path::Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// `seqwr`'s run starts from new, empty files (sysbench removes them first).
pub fn recreate(files: &[FileSpec]) -> Result<(), FileIoError> {
    for f in files {
        remove_if_present(&f.path).map_err(|source| FileIoError::Setup {
            path: f.path.display().to_string(),
            what: "remove",
            source,
        })?;
    }
    create(files)
}

/// mmap'ed I/O needs files as long as the plan: sysbench truncates shorter
/// ones up to the size (never down).
pub fn extend_for_mmap(files: &[FileSpec]) -> Result<(), FileIoError> {
    for f in files {
        if current_len(&f.path)? < f.size {
            let file = files::open_regular_for_layout(&f.path)?;
            file.set_len(f.size).map_err(|source| FileIoError::Setup {
                path: f.path.display().to_string(),
                what: "set length",
                source,
            })?;
        }
    }
    Ok(())
}

/// A size as sysbench prints it: divided by 1024 while it is 1024 or more,
/// five significant digits, then the unit's letter and `i` (`8Mi`, `4.001Ki`).
pub fn value_size(mut value: f64) -> String {
    let units = ['K', 'M', 'G', 'T', 'P', 'E'];
    let mut unit = None;
    for u in units {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = Some(u);
    }
    let digits = significant(value, 5);
    match unit {
        Some(u) => format!("{digits}{u}i"),
        None => digits,
    }
}

/// `%.Ng` for values below 10^N: N significant digits, no trailing zeros.
fn significant(value: f64, n: i32) -> String {
    let int_digits = if value >= 1.0 {
        value.log10().floor() as i32 + 1
    } else {
        1
    };
    let decimals = (n - int_digits).max(0) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_as_sysbench_prints_them() {
        assert_eq!(value_size((256 << 10) as f64), "256Ki");
        assert_eq!(value_size((8 << 20) as f64), "8Mi");
        assert_eq!(value_size(4097.0), "4.001Ki");
        assert_eq!(value_size(1000.0), "1000");
        assert_eq!(value_size(16384.0), "16Ki");
    }

    #[test]
    fn prepare_writes_whole_blocks_past_the_size() {
        let dir = std::env::temp_dir().join(format!("contio-sb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let set = FileSet {
            dir: dir.clone(),
            count: 3,
            file_size: 8192,
        };
        std::fs::write(dir.join("test_file.1"), vec![1u8; 100]).unwrap();
        std::fs::write(dir.join("test_file.2"), vec![1u8; 9000]).unwrap();
        let PreparationPlan {
            steps,
            regions,
            sizes,
        } = plan_preparation(&set, 4097).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            steps,
            [
                Preparation::Create,
                Preparation::Extend { from: 100 },
                Preparation::Reuse
            ]
        );
        assert_eq!(regions.len(), 2);
        assert_eq!((regions[0].offset, regions[0].length), (0, 8194));
        assert_eq!((regions[1].offset, regions[1].length), (100, 8194));
        assert_eq!(sizes, [8194, 8294, 9000]);
    }
}
