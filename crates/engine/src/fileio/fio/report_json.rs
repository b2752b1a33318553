//! The part of fio's json+ report (fio 3.x, `--output-format=json+`) that
//! contio reads, and the stream of reports fio writes with
//! `--status-interval`: each report starts at a line `{` and ends at a line `}`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One fio report (a status-interval snapshot or the final one).
#[derive(Debug, Clone, Deserialize)]
pub struct FioReport {
    #[serde(rename = "fio version", default)]
    pub version: String,
    #[serde(rename = "global options", default)]
    pub global_options: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub jobs: Vec<JobReport>,
}

impl JobReport {
    /// Milliseconds the job (or, with `group_reporting`, its group) ran, wall clock:
    /// the longest direction's runtime. fio 3.33 sums `job_runtime` over a group's
    /// jobs (2 jobs of 2 s: 4000), which halved contio's IOPS of a 2-job group.
    pub fn wall_ms(&self) -> u64 {
        let longest = self
            .read
            .runtime
            .max(self.write.runtime)
            .max(self.trim.runtime);
        if longest > 0 {
            longest
        } else {
            self.job_runtime
        }
    }

    /// A job option's value as fio reports it, the job's own over `[global]`'s.
    pub fn option<'a>(&'a self, report: &'a FioReport, key: &str) -> Option<&'a str> {
        self.options
            .get(key)
            .or_else(|| report.global_options.get(key))
            .and_then(serde_json::Value::as_str)
    }
}

/// One job (or, with `group_reporting`, one group) of a report.
#[derive(Debug, Clone, Deserialize)]
pub struct JobReport {
    pub jobname: String,
    #[serde(default)]
    pub groupid: u64,
    #[serde(default)]
    pub error: i64,
    /// Milliseconds the job ran (ramp time excluded); with `group_reporting` the
    /// sum over the group's jobs, so `JobReport::wall_ms` is what a rate divides by.
    #[serde(default)]
    pub job_runtime: u64,
    #[serde(rename = "job options", default)]
    pub options: BTreeMap<String, serde_json::Value>,
    pub read: Direction,
    pub write: Direction,
    pub trim: Direction,
    #[serde(default)]
    pub sync: Sync,
}

/// Reads, writes or trims of a job: totals, so far.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Direction {
    pub io_bytes: u64,
    pub total_ios: u64,
    /// Milliseconds this direction ran; with `group_reporting` the longest job's.
    #[serde(default)]
    pub runtime: u64,
    #[serde(default)]
    pub clat_ns: Latency,
}

/// fio's fsyncs (`fsync=N`, `fdatasync=N`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Sync {
    #[serde(default)]
    pub total_ios: u64,
    #[serde(default)]
    pub lat_ns: Latency,
}

/// A latency summary; json+ adds the histogram `bins` (ns value → count).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Latency {
    #[serde(default)]
    pub min: u64,
    #[serde(default)]
    pub max: u64,
    #[serde(default)]
    pub mean: f64,
    #[serde(rename = "N", default)]
    pub n: u64,
    #[serde(default)]
    pub bins: BTreeMap<String, u64>,
}

impl Latency {
    /// The bins as (ns, count), numerically ordered (the keys are strings).
    pub fn bins_ns(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = self
            .bins
            .iter()
            .filter_map(|(k, &n)| k.parse::<u64>().ok().map(|v| (v, n)))
            .collect();
        out.sort_unstable();
        out
    }
}

/// What fio's stdout holds, line by line: reports, and the text around them.
#[derive(Debug, Default)]
pub struct StreamSplitter {
    report: Option<String>,
}

/// One piece of fio's stdout.
#[derive(Debug)]
pub enum Piece {
    /// A line of fio's normal text.
    Text(String),
    /// A whole report.
    Report(Box<FioReport>),
    /// A report that did not parse (its error).
    Unreadable(String),
}

impl StreamSplitter {
    /// Feeds one line (without its newline); returns a piece when one is whole.
    pub fn line(&mut self, line: &str) -> Option<Piece> {
        match (&mut self.report, line) {
            (None, "{") => {
                self.report = Some(String::from("{\n"));
                None
            }
            (None, _) => Some(Piece::Text(line.to_string())),
            (Some(text), "}") => {
                text.push('}');
                let text = self.report.take().unwrap_or_default();
                Some(match serde_json::from_str::<FioReport>(&text) {
                    Ok(r) => Piece::Report(Box::new(r)),
                    Err(e) => Piece::Unreadable(e.to_string()),
                })
            }
            (Some(text), _) => {
                text.push_str(line);
                text.push('\n');
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_text_and_reports() {
        let mut s = StreamSplitter::default();
        let lines = [
            "a: (g=0): rw=read",
            "{",
            r#"  "fio version" : "fio-3.33","#,
            r#"  "jobs" : [{"jobname": "a", "read": {"io_bytes": 8, "total_ios": 2,"#,
            r#"   "clat_ns": {"bins": {"1024": 1, "512": 1}}}, "write": {"io_bytes": 0,"#,
            r#"   "total_ios": 0}, "trim": {"io_bytes": 0, "total_ios": 0}}]"#,
            "}",
            "Run status group 0",
        ];
        let pieces: Vec<Piece> = lines.iter().filter_map(|l| s.line(l)).collect();
        assert_eq!(pieces.len(), 3);
        let Piece::Report(r) = &pieces[1] else {
            panic!("{:?}", pieces[1]);
        };
        assert_eq!(r.jobs[0].read.total_ios, 2);
        assert_eq!(r.jobs[0].read.clat_ns.bins_ns(), vec![(512, 1), (1024, 1)]);
    }

    #[test]
    fn a_groups_wall_time_is_its_longest_direction_not_the_summed_job_runtime() {
        // fio 3.33, numjobs=2, group_reporting=1, runtime=2: what it reported.
        let job: JobReport = serde_json::from_str(
            r#"{"jobname": "r", "job_runtime": 4000,
                "read": {"io_bytes": 8, "total_ios": 2, "runtime": 2001},
                "write": {"io_bytes": 0, "total_ios": 0, "runtime": 0},
                "trim": {"io_bytes": 0, "total_ios": 0, "runtime": 0}}"#,
        )
        .unwrap();
        assert_eq!(job.wall_ms(), 2001);
        let idle: JobReport = serde_json::from_str(
            r#"{"jobname": "i", "job_runtime": 500, "read": {"io_bytes": 0, "total_ios": 0},
                "write": {"io_bytes": 0, "total_ios": 0}, "trim": {"io_bytes": 0, "total_ios": 0}}"#,
        )
        .unwrap();
        assert_eq!(idle.wall_ms(), 500);
    }
}
