//! The row encoding the embedded engines store as each key's value.
//!
//! A YCSB record is a set of (field, value) pairs. Both embedded engines are
//! plain key-value stores, so a record is stored as one value in this compact,
//! versioned layout (all integers little-endian):
//!
//! ```text
//! u8  format version (1)
//! u16 field count
//! per field: u16 name length, name (UTF-8), u32 value length, value
//! ```
//!
//! Why our own and not serde + bincode: this is the hot path of every
//! operation. Decoding writes straight into the caller's reused `Record`
//! (keeping only the requested fields), and an update merges the stored row
//! with the new fields in one pass into a reused buffer, so a warmed-up thread
//! does not allocate. The version byte lets a later layout coexist with data
//! written by this one.

use thiserror::Error;

use super::Record;

/// The layout version this module writes.
pub const VERSION: u8 = 1;

/// A stored value that is not a row this module can read, or a record too large to store.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RowError {
    #[error("row format version {0} is not known (this engine reads version {VERSION})")]
    UnknownVersion(u8),
    #[error("row is truncated or corrupt")]
    Corrupt,
    #[error("field name is not UTF-8")]
    BadName,
    #[error("record too large to encode: {0}")]
    TooLarge(&'static str),
}

/// Encodes `record` into `buf` (cleared first).
pub fn encode(record: &Record, buf: &mut Vec<u8>) -> Result<(), RowError> {
    buf.clear();
    buf.push(VERSION);
    let count = u16::try_from(record.fields.len()).map_err(|_| RowError::TooLarge("fields"))?;
    buf.extend_from_slice(&count.to_le_bytes());
    for (name, value) in &record.fields {
        put_field(buf, name.as_bytes(), value)?;
    }
    Ok(())
}

/// Decodes `row` into `out` (cleared first), keeping only `fields` when given.
///
/// `out`'s existing strings and buffers are reused, so a steady-state read does
/// not allocate.
pub fn decode_into(
    row: &[u8],
    fields: Option<&[String]>,
    out: &mut Record,
) -> Result<(), RowError> {
    let mut kept = 0;
    for field in Fields::new(row)? {
        let (name, value) = field?;
        if fields.is_some_and(|wanted| !wanted.iter().any(|w| w.as_bytes() == name)) {
            continue;
        }
        let name = std::str::from_utf8(name).map_err(|_| RowError::BadName)?;
        if let Some((n, v)) = out.fields.get_mut(kept) {
            n.clear();
            n.push_str(name);
            v.clear();
            v.extend_from_slice(value);
        } else {
            out.fields.push((name.to_string(), value.to_vec()));
        }
        kept += 1;
    }
    out.fields.truncate(kept);
    Ok(())
}

/// Writes into `buf` the row `stored` with the fields of `update` replacing or
/// added to it (YCSB's update: only the given fields change).
pub fn merge(stored: &[u8], update: &Record, buf: &mut Vec<u8>) -> Result<(), RowError> {
    buf.clear();
    buf.push(VERSION);
    buf.extend_from_slice(&[0, 0]); // count, patched below
    let mut count = 0usize;
    for field in Fields::new(stored)? {
        let (name, value) = field?;
        let new = update
            .fields
            .iter()
            .find(|(n, _)| n.as_bytes() == name)
            .map(|(_, v)| v.as_slice());
        put_field(buf, name, new.unwrap_or(value))?;
        count += 1;
    }
    for (name, value) in &update.fields {
        if !has_field(stored, name.as_bytes())? {
            put_field(buf, name.as_bytes(), value)?;
            count += 1;
        }
    }
    let count = u16::try_from(count).map_err(|_| RowError::TooLarge("fields"))?;
    buf[1..3].copy_from_slice(&count.to_le_bytes());
    Ok(())
}

fn has_field(row: &[u8], name: &[u8]) -> Result<bool, RowError> {
    for field in Fields::new(row)? {
        if field?.0 == name {
            return Ok(true);
        }
    }
    Ok(false)
}

fn put_field(buf: &mut Vec<u8>, name: &[u8], value: &[u8]) -> Result<(), RowError> {
    let name_len = u16::try_from(name.len()).map_err(|_| RowError::TooLarge("field name"))?;
    let value_len = u32::try_from(value.len()).map_err(|_| RowError::TooLarge("field value"))?;
    buf.extend_from_slice(&name_len.to_le_bytes());
    buf.extend_from_slice(name);
    buf.extend_from_slice(&value_len.to_le_bytes());
    buf.extend_from_slice(value);
    Ok(())
}

/// Iterates the (name, value) pairs of a row, checking every length against the row's end.
struct Fields<'a> {
    rest: &'a [u8],
    left: u16,
}

impl<'a> Fields<'a> {
    fn new(row: &'a [u8]) -> Result<Self, RowError> {
        match row {
            [VERSION, a, b, rest @ ..] => Ok(Fields {
                rest,
                left: u16::from_le_bytes([*a, *b]),
            }),
            [version, ..] if *version != VERSION => Err(RowError::UnknownVersion(*version)),
            _ => Err(RowError::Corrupt),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], RowError> {
        if self.rest.len() < n {
            return Err(RowError::Corrupt);
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn next_field(&mut self) -> Result<(&'a [u8], &'a [u8]), RowError> {
        let name_len = self.take(2)?;
        let name = self.take(usize::from(u16::from_le_bytes([name_len[0], name_len[1]])))?;
        let value_len = self.take(4)?;
        let value_len =
            u32::from_le_bytes([value_len[0], value_len[1], value_len[2], value_len[3]]);
        let value = self.take(value_len as usize)?;
        Ok((name, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(&'a [u8], &'a [u8]), RowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            // Bytes after the last field mean the row is not what it claims.
            let trailing = !self.rest.is_empty();
            self.rest = &[];
            return trailing.then_some(Err(RowError::Corrupt));
        }
        self.left -= 1;
        let item = self.next_field();
        if item.is_err() {
            self.left = 0;
            self.rest = &[];
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pairs: &[(&str, &str)]) -> Record {
        Record {
            fields: pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec()))
                .collect(),
        }
    }

    #[test]
    fn round_trips_and_selects_fields() {
        let rec = record(&[("field0", "a"), ("field1", ""), ("field2", "ccc")]);
        let mut buf = Vec::new();
        encode(&rec, &mut buf).unwrap();
        let mut out = record(&[("stale", "x"), ("stale2", "y"), ("s3", "z"), ("s4", "w")]);
        decode_into(&buf, None, &mut out).unwrap();
        assert_eq!(out, rec);
        decode_into(&buf, Some(&["field2".to_string()]), &mut out).unwrap();
        assert_eq!(out, record(&[("field2", "ccc")]));
    }

    #[test]
    fn merge_replaces_given_fields_and_adds_new_ones() {
        let mut stored = Vec::new();
        encode(&record(&[("f0", "old0"), ("f1", "old1")]), &mut stored).unwrap();
        let mut merged = Vec::new();
        merge(
            &stored,
            &record(&[("f1", "new1"), ("f9", "new9")]),
            &mut merged,
        )
        .unwrap();
        let mut out = Record::default();
        decode_into(&merged, None, &mut out).unwrap();
        assert_eq!(
            out,
            record(&[("f0", "old0"), ("f1", "new1"), ("f9", "new9")])
        );
    }

    #[test]
    fn rejects_truncated_trailing_and_foreign_rows() {
        let mut buf = Vec::new();
        encode(&record(&[("f0", "value")]), &mut buf).unwrap();
        let mut out = Record::default();
        for cut in 0..buf.len() {
            assert!(
                decode_into(&buf[..cut], None, &mut out).is_err(),
                "cut at {cut}"
            );
        }
        let mut trailing = buf.clone();
        trailing.push(0);
        assert_eq!(
            decode_into(&trailing, None, &mut out),
            Err(RowError::Corrupt)
        );
        buf[0] = 7;
        assert_eq!(
            decode_into(&buf, None, &mut out),
            Err(RowError::UnknownVersion(7))
        );
    }
}
