//! What the `timeseries` and `raw` measurement types need beyond the HDR
//! histograms: per-unit latency sums, and every operation's latency with its
//! time. A recorder keeps them only when its phase asks (`ExtrasConfig`), so
//! the default path pays one untaken branch per call.
//!
//! Measurements are indexed like the histograms: a slot index for latency from
//! the actual start, `Slot::COUNT` + slot index for latency from the intended start.

use std::collections::BTreeMap;

use super::operation::Slot;

/// Number of measurement indices (actual and intended slots).
pub const INDICES: usize = 2 * Slot::COUNT;

/// What a phase keeps besides histograms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtrasConfig {
    /// `timeseries`: the unit, ns.
    pub series_unit_ns: Option<u64>,
    /// `raw`: keep every latency.
    pub raw: bool,
}

impl ExtrasConfig {
    /// True when nothing beyond the histograms is kept.
    pub fn is_empty(&self) -> bool {
        self.series_unit_ns.is_none() && !self.raw
    }
}

/// One time unit of a series: operations and the sum of their latencies (µs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UnitSum {
    pub count: u64,
    pub sum_us: u64,
}

/// One operation of a raw measurement: when it ended (ms since the phase
/// started) and its latency (µs). 8 bytes per operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawPoint {
    pub offset_ms: u32,
    pub latency_us: u32,
}

/// A thread's extras since its last hand-over.
#[derive(Debug, Default)]
pub struct ThreadExtras {
    config: ExtrasConfig,
    /// Per index: (unit, sums) in the order the units were reached.
    series: Vec<Vec<(u64, UnitSum)>>,
    raw: Vec<Vec<RawPoint>>,
}

impl ThreadExtras {
    /// Empty extras for `config` (None when it keeps nothing).
    pub fn new(config: ExtrasConfig) -> Option<Box<Self>> {
        (!config.is_empty()).then(|| {
            Box::new(Self {
                config,
                series: vec![Vec::new(); INDICES],
                raw: vec![Vec::new(); INDICES],
            })
        })
    }

    /// Records one latency of measurement `index` that ended `since_origin_ns` after the phase start.
    #[inline]
    pub fn record(&mut self, index: usize, since_origin_ns: u64, micros: u64) {
        if let Some(unit_ns) = self.config.series_unit_ns {
            let unit = since_origin_ns / unit_ns;
            let units = &mut self.series[index];
            match units.last_mut() {
                Some((u, sums)) if *u == unit => {
                    sums.count += 1;
                    sums.sum_us += micros;
                }
                _ => units.push((
                    unit,
                    UnitSum {
                        count: 1,
                        sum_us: micros,
                    },
                )),
            }
        }
        if self.config.raw {
            self.raw[index].push(RawPoint {
                offset_ms: u32::try_from(since_origin_ns / 1_000_000).unwrap_or(u32::MAX),
                latency_us: u32::try_from(micros).unwrap_or(u32::MAX),
            });
        }
    }

    /// Takes what was recorded, leaving empty extras of the same kind.
    pub fn take(&mut self) -> Option<Box<Self>> {
        let empty = Self::new(self.config)?;
        Some(Box::new(std::mem::replace(self, *empty)))
    }
}

/// Extras merged over every thread of a phase.
#[derive(Debug, Default)]
pub struct PhaseExtras {
    /// Per index: unit → sums (empty when not kept).
    pub series: Vec<BTreeMap<u64, UnitSum>>,
    /// Per index: every latency (empty when not kept), in time order once `finish`ed.
    pub raw: Vec<Vec<RawPoint>>,
}

impl PhaseExtras {
    /// Adds a thread's hand-over.
    pub fn merge(&mut self, from: ThreadExtras) {
        if self.series.is_empty() {
            self.series = vec![BTreeMap::new(); INDICES];
            self.raw = vec![Vec::new(); INDICES];
        }
        for (index, units) in from.series.into_iter().enumerate() {
            for (unit, sums) in units {
                let total = self.series[index].entry(unit).or_default();
                total.count += sums.count;
                total.sum_us += sums.sum_us;
            }
        }
        for (index, points) in from.raw.into_iter().enumerate() {
            self.raw[index].extend(points);
        }
    }

    /// Puts raw points in time order (threads hand theirs over independently).
    pub fn finish(&mut self) {
        for points in &mut self.raw {
            points.sort_by_key(|p| p.offset_ms);
        }
    }

    /// The series of measurement `index` (empty if none).
    pub fn series(&self, index: usize) -> Option<&BTreeMap<u64, UnitSum>> {
        self.series.get(index).filter(|s| !s.is_empty())
    }

    /// The raw points of measurement `index` (empty if none).
    pub fn raw(&self, index: usize) -> &[RawPoint] {
        self.raw.get(index).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_nothing_unless_asked() {
        assert!(ThreadExtras::new(ExtrasConfig::default()).is_none());
    }

    #[test]
    fn sums_per_unit_and_keeps_raw_points() {
        let config = ExtrasConfig {
            series_unit_ns: Some(100_000_000),
            raw: true,
        };
        let mut t = ThreadExtras::new(config).unwrap();
        t.record(0, 10_000_000, 5);
        t.record(0, 90_000_000, 7);
        t.record(0, 250_000_000, 100);
        let handed = t.take().unwrap();
        t.record(0, 260_000_000, 1);
        let mut phase = PhaseExtras::default();
        phase.merge(*handed);
        phase.merge(*t.take().unwrap());
        phase.finish();
        let series = phase.series(0).unwrap();
        assert_eq!(
            series[&0],
            UnitSum {
                count: 2,
                sum_us: 12
            }
        );
        assert_eq!(
            series[&2],
            UnitSum {
                count: 2,
                sum_us: 101
            }
        );
        assert!(!series.contains_key(&1));
        assert_eq!(phase.raw(0).len(), 4);
        assert_eq!(
            phase.raw(0)[3],
            RawPoint {
                offset_ms: 260,
                latency_us: 1
            }
        );
        assert!(phase.series(1).is_none());
    }
}
