//! YCSB's `measurementtype` and the properties of each measurement: what the
//! text summary, the status lines and the optional files show.
//!
//! Every type is drawn from the same recording: the HDR histograms that are
//! always kept (hdrhistogram, and histogram's 1 ms buckets derived from them),
//! plus, only when asked for, per-unit latency sums (timeseries) or every
//! operation's latency (raw), so the default path records nothing extra.

use std::path::{Path, PathBuf};

use super::exporter::Export;
use crate::error::PropertyError;
use crate::properties::Properties;

/// `measurementtype`, with YCSB 0.17's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeasurementType {
    Histogram,
    HdrHistogram,
    HdrHistogramAndHistogram,
    HdrHistogramAndRaw,
    TimeSeries,
    Raw,
}

/// One part of a measurement's report; two-in-one types have two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// HDR figures and percentiles (`hdrhistogram`).
    Hdr,
    /// 1 ms buckets, variance, 95th/99th from the buckets (`histogram`).
    Buckets,
    /// Average latency per time unit (`timeseries`).
    Series,
    /// Every operation's latency (`raw`).
    Raw,
}

impl MeasurementType {
    /// Every accepted value of `measurementtype`.
    pub const NAMES: [&'static str; 6] = [
        "hdrhistogram",
        "histogram",
        "hdrhistogram+histogram",
        "hdrhistogram+raw",
        "timeseries",
        "raw",
    ];

    /// The type named `name` (one of `NAMES`).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "hdrhistogram" => Self::HdrHistogram,
            "histogram" => Self::Histogram,
            "hdrhistogram+histogram" => Self::HdrHistogramAndHistogram,
            "hdrhistogram+raw" => Self::HdrHistogramAndRaw,
            "timeseries" => Self::TimeSeries,
            "raw" => Self::Raw,
            _ => return None,
        })
    }

    /// The parts reported for each operation name, with the prefix of their
    /// section names (`[HdrREAD]`, `[BucketREAD]`, `[RawREAD]` as YCSB names
    /// them). Return codes are reported by the first part only.
    pub fn parts(self) -> &'static [(&'static str, Part)] {
        match self {
            Self::HdrHistogram => &[("", Part::Hdr)],
            Self::Histogram => &[("", Part::Buckets)],
            Self::HdrHistogramAndHistogram => &[("Hdr", Part::Hdr), ("Bucket", Part::Buckets)],
            Self::HdrHistogramAndRaw => &[("Hdr", Part::Hdr), ("Raw", Part::Raw)],
            Self::TimeSeries => &[("", Part::Series)],
            Self::Raw => &[("", Part::Raw)],
        }
    }

    /// True when some part needs every operation's latency kept.
    pub fn keeps_raw(self) -> bool {
        self.parts().iter().any(|(_, p)| *p == Part::Raw)
    }

    /// True when some part needs per-unit latency sums.
    pub fn keeps_series(self) -> bool {
        self.parts().iter().any(|(_, p)| *p == Part::Series)
    }

    /// True when some part is an HDR histogram (the only ones `hdrhistogram.fileoutput` logs).
    pub fn has_hdr(self) -> bool {
        self.parts().iter().any(|(_, p)| *p == Part::Hdr)
    }
}

/// `measurement.interval`: which latency the reports show (YCSB 0.17's names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MeasurementInterval {
    /// From the operation's actual start (`[READ]`); the default.
    #[default]
    Op,
    /// From its intended start, under the operation's own name (`[READ]`, `READ.hdr`).
    Intended,
    /// Both: `[READ]` and `[Intended-READ]`.
    Both,
}

impl MeasurementInterval {
    /// Every accepted value of `measurement.interval`.
    pub const NAMES: [&'static str; 3] = ["op", "intended", "both"];

    /// True when the reports show latency from the actual start.
    pub fn shows_actual(self) -> bool {
        self != Self::Intended
    }

    /// True when the reports show latency from the intended start.
    pub fn shows_intended(self) -> bool {
        self != Self::Op
    }

    /// The name the intended-start latency of `name` is reported under.
    pub fn intended_name(self, name: &str) -> String {
        match self {
            Self::Both => format!("Intended-{name}"),
            _ => name.to_string(),
        }
    }
}

/// YCSB's default `hdrhistogram.percentiles` (0.17.0).
pub const DEFAULT_PERCENTILES: [f64; 2] = [95.0, 99.0];
/// Most `histogram.buckets` accepted (each is a counter in every report).
pub const MAX_BUCKETS: u64 = 1_000_000;

/// The measurement properties in effect, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasurementConfig {
    /// `measurementtype` (default hdrhistogram).
    pub kind: MeasurementType,
    /// `hdrhistogram.percentiles`: the percentile lines of HDR sections.
    pub percentiles: Vec<f64>,
    /// `histogram.buckets`: 1 ms buckets before the overflow bucket (default 1000).
    pub buckets: u64,
    /// `measurement.histogram.verbose`: also print the buckets (histogram) or the
    /// recorded values (hdrhistogram).
    pub verbose: bool,
    /// `timeseries.granularity`, ms (default 1000).
    pub granularity_ms: u64,
    /// `measurement.raw.output_file`: raw lines are appended there instead of stdout.
    pub raw_output: Option<PathBuf>,
    /// `measurement.raw.no_summary`: raw sections print only their operation count.
    pub raw_no_summary: bool,
    /// `hdrhistogram.fileoutput` with `hdrhistogram.output.path`: the prefix of one
    /// HDR interval log per measurement (`PREFIX` + name + `.hdr`, as YCSB).
    pub hdr_log_prefix: Option<String>,
    /// `measurement.interval`.
    pub interval: MeasurementInterval,
    /// `exporter` and `exportfile`: the summary's format and destination.
    pub export: Export,
}

impl Default for MeasurementConfig {
    fn default() -> Self {
        Self {
            kind: MeasurementType::HdrHistogram,
            percentiles: DEFAULT_PERCENTILES.to_vec(),
            buckets: 1000,
            verbose: false,
            granularity_ms: 1000,
            raw_output: None,
            raw_no_summary: false,
            hdr_log_prefix: None,
            interval: MeasurementInterval::Op,
            export: Export::default(),
        }
    }
}

fn bad(key: &str, value: impl ToString, expected: &str) -> PropertyError {
    PropertyError::BadValue {
        key: key.into(),
        value: value.to_string(),
        expected: expected.into(),
    }
}

impl MeasurementConfig {
    /// Reads and validates the measurement properties (defaults as YCSB 0.17).
    pub fn from_properties(p: &Properties) -> Result<Self, PropertyError> {
        let name = p.get("measurementtype").map_or("hdrhistogram", str::trim);
        let kind = MeasurementType::from_name(name).ok_or_else(|| {
            bad(
                "measurementtype",
                name,
                &format!("one of {}", MeasurementType::NAMES.join(", ")),
            )
        })?;
        let buckets: u64 = p.parse_or("histogram.buckets", 1000, "an integer >= 1")?;
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(bad(
                "histogram.buckets",
                buckets,
                &format!("an integer from 1 to {MAX_BUCKETS}"),
            ));
        }
        let granularity_ms: u64 =
            p.parse_or("timeseries.granularity", 1000, "an integer >= 1 (ms)")?;
        if granularity_ms == 0 {
            return Err(bad("timeseries.granularity", 0, "an integer >= 1 (ms)"));
        }
        let raw_output = p
            .get("measurement.raw.output_file")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        if let Some(path) = raw_output.as_deref().filter(|_| kind.keeps_raw()) {
            check_directory("measurement.raw.output_file", path)?;
        }
        let hdr_log_prefix = if p.java_bool_or("hdrhistogram.fileoutput", false) {
            let prefix = p.get("hdrhistogram.output.path").unwrap_or("").to_string();
            if kind.has_hdr() {
                check_directory("hdrhistogram.output.path", Path::new(&format!("{prefix}X")))?;
            }
            Some(prefix)
        } else {
            None
        };
        let interval =
            match p.choice_or("measurement.interval", "op", &MeasurementInterval::NAMES)? {
                "intended" => MeasurementInterval::Intended,
                "both" => MeasurementInterval::Both,
                _ => MeasurementInterval::Op,
            };
        Ok(Self {
            kind,
            interval,
            export: Export::from_properties(p)?,
            percentiles: percentiles(p)?,
            buckets,
            verbose: p.java_bool_or("measurement.histogram.verbose", false),
            granularity_ms,
            raw_output,
            raw_no_summary: p.java_bool_or("measurement.raw.no_summary", false),
            hdr_log_prefix: hdr_log_prefix.filter(|_| kind.has_hdr()),
        })
    }
}

/// A file that will be written at the end of the phase must have an existing
/// directory: say so before anything runs rather than after.
fn check_directory(key: &str, file: &Path) -> Result<(), PropertyError> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
    match dir {
        Some(d) if !d.is_dir() => Err(PropertyError::Invalid {
            key: key.into(),
            reason: format!("directory '{}' does not exist", d.display()),
        }),
        _ => Ok(()),
    }
}

fn percentiles(p: &Properties) -> Result<Vec<f64>, PropertyError> {
    let Some(raw) = p.get("hdrhistogram.percentiles") else {
        return Ok(DEFAULT_PERCENTILES.to_vec());
    };
    let expected = "a comma-separated list of percentiles in (0, 100], e.g. 95,99";
    raw.split(',')
        .map(|part| match part.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v <= 100.0 => Ok(v),
            _ => Err(bad("hdrhistogram.percentiles", raw, expected)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<MeasurementConfig, PropertyError> {
        let mut p = Properties::new();
        for (k, v) in pairs {
            p.set(*k, *v);
        }
        MeasurementConfig::from_properties(&p)
    }

    #[test]
    fn every_ycsb_type_is_accepted() {
        for name in MeasurementType::NAMES {
            let c = config(&[("measurementtype", name)]).unwrap();
            assert_eq!(MeasurementType::from_name(name), Some(c.kind));
        }
        assert_eq!(config(&[]).unwrap(), MeasurementConfig::default());
    }

    #[test]
    fn an_unknown_type_lists_the_allowed_ones() {
        let err = config(&[("measurementtype", "hist")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("measurementtype") && err.contains("timeseries"),
            "{err}"
        );
    }

    #[test]
    fn files_need_an_existing_directory() {
        let err = config(&[
            ("hdrhistogram.fileoutput", "true"),
            ("hdrhistogram.output.path", "/nonexistent-dir/run-"),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("hdrhistogram.output.path"), "{err}");
        let c = config(&[("hdrhistogram.fileoutput", "true")]).unwrap();
        assert_eq!(c.hdr_log_prefix.as_deref(), Some(""));
    }

    #[test]
    fn two_in_one_types_prefix_their_parts() {
        let parts = MeasurementType::HdrHistogramAndHistogram.parts();
        assert_eq!(parts[0], ("Hdr", Part::Hdr));
        assert_eq!(parts[1], ("Bucket", Part::Buckets));
        assert!(MeasurementType::HdrHistogramAndRaw.keeps_raw());
        assert!(!MeasurementType::HdrHistogram.keeps_series());
    }
}
