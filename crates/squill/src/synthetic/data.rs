//! Synthetic data: every collection of the design, as Extended JSON lines
//! (`data/COLL.json`, what mongoimport reads) and as a mongodump directory
//! (`dump/DB/COLL.bson` + `COLL.metadata.json` with the validator and the
//! indexes, what mongorestore reads). The calling thread lists each
//! collection's documents (their roots, as runs of consecutive instances) in
//! batches; rayon (`build_chunks`, one thread per core) encodes a window of
//! batches straight into large buffers (`sink`: no tree of values per
//! document); the buffers go, in the order of the batches, to a writer
//! thread (`write_thread`) that puts them on disk while the next window is
//! built. Memory does not grow with the scale, the disk works
//! while documents are built, and the bytes do not depend on the threads.

use super::GenerateError;
use super::build_chunks::{Batch, Builders, Built, thread_count};
pub use super::options::{DataFormat, DataOptions, Progress};
use super::population::Population;
use super::roots::Run;
use super::write::refuse_existing;
use super::write_thread::{Slot, Tuning, WriteThread};
use crate::catalog::{indexes, schema};
use crate::design::{Collection, Design};
use crate::model::Model;
use crate::words::file_name;
use serde_json::json;
use std::path::{Path, PathBuf};

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DataSummary {
    pub collections: Vec<CollectionSummary>,
    pub files: Vec<PathBuf>,
    /// When the data is taken to be loaded (`DataOptions::now_ms`), and the
    /// fields (`entity.field`, with the expiry's seconds) whose dates are
    /// placed alive then: what the user must know to load it in time.
    pub now_ms: i64,
    pub expiring: Vec<(String, u64)>,
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

/// The files `write` would write under `dir`: each collection's name encoded
/// as mongodump encodes it (`words::file_name`), so no name writes outside
/// `dir`, makes a folder or hides its file, and refused when two would be
/// one file.
pub fn paths(
    design: &Design,
    dir: &Path,
    format: DataFormat,
) -> Result<Vec<PathBuf>, GenerateError> {
    let db = database_name(design);
    let mut out = Vec::new();
    for c in &design.collections {
        if format.ejson() {
            out.push(ejson_path(dir, c)?);
        }
        if format.dump() {
            out.push(dump_path(dir, &db, c, ".bson")?);
            out.push(dump_path(dir, &db, c, ".metadata.json")?);
        }
    }
    if let Some(path) = file_name::repeated(&out) {
        return Err(GenerateError::SameFile { path: path.clone() });
    }
    Ok(out)
}

/// `DIR/data/COLL.json`.
fn ejson_path(dir: &Path, coll: &Collection) -> Result<PathBuf, GenerateError> {
    Ok(file_name::file_in(&dir.join("data"), &coll.name, ".json")?)
}

/// `DIR/dump/DB/COLL.EXT`.
fn dump_path(dir: &Path, db: &str, coll: &Collection, ext: &str) -> Result<PathBuf, GenerateError> {
    Ok(file_name::file_in(
        &dir.join("dump").join(db),
        &coll.name,
        ext,
    )?)
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

/// Writes the data of every collection under `dir`.
pub fn write(
    model: &Model,
    design: &Design,
    options: &DataOptions,
    dir: &Path,
) -> Result<DataSummary, GenerateError> {
    write_tuned(model, design, options, dir, Tuning::DEFAULT)
}

/// What a run will write, checked before anything is: the estimate, after
/// refusing (unless `options.force`) files that exist and a run larger than
/// the free space where it writes.
/// Also the bytes free where it writes, when the platform tells.
pub fn preflight(
    model: &Model,
    design: &Design,
    options: &DataOptions,
    dir: &Path,
) -> Result<(super::estimate::Estimate, Option<u64>), GenerateError> {
    refuse_existing(&paths(design, dir, options.format)?, options.force)?;
    let estimate = super::estimate::estimate(model, design, options);
    let free = super::write::free_space(dir);
    if let Some(available) = free
        && estimate.bytes() > available
        && !options.force
    {
        return Err(GenerateError::NoSpace {
            dir: dir.to_path_buf(),
            needed: estimate.bytes(),
            available,
        });
    }
    // Past the disk (or with --force), a population that cannot even be
    // numbered.
    super::refuse_too_many(model, options.scale, options.max_children)?;
    Ok((estimate, free))
}

/// Where the built batches of one collection go: the writer, in order.
struct Output<'w> {
    writer: &'w mut WriteThread,
    progress: Option<&'w Progress>,
    stats: CollectionSummary,
    sizer: Sizer,
    /// Extended JSON, BSON.
    format: (bool, bool),
}

impl Output<'_> {
    /// A batch of `runs` with buffers to fill.
    fn batch(&mut self, runs: Vec<Run>) -> Batch {
        let json = if self.format.0 {
            self.writer.buffer()
        } else {
            Vec::new()
        };
        let bson = if self.format.1 {
            self.writer.buffer()
        } else {
            Vec::new()
        };
        Batch { runs, json, bson }
    }

    /// Builds a window of batches and hands them to the writer, in order.
    fn flush(
        &mut self,
        builders: &Builders<'_>,
        coll: usize,
        window: &mut Vec<Batch>,
    ) -> Result<(), GenerateError> {
        for built in builders.build(coll, std::mem::take(window))? {
            self.write(built)?;
        }
        Ok(())
    }

    fn write(&mut self, built: Built) -> Result<(), GenerateError> {
        self.stats.documents += built.roots;
        self.stats.ejson_bytes += built.json.len() as u64;
        self.stats.bson_bytes += built.bson.len() as u64;
        self.sizer
            .observe(built.roots, built.json.len().max(built.bson.len()));
        if let Some(p) = self.progress {
            use std::sync::atomic::Ordering::Relaxed;
            p.documents.fetch_add(built.roots, Relaxed);
            p.bytes
                .fetch_add((built.json.len() + built.bson.len()) as u64, Relaxed);
        }
        if self.format.0 {
            self.writer.append(JSON, built.json)?;
        }
        if self.format.1 {
            self.writer.append(BSON, built.bson)?;
        }
        Ok(())
    }
}

/// Roots per batch: as many as make about one writer chunk, from the bytes
/// per root seen so far (documents range from a hundred bytes to megabytes).
struct Sizer {
    target: u64,
    roots_seen: u64,
    bytes_seen: u64,
    roots: u64,
}

impl Sizer {
    fn new(target: usize) -> Self {
        Sizer {
            target: (target as u64).max(1),
            roots_seen: 0,
            bytes_seen: 0,
            // One until sizes are known: a root may be megabytes.
            roots: 1,
        }
    }

    fn observe(&mut self, roots: u64, bytes: usize) {
        self.roots_seen += roots;
        self.bytes_seen += bytes as u64;
        let per_root = (self.bytes_seen / self.roots_seen.max(1)).max(1);
        self.roots = (self.target / per_root).clamp(1, 1 << 20);
    }
}

/// Whether the caller asked to stop.
fn cancelled(options: &DataOptions) -> bool {
    options
        .cancel
        .as_ref()
        .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
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
        now_ms,
        ..
    } = *options;
    refuse_existing(&paths(design, dir, format)?, force)?;
    super::refuse_too_many(model, scale, max_children)?;
    let pop =
        Population::with_max_children(model, design, scale, seed, max_children).loaded_at(now_ms);
    let db = database_name(design);
    let mut summary = DataSummary {
        now_ms,
        expiring: super::options::expiring_fields(model),
        ..DataSummary::default()
    };
    let mut writer = WriteThread::start(dir, tuning)?;
    let (json, dump) = (format.ejson(), format.dump());
    let builders = Builders::new(
        &pop,
        design,
        (json, dump),
        thread_count(options.threads),
        dir,
    )?;
    for (index, coll) in design.collections.iter().enumerate() {
        if json {
            writer.create(JSON, ejson_path(dir, coll)?)?;
        }
        if dump {
            writer.create(BSON, dump_path(dir, &db, coll, ".bson")?)?;
        }
        let mut out = Output {
            writer: &mut writer,
            progress: options.progress.as_deref(),
            stats: CollectionSummary {
                name: coll.name.clone(),
                documents: 0,
                ejson_bytes: 0,
                bson_bytes: 0,
            },
            sizer: Sizer::new(tuning.chunk),
            format: (json, dump),
        };
        // Runs of roots, cut so that a batch holds `sizer.roots`, gathered
        // into windows that are built together.
        let (mut runs, mut in_batch, mut window) = (Vec::new(), 0, Vec::new());
        pop.for_each_run(coll, |run| -> Result<(), GenerateError> {
            if cancelled(options) {
                return Err(GenerateError::Interrupted);
            }
            let mut rest = Some(run);
            while let Some(run) = rest.take() {
                let (head, tail) = run.split(out.sizer.roots.saturating_sub(in_batch));
                in_batch += head.len();
                runs.push(head);
                if in_batch >= out.sizer.roots {
                    let batch = out.batch(std::mem::take(&mut runs));
                    window.push(batch);
                    in_batch = 0;
                    if window.len() >= builders.window() {
                        out.flush(&builders, index, &mut window)?;
                    }
                }
                rest = tail;
            }
            Ok(())
        })?;
        if !runs.is_empty() {
            let batch = out.batch(runs);
            window.push(batch);
        }
        out.flush(&builders, index, &mut window)?;
        let stats = out.stats;
        if json {
            writer.commit(JSON)?;
        }
        if dump {
            writer.commit(BSON)?;
            let meta = serde_json::to_vec(&metadata(coll, seed)).unwrap_or_default();
            writer.whole(dump_path(dir, &db, coll, ".metadata.json")?, meta)?;
        }
        summary.collections.push(stats);
    }
    let committed = writer.finish()?;
    summary.files = committed.files;
    Ok(summary)
}
