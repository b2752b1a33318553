//! `redis`: Redis with the layout of YCSB's Redis binding: one hash per record
//! (`HSET key field value …`) and a sorted set `_indices` scoring every key by Java's
//! `String.hashCode`, which scans walk (`ZRANGEBYSCORE`).
//!
//! Each client thread opens its own connection (a pool of exactly `threadcount`),
//! spoken to by `redis_conn`: one command per operation (a read of all fields is one
//! `HGETALL`, as in YCSB's binding), written with one `write`. How a thread waits for
//! its reply is `redis.replywait`: by default it polls first while there are CPUs to
//! spare (`reply_spin`), blocks in `read` at a few threads per CPU, and leaves the
//! waiting to one `reply_poller` thread beyond.

use super::endpoint::{failed, java_string_hash, Endpoint, FirstError};
use super::redis_conn::{ConnError, RedisConnection};
use super::reply_poller::ReplyPoller;
use super::resp::Reply;
use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

const NAME: &str = "redis";
/// The sorted set YCSB's Redis binding keeps for scans.
pub const INDEX_KEY: &str = "_indices";
const REPLY_WAIT: &str = "redis.replywait";
/// `auto` leaves the waiting to the poller above this many client threads per CPU.
/// Measured on the 2-CPU VM against Redis on a bridge (docs/benchmarks.md): at 4
/// threads the poller saved Redis nothing and cost throughput; at 8 and 16 Redis spent
/// 30 % less CPU per operation (0.1–0.4 wake-ups per operation instead of 1).
const THREADS_PER_CPU_FOR_POLLER: usize = 2;

/// How the client threads wait for replies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReplyWait {
    Block,
    Spin,
    Poller,
}

impl ReplyWait {
    fn describe(self) -> &'static str {
        match self {
            ReplyWait::Block => "block: each client thread blocks in read",
            ReplyWait::Spin => "spin: each client thread polls its socket, then blocks",
            ReplyWait::Poller => "poller: one thread waits for every connection's replies",
        }
    }
}

/// Registry entry for `redis`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "Redis (YCSB layout: a hash per record, sorted-set index _indices for scans)",
        properties: &["redis.host", "redis.port", "redis.password", REPLY_WAIT],
        open,
    }
}

/// `redis.replywait`: `block`, `spin`, `poller`, or `auto` (the default): `spin`
/// while threads < CPUs (a CPU is left for the server when it runs here), `poller`
/// above 2 threads per CPU, `block` between.
fn reply_wait(props: &Properties, threads: usize) -> Result<ReplyWait, PropertyError> {
    match props.get(REPLY_WAIT).map(str::trim).unwrap_or("auto") {
        "block" => Ok(ReplyWait::Block),
        "spin" => Ok(ReplyWait::Spin),
        "poller" => Ok(ReplyWait::Poller),
        "auto" => {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            Ok(if threads < cpus {
                ReplyWait::Spin
            } else if threads > THREADS_PER_CPU_FOR_POLLER * cpus {
                ReplyWait::Poller
            } else {
                ReplyWait::Block
            })
        }
        other => Err(PropertyError::BadValue {
            key: REPLY_WAIT.into(),
            value: other.into(),
            expected: "auto, block, spin or poller".into(),
        }),
    }
}

fn open(props: &Properties) -> Result<Box<dyn TargetDriver>, TargetError> {
    let endpoint = Endpoint::from_properties(props, NAME, 6379, "", "")?;
    let where_ = format!("{}:{}", endpoint.host, endpoint.port);
    let wait = reply_wait(props, endpoint.pool_size)?;
    let poller = if wait == ReplyWait::Poller {
        Some(ReplyPoller::start().map_err(|e| failed(NAME, "start the reply poller", e))?)
    } else {
        None
    };
    let driver = RedisDriver {
        description: serde_json::json!({
            "server": where_, "connections": endpoint.pool_size,
            "layout": "hash per key + sorted set _indices (score: Java String.hashCode)",
            "replies": wait.describe(),
        }),
        endpoint,
        spin: wait == ReplyWait::Spin,
        poller,
    };
    // One PING now, so a wrong address fails before any thread starts.
    let mut probe = driver
        .connect()
        .map_err(|e| failed(NAME, &format!("connect to {where_}"), e))?;
    match probe.request([&b"PING"[..]]) {
        Ok(Reply::Status(_)) => Ok(Box::new(driver)),
        Ok(other) => Err(failed(NAME, &format!("PING {where_}"), unexpected(&other))),
        Err(e) => Err(failed(NAME, &format!("PING {where_}"), e)),
    }
}

struct RedisDriver {
    endpoint: Endpoint,
    description: serde_json::Value,
    spin: bool,
    poller: Option<ReplyPoller>,
}

impl RedisDriver {
    fn connect(&self) -> Result<RedisConnection, ConnError> {
        let password = Some(self.endpoint.password.as_str()).filter(|p| !p.is_empty());
        RedisConnection::connect(&self.endpoint.host, self.endpoint.port, password)
    }
}

impl TargetDriver for RedisDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        let mut conn = self.connect().map_err(|e| failed(NAME, "connect", e))?;
        if let Some(poller) = &self.poller {
            conn.wait_through(poller)
                .map_err(|e| failed(NAME, "connect", e))?;
        } else if self.spin {
            conn.spin_before_blocking();
        }
        Ok(Box::new(RedisSession {
            conn,
            errors: FirstError::default(),
        }))
    }

    fn describe(&self) -> serde_json::Value {
        self.description.clone()
    }
}

struct RedisSession {
    conn: RedisConnection,
    errors: FirstError,
}

/// Queues `HGETALL key` (all fields, as YCSB's binding reads them: one command whose
/// reply carries the names) or `HMGET key f…`.
fn queue_read(conn: &mut RedisConnection, key: &str, fields: Option<&[String]>) {
    match fields {
        None => conn.queue([&b"HGETALL"[..], key.as_bytes()]),
        Some(f) => conn.queue(
            [&b"HMGET"[..], key.as_bytes()]
                .into_iter()
                .chain(f.iter().map(|name| name.as_bytes())),
        ),
    }
}

/// Moves a read reply's values into the record; false when the key does not exist.
fn fill(reply: Reply, fields: Option<&[String]>, out: &mut Record) -> Result<bool, String> {
    out.fields.clear();
    let Reply::Array(items) = reply else {
        return Err(unexpected(&reply));
    };
    match fields {
        None => {
            let mut items = items.into_iter();
            while let (Some(name), Some(value)) = (items.next(), items.next()) {
                match (name, value) {
                    (Reply::Bulk(name), Reply::Bulk(value)) => {
                        out.fields.push((text(name), value));
                    }
                    (name, _) => return Err(unexpected(&name)),
                }
            }
        }
        Some(names) => {
            for (name, value) in names.iter().zip(items) {
                match value {
                    Reply::Bulk(v) => out.fields.push((name.clone(), v)),
                    Reply::Nil => {}
                    other => return Err(unexpected(&other)),
                }
            }
        }
    }
    Ok(!out.fields.is_empty())
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Describes a reply the binding did not expect (a server error says its text).
fn unexpected(reply: &Reply) -> String {
    match reply {
        Reply::Error(e) => e.clone(),
        other => format!("unexpected reply {other:?}"),
    }
}

/// `HSET key field value …` of the record's fields.
fn queue_hset(conn: &mut RedisConnection, key: &str, values: &Record) {
    let pairs = values
        .fields
        .iter()
        .flat_map(|(name, value)| [name.as_bytes(), value.as_slice()]);
    conn.queue([&b"HSET"[..], key.as_bytes()].into_iter().chain(pairs));
}

impl RedisSession {
    fn fail(&mut self, op: &str, err: impl std::fmt::Display) -> Status {
        self.errors.report(NAME, op, err);
        Status::Error
    }

    /// Flushes the queued commands and reads `n` replies (all of them, even after an
    /// error reply, so the connection stays in step).
    fn replies(&mut self, n: usize) -> Result<Vec<Reply>, ConnError> {
        self.conn.flush()?;
        (0..n).map(|_| self.conn.reply()).collect()
    }
}

impl Session for RedisSession {
    fn read(&mut self, _: &str, key: &str, fields: Option<&[String]>, out: &mut Record) -> Status {
        queue_read(&mut self.conn, key, fields);
        let reply = match self.conn.flush().and_then(|()| self.conn.reply()) {
            Ok(reply) => reply,
            Err(e) => return self.fail("read", e),
        };
        match fill(reply, fields, out) {
            Ok(true) => Status::Ok,
            Ok(false) => Status::NotFound,
            Err(e) => self.fail("read", e),
        }
    }

    fn scan(
        &mut self,
        _: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        out.clear();
        let score = java_string_hash(start_key).to_string();
        let limit = count.to_string();
        let keys = match self.conn.request([
            &b"ZRANGEBYSCORE"[..],
            INDEX_KEY.as_bytes(),
            score.as_bytes(),
            b"+inf",
            b"LIMIT",
            b"0",
            limit.as_bytes(),
        ]) {
            Ok(Reply::Array(keys)) => keys,
            Ok(other) => return self.fail("scan", unexpected(&other)),
            Err(e) => return self.fail("scan", e),
        };
        let mut names = Vec::with_capacity(keys.len());
        for key in keys {
            match key {
                Reply::Bulk(k) => names.push(text(k)),
                other => return self.fail("scan", unexpected(&other)),
            }
        }
        // The records in one round trip rather than one per key.
        for key in &names {
            queue_read(&mut self.conn, key, fields);
        }
        let replies = match self.replies(names.len()) {
            Ok(replies) => replies,
            Err(e) => return self.fail("scan", e),
        };
        for (key, reply) in names.into_iter().zip(replies) {
            let mut record = Record::default();
            if let Err(e) = fill(reply, fields, &mut record) {
                return self.fail("scan", e);
            }
            out.push((key, record));
        }
        Status::Ok
    }

    fn update(&mut self, _: &str, key: &str, values: &Record) -> Status {
        queue_hset(&mut self.conn, key, values);
        match self.conn.flush().and_then(|()| self.conn.reply()) {
            Ok(Reply::Int(_)) => Status::Ok,
            Ok(other) => self.fail("update", unexpected(&other)),
            Err(e) => self.fail("update", e),
        }
    }

    fn insert(&mut self, _: &str, key: &str, values: &Record) -> Status {
        queue_hset(&mut self.conn, key, values);
        let score = java_string_hash(key).to_string();
        self.conn.queue([
            &b"ZADD"[..],
            INDEX_KEY.as_bytes(),
            score.as_bytes(),
            key.as_bytes(),
        ]);
        match self.replies(2).as_deref() {
            Ok([Reply::Int(_), Reply::Int(_)]) => Status::Ok,
            Ok(replies) => {
                let bad = replies.iter().find(|r| !matches!(r, Reply::Int(_)));
                self.fail("insert", bad.map(unexpected).unwrap_or_default())
            }
            Err(e) => self.fail("insert", e),
        }
    }

    fn delete(&mut self, _: &str, key: &str) -> Status {
        self.conn.queue([&b"DEL"[..], key.as_bytes()]);
        self.conn
            .queue([&b"ZREM"[..], INDEX_KEY.as_bytes(), key.as_bytes()]);
        match self.replies(2).as_deref() {
            Ok([Reply::Int(0), Reply::Int(0)]) => Status::NotFound,
            Ok([Reply::Int(_), Reply::Int(_)]) => Status::Ok,
            Ok(replies) => {
                let bad = replies.iter().find(|r| !matches!(r, Reply::Int(_)));
                self.fail("delete", bad.map(unexpected).unwrap_or_default())
            }
            Err(e) => self.fail("delete", e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_wait_property_and_its_auto_choice() {
        let mut p = Properties::new();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let auto = |threads| reply_wait(&Properties::new(), threads).unwrap();
        assert_eq!(auto(cpus), ReplyWait::Block);
        assert_eq!(auto(2 * cpus), ReplyWait::Block);
        assert_eq!(auto(2 * cpus + 1), ReplyWait::Poller);
        if cpus > 1 {
            assert_eq!(auto(1), ReplyWait::Spin);
        }
        for (value, wait) in [
            ("block", ReplyWait::Block),
            ("spin", ReplyWait::Spin),
            ("poller", ReplyWait::Poller),
        ] {
            p.set(REPLY_WAIT, value);
            assert_eq!(reply_wait(&p, 64).unwrap(), wait);
        }
        p.set(REPLY_WAIT, "yes");
        let err = reply_wait(&p, 1).unwrap_err().to_string();
        assert!(
            err.contains(REPLY_WAIT) && err.contains("auto, block, spin or poller"),
            "{err}"
        );
    }
}
