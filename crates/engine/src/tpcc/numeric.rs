//! PostgreSQL's binary NUMERIC format, to and from `Value::Dec` (1/10000
//! units): a header of digit count, weight (the power of 10000 of the first
//! digit), sign and display scale, then base-10000 digits.

use std::error::Error;

use postgres::types::IsNull;

use super::db::DEC_ONE;

const POSITIVE: u16 = 0x0000;
const NEGATIVE: u16 = 0x4000;

/// Encodes `units` (1/10000) with a display scale of 4.
pub fn encode(
    units: i64,
    out: &mut bytes::BytesMut,
) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
    let sign = if units < 0 { NEGATIVE } else { POSITIVE };
    let abs = units.unsigned_abs();
    let (mut whole, frac) = (abs / DEC_ONE as u64, (abs % DEC_ONE as u64) as i16);
    let mut groups: Vec<i16> = Vec::new();
    while whole > 0 {
        groups.push((whole % 10_000) as i16);
        whole /= 10_000;
    }
    groups.reverse();
    let weight = groups.len() as i16 - 1;
    if frac != 0 {
        groups.push(frac);
    }
    let weight = if groups.is_empty() { 0 } else { weight };
    out.extend_from_slice(&(groups.len() as i16).to_be_bytes());
    out.extend_from_slice(&weight.to_be_bytes());
    out.extend_from_slice(&sign.to_be_bytes());
    out.extend_from_slice(&4u16.to_be_bytes());
    for g in groups {
        out.extend_from_slice(&g.to_be_bytes());
    }
    Ok(IsNull::No)
}

/// Decodes to 1/10000 units; digits below that are cut.
pub fn decode(raw: &[u8]) -> Result<i64, Box<dyn Error + Sync + Send>> {
    let word = |i: usize| -> Result<i16, Box<dyn Error + Sync + Send>> {
        raw.get(i * 2..i * 2 + 2)
            .map(|b| i16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "short NUMERIC value".into())
    };
    let ndigits = word(0)?;
    let weight = word(1)?;
    let sign = word(2)? as u16;
    if sign != POSITIVE && sign != NEGATIVE {
        return Err("NUMERIC NaN or infinity".into());
    }
    let mut units: i128 = 0;
    for i in 0..ndigits {
        let digit = i128::from(word(4 + i as usize)?);
        let power = i32::from(weight) - i32::from(i);
        if power >= 0 {
            units += digit * 10_000i128.pow(power as u32) * i128::from(DEC_ONE);
        } else if power == -1 {
            units += digit;
        }
    }
    let units = i64::try_from(units).map_err(|_| "NUMERIC value out of range")?;
    Ok(if sign == NEGATIVE { -units } else { units })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for units in [
            0,
            1,
            1234,
            10_000,
            -100_000,
            3_000_000_000,
            123_456_789_012,
            -50_001,
        ] {
            let mut buf = bytes::BytesMut::new();
            encode(units, &mut buf).unwrap();
            assert_eq!(decode(&buf).unwrap(), units, "{units}");
        }
        // 1.5 as PostgreSQL sends it: 2 digits, weight 0, scale 1: [1, 5000].
        let raw = [0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0x13, 0x88];
        assert_eq!(decode(&raw).unwrap(), 15_000);
    }
}
