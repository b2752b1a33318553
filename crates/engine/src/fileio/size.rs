//! Sizes and durations as sysbench and fio spell them: `16384`, `4k`, `4KiB`,
//! `1G`, `2g` (binary multiples, as both tools default to); `10`, `10s`, `2m`, `500ms`.

use std::time::Duration;

use super::error::FileIoError;

/// Bytes in `text` (`4k`, `1G`, `4KiB`, `16384`); `option` names the field in errors.
pub fn parse_bytes(option: &str, text: &str) -> Result<u64, FileIoError> {
    let bad = || FileIoError::bad_value(option, text, "a size such as 4096, 4k, 16KiB, 1M or 2G");
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let number: u64 = t[..digits_end].parse().map_err(|_| bad())?;
    let unit = t[digits_end..].trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    number.checked_mul(1u64 << shift).ok_or_else(bad)
}

/// Bytes in a fio size, read as fio 3.33 reads it: `kb_base` (fio's option,
/// 1024 unless a job sets 1000) is the base of `k`, `kB`, `M`…, and the
/// IEC-looking units `KiB`, `MiB`… take the other base. So by default `4k`
/// is 4096 bytes and `1MiB` 1000000 (fio's documented inversion), checked
/// against fio in tests/engine/test_fio_dropin.py.
pub fn parse_fio_bytes(option: &str, text: &str, kb_base: u64) -> Result<u64, FileIoError> {
    let bad = || FileIoError::bad_value(option, text, "a size such as 4096, 4k, 16KiB, 1M or 2G");
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let number: u64 = t[..digits_end].parse().map_err(|_| bad())?;
    let unit = t[digits_end..].trim().to_ascii_lowercase();
    let iec = unit.ends_with("ib");
    let power = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return Err(bad()),
    };
    let base = match (kb_base, iec) {
        (1000, false) | (1024, true) => 1000u64,
        _ => 1024,
    };
    number.checked_mul(base.pow(power)).ok_or_else(bad)
}

/// A duration in `text`; a bare number is in seconds (both tools' default unit).
pub fn parse_duration(option: &str, text: &str) -> Result<Duration, FileIoError> {
    let bad =
        || FileIoError::bad_value(option, text, "a duration such as 30, 30s, 500ms, 2m or 1h");
    let t = text.trim().to_ascii_lowercase();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let number: u64 = t[..digits_end].parse().map_err(|_| bad())?;
    let millis = match &t[digits_end..] {
        "" | "s" | "sec" => number.checked_mul(1000),
        "ms" | "msec" => Some(number),
        "m" | "min" => number.checked_mul(60_000),
        "h" => number.checked_mul(3_600_000),
        _ => None,
    };
    millis.map(Duration::from_millis).ok_or_else(bad)
}

/// A count (`threads`, `numjobs`, …): a plain non-negative integer.
pub fn parse_count(option: &str, text: &str) -> Result<u64, FileIoError> {
    text.trim()
        .parse()
        .map_err(|_| FileIoError::bad_value(option, text, "a non-negative integer"))
}

/// A switch: `on/off`, `true/false`, `yes/no`, `1/0` (sysbench and fio spellings).
pub fn parse_switch(option: &str, text: &str) -> Result<bool, FileIoError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(FileIoError::bad_value(
            option,
            text,
            "on or off (also 1/0, true/false, yes/no)",
        )),
    }
}

/// `bytes` for people: `16KiB`, `8MiB`, `1GiB`, or plain bytes.
pub fn human_bytes(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_sizes_as_fio_reads_them() {
        // What fio 3.33 wrote for size=… with bs=1: kb_base=1024 then 1000.
        for (text, default, si) in [
            ("1M", 1_048_576, 1_000_000),
            ("1MiB", 1_000_000, 1_048_576),
            ("1MB", 1_048_576, 1_000_000),
            ("4k", 4096, 4000),
            ("4KiB", 4000, 4096),
            ("512", 512, 512),
        ] {
            assert_eq!(
                parse_fio_bytes("size", text, 1024).unwrap(),
                default,
                "{text}"
            );
            assert_eq!(parse_fio_bytes("size", text, 1000).unwrap(), si, "{text}");
        }
        assert!(parse_fio_bytes("size", "4x", 1024).is_err());
    }

    #[test]
    fn sizes_in_both_spellings() {
        assert_eq!(parse_bytes("bs", "4k").unwrap(), 4096);
        assert_eq!(parse_bytes("bs", "16KiB").unwrap(), 16384);
        assert_eq!(parse_bytes("size", "1G").unwrap(), 1 << 30);
        assert_eq!(parse_bytes("size", "2gb").unwrap(), 2 << 30);
        assert_eq!(parse_bytes("size", "123").unwrap(), 123);
        let err = parse_bytes("bs", "4x").unwrap_err().to_string();
        assert!(err.starts_with("bs: '4x'"), "{err}");
    }

    #[test]
    fn durations_default_to_seconds() {
        assert_eq!(
            parse_duration("runtime", "10").unwrap(),
            Duration::from_secs(10)
        );
        assert_eq!(
            parse_duration("runtime", "500ms").unwrap(),
            Duration::from_millis(500)
        );
        assert_eq!(
            parse_duration("runtime", "2m").unwrap(),
            Duration::from_secs(120)
        );
        assert!(parse_duration("runtime", "ten").is_err());
    }

    #[test]
    fn switches_and_human_sizes() {
        assert!(parse_switch("x", "on").unwrap());
        assert!(!parse_switch("x", "0").unwrap());
        assert!(parse_switch("x", "maybe").is_err());
        assert_eq!(human_bytes(8 << 20), "8MiB");
        assert_eq!(human_bytes(1000), "1000B");
    }
}
