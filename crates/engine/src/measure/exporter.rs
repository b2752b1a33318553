//! YCSB's measurement exporters (`exporter=`) and `exportfile=`: the summary
//! as text lines (`TextMeasurementsExporter`, the default), as a sequence of
//! JSON objects (`JSONMeasurementsExporter`) or as one JSON array of them
//! (`JSONArrayMeasurementsExporter`), laid out as YCSB 0.17 writes them
//! (Jackson 1.9's default pretty printer, no final newline), on stdout or in
//! the export file.
//!
//! The JSON forms are made from the text summary's lines, so both always hold
//! the same measurements and values (`[READ], AverageLatency(us), 5.0E-5`
//! becomes `{"metric" : "READ", "measurement" : "AverageLatency(us)", "value" :
//! 5.0E-5}`; NaN and infinities are strings, as Jackson quotes them).
//!
//! The export file is written to a temporary file beside it and renamed into
//! place, and only where nothing is or a regular file is: a device, FIFO or
//! directory at that path is refused before the phase runs, never written to.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::error::PropertyError;
use crate::properties::Properties;

/// `exporter`: how the summary is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Exporter {
    #[default]
    Text,
    Json,
    JsonArray,
}

/// The exporter classes accepted, by the names YCSB 0.17 gives them.
const CLASSES: [(&str, Exporter); 3] = [
    ("TextMeasurementsExporter", Exporter::Text),
    ("JSONMeasurementsExporter", Exporter::Json),
    ("JSONArrayMeasurementsExporter", Exporter::JsonArray),
];
/// Their packages: YCSB 0.14 and later, and before.
const PACKAGES: [&str; 2] = [
    "site.ycsb.measurements.exporter.",
    "com.yahoo.ycsb.measurements.exporter.",
];

/// Where and how the summary goes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Export {
    pub exporter: Exporter,
    /// `exportfile`: the summary goes there instead of stdout.
    pub file: Option<PathBuf>,
}

impl Export {
    /// Reads `exporter` and `exportfile`; refuses an unknown exporter class and an
    /// export file that is not a regular file (or in a missing directory).
    pub fn from_properties(p: &Properties) -> Result<Self, PropertyError> {
        let exporter = match p.get("exporter").map(str::trim) {
            None => Exporter::Text,
            Some(class) => exporter_named(class).ok_or_else(|| PropertyError::BadValue {
                key: "exporter".into(),
                value: class.into(),
                expected: format!(
                    "one of {}",
                    CLASSES
                        .map(|(name, _)| format!("{}{name}", PACKAGES[0]))
                        .join(", ")
                ),
            })?,
        };
        let file = p
            .get("exportfile")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        if let Some(path) = &file {
            writable_place(path).map_err(|reason| PropertyError::Invalid {
                key: "exportfile".into(),
                reason,
            })?;
        }
        Ok(Self { exporter, file })
    }

    /// The summary in this exporter's format.
    pub fn render(&self, summary: &str) -> String {
        match self.exporter {
            Exporter::Text => summary.to_string(),
            Exporter::Json => objects(summary).join(" "),
            Exporter::JsonArray => {
                let all = objects(summary);
                if all.is_empty() {
                    "[ ]".into()
                } else {
                    format!("[ {} ]", all.join(", "))
                }
            }
        }
    }
}

fn exporter_named(class: &str) -> Option<Exporter> {
    let short = PACKAGES
        .iter()
        .find_map(|package| class.strip_prefix(package))?;
    CLASSES
        .iter()
        .find(|(name, _)| *name == short)
        .map(|(_, e)| *e)
}

/// Each `[METRIC], MEASUREMENT, VALUE` line as a pretty-printed JSON object.
fn objects(summary: &str) -> Vec<String> {
    summary
        .lines()
        .filter_map(|line| {
            let (metric, rest) = line.strip_prefix('[')?.split_once("], ")?;
            let (measurement, value) = rest.rsplit_once(", ")?;
            let mut out = String::new();
            let _ = write!(
                out,
                "{{\n  \"metric\" : {},\n  \"measurement\" : {},\n  \"value\" : {}\n}}",
                quoted(metric),
                quoted(measurement),
                json_value(value)
            );
            Some(out)
        })
        .collect()
}

fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A summary value as Jackson writes it: integers and finite doubles bare (the
/// text already holds Java's `Double.toString`), NaN and infinities quoted.
fn json_value(value: &str) -> String {
    match value {
        "NaN" | "Infinity" | "-Infinity" => quoted(value),
        v if v.parse::<f64>().is_ok() => v.to_string(),
        v => quoted(v),
    }
}

/// Why `path` may not receive the export file, if it may not.
fn writable_place(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(format!(
            "'{}' exists and is not a regular file (a device, FIFO or directory is never \
             written to); name a new or regular file",
            path.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            match dir {
                Some(d) if !d.is_dir() => {
                    Err(format!("directory '{}' does not exist", d.display()))
                }
                _ => Ok(()),
            }
        }
        Err(e) => Err(format!("'{}': {e}", path.display())),
    }
}

/// Writes `text` to `path` through a temporary file beside it (renamed over a
/// regular file, or into an empty place; a symbolic link to a regular file
/// has its target replaced).
pub fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    writable_place(path).map_err(std::io::Error::other)?;
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.partial", std::process::id()));
    let tmp = target.with_file_name(name);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &target).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUMMARY: &str = "[OVERALL], RunTime(ms), 47\n\
                           [OVERALL], Throughput(ops/sec), 425.531914893617\n\
                           [READ], AverageLatency(us), 5.0E-5\n\
                           [READ], LatencyVariance(us), NaN\n";

    fn export(pairs: &[(&str, &str)]) -> Result<Export, PropertyError> {
        Export::from_properties(&Properties::from_pairs(pairs))
    }

    #[test]
    fn json_array_is_laid_out_as_ycsb_writes_it() {
        let e = export(&[(
            "exporter",
            "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter",
        )])
        .unwrap();
        let out = e.render(SUMMARY);
        assert!(
            out.starts_with(
                "[ {\n  \"metric\" : \"OVERALL\",\n  \"measurement\" : \"RunTime(ms)\",\n  \"value\" : 47\n}, {\n"
            ),
            "{out}"
        );
        assert!(out.ends_with("\"value\" : \"NaN\"\n} ]"), "{out}");
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed[2]["value"].as_f64(), Some(5.0e-5));
    }

    #[test]
    fn json_objects_follow_each_other() {
        let e = export(&[(
            "exporter",
            "com.yahoo.ycsb.measurements.exporter.JSONMeasurementsExporter",
        )])
        .unwrap();
        let out = e.render(SUMMARY);
        assert!(out.contains("\"value\" : 47\n} {\n  \"metric\""), "{out}");
        assert_eq!(
            serde_json::Deserializer::from_str(&out)
                .into_iter::<serde_json::Value>()
                .count(),
            4
        );
    }

    #[test]
    fn unknown_exporters_and_special_files_are_refused() {
        let err =
            export(&[("exporter", "site.ycsb.measurements.exporter.XmlExporter")]).unwrap_err();
        assert!(
            err.to_string().contains("JSONArrayMeasurementsExporter"),
            "{err}"
        );
        let err = export(&[("exportfile", "/dev/null")]).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert!(export(&[("exportfile", "/nonexistent-dir/x.json")]).is_err());
        assert_eq!(export(&[]).unwrap(), Export::default());
    }

    #[test]
    fn the_file_is_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("contio-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.json");
        std::fs::write(&path, "old and longer text").unwrap();
        write_file(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(write_file(Path::new("/dev/null"), "x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
