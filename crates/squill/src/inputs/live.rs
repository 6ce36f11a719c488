//! `squill scan mongodb://…` (feature `mongodb`): a running deployment read
//! through the official driver as if it were a dump. Each collection gives a
//! sample (`$sample`, as many documents as the user sets) streamed straight
//! into the scanner, and its indexes; the scan then runs exactly as on a
//! mongodump directory. Nothing is written to disk.
//!
//! `--sample all` reads a collection whole with `find` instead: `$sample` of
//! most of a collection costs more and is not uniform.
//!
//! Read-only by construction: the only commands sent are `ping`,
//! `listDatabases`, `listCollections`, `listIndexes`, `count` (the estimated
//! count), `aggregate` with `$sample` and `find` (with the cursors' `getMore`
//! and `killCursors`), and afterwards, through `Server` (`sampled::Lookup`),
//! `find` on `_id` with `$in` and `aggregate` for `countDocuments`;
//! `commands` can record every command started, which the tests check
//! against that list. The URI's password never appears in a name or a
//! message.

use super::bson::{integral_decimal, integral_double};
use super::dump::{IndexSpec, InputFormat, Inputs};
use super::mongo_uri::{database_of, redact, without_credentials};
use super::sampled::{KeptValues, Lookup, RefValue};
use mongodb::bson::{Bson, Document, doc};
use mongodb::event::EventHandler;
use mongodb::event::command::CommandEvent;
use mongodb::options::ClientOptions;
use mongodb::sync::{Client, Cursor};
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The commands a live scan may send: reads only.
pub const READ_COMMANDS: &[&str] = &[
    "ping",
    "hello",
    "isMaster",
    "ismaster",
    "buildInfo",
    "listDatabases",
    "listCollections",
    "listIndexes",
    "count",
    "aggregate",
    "find",
    "getMore",
    "killCursors",
    "endSessions",
    "saslStart",
    "saslContinue",
    "authenticate",
];

/// How much of each collection a live scan reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SampleSize {
    /// Up to this many documents (`$sample`).
    Documents(u64),
    /// This share of each collection's estimated count, 0 < share ≤ 1.
    Share(f64),
    /// Every document, with `find`.
    All,
}

impl SampleSize {
    /// Documents to read from a collection of about `estimated`.
    pub fn documents(self, estimated: u64) -> u64 {
        match self {
            SampleSize::Documents(n) => n.min(estimated.max(1)),
            SampleSize::Share(p) => {
                ((estimated as f64 * p).ceil() as u64).clamp(1, estimated.max(1))
            }
            SampleSize::All => estimated.max(1),
        }
    }
}

/// Documents of each sample whose possible references are kept for the
/// server to check (`sampled::KeptValues`).
pub const KEEP_DOCUMENTS: u64 = 2_000;

/// The documents a first batch asks for: the time it takes is the basis of
/// the estimate of the whole read.
const FIRST_BATCH: u32 = 1_000;

#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// How much of each collection is read.
    pub sample: SampleSize,
    /// How long to look for a server before giving up.
    pub connect_timeout: Duration,
    /// Every command started, by name (for tests of read-only-ness).
    pub commands: Option<Arc<Mutex<Vec<String>>>>,
}

/// What was sampled of one collection.
#[derive(Debug, Clone)]
pub struct Sampled {
    pub database: String,
    pub collection: String,
    /// The server's estimate of the collection's documents (metadata, no scan).
    pub estimated: u64,
    /// Documents asked for: the sample size, or all when there are fewer.
    pub asked: u64,
    /// Read whole with `find` (`--sample all`) rather than `$sample`.
    pub whole: bool,
    /// How long the first batch took, and its documents: the basis of the
    /// time the whole read will take.
    pub first_batch: (Duration, u64),
    /// The possible references of the first sampled documents, filled while
    /// the scan reads the stream.
    pub kept: Arc<Mutex<KeptValues>>,
}

impl Sampled {
    /// The time reading every asked document should take, at the first
    /// batch's rate.
    pub fn estimated_time(&self) -> Duration {
        let (took, docs) = self.first_batch;
        if docs == 0 {
            return took;
        }
        took.mul_f64(self.asked as f64 / docs as f64)
    }
}

/// A connection the scan asks its read-only questions through after reading
/// the samples.
pub struct Server {
    client: Client,
    uri: String,
}

/// Why a live scan could not start.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{0}")]
    Connect(String),
    #[error("{0}")]
    Read(String),
}

/// The collections of the deployment `uri` names (its database, else every
/// database but admin, config and local) as scan inputs, each a stream of
/// sampled documents; and what was sampled.
pub fn open(uri: &str, options: &LiveOptions) -> Result<(Inputs, Vec<Sampled>, Server), LiveError> {
    let name = without_credentials(uri);
    let scrub = |e: mongodb::error::Error| redact(&e.to_string(), uri);
    let mut client_options = ClientOptions::parse(uri)
        .run()
        .map_err(|e| LiveError::Connect(format!("{name}: {}", scrub(e))))?;
    client_options.server_selection_timeout = Some(options.connect_timeout);
    client_options.connect_timeout = Some(options.connect_timeout);
    client_options.app_name = Some("squill scan".into());
    if let Some(log) = &options.commands {
        let log = Arc::clone(log);
        client_options.command_event_handler = Some(EventHandler::callback(move |ev| {
            if let CommandEvent::Started(s) = ev
                && let Ok(mut l) = log.lock()
            {
                l.push(s.command_name.clone());
            }
        }));
    }
    let client = Client::with_options(client_options)
        .map_err(|e| LiveError::Connect(format!("{name}: {}", scrub(e))))?;
    client
        .database("admin")
        .run_command(doc! {"ping": 1})
        .run()
        .map_err(|e| LiveError::Connect(format!("{name}: {}", scrub(e))))?;
    let databases = match database_of(uri) {
        Some(db) => vec![db],
        None => client
            .list_database_names()
            .run()
            .map_err(|e| LiveError::Read(format!("{name}: listing databases: {}", scrub(e))))?
            .into_iter()
            .filter(|d| !["admin", "config", "local"].contains(&d.as_str()))
            .collect(),
    };
    let mut inputs = Inputs::default();
    let mut sampled = Vec::new();
    for db_name in databases {
        let db = client.database(&db_name);
        let mut names = db.list_collection_names().run().map_err(|e| {
            LiveError::Read(format!(
                "{name}/{db_name}: listing collections: {}",
                scrub(e)
            ))
        })?;
        names.retain(|c| !c.starts_with("system."));
        names.sort();
        for coll_name in names {
            let ns = format!("{}/{db_name}.{coll_name}", host_of(&name));
            let coll = db.collection::<Document>(&coll_name);
            let estimated = coll
                .estimated_document_count()
                .run()
                .map_err(|e| LiveError::Read(format!("{ns}: counting: {}", scrub(e))))?;
            let indexes = indexes(&coll, &ns, &scrub)?;
            let asked = options.sample.documents(estimated);
            let whole = options.sample == SampleSize::All;
            let started = Instant::now();
            let mut cursor = if whole {
                coll.find(doc! {}).batch_size(FIRST_BATCH).run()
            } else {
                // $sample of more than the collection holds reads it whole
                // (the estimated count may lag behind).
                let size = match options.sample {
                    SampleSize::Documents(n) => n,
                    _ => asked,
                };
                coll.aggregate([
                    doc! {"$sample": {"size": i64::try_from(size).unwrap_or(i64::MAX)}},
                ])
                .batch_size(FIRST_BATCH)
                .run()
            }
            .map_err(|e| LiveError::Read(format!("{ns}: sampling: {}", scrub(e))))?;
            let primed = cursor
                .advance()
                .map_err(|e| LiveError::Read(format!("{ns}: sampling: {}", scrub(e))))?;
            let first_batch = (started.elapsed(), asked.min(u64::from(FIRST_BATCH)));
            let kept = Arc::new(Mutex::new(KeptValues::default()));
            let stream = Box::new(Documents {
                cursor,
                primed,
                buf: Vec::new(),
                at: 0,
                uri: uri.to_string(),
                kept: Arc::clone(&kept),
            });
            let before = inputs.collections.len();
            inputs.add_stream(
                std::path::Path::new(&ns),
                &coll_name,
                stream,
                InputFormat::Bson,
            );
            for c in &mut inputs.collections[before..] {
                c.database = Some(db_name.clone());
                c.indexes = indexes.clone();
            }
            sampled.push(Sampled {
                database: db_name.clone(),
                collection: coll_name,
                estimated,
                asked,
                whole,
                first_batch,
                kept,
            });
        }
    }
    let server = Server {
        client,
        uri: uri.to_string(),
    };
    Ok((inputs, sampled, server))
}

/// The collection's indexes as a dump's metadata gives them.
fn indexes(
    coll: &mongodb::sync::Collection<Document>,
    ns: &str,
    scrub: &dyn Fn(mongodb::error::Error) -> String,
) -> Result<Vec<IndexSpec>, LiveError> {
    let fail = |e| LiveError::Read(format!("{ns}: listing indexes: {}", scrub(e)));
    let cursor = coll.list_indexes().run().map_err(fail)?;
    let mut out = Vec::new();
    for model in cursor {
        let model = model.map_err(fail)?;
        let raw = serde_json::to_value(&model)
            .map_err(|e| LiveError::Read(format!("{ns}: an index: {e}")))?;
        let spec = super::dump::metadata::index_spec(&raw)
            .map_err(|e| LiveError::Read(format!("{ns}: an index: {e}")))?;
        out.push(spec);
    }
    Ok(out)
}

/// A sampling cursor read as concatenated BSON; the first documents'
/// possible references are kept on the way.
struct Documents {
    cursor: Cursor<Document>,
    /// The cursor stands on a document `open` advanced to, not yet read.
    primed: bool,
    buf: Vec<u8>,
    at: usize,
    uri: String,
    kept: Arc<Mutex<KeptValues>>,
}

impl Read for Documents {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            let next = if std::mem::take(&mut self.primed) {
                Ok(true)
            } else {
                self.cursor.advance()
            };
            match next {
                Ok(true) => {
                    self.buf.clear();
                    self.buf.extend_from_slice(self.cursor.current().as_bytes());
                    self.at = 0;
                    if let Ok(mut kept) = self.kept.lock()
                        && kept.documents < KEEP_DOCUMENTS
                    {
                        kept.add(&self.buf);
                    }
                }
                Ok(false) => return Ok(0),
                Err(e) => return Err(std::io::Error::other(redact(&e.to_string(), &self.uri))),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Values of `in` per `find`: well under the 16 MiB command limit for
/// strings of 64 bytes.
const LOOKUP_BATCH: usize = 1_000;

fn to_bson(v: &RefValue) -> Bson {
    match v {
        RefValue::ObjectId(b) => Bson::ObjectId(mongodb::bson::oid::ObjectId::from_bytes(*b)),
        RefValue::String(s) => Bson::String(s.clone()),
        RefValue::Int(i) => Bson::Int64(*i),
    }
}

fn from_bson(v: &Bson) -> Option<RefValue> {
    match v {
        Bson::ObjectId(o) => Some(RefValue::ObjectId(o.bytes())),
        Bson::String(s) => Some(RefValue::String(s.clone())),
        Bson::Int32(i) => Some(RefValue::Int(i64::from(*i))),
        Bson::Int64(i) => Some(RefValue::Int(*i)),
        Bson::Double(d) => integral_double(*d).map(RefValue::Int),
        Bson::Decimal128(d) => integral_decimal(&d.bytes()).map(RefValue::Int),
        _ => None,
    }
}

impl Lookup for Server {
    fn existing(
        &mut self,
        database: &str,
        collection: &str,
        key: &str,
        values: &[RefValue],
    ) -> Result<Vec<RefValue>, String> {
        let coll = self
            .client
            .database(database)
            .collection::<Document>(collection);
        let mut found = Vec::new();
        for batch in values.chunks(LOOKUP_BATCH) {
            let list: Vec<Bson> = batch.iter().map(to_bson).collect();
            let projection = if key == "_id" {
                doc! {"_id": 1}
            } else {
                doc! {"_id": 0, key: 1}
            };
            let cursor = coll
                .find(doc! {key: {"$in": list}})
                .projection(projection)
                .run()
                .map_err(|e| redact(&e.to_string(), &self.uri))?;
            for d in cursor {
                let d = d.map_err(|e| redact(&e.to_string(), &self.uri))?;
                found.extend(d.get(key).and_then(from_bson));
            }
        }
        Ok(found)
    }

    fn count(
        &mut self,
        database: &str,
        collection: &str,
        field: &str,
        value: &RefValue,
    ) -> Result<u64, String> {
        self.client
            .database(database)
            .collection::<Document>(collection)
            .count_documents(doc! {field: to_bson(value)})
            .run()
            .map_err(|e| redact(&e.to_string(), &self.uri))
    }
}

/// `mongodb://host:port` of a URI without credentials: no database, no
/// options.
fn host_of(name: &str) -> &str {
    let start = name.find("://").map_or(0, |i| i + 3);
    match name[start..].find(['/', '?']) {
        Some(end) => &name[..start + end],
        None => name,
    }
}
