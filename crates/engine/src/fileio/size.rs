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
