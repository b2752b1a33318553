//! The core workload's properties: defaults, parsing and validation (YCSB 0.17
//! `CoreWorkload` semantics). The known names are in `property_names`.

use std::time::Duration;

pub use super::property_names::{is_known, known, NO_EFFECT, USED};
use crate::error::PropertyError;
use crate::properties::Properties;

/// `requestdistribution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestDistribution {
    Uniform,
    Zipfian,
    Latest,
    Hotspot,
    Sequential,
    Exponential,
}

/// `fieldlengthdistribution` and `scanlengthdistribution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthDistribution {
    Constant,
    Uniform,
    Zipfian,
}

/// Operation weights, in YCSB's order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proportions {
    pub read: f64,
    pub update: f64,
    pub insert: f64,
    pub scan: f64,
    pub read_modify_write: f64,
}

/// The core workload's settings, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreConfig {
    pub table: String,
    pub record_count: u64,
    pub operation_count: u64,
    pub insert_start: u64,
    pub insert_count: u64,
    pub field_count: usize,
    pub field_name_prefix: String,
    pub field_length: u64,
    pub min_field_length: u64,
    pub field_length_distribution: LengthDistribution,
    pub read_all_fields: bool,
    pub write_all_fields: bool,
    pub proportions: Proportions,
    pub request_distribution: RequestDistribution,
    pub zero_padding: usize,
    pub ordered_inserts: bool,
    pub hotspot_data_fraction: f64,
    pub hotspot_opn_fraction: f64,
    pub min_scan_length: u64,
    pub max_scan_length: u64,
    pub scan_length_distribution: LengthDistribution,
    pub exponential_percentile: f64,
    pub exponential_frac: f64,
    pub insertion_retry_limit: u32,
    pub insertion_retry_interval: Duration,
    /// `dataintegrity`: values are a function of key and field, and reads verify them.
    pub data_integrity: bool,
}

/// Longest `zeropadding` accepted (keys are built in a reused buffer).
pub const MAX_ZERO_PADDING: usize = 256;

fn bad(key: &str, value: impl ToString, expected: &str) -> PropertyError {
    PropertyError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    }
}

fn fraction(p: &Properties, key: &str, default: f64) -> Result<f64, PropertyError> {
    let v: f64 = p.parse_or(key, default, "a number between 0 and 1")?;
    if !(0.0..=1.0).contains(&v) {
        return Err(bad(key, v, "a number between 0 and 1"));
    }
    Ok(v)
}

fn weight(p: &Properties, key: &str, default: f64) -> Result<f64, PropertyError> {
    let v: f64 = p.parse_or(key, default, "a non-negative number")?;
    if !v.is_finite() || v < 0.0 {
        return Err(bad(key, v, "a non-negative number"));
    }
    Ok(v)
}

/// Most records (2^62).
pub const MAX_RECORD_COUNT: u64 = 1 << 62;
/// Most fields per record (each is allocated once per client thread).
pub const MAX_FIELD_COUNT: u64 = 65_536;
/// Longest field value, bytes (values are built in memory).
pub const MAX_FIELD_LENGTH: u64 = 16 << 20;
/// Longest scan (a zipfian scan length computes ζ over this many items at start).
pub const MAX_SCAN_LENGTH: u64 = 10_000_000;

fn between(
    p: &Properties,
    key: &str,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, PropertyError> {
    let expected = format!("an integer from {min} to {max}");
    let v: u64 = p.parse_or(key, default, &expected)?;
    if v < min || v > max {
        return Err(bad(key, v, &expected));
    }
    Ok(v)
}

fn at_least(p: &Properties, key: &str, default: u64, min: u64) -> Result<u64, PropertyError> {
    let expected = format!("an integer >= {min}");
    let v: u64 = p.parse_or(key, default, &expected)?;
    if v < min {
        return Err(bad(key, v, &expected));
    }
    Ok(v)
}

fn length_distribution(
    p: &Properties,
    key: &str,
    default: &str,
    allowed: &[&str],
) -> Result<LengthDistribution, PropertyError> {
    Ok(match p.choice_or(key, default, allowed)? {
        "uniform" => LengthDistribution::Uniform,
        "zipfian" => LengthDistribution::Zipfian,
        _ => LengthDistribution::Constant,
    })
}

impl CoreConfig {
    /// Reads and validates the core workload properties (defaults as YCSB 0.17).
    pub fn from_properties(p: &Properties) -> Result<Self, PropertyError> {
        check_fixed_values(p)?;
        // Key numbers stay far below u64::MAX so range arithmetic cannot overflow.
        let mut record_count = between(p, "recordcount", 0, 0, MAX_RECORD_COUNT)?;
        if record_count == 0 {
            // YCSB: 0 means "as many as an int holds".
            record_count = i32::MAX as u64;
        }
        let insert_start: u64 = p.parse_or("insertstart", 0, "a non-negative integer")?;
        let insert_count = match p.get("insertcount") {
            Some(_) => p.parse_or("insertcount", 0u64, "a non-negative integer")?,
            None => record_count.saturating_sub(insert_start),
        };
        if insert_start.saturating_add(insert_count) > record_count {
            return Err(PropertyError::Invalid {
                key: "insertcount".into(),
                reason: format!(
                    "insertstart ({insert_start}) + insertcount ({insert_count}) exceeds recordcount ({record_count}); \
                     raise recordcount to at least {}",
                    insert_start.saturating_add(insert_count)
                ),
            });
        }
        let field_length = between(p, "fieldlength", 100, 1, MAX_FIELD_LENGTH)?;
        let min_field_length = at_least(p, "minfieldlength", 1, 1)?;
        let field_length_distribution = length_distribution(
            p,
            "fieldlengthdistribution",
            "constant",
            &["constant", "uniform", "zipfian"],
        )?;
        if field_length_distribution != LengthDistribution::Constant
            && min_field_length > field_length
        {
            return Err(bad(
                "minfieldlength",
                min_field_length,
                "an integer <= fieldlength",
            ));
        }
        let data_integrity = p.java_bool_or("dataintegrity", false);
        if data_integrity && field_length_distribution != LengthDistribution::Constant {
            // A verifier recomputes each value from key and field alone, so the length
            // cannot be drawn at random (YCSB refuses the same combination).
            return Err(bad(
                "fieldlengthdistribution",
                p.get("fieldlengthdistribution").unwrap_or_default(),
                "constant when dataintegrity is true",
            ));
        }
        let min_scan_length = at_least(p, "minscanlength", 1, 1)?;
        let max_scan_length = between(p, "maxscanlength", 1000, 1, MAX_SCAN_LENGTH)?;
        if min_scan_length > max_scan_length {
            return Err(bad(
                "minscanlength",
                min_scan_length,
                "an integer <= maxscanlength",
            ));
        }
        let zero_padding = at_least(p, "zeropadding", 1, 1)? as usize;
        if zero_padding > MAX_ZERO_PADDING {
            return Err(bad(
                "zeropadding",
                zero_padding,
                &format!("an integer from 1 to {MAX_ZERO_PADDING}"),
            ));
        }
        let exponential_percentile: f64 =
            p.parse_or("exponential.percentile", 95.0, "a number in (0, 100)")?;
        if !(exponential_percentile > 0.0 && exponential_percentile < 100.0) {
            return Err(bad(
                "exponential.percentile",
                exponential_percentile,
                "a number in (0, 100)",
            ));
        }
        let exponential_frac: f64 =
            p.parse_or("exponential.frac", 0.8571428571, "a positive number")?;
        if !(exponential_frac > 0.0 && exponential_frac.is_finite()) {
            return Err(bad(
                "exponential.frac",
                exponential_frac,
                "a positive number",
            ));
        }
        let retry_seconds: u64 = p.parse_or(
            "core_workload_insertion_retry_interval",
            3,
            "a non-negative integer (seconds)",
        )?;
        Ok(Self {
            table: p.get("table").unwrap_or("usertable").to_string(),
            record_count,
            operation_count: p.parse_or("operationcount", 0, "a non-negative integer")?,
            insert_start,
            insert_count,
            field_count: between(p, "fieldcount", 10, 1, MAX_FIELD_COUNT)? as usize,
            field_name_prefix: p.get("fieldnameprefix").unwrap_or("field").to_string(),
            field_length,
            min_field_length,
            field_length_distribution,
            read_all_fields: p.java_bool_or("readallfields", true),
            write_all_fields: p.java_bool_or("writeallfields", false),
            proportions: Proportions {
                read: weight(p, "readproportion", 0.95)?,
                update: weight(p, "updateproportion", 0.05)?,
                insert: weight(p, "insertproportion", 0.0)?,
                scan: weight(p, "scanproportion", 0.0)?,
                read_modify_write: weight(p, "readmodifywriteproportion", 0.0)?,
            },
            request_distribution: request_distribution(p)?,
            zero_padding,
            // YCSB: "hashed" hashes key numbers; any other value means ordered.
            ordered_inserts: p.get("insertorder").map(str::trim).unwrap_or("hashed") != "hashed",
            hotspot_data_fraction: fraction(p, "hotspotdatafraction", 0.2)?,
            hotspot_opn_fraction: fraction(p, "hotspotopnfraction", 0.8)?,
            min_scan_length,
            max_scan_length,
            scan_length_distribution: length_distribution(
                p,
                "scanlengthdistribution",
                "uniform",
                &["uniform", "zipfian"],
            )?,
            exponential_percentile,
            exponential_frac,
            insertion_retry_limit: p.parse_or(
                "core_workload_insertion_retry_limit",
                0,
                "a non-negative integer",
            )?,
            insertion_retry_interval: Duration::from_secs(retry_seconds),
            data_integrity,
        })
    }

    /// Keys a run phase may insert beyond the loaded range (YCSB sizes the zipfian range with it).
    pub fn expected_new_keys(&self) -> u64 {
        let total = self.proportions_total();
        if total <= 0.0 {
            return 0;
        }
        (self.operation_count as f64 * (self.proportions.insert / total) * 2.0) as u64
    }

    /// The sum of the operation weights.
    pub fn proportions_total(&self) -> f64 {
        let p = &self.proportions;
        p.read + p.update + p.insert + p.scan + p.read_modify_write
    }
}

fn request_distribution(p: &Properties) -> Result<RequestDistribution, PropertyError> {
    let allowed = [
        "uniform",
        "zipfian",
        "latest",
        "hotspot",
        "sequential",
        "exponential",
    ];
    Ok(
        match p.choice_or("requestdistribution", "uniform", &allowed)? {
            "zipfian" => RequestDistribution::Zipfian,
            "latest" => RequestDistribution::Latest,
            "hotspot" => RequestDistribution::Hotspot,
            "sequential" => RequestDistribution::Sequential,
            "exponential" => RequestDistribution::Exponential,
            _ => RequestDistribution::Uniform,
        },
    )
}

/// Properties YCSB accepts with other values that contio does not implement.
fn check_fixed_values(p: &Properties) -> Result<(), PropertyError> {
    if let Some(w) = p.get("workload") {
        let w = w.trim();
        if w != "site.ycsb.workloads.CoreWorkload" && w != "com.yahoo.ycsb.workloads.CoreWorkload" {
            return Err(bad(
                "workload",
                w,
                "site.ycsb.workloads.CoreWorkload (the only workload contio implements)",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_ycsb_defaults() {
        let mut p = Properties::new();
        p.set("recordcount", "1000");
        let c = CoreConfig::from_properties(&p).unwrap();
        assert_eq!(c.insert_count, 1000);
        assert_eq!(c.field_count, 10);
        assert_eq!(c.field_length, 100);
        assert_eq!(c.table, "usertable");
        assert_eq!(c.proportions.read, 0.95);
        assert_eq!(c.request_distribution, RequestDistribution::Uniform);
        assert!(!c.ordered_inserts);
        assert!(c.read_all_fields && !c.write_all_fields);
    }

    #[test]
    fn zero_recordcount_means_all_ints() {
        let c = CoreConfig::from_properties(&Properties::new()).unwrap();
        assert_eq!(c.record_count, i32::MAX as u64);
    }

    #[test]
    fn insert_range_must_fit() {
        let mut p = Properties::new();
        p.set("recordcount", "100");
        p.set("insertstart", "50");
        p.set("insertcount", "60");
        let err = CoreConfig::from_properties(&p).unwrap_err().to_string();
        assert!(
            err.contains("insertcount") && err.contains("recordcount"),
            "{err}"
        );
    }

    #[test]
    fn bad_distribution_lists_allowed_values() {
        let mut p = Properties::new();
        p.set("requestdistribution", "zipf");
        let err = CoreConfig::from_properties(&p).unwrap_err().to_string();
        assert!(
            err.contains("requestdistribution") && err.contains("latest"),
            "{err}"
        );
    }
}
