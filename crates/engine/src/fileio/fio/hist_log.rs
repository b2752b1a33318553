//! fio's completion-latency histogram logs (`write_hist_log` with
//! `log_hist_msec=1000`): one line per job, direction and second with that
//! second's completions in fio's latency bins. contio reads its per-second
//! series from them rather than from `--status-interval` reports, which in
//! fio 3.33 hang a job that sleeps (`rate`, `thinktime`: "stuck grabbing
//! stat_sem"). fio logs no line for the part second after the last whole one.

use std::collections::BTreeMap;
use std::path::Path;

use super::series::{self, READ, WRITE};
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

/// Bins by (second, direction name), summed over jobs.
type Seconds = BTreeMap<(u64, &'static str), BTreeMap<u64, u64>>;

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
        _ => "TRIM",
    };
    // A line at 1003 ms holds the second that ended then.
    let second = ((msec + 500) / 1000).max(1);
    let entry = into.entry((second, name)).or_default();
    for (index, &n) in bins.iter().enumerate().filter(|(_, &n)| n > 0) {
        *entry.entry(bin_value(index as u64)).or_insert(0) += n;
    }
}

/// The series from every histogram log in `dir`.
pub fn timeseries(dir: &Path) -> Vec<SecondSummary> {
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
    let mut out: BTreeMap<u64, SecondSummary> = BTreeMap::new();
    for ((t, name), bins) in seconds {
        let count: u64 = bins.values().sum();
        let second = out.entry(t).or_insert_with(|| SecondSummary {
            t,
            ..SecondSummary::default()
        });
        second.ops += count;
        if name == "TRIM" {
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
}
