//! `mongodb`: MongoDB and wire-compatible servers (FerretDB) through the official
//! `mongodb` crate's synchronous API (no TLS, no DNS SRV lookups), with the layout of
//! YCSB's MongoDB binding: one document per record keyed by `_id`, each field a binary
//! value, in collection `usertable` of the URL's database (default `ycsb`).
//!
//! One client per phase; its connection pool is capped at `threadcount`
//! (`maxPoolSize`), which the client threads share.
//!
//! `mongodb.batchsize` (YCSB's `batchsize`, default 1): inserts are queued and sent
//! `insertMany` that many at a time, as YCSB's binding does; a queued insert answers
//! `BATCHED_OK`, and the thread's last partial batch goes out at cleanup. Loading a
//! server that commits each insert on its own (FerretDB on SQLite) is then bounded by
//! the batch, not by one commit per record.
//!
//! `mongodb.upsert=true` (YCSB's; read as Java's `Boolean.parseBoolean`, so
//! PerfKitBenchmarker's `True` is true): an insert replaces the document with its
//! `_id`, creating it if missing (`replaceOne` with upsert), so loading over an
//! existing collection succeeds; batched, one `update` command of upserts per batch.

use mongodb::bson::spec::BinarySubtype;
use mongodb::bson::{doc, Binary, Bson, Document};
use mongodb::options::ClientOptions;
use mongodb::sync::{Client, Collection, Database};

use super::endpoint::{failed, thread_count, FirstError};
use super::{Record, Session, Status, TargetDriver, TargetInfo};
use crate::error::{PropertyError, TargetError};
use crate::properties::Properties;

const NAME: &str = "mongodb";
const DEFAULT_URL: &str = "mongodb://localhost:27017/ycsb?w=1";

/// Registry entry for `mongodb`.
pub fn info() -> TargetInfo {
    TargetInfo {
        name: NAME,
        summary: "MongoDB / FerretDB (YCSB layout: a document per record keyed by _id)",
        properties: &["mongodb.url", "mongodb.batchsize", "mongodb.upsert"],
        open,
    }
}

fn open(props: &Properties) -> Result<Box<dyn TargetDriver>, TargetError> {
    let url = props
        .get("mongodb.url")
        .map(str::trim)
        .unwrap_or(DEFAULT_URL);
    let mut options = ClientOptions::parse(url)
        .run()
        .map_err(|e| PropertyError::BadValue {
            key: "mongodb.url".into(),
            value: url.into(),
            expected: format!("a mongodb:// connection string ({e})"),
        })?;
    let pool = thread_count(props)?;
    let batch_size: usize = props.parse_or("mongodb.batchsize", 1, "an integer >= 1")?;
    if batch_size == 0 {
        return Err(PropertyError::BadValue {
            key: "mongodb.batchsize".into(),
            value: "0".into(),
            expected: "an integer >= 1".into(),
        }
        .into());
    }
    let upsert = props.java_bool_or("mongodb.upsert", false);
    options.max_pool_size = Some(u32::try_from(pool).unwrap_or(u32::MAX));
    options.app_name = Some("contio-engine".into());
    let database_name = options
        .default_database
        .clone()
        .unwrap_or_else(|| "ycsb".into());
    let client = Client::with_options(options).map_err(|e| failed(NAME, "client", e))?;
    let database = client.database(&database_name);
    // One ping now, so a wrong address fails before any thread starts.
    database
        .run_command(doc! {"ping": 1})
        .run()
        .map_err(|e| failed(NAME, &format!("ping {url}"), e))?;
    Ok(Box::new(MongoDriver {
        database,
        batch_size,
        upsert,
        description: serde_json::json!({
            "url": url, "database": database_name, "max_pool_size": pool,
            "batch_size": batch_size, "upsert": upsert,
            "layout": "document per record, _id = key, fields as binary",
        }),
    }))
}

struct MongoDriver {
    database: Database,
    batch_size: usize,
    upsert: bool,
    description: serde_json::Value,
}

impl TargetDriver for MongoDriver {
    fn session(&self) -> Result<Box<dyn Session>, TargetError> {
        Ok(Box::new(MongoSession {
            database: self.database.clone(),
            collection: None,
            errors: FirstError::default(),
            batch_size: self.batch_size,
            upsert: self.upsert,
            queued: Vec::new(),
        }))
    }

    fn describe(&self) -> serde_json::Value {
        self.description.clone()
    }
}

struct MongoSession {
    database: Database,
    /// The collection last used, kept so each call does not build a handle.
    collection: Option<(String, Collection<Document>)>,
    errors: FirstError,
    batch_size: usize,
    /// Inserts replace (or create) the document with their `_id`.
    upsert: bool,
    /// Inserts waiting for a full batch: the table and its documents.
    queued: Vec<(String, Document)>,
}

impl MongoSession {
    fn collection(&mut self, table: &str) -> Collection<Document> {
        match &self.collection {
            Some((name, c)) if name == table => c.clone(),
            _ => {
                let c = self.database.collection::<Document>(table);
                self.collection = Some((table.to_string(), c.clone()));
                c
            }
        }
    }

    fn fail(&mut self, op: &str, err: impl std::fmt::Display) -> Status {
        self.errors.report(NAME, op, err);
        Status::Error
    }

    /// Sends the queued inserts (one table at a time, as they were queued).
    fn flush(&mut self) -> Status {
        let queued = std::mem::take(&mut self.queued);
        let mut status = Status::Ok;
        let mut start = 0;
        while start < queued.len() {
            let table = queued[start].0.clone();
            let end = start
                + queued[start..]
                    .iter()
                    .take_while(|(t, _)| *t == table)
                    .count();
            let documents = queued[start..end].iter().map(|(_, d)| d.clone());
            let sent = if self.upsert {
                self.upsert_many(&table, documents)
            } else {
                self.collection(&table)
                    .insert_many(documents)
                    .run()
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            };
            if let Err(e) = sent {
                status = self.fail("insert", e);
            }
            start = end;
        }
        status
    }
}

impl MongoSession {
    /// One `update` command replacing (or creating) each document by its `_id`.
    fn upsert_many(
        &mut self,
        table: &str,
        documents: impl Iterator<Item = Document>,
    ) -> Result<(), String> {
        let updates: Vec<Bson> = documents
            .map(|d| {
                let id = d.get("_id").cloned().unwrap_or(Bson::Null);
                Bson::Document(doc! {"q": {"_id": id}, "u": d, "upsert": true})
            })
            .collect();
        let reply = self
            .database
            .run_command(doc! {"update": table, "updates": updates, "ordered": false})
            .run()
            .map_err(|e| e.to_string())?;
        match reply.get_array("writeErrors") {
            Ok(errors) if !errors.is_empty() => {
                Err(format!("upsert: {}", Bson::Array(errors.clone())))
            }
            _ => Ok(()),
        }
    }
}

fn projection(fields: Option<&[String]>) -> Option<Document> {
    fields.map(|names| names.iter().map(|n| (n.clone(), Bson::Int32(1))).collect())
}

fn binary(value: &[u8]) -> Bson {
    Bson::Binary(Binary {
        subtype: BinarySubtype::Generic,
        bytes: value.to_vec(),
    })
}

/// Copies a document's fields (not `_id`) into `out`; returns the `_id` as a string.
fn document_into(document: Document, out: &mut Record) -> String {
    let mut key = String::new();
    for (name, value) in document {
        match (name.as_str(), value) {
            ("_id", Bson::String(s)) => key = s,
            ("_id", _) => {}
            (_, Bson::Binary(b)) => out.fields.push((name, b.bytes)),
            (_, Bson::String(s)) => out.fields.push((name, s.into_bytes())),
            (_, other) => out.fields.push((name, other.to_string().into_bytes())),
        }
    }
    key
}

impl Session for MongoSession {
    fn read(
        &mut self,
        table: &str,
        key: &str,
        fields: Option<&[String]>,
        out: &mut Record,
    ) -> Status {
        out.fields.clear();
        let collection = self.collection(table);
        let mut action = collection.find_one(doc! {"_id": key});
        if let Some(p) = projection(fields) {
            action = action.projection(p);
        }
        let result = action.run();
        match result {
            Ok(Some(document)) => {
                document_into(document, out);
                Status::Ok
            }
            Ok(None) => Status::NotFound,
            Err(e) => self.fail("read", e),
        }
    }

    fn scan(
        &mut self,
        table: &str,
        start_key: &str,
        count: usize,
        fields: Option<&[String]>,
        out: &mut Vec<(String, Record)>,
    ) -> Status {
        out.clear();
        let collection = self.collection(table);
        let mut action = collection
            .find(doc! {"_id": {"$gte": start_key}})
            .sort(doc! {"_id": 1})
            .limit(i64::try_from(count).unwrap_or(i64::MAX));
        if let Some(p) = projection(fields) {
            action = action.projection(p);
        }
        let cursor = action.run();
        let cursor = match cursor {
            Ok(c) => c,
            Err(e) => return self.fail("scan", e),
        };
        for document in cursor {
            match document {
                Ok(d) => {
                    let mut record = Record::default();
                    let key = document_into(d, &mut record);
                    out.push((key, record));
                }
                Err(e) => return self.fail("scan", e),
            }
        }
        Status::Ok
    }

    fn update(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let set: Document = values
            .fields
            .iter()
            .map(|(n, v)| (n.clone(), binary(v)))
            .collect();
        let result = self
            .collection(table)
            .update_one(doc! {"_id": key}, doc! {"$set": set})
            .run();
        match result {
            Ok(r) if r.matched_count == 1 => Status::Ok,
            Ok(_) => Status::NotFound,
            Err(e) => self.fail("update", e),
        }
    }

    fn insert(&mut self, table: &str, key: &str, values: &Record) -> Status {
        let mut document = doc! {"_id": key};
        for (name, value) in &values.fields {
            document.insert(name.clone(), binary(value));
        }
        if self.batch_size > 1 {
            self.queued.push((table.to_string(), document));
            if self.queued.len() < self.batch_size {
                return Status::BatchedOk;
            }
            return self.flush();
        }
        let sent = if self.upsert {
            self.collection(table)
                .replace_one(doc! {"_id": key}, document)
                .upsert(true)
                .run()
                .map(|_| ())
        } else {
            self.collection(table)
                .insert_one(document)
                .run()
                .map(|_| ())
        }
        .map_err(|e| e.to_string());
        match sent {
            Ok(()) => Status::Ok,
            Err(e) => self.fail("insert", e),
        }
    }

    fn delete(&mut self, table: &str, key: &str) -> Status {
        match self.collection(table).delete_one(doc! {"_id": key}).run() {
            Ok(r) if r.deleted_count == 1 => Status::Ok,
            Ok(_) => Status::NotFound,
            Err(e) => self.fail("delete", e),
        }
    }

    fn cleanup(&mut self) -> Result<(), TargetError> {
        let count = self.queued.len();
        match self.flush() {
            Status::Ok => Ok(()),
            _ => Err(failed(
                NAME,
                "insert",
                format!("the last batch of {count} queued inserts failed"),
            )),
        }
    }
}
