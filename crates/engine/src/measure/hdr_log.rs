//! HDR interval logs, as YCSB writes them with `hdrhistogram.fileoutput=true`:
//! one file per measurement, `hdrhistogram.output.path` + name + `.hdr`
//! (`/tmp/hdr/READ.hdr`; the path is a prefix, not a directory), holding one
//! interval histogram per status line and a last one when the phase ends.
//!
//! The layout is HdrHistogram's interval log: comment headers, the legend,
//! then `start,length,max,histogram` lines (seconds since the start time; the
//! maximum in µs/10⁶, as HdrHistogram's Java log writer scales it; the
//! histogram V2-compressed, base64). HdrHistogram's log readers (Java's
//! `HistogramLogProcessor`, which PerfKitBenchmarker runs on these files) read it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
use hdrhistogram::{Counter, Histogram};

/// What Java's log writer divides the maximum by.
const MAX_VALUE_DIVISOR: f64 = 1_000_000.0;

/// The open logs of a phase, by measurement name.
pub struct HdrLog {
    prefix: String,
    start: SystemTime,
    files: BTreeMap<String, BufWriter<File>>,
    serializer: V2DeflateSerializer,
    error: Option<String>,
}

impl HdrLog {
    /// Logs named `prefix` + name + `.hdr`, timed from `start`.
    pub fn new(prefix: impl Into<String>, start: SystemTime) -> Self {
        Self {
            prefix: prefix.into(),
            start,
            files: BTreeMap::new(),
            serializer: V2DeflateSerializer::new(),
            error: None,
        }
    }

    /// The file of measurement `name`.
    pub fn path(&self, name: &str) -> String {
        format!("{}{name}.hdr", self.prefix)
    }

    /// Appends the interval `[since, since + length)` (from the start) of `name`.
    pub fn write<T: Counter>(
        &mut self,
        name: &str,
        h: &Histogram<T>,
        since: Duration,
        length: Duration,
    ) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.try_write(name, h, since, length) {
            self.error = Some(format!("{}: {e}", self.path(name)));
        }
    }

    fn try_write<T: Counter>(
        &mut self,
        name: &str,
        h: &Histogram<T>,
        since: Duration,
        length: Duration,
    ) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        self.serializer
            .serialize(h, &mut bytes)
            .map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
        let line = format!(
            "{:.3},{:.3},{:.3},{encoded}\n",
            since.as_secs_f64(),
            length.as_secs_f64(),
            h.max() as f64 / MAX_VALUE_DIVISOR
        );
        let file = match self.files.get_mut(name) {
            Some(file) => file,
            None => {
                let file = self.create(name)?;
                self.files.entry(name.to_string()).or_insert(file)
            }
        };
        file.write_all(line.as_bytes())
    }

    fn create(&self, name: &str) -> std::io::Result<BufWriter<File>> {
        let mut file = BufWriter::new(File::create(self.path(name))?);
        let start = self
            .start
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        writeln!(file, "#[Logging for: {name}]")?;
        writeln!(file, "#[Histogram log format version 1.2]")?;
        writeln!(file, "#[StartTime: {start:.3} (seconds since epoch)]")?;
        writeln!(file, "#[BaseTime: {start:.3} (seconds since epoch)]")?;
        writeln!(
            file,
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""
        )?;
        Ok(file)
    }

    /// Flushes and closes every log; the first error met, if any.
    pub fn close(mut self) -> Result<(), String> {
        for (name, file) in &mut self.files {
            if let Err(e) = file.flush() {
                self.error
                    .get_or_insert_with(|| format!("{}{name}.hdr: {e}", self.prefix));
            }
        }
        self.error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::histogram::{decode_base64, new_total};

    #[test]
    fn writes_headers_and_decodable_intervals() {
        let dir = std::env::temp_dir().join(format!("contio-hdrlog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let prefix = format!("{}/run-", dir.display());
        let mut log = HdrLog::new(
            &prefix,
            SystemTime::UNIX_EPOCH + Duration::from_millis(1500),
        );
        let mut h = new_total();
        h.record_n(1_000, 3).unwrap();
        h.record(7_911).unwrap();
        log.write(
            "READ",
            &h,
            Duration::from_millis(39),
            Duration::from_millis(28),
        );
        log.write(
            "READ",
            &h,
            Duration::from_millis(67),
            Duration::from_millis(646),
        );
        log.close().unwrap();
        let text = std::fs::read_to_string(format!("{prefix}READ.hdr")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "#[Logging for: READ]");
        assert_eq!(lines[2], "#[StartTime: 1.500 (seconds since epoch)]");
        assert!(lines[4].starts_with("\"StartTimestamp\""));
        let fields: Vec<&str> = lines[5].split(',').collect();
        assert_eq!(&fields[..3], &["0.039", "0.028", "0.008"]);
        assert_eq!(decode_base64(fields[3]).unwrap().len(), 4);
        assert_eq!(lines.len(), 7);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
