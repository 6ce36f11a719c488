//! Building and encoding documents on every core, in order: rayon maps a
//! window of batches (each a list of runs of roots with two empty buffers)
//! to their encoded bytes and collects them in the order they were listed,
//! so the files stay byte for byte what one thread writes (a test checks it).
//!
//! Every document is a pure function of its root and the seed
//! (`population`). The only state a worker keeps is its own clone of the
//! `Population` (whose cursor makes consecutive parents cheap), the
//! collection's plans (`RunEncoder`) and scratch space; they are leased to
//! rayon's splits (`map_init`) and kept between windows.

use super::GenerateError;
use super::documents::{Builder, Fanout};
use super::encode_runs::RunEncoder;
use super::population::Population;
use super::roots::Run;
use super::values::Scratch;
use crate::design::Design;
use rayon::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One batch of runs of roots of one collection, with the buffers to
/// encode into.
pub(super) struct Batch {
    pub runs: Vec<Run>,
    pub json: Vec<u8>,
    pub bson: Vec<u8>,
}

/// A batch's documents, encoded.
pub(super) struct Built {
    pub roots: u64,
    /// Extended JSON lines (empty when not asked for).
    pub json: Vec<u8>,
    /// BSON documents (empty when not asked for).
    pub bson: Vec<u8>,
}

/// A pool of builders for one design.
pub(super) struct Builders<'a> {
    pool: rayon::ThreadPool,
    /// Workers' states between windows, so plans and scratch space are made
    /// once per thread rather than once per window.
    idle: Mutex<Vec<Worker<'a>>>,
    /// What a new worker clones: the cursor inside is not shared.
    pop: Mutex<Population<'a>>,
    design: &'a Design,
    /// Extended JSON, BSON.
    format: (bool, bool),
    /// Named in errors.
    dir: PathBuf,
}

/// What one worker keeps: its population, scratch space and the plans of
/// the collection it built last.
struct Worker<'a> {
    pop: Population<'a>,
    scratch: Scratch,
    encoder: Option<(usize, RunEncoder<'a>)>,
}

/// A worker taken from `Builders::idle`, given back when dropped.
struct Lease<'s, 'a> {
    idle: &'s Mutex<Vec<Worker<'a>>>,
    worker: Option<Worker<'a>>,
}

impl Drop for Lease<'_, '_> {
    fn drop(&mut self) {
        if let (Some(worker), Ok(mut idle)) = (self.worker.take(), self.idle.lock()) {
            idle.push(worker);
        }
    }
}

/// The number of threads for `threads` (0: one per core).
pub(super) fn thread_count(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        std::thread::available_parallelism().map_or(1, usize::from)
    }
}

impl<'a> Builders<'a> {
    pub(super) fn new(
        pop: &Population<'a>,
        design: &'a Design,
        format: (bool, bool),
        threads: usize,
        dir: &Path,
    ) -> Result<Self, GenerateError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("squill-build-{i}"))
            .build()
            .map_err(|e| GenerateError::Io {
                path: dir.to_path_buf(),
                source: std::io::Error::other(e.to_string()),
            })?;
        Ok(Builders {
            pool,
            idle: Mutex::new(Vec::new()),
            pop: Mutex::new(pop.clone()),
            design,
            format,
            dir: dir.to_path_buf(),
        })
    }

    /// Batches built together: enough that every thread has several, so
    /// the one that finishes last idles the others only briefly.
    pub(super) fn window(&self) -> usize {
        2 * self.pool.current_num_threads() + 2
    }

    /// An idle worker, or a new one.
    fn lease(&self) -> Lease<'_, 'a> {
        let worker = match self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            Some(worker) => Some(worker),
            None => self.pop.lock().ok().map(|pop| Worker {
                pop: pop.clone(),
                scratch: Scratch::default(),
                encoder: None,
            }),
        };
        Lease {
            idle: &self.idle,
            worker,
        }
    }

    /// Encodes `batches` of collection `coll`, returned in their order.
    pub(super) fn build(
        &self,
        coll: usize,
        batches: Vec<Batch>,
    ) -> Result<Vec<Built>, GenerateError> {
        let Some(collection) = self.design.collections.get(coll) else {
            return Ok(Vec::new());
        };
        let (json, bson) = self.format;
        // A panic in a worker comes back to this thread as an error, with
        // the files being written removed by the caller.
        catch_unwind(AssertUnwindSafe(|| {
            self.pool.install(|| {
                batches
                    .into_par_iter()
                    .map_init(
                        || self.lease(),
                        |lease, mut batch| {
                            let Worker {
                                pop,
                                scratch,
                                encoder,
                            } = lease.worker.as_mut()?;
                            if encoder.as_ref().is_none_or(|(c, _)| *c != coll) {
                                *encoder = Some((coll, RunEncoder::new(pop, collection)));
                            }
                            let (_, encoder) = encoder.as_mut()?;
                            let builder = Builder::new(pop, Fanout::Drawn);
                            for run in &batch.runs {
                                let j = json.then_some(&mut batch.json);
                                let b = bson.then_some(&mut batch.bson);
                                encoder.encode(&builder, run, j, b, scratch);
                            }
                            Some(Built {
                                roots: batch.runs.iter().map(Run::len).sum(),
                                json: batch.json,
                                bson: batch.bson,
                            })
                        },
                    )
                    .collect::<Option<Vec<Built>>>()
            })
        }))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            self.stopped(&format!("a generating thread failed: {what}"))
        })?
        .ok_or_else(|| self.stopped("a generating thread failed"))
    }

    fn stopped(&self, why: &str) -> GenerateError {
        GenerateError::Io {
            path: self.dir.clone(),
            source: std::io::Error::other(why.to_string()),
        }
    }
}
