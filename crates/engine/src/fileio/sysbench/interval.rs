//! sysbench 1.0.20's intermediate report (`--report-interval=N`), one line on
//! stdout per interval, as its fileio test prints it:
//! `[ 2s ] reads: 12.50 MiB/s writes: 8.33 MiB/s fsyncs: 26.67/s latency (ms,95%): 0.231`.

use crate::measure::collector::StatusFormat;
use crate::measure::histogram::new_interval;
use crate::measure::status_line::StatusInput;
use crate::measure::{Operation, Slot};

/// sysbench's `megabyte`.
const MIB: f64 = 1024.0 * 1024.0;

/// The line's formatter for requests of `block_size` bytes and latency at
/// `percentile` (sysbench's `--percentile`; 0 prints 0).
pub fn formatter(block_size: u64, percentile: u8) -> StatusFormat {
    Box::new(move |input| line(input, block_size, percentile))
}

fn line(input: &StatusInput<'_>, block_size: u64, percentile: u8) -> String {
    let seconds = input.window_duration.as_secs_f64().max(1e-9);
    let mut calls = [0u64; 3];
    let mut events = new_interval();
    for (&index, h) in &input.window.slots {
        let slot = Slot::from_index(index);
        let which = match slot.operation {
            Operation::Read => 0,
            Operation::Write => 1,
            Operation::Fsync => 2,
            _ => continue,
        };
        if slot.failed {
            continue;
        }
        calls[which] += h.len();
        let _ = events.add(h);
    }
    let latency_ms = if percentile == 0 || events.is_empty() {
        0.0
    } else {
        events.value_at_quantile(f64::from(percentile) / 100.0) as f64 / 1000.0
    };
    let rate = |bytes: u64| bytes as f64 / MIB / seconds;
    format!(
        "[ {:.0}s ] reads: {:4.2} MiB/s writes: {:4.2} MiB/s fsyncs: {:4.2}/s latency (ms,{percentile}%): {latency_ms:4.3}",
        input.elapsed.as_secs_f64(),
        rate(calls[0] * block_size),
        rate(calls[1] * block_size),
        calls[2] as f64 / seconds,
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::measure::collector::StatusWindow;
    use crate::measure::{MeasurementInterval, MeasurementType};

    #[test]
    fn reads_writes_and_fsyncs_per_second_as_sysbench_prints_them() {
        let mut slots = BTreeMap::new();
        for (op, n, us) in [(Operation::Read, 200, 100), (Operation::Fsync, 50, 900)] {
            let mut h = new_interval();
            h.record_n(us, n).unwrap();
            let slot = Slot {
                operation: op,
                failed: false,
            };
            slots.insert(slot.index(), h);
        }
        let window = StatusWindow {
            operations: 250,
            slots,
            intended: BTreeMap::new(),
        };
        let input = StatusInput {
            now: SystemTime::now(),
            elapsed: Duration::from_millis(2_000),
            total_operations: 250,
            planned_operations: 0,
            window_duration: Duration::from_secs(2),
            window: &window,
            kind: MeasurementType::HdrHistogram,
            interval: MeasurementInterval::Op,
            label: "",
        };
        let text = line(&input, 16384, 95);
        assert_eq!(
            text,
            "[ 2s ] reads: 1.56 MiB/s writes: 0.00 MiB/s fsyncs: 25.00/s latency (ms,95%): 0.900"
        );
    }
}
