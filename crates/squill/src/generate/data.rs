//! Synthetic data: every collection of the design, as Extended JSON lines
//! (`data/COLL.json`, what mongoimport reads) and as a mongodump directory
//! (`dump/DB/COLL.bson` + `COLL.metadata.json` with the validator and the
//! indexes, what mongorestore reads). Documents are built one at a time on
//! the calling thread and encoded straight into a few large buffers (`sink`:
//! no tree of values per document) that a writer thread (`write_thread`)
//! puts on disk meanwhile: memory does not grow with the scale, and the disk
//! works while documents are built.

use super::documents::{Builder, Fanout};
use super::plan::ShapePlan;
use super::population::Population;
use super::sink::Encoder;
use super::values::Scratch;
use super::write::refuse_existing;
use super::write_thread::{Slot, Tuning, WriteThread};
use super::{GenerateError, indexes, schema};
use crate::design::{Collection, Design};
use crate::model::Model;
use serde_json::json;
use std::path::{Path, PathBuf};

/// Which files `generate data` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    Ejson,
    Dump,
    Both,
}

impl DataFormat {
    fn ejson(self) -> bool {
        matches!(self, DataFormat::Ejson | DataFormat::Both)
    }
    fn dump(self) -> bool {
        matches!(self, DataFormat::Dump | DataFormat::Both)
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DataSummary {
    pub collections: Vec<CollectionSummary>,
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionSummary {
    pub name: String,
    pub documents: u64,
    pub ejson_bytes: u64,
    pub bson_bytes: u64,
}

impl DataSummary {
    pub fn documents(&self) -> u64 {
        self.collections.iter().map(|c| c.documents).sum()
    }
    pub fn bytes(&self) -> u64 {
        self.collections
            .iter()
            .map(|c| c.ejson_bytes + c.bson_bytes)
            .sum()
    }
}

/// The database name used in the dump layout: the model's name, with what a
/// database name may not contain replaced.
pub fn database_name(design: &Design) -> String {
    let s: String = design
        .model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    if s.is_empty() { "squill".into() } else { s }
}

/// The files `write` would write under `dir`.
pub fn paths(design: &Design, dir: &Path, format: DataFormat) -> Vec<PathBuf> {
    let db = database_name(design);
    let mut out = Vec::new();
    for c in &design.collections {
        if format.ejson() {
            out.push(dir.join("data").join(format!("{}.json", c.name)));
        }
        if format.dump() {
            out.push(dir.join("dump").join(&db).join(format!("{}.bson", c.name)));
            out.push(
                dir.join("dump")
                    .join(&db)
                    .join(format!("{}.metadata.json", c.name)),
            );
        }
    }
    out
}

/// mongodump's `COLL.metadata.json`: options (the validator) and indexes.
pub fn metadata(coll: &Collection, seed: u64) -> serde_json::Value {
    let mut idx = vec![json!({"v": 2, "key": {"_id": 1}, "name": "_id_"})];
    for i in indexes::created(coll) {
        let mut spec = indexes::spec(i);
        if let Some(obj) = spec.as_object_mut() {
            obj.insert("v".into(), json!(2));
        }
        idx.push(spec);
    }
    let uuid: String = (0..4)
        .map(|k| {
            format!(
                "{:08x}",
                super::population::mix(seed ^ super::population::name_hash(&coll.name) ^ k) as u32
            )
        })
        .collect();
    json!({
        "options": {
            "validator": schema::validator(coll),
            "validationLevel": "strict",
            "validationAction": "error"
        },
        "indexes": idx,
        "uuid": uuid,
        "collectionName": coll.name,
        "type": "collection"
    })
}

/// What data to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataOptions {
    /// Instances of every entity that is nobody's child.
    pub scale: u64,
    pub seed: u64,
    /// Cut children per parent at this many (`None`: the model's cardinality).
    pub max_children: Option<u64>,
    pub format: DataFormat,
    /// Overwrite existing files.
    pub force: bool,
}

impl DataOptions {
    pub fn new(scale: u64, seed: u64) -> Self {
        DataOptions {
            scale,
            seed,
            max_children: None,
            format: DataFormat::Both,
            force: false,
        }
    }
}

/// Writes the data of every collection under `dir`.
pub fn write(
    model: &Model,
    design: &Design,
    options: &DataOptions,
    dir: &Path,
) -> Result<DataSummary, GenerateError> {
    write_tuned(model, design, options, dir, Tuning::DEFAULT)
}

/// The open files of one collection, as slots of the writer thread.
const JSON: Slot = 0;
const BSON: Slot = 1;

/// `write`, with the sizes of the hand-over to the writer thread (tests use
/// tiny ones to exercise a full queue).
pub(crate) fn write_tuned(
    model: &Model,
    design: &Design,
    options: &DataOptions,
    dir: &Path,
    tuning: Tuning,
) -> Result<DataSummary, GenerateError> {
    let DataOptions {
        scale,
        seed,
        max_children,
        format,
        force,
    } = *options;
    refuse_existing(&paths(design, dir, format), force)?;
    let pop = Population::with_max_children(model, design, scale, seed, max_children);
    let builder = Builder {
        pop: &pop,
        fanout: Fanout::Drawn,
    };
    let db = database_name(design);
    let mut summary = DataSummary::default();
    let mut writer = WriteThread::start(dir, tuning)?;
    let chunk = tuning.chunk;
    for coll in &design.collections {
        if format.ejson() {
            writer.create(JSON, dir.join("data").join(format!("{}.json", coll.name)))?;
        }
        if format.dump() {
            let path = dir
                .join("dump")
                .join(&db)
                .join(format!("{}.bson", coll.name));
            writer.create(BSON, path)?;
        }
        let mut stats = CollectionSummary {
            name: coll.name.clone(),
            documents: 0,
            ejson_bytes: 0,
            bson_bytes: 0,
        };
        // Documents are encoded straight into the buffers handed to the writer.
        let mut text = writer.text_buffer().into_bytes();
        let mut bytes = writer.buffer();
        let plan = ShapePlan::new(&pop, &coll.shape);
        let mut scratch = Scratch::default();
        let (json, dump) = (format.ejson(), format.dump());
        pop.for_each_root(coll, |root| -> Result<(), GenerateError> {
            let (text_before, bytes_before) = (text.len(), bytes.len());
            let mut encoder = Encoder::new(json.then_some(&mut text), dump.then_some(&mut bytes));
            builder.encode(coll, &plan, &root, &mut encoder, &mut scratch);
            stats.documents += 1;
            stats.ejson_bytes += (text.len() - text_before) as u64;
            stats.bson_bytes += (bytes.len() - bytes_before) as u64;
            if text.len() >= chunk {
                let full = std::mem::replace(&mut text, writer.text_buffer().into_bytes());
                writer.append(JSON, full)?;
            }
            if bytes.len() >= chunk {
                let full = std::mem::replace(&mut bytes, writer.buffer());
                writer.append(BSON, full)?;
            }
            Ok(())
        })?;
        if format.ejson() {
            writer.append(JSON, text)?;
            writer.commit(JSON)?;
        }
        if format.dump() {
            writer.append(BSON, bytes)?;
            writer.commit(BSON)?;
            let meta = metadata(coll, seed);
            let path = dir
                .join("dump")
                .join(&db)
                .join(format!("{}.metadata.json", coll.name));
            writer.whole(path, serde_json::to_vec(&meta).unwrap_or_default())?;
        }
        summary.collections.push(stats);
    }
    summary.files = writer.finish()?;
    Ok(summary)
}
