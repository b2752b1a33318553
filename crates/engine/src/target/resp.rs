//! RESP2, Redis's wire protocol, as the `redis` binding speaks it: commands encoded as
//! arrays of bulk strings into a buffer the connection writes at once, and replies
//! parsed from the bytes received so far.
//!
//! Written for the binding rather than taken from a client library so that each
//! request is exactly what YCSB's binding sends — one command (or one pipeline) in one
//! `write`, no handshake commands — and a reply's values move into the record without
//! an intermediate copy.

use std::fmt;

/// One reply. Bulk strings own their bytes (they become record values as they are).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `$-1` or `*-1`: no such value.
    Nil,
    /// `+…`
    Status(String),
    /// `-…`: the server refused the command; the text says why.
    Error(String),
    /// `:…`
    Int(i64),
    /// `$…`
    Bulk(Vec<u8>),
    /// `*…`
    Array(Vec<Reply>),
}

/// Bytes that are not RESP2: the connection cannot continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a Redis (RESP2) reply: {}", self.0)
    }
}

/// Appends one command, `*N` then each argument as a bulk string, to `out`.
///
/// `args` is iterated twice (once to count), so pass something cheap to clone.
pub fn encode<'a, I>(out: &mut Vec<u8>, args: I)
where
    I: IntoIterator<Item = &'a [u8]>,
    I::IntoIter: Clone,
{
    let args = args.into_iter();
    header(out, b'*', args.clone().count());
    for arg in args {
        header(out, b'$', arg.len());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
}

fn header(out: &mut Vec<u8>, kind: u8, n: usize) {
    out.push(kind);
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Parses one reply from the start of `buf`: the reply and the bytes it took, `None`
/// when `buf` holds only part of it (read more and call again).
pub fn parse(buf: &[u8]) -> Result<Option<(Reply, usize)>, ProtocolError> {
    let mut at = 0;
    Ok(parse_at(buf, &mut at)?.map(|reply| (reply, at)))
}

fn parse_at(buf: &[u8], at: &mut usize) -> Result<Option<Reply>, ProtocolError> {
    let Some(line) = line(buf, *at) else {
        return Ok(None);
    };
    let (kind, text) = (buf[*at], &buf[*at + 1..line]);
    let next = line + 2;
    let reply = match kind {
        b'+' => Reply::Status(String::from_utf8_lossy(text).into_owned()),
        b'-' => Reply::Error(String::from_utf8_lossy(text).into_owned()),
        b':' => Reply::Int(number(text)?),
        b'$' => {
            let Some(len) = length(text)? else {
                *at = next;
                return Ok(Some(Reply::Nil));
            };
            if buf.len() < next + len + 2 {
                return Ok(None);
            }
            if &buf[next + len..next + len + 2] != b"\r\n" {
                return Err(ProtocolError("bulk string without its CRLF".into()));
            }
            *at = next + len + 2;
            return Ok(Some(Reply::Bulk(buf[next..next + len].to_vec())));
        }
        b'*' => {
            let Some(len) = length(text)? else {
                *at = next;
                return Ok(Some(Reply::Nil));
            };
            let mut items = Vec::with_capacity(len.min(1024));
            let mut pos = next;
            for _ in 0..len {
                match parse_at(buf, &mut pos)? {
                    Some(item) => items.push(item),
                    None => return Ok(None),
                }
            }
            *at = pos;
            return Ok(Some(Reply::Array(items)));
        }
        other => {
            return Err(ProtocolError(format!(
                "unexpected type byte {:?}",
                char::from(other)
            )))
        }
    };
    *at = next;
    Ok(Some(reply))
}

/// Index of the CR of the first CRLF at or after `from`, if any.
fn line(buf: &[u8], from: usize) -> Option<usize> {
    let rest = buf.get(from..)?;
    rest.windows(2).position(|w| w == b"\r\n").map(|i| from + i)
}

fn number(text: &[u8]) -> Result<i64, ProtocolError> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ProtocolError(format!("bad integer {:?}", String::from_utf8_lossy(text))))
}

/// A bulk or array length; `None` for -1 (nil).
fn length(text: &[u8]) -> Result<Option<usize>, ProtocolError> {
    match number(text)? {
        -1 => Ok(None),
        n => usize::try_from(n)
            .map(Some)
            .map_err(|_| ProtocolError(format!("negative length {n}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        let mut out = Vec::new();
        encode(&mut out, [&b"HGETALL"[..], b"user1"]);
        assert_eq!(out, b"*2\r\n$7\r\nHGETALL\r\n$5\r\nuser1\r\n");
        encode(&mut out, [&b"GET"[..], b""]);
        assert!(out.ends_with(b"*2\r\n$3\r\nGET\r\n$0\r\n\r\n"));
    }

    #[test]
    fn every_reply_type_parses() {
        let wire = b"*4\r\n$2\r\nf0\r\n$4\r\na\r\nb\r\n$-1\r\n:42\r\n+OK\r\n-ERR no\r\n*-1\r\n";
        let (reply, used) = parse(wire).unwrap().unwrap();
        assert_eq!(
            reply,
            Reply::Array(vec![
                Reply::Bulk(b"f0".to_vec()),
                Reply::Bulk(b"a\r\nb".to_vec()),
                Reply::Nil,
                Reply::Int(42),
            ])
        );
        let rest = &wire[used..];
        let (status, n) = parse(rest).unwrap().unwrap();
        assert_eq!(status, Reply::Status("OK".into()));
        let (error, m) = parse(&rest[n..]).unwrap().unwrap();
        assert_eq!(error, Reply::Error("ERR no".into()));
        assert_eq!(parse(&rest[n + m..]).unwrap().unwrap().0, Reply::Nil);
    }

    #[test]
    fn a_partial_reply_asks_for_more_at_every_cut() {
        let wire = b"*2\r\n$5\r\nhello\r\n:7\r\n";
        for cut in 0..wire.len() {
            assert_eq!(parse(&wire[..cut]).unwrap(), None, "cut at {cut}");
        }
        assert_eq!(parse(wire).unwrap().unwrap().1, wire.len());
    }

    #[test]
    fn garbage_is_a_protocol_error() {
        assert!(parse(b"?what\r\n").is_err());
        assert!(parse(b":12x\r\n").is_err());
        assert!(parse(b"$3\r\nabcXY").is_err());
        assert!(parse(b"*-2\r\n").is_err());
    }
}
