//! Runs the collections' queries and writes their documents. Each query
//! runs as `COPY (…) TO STDOUT (FORMAT binary)` in one REPEATABLE READ,
//! READ ONLY transaction (every collection sees the same moment), and its
//! rows are read as they arrive: memory holds one document at a time. Each
//! document is transcoded to BSON for the dump and kept as Extended JSON
//! for the lines file. Files are written as `NAME.partial` and renamed when
//! the collection is complete; every `checkpoint` documents they are
//! flushed to disk and the state records the last key and their lengths,
//! so that a run that stops (interrupted, killed, a lost connection) is
//! resumed by running it again. A run after a complete one writes only the
//! documents changed since, as lines for `mongoimport --mode=upsert`.

use super::buckets::{self, Keys};
use super::document::{Builder, Changed, CollectionQuery};
use super::ledger::{self, Touched};
// Re-exported so that `stream::MigrateError`, its path before it had a
// file of its own, still names it.
use super::copy_rows::CopyRows;
pub use super::error::MigrateError;
use super::state::{CollectionState, State, fingerprint};
use crate::design::Design;
use crate::inputs::postgres::{Target, catalog};
use crate::inputs::sql::map::Mapping;
use crate::model::Model;
use crate::synthetic::data::{DataFormat, database_name, metadata};
use crate::words::file_name;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct MigrateOptions {
    /// The output directory: `dump/DB/*.bson` with metadata, `data/*.json`.
    pub out: PathBuf,
    /// The namespace of the tables.
    pub namespace: String,
    pub format: DataFormat,
    /// Documents between checkpoints.
    pub checkpoint: u64,
    /// The timestamp column that tells changed rows in a later run (rows
    /// of tables without it, and every row when `None`, by `xmin`).
    pub changed_by: Option<String>,
    pub statement_timeout: Duration,
    pub connect_timeout: Duration,
    /// Set by a signal: stop at the next document, after a checkpoint.
    pub cancel: Option<Arc<AtomicBool>>,
    /// A MongoDB URI to write the documents into as well (feature
    /// `mongodb`).
    pub to: Option<String>,
}

/// Where documents go besides the files: a live deployment.
pub trait Sink {
    /// Before a collection's documents (creates it, with its validator).
    fn begin(&mut self, coll: &crate::design::Collection) -> Result<(), MigrateError>;
    /// One document; `replace` for a run of changes.
    fn put(&mut self, bson: &[u8], replace: bool) -> Result<(), MigrateError>;
    /// Deletes the document whose `_id` `filter` (a BSON document of that
    /// one field) holds.
    fn delete(&mut self, filter: &[u8]) -> Result<(), MigrateError>;
    /// Everything sent (at a checkpoint).
    fn flush(&mut self) -> Result<(), MigrateError>;
    /// After the collection's documents (its indexes).
    fn end(&mut self, coll: &crate::design::Collection) -> Result<(), MigrateError>;
}

#[cfg(feature = "mongodb")]
impl Sink for super::target::Target {
    fn begin(&mut self, coll: &crate::design::Collection) -> Result<(), MigrateError> {
        self.prepare(coll)
    }
    fn put(&mut self, bson: &[u8], replace: bool) -> Result<(), MigrateError> {
        if replace {
            self.upsert(bson)
        } else {
            self.insert(bson)
        }
    }
    fn delete(&mut self, filter: &[u8]) -> Result<(), MigrateError> {
        super::target::Target::delete(self, filter)
    }
    fn flush(&mut self) -> Result<(), MigrateError> {
        super::target::Target::flush(self)
    }
    fn end(&mut self, coll: &crate::design::Collection) -> Result<(), MigrateError> {
        self.flush()?;
        self.indexes(coll)
    }
}

/// The sink of `options.to`, connected.
fn sink(options: &MigrateOptions, database: &str) -> Result<Option<Box<dyn Sink>>, MigrateError> {
    let Some(uri) = &options.to else {
        return Ok(None);
    };
    #[cfg(feature = "mongodb")]
    {
        Ok(Some(Box::new(super::target::Target::connect(
            uri, database,
        )?)))
    }
    #[cfg(not(feature = "mongodb"))]
    {
        let _ = (uri, database);
        Err(MigrateError::Io(
            "--to needs a squill built with the `mongodb` feature (cargo install squill-cli --features mongodb); write the dump and load it with mongorestore instead".into(),
        ))
    }
}

impl Default for MigrateOptions {
    fn default() -> Self {
        MigrateOptions {
            out: PathBuf::from("migrated"),
            namespace: "public".into(),
            format: DataFormat::Both,
            checkpoint: 50_000,
            changed_by: None,
            statement_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            cancel: None,
            to: None,
        }
    }
}

/// What one run wrote.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub source: String,
    pub database: String,
    /// `None` for a full (or resumed) run; the increment's number otherwise.
    pub increment: Option<u32>,
    pub collections: Vec<CollectionSummary>,
    pub files: Vec<PathBuf>,
    pub seconds: f64,
    /// A run of changes: what it saw of deleted rows.
    pub deletions: Deletions,
}

/// What a run of changes saw of the rows deleted since the last run.
#[derive(Debug, Clone, Default)]
pub struct Deletions {
    /// Deleted rows, per table.
    pub rows: Vec<(String, u64)>,
    /// Rows whose reference changed, leaving the row they referred to.
    pub moved: u64,
    /// Rows that lost a row of their document (and were rebuilt).
    pub touched: u64,
    /// Tables without a primary key: their deletions are not seen.
    pub untracked: Vec<String>,
    /// Tables without a ledger of the last run (written by a squill
    /// before it kept one): their deletions since are not seen.
    pub unseen: Vec<String>,
    /// Bucket collections without a record of the buckets the last run
    /// wrote (a directory of a squill before it kept one): every bucket
    /// was rewritten, and buckets emptied since the last run are not seen
    /// (from now on they are).
    pub restarted: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct CollectionSummary {
    pub name: String,
    pub documents: u64,
    pub bson_bytes: u64,
    pub json_bytes: u64,
    /// Documents kept from an earlier, interrupted run.
    pub resumed: u64,
    /// Already complete before this run.
    pub skipped: bool,
    /// Documents deleted (their row was deleted), in a run of changes.
    pub deleted: u64,
    pub seconds: f64,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> MigrateError + '_ {
    move |e| MigrateError::Io(format!("{}: {e}", path.display()))
}

/// Migrates the database at `url` into the design `design` of `model`.
pub fn run(
    url: &str,
    model: &Model,
    design: &Design,
    options: &MigrateOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Summary, MigrateError> {
    let started = Instant::now();
    let target = Target::parse(url, options.connect_timeout)?;
    progress(&format!("connecting to {}", target.name));
    let mut client = target.connect(options.statement_timeout)?;
    let schema = catalog::read(&mut client, &target, &options.namespace)?;
    let mapping = Mapping::of(&schema);
    let builder = Builder::new(&schema, &mapping, model, design, &options.namespace);
    let mut queries = Vec::new();
    let mut unsupported = Vec::new();
    for c in &design.collections {
        match builder.collection(c) {
            Ok(q) => queries.push(q),
            Err(u) => unsupported.push(u),
        }
    }
    if !unsupported.is_empty() {
        return Err(MigrateError::Unsupported(unsupported));
    }
    let sources: std::collections::BTreeSet<String> =
        queries.iter().flat_map(CollectionQuery::sources).collect();
    let (layouts, untracked) = ledger::layouts(&schema, &mapping, &sources);
    let db = database_name(design);
    let mut sink = sink(options, &db)?;
    let design_print = fingerprint(
        &serde_json::to_string(
            &design
                .collections
                .iter()
                .map(|c| (&c.name, &c.shape))
                .collect::<Vec<_>>(),
        )
        .unwrap_or_default(),
    );
    std::fs::create_dir_all(&options.out).map_err(io(&options.out))?;
    let mut state = match State::load(&options.out).map_err(MigrateError::State)? {
        Some(s) if s.design != design_print => {
            return Err(MigrateError::State(format!(
                "{} holds a migration to another design (the model or its advice changed); use another directory, or remove it to start over",
                options.out.display()
            )));
        }
        Some(s) if s.source != target.name => {
            return Err(MigrateError::State(format!(
                "{} holds a migration of {}, not of {}",
                options.out.display(),
                s.source,
                target.name
            )));
        }
        Some(s) => s,
        None => State {
            source: target.name.clone(),
            design: design_print,
            ..State::default()
        },
    };
    let incremental = state.complete();
    let mut tx = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(|e| target.classify(&e, "starting a read-only transaction"))?;
    tx.batch_execute("SET LOCAL TimeZone = 'UTC'; SET LOCAL statement_timeout = 0")
        .map_err(|e| target.classify(&e, "setting up the transaction"))?;
    let row = tx
        .query_one(
            &format!(
                "{} SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::int8 % 4294967296)::int8, now()::text",
                crate::inputs::postgres::connect::MARK
            ),
            &[],
        )
        .map_err(|e| target.classify(&e, "reading the snapshot"))?;
    let (xmin, now): (i64, String) = (row.get(0), row.get(1));
    let changed = if incremental {
        Some(match &options.changed_by {
            Some(column) => Changed::Column {
                column: column.clone(),
                since: state.baseline_time.clone(),
                xmin: state.baseline_xmin,
            },
            None => Changed::Xmin(state.baseline_xmin),
        })
    } else {
        if state.collections.is_empty() {
            state.baseline_xmin = xmin as u32;
            state.baseline_time = now.clone();
        }
        None
    };
    // The rows as this snapshot has them, for the next run to see what was
    // deleted: at the baseline of a full run, and at every run of changes,
    // which compares them with the last run's.
    let diff = if incremental || state.collections.is_empty() {
        progress("reading the keys of the rows");
        let diff = ledger::read(
            &mut tx,
            &target,
            &options.namespace,
            &options.out,
            &layouts,
            incremental,
        )?;
        if !incremental {
            ledger::commit(&options.out, &layouts)?;
        }
        diff
    } else {
        ledger::Diff::default()
    };
    let mut summary = Summary {
        source: target.name.clone(),
        database: db.clone(),
        increment: incremental.then_some(state.increments + 1),
        ..Summary::default()
    };
    let dump_dir = options.out.join("dump").join(&db);
    let data_dir = options.out.join("data");
    let inc_dir = options
        .out
        .join("increments")
        .join(format!("{:04}", state.increments + 1));
    // Every file named before any is written: a name that would leave its
    // folder, or two that would write one file, stop the run here.
    let all_files = queries
        .iter()
        .map(|q| {
            Files::of(
                &q.collection,
                incremental,
                options.format,
                (&dump_dir, &data_dir, &inc_dir),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let every_path: Vec<PathBuf> = all_files
        .iter()
        .flat_map(|f| [&f.bson, &f.meta, &f.json])
        .flatten()
        .cloned()
        .collect();
    if let Some(p) = file_name::repeated(&every_path) {
        return Err(MigrateError::SameFile(p.clone()));
    }
    // Bucket collections whose record this run rewrote, put in place with
    // the ledger.
    let mut records = Vec::new();
    let mut restarted = Vec::new();
    for ((q, coll), files) in queries.iter().zip(&design.collections).zip(all_files) {
        let prior = state
            .collections
            .get(&q.collection)
            .cloned()
            .unwrap_or_default();
        if !incremental && prior.done {
            summary.collections.push(CollectionSummary {
                name: q.collection.clone(),
                documents: prior.documents,
                bson_bytes: prior.bson_bytes,
                json_bytes: prior.json_bytes,
                skipped: true,
                ..CollectionSummary::default()
            });
            continue;
        }
        progress(&format!(
            "{} {} (from {})",
            if incremental { "changes of" } else { "writing" },
            q.collection,
            q.tables.join(", ")
        ));
        let t0 = Instant::now();
        let resume = (!incremental && prior.last_key.is_some()).then_some(&prior);
        // A bucket collection keeps the record of its buckets; without one
        // of the last run, a run of changes rewrites every bucket.
        let mut keys = match (q.buckets(), incremental) {
            (None, _) => Keys::Not,
            (Some(_), false) => Keys::Record(buckets::Writer::create(&options.out, &q.collection)?),
            (Some(_), true) => Keys::Changes(buckets::Written::default()),
        };
        let restart =
            incremental && q.buckets().is_some() && !buckets::exists(&options.out, &q.collection);
        let changed_here = if restart {
            restarted.push(q.collection.clone());
            Some(Changed::Everything)
        } else {
            changed.clone()
        };
        if let Some(s) = sink.as_mut() {
            progress(&format!(
                "{} into {}",
                q.collection,
                options.to.as_deref().map_or("", |_| "MongoDB")
            ));
            s.begin(coll)?;
        }
        let written = copy_collection(
            &mut tx,
            &target,
            q,
            changed_here.as_ref().map(|c| (c, &diff.touched)),
            resume,
            &files,
            options,
            sink.as_deref_mut(),
            &mut keys,
            &mut |cs: &CollectionState| {
                state.collections.insert(q.collection.clone(), cs.clone());
                progress(&format!(
                    "{}: {} documents, checkpoint after key {}",
                    q.collection,
                    crate::words::int(cs.documents),
                    cs.last_key.as_deref().unwrap_or("?")
                ));
                state.save(&options.out).map_err(MigrateError::State)
            },
        )?;
        let deleted = if incremental {
            // The buckets of the parents rebuilt that were not written
            // again.
            let gone = match (&keys, q.buckets()) {
                (Keys::Changes(written), Some(b)) => {
                    let key = [b.parent_key.clone()];
                    let parents = diff.touched.values(&b.parent, &key).into_iter().flatten();
                    let parents = parents.filter_map(|v| match v.as_slice() {
                        [one] => Some(one),
                        _ => None,
                    });
                    let gone = buckets::reconcile(&options.out, &q.collection, written, parents)?;
                    records.push(q.collection.clone());
                    gone.unwrap_or_default()
                }
                _ => Vec::new(),
            };
            let gone: Vec<String> = gone
                .iter()
                .map(|hex| format!("{{\"$oid\":\"{hex}\"}}"))
                .collect();
            let (n, file) = delete_documents(
                &mut tx,
                &target,
                q,
                &diff,
                &layouts,
                &gone,
                &inc_dir,
                sink.as_deref_mut(),
            )?;
            summary.files.extend(file);
            n
        } else {
            0
        };
        if let Some(s) = sink.as_mut() {
            if incremental {
                s.flush()?;
            } else {
                s.end(coll)?;
            }
        }
        if !incremental {
            if let Keys::Record(w) = keys {
                w.finish()?;
            }
            if let (Some(b), Some(meta)) = (&files.bson, files.meta.clone()) {
                let text = serde_json::to_string_pretty(&metadata(coll, 1)).unwrap_or_default();
                crate::synthetic::write::write_file(&meta, text.as_bytes())
                    .map_err(|e| MigrateError::Io(format!("{}: {e}", meta.display())))?;
                summary.files.push(b.clone());
                summary.files.push(meta);
            }
            if let Some(j) = &files.json {
                summary.files.push(j.clone());
            }
            let mut done = written.clone();
            done.done = true;
            done.last_key = None;
            state.collections.insert(q.collection.clone(), done);
            state.save(&options.out).map_err(MigrateError::State)?;
        } else if let Some(j) = &files.json {
            summary.files.push(j.clone());
        }
        summary.collections.push(CollectionSummary {
            name: q.collection.clone(),
            documents: written.documents,
            bson_bytes: written.bson_bytes,
            json_bytes: written.json_bytes,
            resumed: resume.map_or(0, |p| p.documents),
            skipped: false,
            deleted,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    tx.commit()
        .map_err(|e| target.classify(&e, "ending the transaction"))?;
    if incremental {
        state.increments += 1;
        state.baseline_xmin = xmin as u32;
        state.baseline_time = now;
        state.save(&options.out).map_err(MigrateError::State)?;
        // After the state: a run that fails before keeps the old ledger,
        // and the next one sees the same deletions again. The records of
        // buckets first: a run stopped between the two sees the deletions
        // again and finds their buckets already gone from the record.
        for c in &records {
            buckets::commit(&options.out, c)?;
        }
        ledger::commit(&options.out, &layouts)?;
        summary.deletions = Deletions {
            rows: diff
                .deleted
                .iter()
                .map(|(t, keys)| (t.clone(), keys.len() as u64))
                .collect(),
            moved: diff.moved,
            touched: diff.touched.rows() as u64,
            untracked,
            unseen: diff.unseen,
            restarted,
        };
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The documents of `q` whose rows `diff` saw deleted, and the buckets
/// `gone` (their `_id`s as JSON): their `_id`s written to
/// `dir/NAME.deleted.json` (for `mongoimport --mode=delete`) and deleted
/// through `sink`. Returns how many, and the file.
#[allow(clippy::too_many_arguments)] // the pieces of one step, named
fn delete_documents(
    tx: &mut postgres::Transaction<'_>,
    target: &Target,
    q: &CollectionQuery,
    diff: &ledger::Diff,
    layouts: &[ledger::Layout],
    gone: &[String],
    dir: &Path,
    mut sink: Option<&mut (dyn Sink + 'static)>,
) -> Result<(u64, Option<PathBuf>), MigrateError> {
    let mut ids = Vec::new();
    for (table, keys) in &diff.deleted {
        let Some(layout) = layouts.iter().find(|l| &l.table == table) else {
            continue;
        };
        let Some(sql) = q.deleted_ids(table, &layout.key, keys) else {
            continue;
        };
        let rows = tx.query(sql.as_str(), &[]).map_err(|e| {
            target.classify(&e, &format!("the _id of the rows deleted from {table}"))
        })?;
        ids.extend(rows.iter().filter_map(|r| r.get::<_, Option<String>>(0)));
    }
    ids.extend(gone.iter().cloned());
    if ids.is_empty() {
        return Ok((0, None));
    }
    let (mut scratch, mut doc, mut json) =
        (super::assemble::Scratch::default(), Vec::new(), Vec::new());
    let mut text = String::new();
    for id in &ids {
        let line = format!("{{\"_id\":{id}}}");
        if let Some(s) = sink.as_deref_mut() {
            super::assemble::document(&[], [], line.as_bytes(), &mut scratch, &mut doc, &mut json)
                .map_err(|e| MigrateError::Data(format!("{}: the _id {id}: {e}", q.collection)))?;
            s.delete(&doc)?;
        }
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = file_name::file_in(dir, &q.collection, ".deleted.json")?;
    crate::synthetic::write::write_file(&path, text.as_bytes())
        .map_err(|e| MigrateError::Io(format!("{}: {e}", path.display())))?;
    Ok((ids.len() as u64, Some(path)))
}

/// Where one collection goes.
struct Files {
    bson: Option<PathBuf>,
    /// mongodump's `COLL.metadata.json`, beside `bson`.
    meta: Option<PathBuf>,
    json: Option<PathBuf>,
}

impl Files {
    /// The files of `collection`, its name encoded as mongodump encodes it
    /// (`words::file_name`): the dump and the Extended JSON lines of a
    /// first run, or the lines of changes of an increment.
    fn of(
        collection: &str,
        incremental: bool,
        format: DataFormat,
        (dump_dir, data_dir, inc_dir): (&Path, &Path, &Path),
    ) -> Result<Files, MigrateError> {
        let file = |dir: &Path, suffix: &str| file_name::file_in(dir, collection, suffix);
        if incremental {
            return Ok(Files {
                bson: None,
                meta: None,
                json: Some(file(inc_dir, ".json")?),
            });
        }
        let dump = format.dump();
        Ok(Files {
            bson: dump.then(|| file(dump_dir, ".bson")).transpose()?,
            meta: dump.then(|| file(dump_dir, ".metadata.json")).transpose()?,
            json: format
                .ejson()
                .then(|| file(data_dir, ".json"))
                .transpose()?,
        })
    }
}

fn partial(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// A file being written: `NAME.partial`, cut to `keep` bytes (what the last
/// checkpoint had) and appended to.
fn open(path: &Path, keep: u64) -> Result<(BufWriter<File>, PathBuf), MigrateError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let p = partial(path);
    let f = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(keep == 0)
        .open(&p)
        .map_err(io(&p))?;
    f.set_len(keep).map_err(io(&p))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    std::io::Seek::seek(w.get_mut(), std::io::SeekFrom::Start(keep)).map_err(io(&p))?;
    Ok((w, p))
}

/// Syncs a complete `.partial` file and renames it into place; its length.
fn finish(w: &mut BufWriter<File>, partial: &Path, target: &Path) -> Result<u64, MigrateError> {
    let len = sync(w, partial)?;
    std::fs::rename(partial, target).map_err(io(target))?;
    Ok(len)
}

/// Flushes and syncs a file, then returns its length.
fn sync(w: &mut BufWriter<File>, p: &Path) -> Result<u64, MigrateError> {
    w.flush().map_err(io(p))?;
    w.get_ref().sync_data().map_err(io(p))?;
    w.get_ref().metadata().map(|m| m.len()).map_err(io(p))
}

#[allow(clippy::too_many_arguments)] // the pieces of one step, named
fn copy_collection(
    tx: &mut postgres::Transaction<'_>,
    target: &Target,
    q: &CollectionQuery,
    changes: Option<(&Changed, &Touched)>,
    resume: Option<&CollectionState>,
    files: &Files,
    options: &MigrateOptions,
    sink: Option<&mut (dyn Sink + 'static)>,
    keys: &mut Keys,
    checkpoint: &mut dyn FnMut(&CollectionState) -> Result<(), MigrateError>,
) -> Result<CollectionState, MigrateError> {
    let changed = changes.map(|(c, _)| c);
    let untouched = Touched::default();
    let touched = changes.map_or(&untouched, |(_, t)| t);
    let mut cs = resume.cloned().unwrap_or_default();
    cs.done = false;
    let mut bson = match &files.bson {
        Some(p) => Some(open(p, cs.bson_bytes)?),
        None => None,
    };
    let mut json = match &files.json {
        Some(p) => Some(open(p, if resume.is_some() { cs.json_bytes } else { 0 })?),
        None => None,
    };
    let sql = format!(
        "COPY ({} {}) TO STDOUT (FORMAT binary)",
        crate::inputs::postgres::connect::MARK,
        q.select_touched(resume.and_then(|r| r.last_key.as_deref()), changed, touched)
    );
    let reader = tx
        .copy_out(sql.as_str())
        .map_err(|e| target.classify(&e, &format!("reading collection {}", q.collection)))?;
    let split = q.arrays(changed);
    let width = match split {
        Some((all, _)) => all.len() + 3,
        None => q.columns.len() + 2,
    };
    let mut rows = CopyRows::new(BufReader::with_capacity(1 << 20, reader), width)
        .map_err(|e| MigrateError::Data(format!("{}: {e}", q.collection)))?;
    let mut doc = Vec::with_capacity(16 << 10);
    let mut text = Vec::with_capacity(16 << 10);
    let mut scratch = super::assemble::Scratch::default();
    let mut out = Out {
        bson: bson.as_mut(),
        json: json.as_mut(),
        sink,
        keys,
        since: 0,
        replace: changed.is_some(),
        resumable: q.key.is_some() && changed.is_none(),
    };
    let failed = |key: &[u8], e: String| {
        MigrateError::Data(format!(
            "{}: document with key {}: {e}",
            q.collection,
            String::from_utf8_lossy(key)
        ))
    };
    let read =
        |e: std::io::Error| MigrateError::Data(format!("{}: reading the rows: {e}", q.collection));
    match split {
        None => {
            while rows.next_row().map_err(read)? {
                let key = rows.field(0).unwrap_or_default();
                let values = (1..=q.columns.len()).map(|i| rows.field(i));
                let rest = rows.field(q.columns.len() + 1).unwrap_or(b"{}");
                super::assemble::document(
                    &q.columns,
                    values,
                    rest,
                    &mut scratch,
                    &mut doc,
                    &mut text,
                )
                .map_err(|e| failed(key, e))?;
                out.put(&doc, &text, key, &mut cs, options, checkpoint)?;
            }
        }
        Some((all, arrays)) => {
            // A document's rows arrive together: its own (tag 0), then
            // each array's child rows (tag i), in the arrays' order.
            let root_n = q.columns.len();
            let mut offsets = Vec::with_capacity(arrays.len());
            let mut at = 2 + root_n;
            for a in arrays {
                offsets.push(at);
                at += a.columns.len();
            }
            let mut items =
                super::assemble::Arrays::new(arrays.iter().map(|a| a.name.clone()).collect());
            let mut open: Option<Vec<u8>> = None;
            while rows.next_row().map_err(read)? {
                let tag = rows.field(0).and_then(|t| <[u8; 2]>::try_from(t).ok());
                let tag = tag.map_or(-1, i16::from_be_bytes);
                let key = rows.field(1).unwrap_or_default();
                if tag == 0 {
                    if let Some(k) = open.take() {
                        items
                            .close(&mut doc, &mut text)
                            .map_err(|e| failed(&k, e))?;
                        out.put(&doc, &text, &k, &mut cs, options, checkpoint)?;
                    }
                    let values = (2..2 + root_n).map(|i| rows.field(i));
                    let rest = rows.field(all.len() + 2).unwrap_or(b"{}");
                    super::assemble::document(
                        &all[..root_n],
                        values,
                        rest,
                        &mut scratch,
                        &mut doc,
                        &mut text,
                    )
                    .map_err(|e| failed(key, e))?;
                    items.clear();
                    open = Some(key.to_vec());
                    continue;
                }
                // A child row of the open document; one whose parent is
                // not there (a dangling reference) is no item of any.
                let i = usize::try_from(tag - 1).unwrap_or(usize::MAX);
                let (Some(a), Some(k)) = (arrays.get(i), open.as_deref()) else {
                    continue;
                };
                if k != key {
                    continue;
                }
                let values = (offsets[i]..offsets[i] + a.columns.len()).map(|c| rows.field(c));
                items
                    .push(i, &a.columns, a.scalar, values, &mut scratch)
                    .map_err(|e| failed(key, e))?;
            }
            if let Some(k) = open.take() {
                items
                    .close(&mut doc, &mut text)
                    .map_err(|e| failed(&k, e))?;
                out.put(&doc, &text, &k, &mut cs, options, checkpoint)?;
            }
        }
    }
    // Complete: in place, whole.
    if let (Some((w, p)), Some(t)) = (&mut bson, &files.bson) {
        cs.bson_bytes = finish(w, p, t)?;
    }
    if let (Some((w, p)), Some(t)) = (&mut json, &files.json) {
        cs.json_bytes = finish(w, p, t)?;
    }
    Ok(cs)
}

/// Where a collection's documents go, and when to checkpoint.
struct Out<'a> {
    bson: Option<&'a mut (BufWriter<File>, PathBuf)>,
    json: Option<&'a mut (BufWriter<File>, PathBuf)>,
    sink: Option<&'a mut (dyn Sink + 'static)>,
    /// The record of a bucket collection's documents.
    keys: &'a mut Keys,
    /// Documents since the last checkpoint.
    since: u64,
    /// A run of changes: documents replace those with their `_id`.
    replace: bool,
    /// Whether checkpoints can record a key to resume after.
    resumable: bool,
}

impl Out<'_> {
    /// One complete document, `doc` as BSON and `text` as Extended JSON,
    /// with key `key`; a checkpoint when one is due or a stop was asked
    /// (then `Interrupted` after it).
    fn put(
        &mut self,
        doc: &[u8],
        text: &[u8],
        key: &[u8],
        cs: &mut CollectionState,
        options: &MigrateOptions,
        checkpoint: &mut dyn FnMut(&CollectionState) -> Result<(), MigrateError>,
    ) -> Result<(), MigrateError> {
        if let Some((w, p)) = self.bson.as_deref_mut() {
            w.write_all(doc).map_err(io(p))?;
        }
        if let Some(s) = self.sink.as_deref_mut() {
            s.put(doc, self.replace)?;
        }
        if let Some((w, p)) = self.json.as_deref_mut() {
            w.write_all(text).map_err(io(p))?;
            w.write_all(b"\n").map_err(io(p))?;
        }
        self.keys.push(key)?;
        cs.documents += 1;
        self.since += 1;
        let stop = options
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed));
        if (self.since >= options.checkpoint || stop) && self.resumable {
            self.since = 0;
            cs.last_key = Some(String::from_utf8_lossy(key).to_string());
            if let Some((w, p)) = self.bson.as_deref_mut() {
                cs.bson_bytes = sync(w, p)?;
            }
            if let Some((w, p)) = self.json.as_deref_mut() {
                cs.json_bytes = sync(w, p)?;
            }
            if let Some(s) = self.sink.as_deref_mut() {
                s.flush()?;
            }
            checkpoint(cs)?;
        }
        if stop {
            return Err(MigrateError::Interrupted);
        }
        Ok(())
    }
}
