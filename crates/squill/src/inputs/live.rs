//! `squill scan mongodb://…` (feature `mongodb`): a running deployment read
//! through the official driver as if it were a dump. Each collection gives a
//! sample (`$sample`, as many documents as the user sets) streamed straight
//! into the scanner, and its indexes; the scan then runs exactly as on a
//! mongodump directory. Nothing is written to disk.
//!
//! Read-only by construction: the only commands sent are `ping`,
//! `listDatabases`, `listCollections`, `listIndexes`, `count` (the estimated
//! count) and `aggregate` with `$sample` (with the cursors' `getMore` and
//! `killCursors`); `commands` can record every command started, which the
//! tests check against that list. The URI's password never appears in a
//! name or a message.

use super::dump::{IndexSpec, InputFormat, Inputs};
use super::mongo_uri::{database_of, redact, without_credentials};
use mongodb::bson::{Document, doc};
use mongodb::event::EventHandler;
use mongodb::event::command::CommandEvent;
use mongodb::options::ClientOptions;
use mongodb::sync::{Client, Cursor};
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    "getMore",
    "killCursors",
    "endSessions",
    "saslStart",
    "saslContinue",
    "authenticate",
];

#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// Documents sampled from each collection.
    pub sample: u64,
    /// How long to look for a server before giving up.
    pub connect_timeout: Duration,
    /// Every command started, by name (for tests of read-only-ness).
    pub commands: Option<Arc<Mutex<Vec<String>>>>,
}

/// What was sampled of one collection.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    pub database: String,
    pub collection: String,
    /// The server's estimate of the collection's documents (metadata, no scan).
    pub estimated: u64,
    /// Documents asked for: the sample size, or all when there are fewer.
    pub asked: u64,
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
pub fn open(uri: &str, options: &LiveOptions) -> Result<(Inputs, Vec<Sampled>), LiveError> {
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
            // $sample of more than the collection holds reads it whole.
            let asked = options.sample.min(estimated.max(1));
            let cursor = coll
                .aggregate([
                    doc! {"$sample": {"size": i64::try_from(options.sample).unwrap_or(i64::MAX)}},
                ])
                .run()
                .map_err(|e| LiveError::Read(format!("{ns}: sampling: {}", scrub(e))))?;
            let stream = Box::new(Documents {
                cursor,
                buf: Vec::new(),
                at: 0,
                uri: uri.to_string(),
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
            });
        }
    }
    Ok((inputs, sampled))
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

/// A sampling cursor read as concatenated BSON.
struct Documents {
    cursor: Cursor<Document>,
    buf: Vec<u8>,
    at: usize,
    uri: String,
}

impl Read for Documents {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            match self.cursor.advance() {
                Ok(true) => {
                    self.buf.clear();
                    self.buf.extend_from_slice(self.cursor.current().as_bytes());
                    self.at = 0;
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

/// `mongodb://host:port` of a URI without credentials: no database, no
/// options.
fn host_of(name: &str) -> &str {
    let start = name.find("://").map_or(0, |i| i + 3);
    match name[start..].find(['/', '?']) {
        Some(end) => &name[..start + end],
        None => name,
    }
}
