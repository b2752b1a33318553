//! `redis`: Redis through the `redis` crate, with the layout of YCSB's Redis binding:
//! one hash per record (`HSET key field value …`) and a sorted set `_indices` scoring
//! every key by Java's `String.hashCode`, which scans walk (`ZRANGEBYSCORE`).
//!
//! Each client thread opens its own connection (a pool of exactly `threadcount`).

use redis::{Client, Connection, ConnectionAddr, ConnectionInfo, RedisConnectionInfo};

use super::endpoint::{failed, java_string_hash, Endpoint, FirstError};
use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::TargetError;
use crate::properties::Properties;

const NAME: &str = "redis";
/// The sorted set YCSB's Redis binding keeps for scans.
pub const INDEX_KEY: &str = "_indices";

/// Registry entry for `redis`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "Redis (YCSB layout: a hash per record, sorted-set index _indices for scans)",
        properties: &["redis.host", "redis.port", "redis.password"],
        open,
    }
}

fn open(props: &Properties) -> Result<Box<dyn TargetDriver>, TargetError> {
    let endpoint = Endpoint::from_properties(props, NAME, 6379, "", "")?;
    let info = ConnectionInfo {
        addr: ConnectionAddr::Tcp(endpoint.host.clone(), endpoint.port),
        redis: RedisConnectionInfo {
            password: Some(endpoint.password.clone()).filter(|p| !p.is_empty()),
            ..RedisConnectionInfo::default()
        },
    };
    let where_ = format!("{}:{}", endpoint.host, endpoint.port);
    let client = Client::open(info).map_err(|e| failed(NAME, &format!("open {where_}"), e))?;
    // One PING now, so a wrong address fails before any thread starts.
    let mut probe = client
        .get_connection()
        .map_err(|e| failed(NAME, &format!("connect to {where_}"), e))?;
    redis::cmd("PING")
        .query::<String>(&mut probe)
        .map_err(|e| failed(NAME, &format!("PING {where_}"), e))?;
    Ok(Box::new(RedisDriver {
        client,
        description: serde_json::json!({
            "server": where_, "connections": endpoint.pool_size,
            "layout": "hash per key + sorted set _indices (score: Java String.hashCode)",
        }),
    }))
}

struct RedisDriver {
    client: Client,
    description: serde_json::Value,
}

impl TargetDriver for RedisDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        let conn = self
            .client
            .get_connection()
            .map_err(|e| failed(NAME, "connect", e))?;
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
    conn: Connection,
    errors: FirstError,
}

/// `HGETALL key` or `HMGET key f…`.
fn read_command(key: &str, fields: Option<&[String]>) -> redis::Cmd {
    match fields {
        None => {
            let mut c = redis::cmd("HGETALL");
            c.arg(key);
            c
        }
        Some(f) => {
            let mut c = redis::cmd("HMGET");
            c.arg(key).arg(f);
            c
        }
    }
}

/// Turns a read reply into the record's fields; false when the key does not exist.
fn fill(reply: &redis::Value, fields: Option<&[String]>, out: &mut Record) -> bool {
    out.fields.clear();
    match fields {
        None => {
            let pairs: Vec<(String, Vec<u8>)> = redis::from_redis_value(reply).unwrap_or_default();
            out.fields = pairs;
        }
        Some(names) => {
            let values: Vec<Option<Vec<u8>>> = redis::from_redis_value(reply).unwrap_or_default();
            for (name, value) in names.iter().zip(values) {
                if let Some(v) = value {
                    out.fields.push((name.clone(), v));
                }
            }
        }
    }
    !out.fields.is_empty()
}

impl RedisSession {
    fn fail(&mut self, op: &str, err: redis::RedisError) -> Status {
        self.errors.report(NAME, op, err);
        Status::Error
    }
}

impl Session for RedisSession {
    fn read(&mut self, _: &str, key: &str, fields: Option<&[String]>, out: &mut Record) -> Status {
        match read_command(key, fields).query::<redis::Value>(&mut self.conn) {
            Ok(reply) if fill(&reply, fields, out) => Status::Ok,
            Ok(_) => Status::NotFound,
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
        let keys: Vec<String> = match redis::cmd("ZRANGEBYSCORE")
            .arg(INDEX_KEY)
            .arg(java_string_hash(start_key))
            .arg("+inf")
            .arg("LIMIT")
            .arg(0)
            .arg(count)
            .query(&mut self.conn)
        {
            Ok(keys) => keys,
            Err(e) => return self.fail("scan", e),
        };
        // The records in one round trip rather than one per key.
        let mut pipe = redis::pipe();
        for key in &keys {
            pipe.add_command(read_command(key, fields));
        }
        match pipe.query::<Vec<redis::Value>>(&mut self.conn) {
            Ok(replies) => {
                for (key, reply) in keys.into_iter().zip(replies) {
                    let mut record = Record::default();
                    fill(&reply, fields, &mut record);
                    out.push((key, record));
                }
                Status::Ok
            }
            Err(e) => self.fail("scan", e),
        }
    }

    fn update(&mut self, _: &str, key: &str, values: &Record) -> Status {
        let mut cmd = redis::cmd("HSET");
        cmd.arg(key);
        for (name, value) in &values.fields {
            cmd.arg(name).arg(value);
        }
        match cmd.query::<i64>(&mut self.conn) {
            Ok(_) => Status::Ok,
            Err(e) => self.fail("update", e),
        }
    }

    fn insert(&mut self, _: &str, key: &str, values: &Record) -> Status {
        let mut hset = redis::cmd("HSET");
        hset.arg(key);
        for (name, value) in &values.fields {
            hset.arg(name).arg(value);
        }
        let mut pipe = redis::pipe();
        pipe.add_command(hset).ignore();
        pipe.cmd("ZADD")
            .arg(INDEX_KEY)
            .arg(java_string_hash(key))
            .arg(key)
            .ignore();
        match pipe.query::<()>(&mut self.conn) {
            Ok(()) => Status::Ok,
            Err(e) => self.fail("insert", e),
        }
    }

    fn delete(&mut self, _: &str, key: &str) -> Status {
        let mut pipe = redis::pipe();
        pipe.cmd("DEL").arg(key).cmd("ZREM").arg(INDEX_KEY).arg(key);
        match pipe.query::<(i64, i64)>(&mut self.conn) {
            Ok((0, 0)) => Status::NotFound,
            Ok(_) => Status::Ok,
            Err(e) => self.fail("delete", e),
        }
    }
}
