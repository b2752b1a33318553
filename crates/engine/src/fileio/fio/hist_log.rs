//! fio's completion-latency histogram logs (`write_hist_log` with
//! `log_hist_msec=1000`): one line per job, direction and second with that
//! second's completions in fio's latency bins. contio reads its per-second
//! series from them rather than from `--status-interval` reports, which in
//! fio 3.33 hang a job that sleeps (`rate`, `thinktime`: "stuck grabbing
//! stat_sem"). fio logs no line for what completed after its last line (a
//! 2 s job has one line, at ~1000 ms): that tail is the final report's bins
//! less the logged ones, put in the second the run ended in, so the series
//! holds every completion as the core's does.

use std::collections::BTreeMap;
use std::path::Path;

use super::report_json::FioReport;
use super::series::{self, READ, TRIM, WRITE};
use crate::measure::{SecondStats, SecondSummary};

/// The prefix contio gives fio's logs (`PREFIX_clat_hist.N.log`).
pub const PREFIX: &str = "contio";
/// fio's bins: `PLAT_BITS` bits of precision per power of two.
const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;

/// The latency (ns) fio's bin `index` stands for: the middle of its range
/// (fio's `plat_idx_to_val`; the json+ `bins` keys are these values too).
pub fn bin_value(index: u64) -> u64 {
    if index < PLAT_VAL << 1 {
        return index;
    }
    let error_bits = (index >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + u64::from(PLAT_BITS));
    let k = index % PLAT_VAL;
    base + ((2 * k + 1) << error_bits) / 2
}

/// Bins by (second, direction name), summed over jobs: what the logs hold.
pub type Seconds = BTreeMap<(u64, &'static str), BTreeMap<u64, u64>>;

fn read_line(line: &str, into: &mut Seconds) {
    let fields: Vec<u64> = line
        .split(',')
        .filter_map(|f| f.trim().parse::<u64>().ok())
        .collect();
    let [msec, direction, _block, bins @ ..] = fields.as_slice() else {
        return;
    };
    let name = match direction {
        0 => READ,
        1 => WRITE,
        _ => TRIM,
    };
    // A line at 1003 ms holds the second that ended then.
    let second = ((msec + 500) / 1000).max(1);
    let entry = into.entry((second, name)).or_default();
    for (index, &n) in bins.iter().enumerate().filter(|(_, &n)| n > 0) {
        *entry.entry(bin_value(index as u64)).or_insert(0) += n;
    }
}

/// The seconds of every histogram log in `dir`.
pub fn read_logs(dir: &Path) -> Seconds {
    let mut seconds = Seconds::new();
    let logs = std::fs::read_dir(dir).into_iter().flatten().flatten();
    for entry in logs.filter(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with(PREFIX) && name.contains("_clat_hist.")
    }) {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            text.lines().for_each(|l| read_line(l, &mut seconds));
        }
    }
    seconds
}

/// Adds to `seconds` what `report` counted and no log line holds, in the
/// second `runtime_ms` ended in (at least the one after the last logged).
fn add_unlogged_tail(seconds: &mut Seconds, report: &FioReport, runtime_ms: f64) {
    let last = seconds.keys().map(|(t, _)| *t).max().unwrap_or(0);
    // Rounded, not ceiled: fio reports a 3 s job as 3001 ms.
    let end = ((runtime_ms / 1000.0).round() as u64).max(last + 1);
    for name in [READ, WRITE, TRIM] {
        let mut tail = series::bins_of(report, name);
        for ((_, logged_name), bins) in seconds.iter() {
            if *logged_name != name {
                continue;
            }
            for (ns, n) in bins {
                if let Some(left) = tail.get_mut(ns) {
                    *left = left.saturating_sub(*n);
                }
            }
        }
        tail.retain(|_, n| *n > 0);
        if !tail.is_empty() {
            seconds.insert((end, name), tail);
        }
    }
}

/// The per-second series of a run: the logged seconds and the unlogged tail.
pub fn timeseries(mut seconds: Seconds, report: &FioReport, runtime_ms: f64) -> Vec<SecondSummary> {
    add_unlogged_tail(&mut seconds, report, runtime_ms);
    let mut out: BTreeMap<u64, SecondSummary> = BTreeMap::new();
    for ((t, name), bins) in seconds {
        let count: u64 = bins.values().sum();
        let second = out.entry(t).or_insert_with(|| SecondSummary {
            t,
            ..SecondSummary::default()
        });
        second.ops += count;
        if name == TRIM {
            continue;
        }
        let at = |q: f64| series::histogram(&bins).map_or(0, |h| h.value_at_quantile(q));
        let stats = SecondStats {
            count,
            p50: at(0.50),
            p95: at(0.95),
            p99: at(0.99),
        };
        second.by_type.insert(name.to_string(), stats);
    }
    out.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_stand_for_the_values_json_plus_names() {
        // json+ keys seen from fio 3.33: bin 641 is 33536 ns, 642 is 34048 ns.
        assert_eq!(bin_value(641), 33_536);
        assert_eq!(bin_value(642), 34_048);
        assert_eq!(bin_value(100), 100);
    }

    #[test]
    fn lines_of_several_jobs_add_up_per_second() {
        let mut s = Seconds::new();
        let mut bins = vec!["0"; 1856];
        bins[641] = "3";
        let line = format!("1003, 0, 4096, {}", bins.join(", "));
        read_line(&line, &mut s);
        read_line(&line, &mut s);
        read_line(&line.replacen("1003", "2001", 1), &mut s);
        assert_eq!(s[&(1, READ)][&33_536], 6);
        assert_eq!(s[&(2, READ)][&33_536], 3);
    }

    #[test]
    fn what_no_line_holds_is_the_second_the_run_ended_in() {
        // A 2 s job: one line at 1001 ms with 3 reads, the report counts 5.
        let report: FioReport = serde_json::from_str(
            r#"{"jobs": [{"jobname": "a", "read": {"io_bytes": 20, "total_ios": 5,
                "clat_ns": {"bins": {"33536": 4, "100": 1}}},
                "write": {"io_bytes": 0, "total_ios": 0},
                "trim": {"io_bytes": 0, "total_ios": 0}}]}"#,
        )
        .unwrap();
        let mut logged = Seconds::new();
        logged.insert((1, READ), BTreeMap::from([(33_536, 3)]));
        let series = timeseries(logged, &report, 2000.0);
        let counts: Vec<(u64, u64)> = series.iter().map(|s| (s.t, s.ops)).collect();
        assert_eq!(counts, vec![(1, 3), (2, 2)]);
        assert_eq!(series[1].by_type[READ].count, 2);
        // Everything logged: no tail.
        let mut all = Seconds::new();
        all.insert((1, READ), BTreeMap::from([(33_536, 4), (100, 1)]));
        assert_eq!(timeseries(all, &report, 2000.0).len(), 1);
    }
}
