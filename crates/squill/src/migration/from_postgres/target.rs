//! `squill migrate --to mongodb://…` (feature `mongodb`): the documents
//! written straight into a deployment through the official driver. Each
//! collection is created with the design's validator, filled in unordered
//! batches of 1,000, then indexed (after the data, which is faster than
//! keeping indexes up to date while loading). A resumed run inserts again
//! from its last checkpoint and skips the documents already there
//! (duplicate `_id`); a run of changes replaces each changed document by
//! its `_id`, inserting it when new, and deletes the documents of deleted
//! rows. The URI's password never appears in a message.

use super::error::MigrateError;
use crate::design::Collection;
use crate::inputs::mongo_uri::{database_of, password_of, without_credentials};
use mongodb::bson::{Bson, Document, RawDocumentBuf, doc};
use mongodb::error::ErrorKind;
use mongodb::sync::{Client, Database};

/// Documents per `insert` command.
const BATCH: usize = 1000;

pub struct Target {
    db: Database,
    /// Where, for messages: the URI without its credentials.
    pub name: String,
    password: Option<String>,
    batch: Vec<RawDocumentBuf>,
    collection: String,
}

impl Target {
    /// Connects to `uri` and checks the server answers; the documents go to
    /// the database the URI names (`mongodb://host/shop`), else `database`.
    pub fn connect(uri: &str, database: &str) -> Result<Target, MigrateError> {
        let named = database_of(uri);
        let database = named.as_deref().unwrap_or(database);
        let password = password_of(uri);
        let name = without_credentials(uri);
        let redact = |e: mongodb::error::Error| {
            let text = e.to_string();
            MigrateError::Io(format!(
                "{name}: {}",
                match &password {
                    Some(p) => text.replace(p.as_str(), "***"),
                    None => text,
                }
            ))
        };
        let client = Client::with_uri_str(uri).map_err(redact)?;
        let db = client.database(database);
        db.run_command(doc! {"ping": 1}).run().map_err(redact)?;
        Ok(Target {
            db,
            name: format!("{name} (database {database})"),
            password,
            batch: Vec::with_capacity(BATCH),
            collection: String::new(),
        })
    }

    fn fail(&self, doing: &str, e: mongodb::error::Error) -> MigrateError {
        // A refused batch lists every document: say how many, show the first.
        let text = match &*e.kind {
            ErrorKind::InsertMany(m) => match m.write_errors.as_deref() {
                Some([first, ..]) => format!(
                    "{} documents refused; the first (number {} of the batch): code {}: {} {}",
                    m.write_errors.as_ref().map_or(0, Vec::len),
                    first.index,
                    first.code,
                    first.message,
                    first
                        .details
                        .as_ref()
                        .map_or(String::new(), |d| d.to_string())
                ),
                _ => e.to_string(),
            },
            _ => e.to_string(),
        };
        let text = if text.len() > 1500 {
            let cut = (0..=1500)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}…", &text[..cut])
        } else {
            text
        };
        let text = match &self.password {
            Some(p) => text.replace(p.as_str(), "***"),
            None => text,
        };
        MigrateError::Io(format!("{}: {doing}: {text}", self.name))
    }

    /// Creates `coll` with its validator unless it exists.
    pub fn prepare(&mut self, coll: &Collection) -> Result<(), MigrateError> {
        self.collection = coll.name.clone();
        let validator: Document =
            mongodb::bson::serialize_to_document(&crate::catalog::schema::validator(coll))
                .map_err(|e| MigrateError::Data(format!("{}: the validator: {e}", coll.name)))?;
        let create = doc! {
            "create": &coll.name,
            "validator": validator,
            "validationLevel": "strict",
            "validationAction": "error",
        };
        match self.db.run_command(create).run() {
            Ok(_) => Ok(()),
            // NamespaceExists: a resumed run, or a run of changes.
            Err(e) if matches!(*e.kind, ErrorKind::Command(ref c) if c.code == 48) => Ok(()),
            Err(e) => Err(self.fail(&format!("creating {}", coll.name), e)),
        }
    }

    /// Adds a document to the batch, sending it when full.
    pub fn insert(&mut self, bson: &[u8]) -> Result<(), MigrateError> {
        let doc = RawDocumentBuf::from_bytes(bson.to_vec())
            .map_err(|e| MigrateError::Data(format!("{}: {e}", self.collection)))?;
        self.batch.push(doc);
        if self.batch.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Sends the batch; documents already there (a resumed run) are skipped.
    pub fn flush(&mut self) -> Result<(), MigrateError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let coll = self.db.collection::<RawDocumentBuf>(&self.collection);
        let result = coll.insert_many(self.batch.drain(..)).ordered(false).run();
        match result {
            Ok(_) => Ok(()),
            Err(e) => {
                let only_duplicates = match &*e.kind {
                    ErrorKind::InsertMany(m) => {
                        m.write_concern_error.is_none()
                            && m.write_errors
                                .as_ref()
                                .is_some_and(|w| w.iter().all(|x| x.code == 11000))
                    }
                    _ => false,
                };
                if only_duplicates {
                    Ok(())
                } else {
                    Err(self.fail(&format!("inserting into {}", self.collection), e))
                }
            }
        }
    }

    /// Replaces the document with this one's `_id`, or inserts it.
    pub fn upsert(&mut self, bson: &[u8]) -> Result<(), MigrateError> {
        let doc = RawDocumentBuf::from_bytes(bson.to_vec())
            .map_err(|e| MigrateError::Data(format!("{}: {e}", self.collection)))?;
        let id: Bson = doc
            .get("_id")
            .ok()
            .flatten()
            .and_then(|v| Bson::try_from(v).ok())
            .ok_or_else(|| {
                MigrateError::Data(format!("{}: a document without _id", self.collection))
            })?;
        let coll = self.db.collection::<RawDocumentBuf>(&self.collection);
        coll.replace_one(doc! {"_id": id}, doc)
            .upsert(true)
            .run()
            .map_err(|e| self.fail(&format!("replacing in {}", self.collection), e))?;
        Ok(())
    }

    /// Deletes the document with the `_id` of `filter` (a document of
    /// that one field), after the batch before it.
    pub fn delete(&mut self, filter: &[u8]) -> Result<(), MigrateError> {
        self.flush()?;
        let filter = RawDocumentBuf::from_bytes(filter.to_vec())
            .ok()
            .and_then(|d| Document::try_from(d).ok())
            .ok_or_else(|| {
                MigrateError::Data(format!("{}: a deleted row's _id", self.collection))
            })?;
        let coll = self.db.collection::<RawDocumentBuf>(&self.collection);
        coll.delete_one(filter)
            .run()
            .map_err(|e| self.fail(&format!("deleting from {}", self.collection), e))?;
        Ok(())
    }

    /// Builds the design's indexes of `coll` (after its data).
    pub fn indexes(&mut self, coll: &Collection) -> Result<(), MigrateError> {
        let specs: Vec<Document> = crate::catalog::indexes::created(coll)
            .into_iter()
            .filter_map(|i| {
                mongodb::bson::serialize_to_document(&crate::catalog::indexes::spec(i)).ok()
            })
            .collect();
        if specs.is_empty() {
            return Ok(());
        }
        self.db
            .run_command(doc! {"createIndexes": &coll.name, "indexes": specs})
            .run()
            .map_err(|e| self.fail(&format!("indexing {}", coll.name), e))?;
        Ok(())
    }
}
