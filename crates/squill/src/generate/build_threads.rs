//! Threads that build and encode documents in batches, so that generating
//! data uses every core while the files stay byte for byte what one thread
//! writes.
//!
//! Every document is a pure function of its root (which instance, under which
//! parent) and the seed (`population`), so the caller can enumerate the roots
//! alone (as runs of consecutive instances: `roots`), cut them into batches
//! and hand each batch, with two empty buffers, to whichever thread is free. Each thread has its own `Population` (whose
//! only state is a cursor that makes consecutive parents cheap), its own
//! plans of the collection (`RunEncoder`) and its own scratch space. `Pool::next` gives the built
//! batches back in the order they were sent, whatever order they finish in,
//! and the caller hands their buffers to the writer thread: the bytes on disk
//! do not depend on the number of threads, and a test checks it.
//!
//! Memory: the caller keeps at most `Pool::max_in_flight` batches out, each
//! sized (from the bytes per root seen so far) to about one writer chunk.

use super::GenerateError;
use super::documents::{Builder, Fanout};
use super::encode_runs::RunEncoder;
use super::population::Population;
use super::roots::Run;
use super::values::Scratch;
use crate::design::Design;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};

/// One batch of runs of roots of one collection, with the buffers to
/// encode into.
struct Job {
    seq: u64,
    coll: usize,
    runs: Vec<Run>,
    json: Vec<u8>,
    bson: Vec<u8>,
}

/// A batch's documents, encoded.
pub(super) struct Built {
    pub roots: u64,
    /// Extended JSON lines (empty when not asked for).
    pub json: Vec<u8>,
    /// BSON documents (empty when not asked for).
    pub bson: Vec<u8>,
}

/// The caller's side of the builder threads.
pub(super) struct Pool {
    jobs: Sender<Job>,
    done: Receiver<(u64, Result<Built, String>)>,
    /// Finished out of order, waiting for the batches before them.
    waiting: BTreeMap<u64, Result<Built, String>>,
    sent: u64,
    returned: u64,
    threads: usize,
    /// Named in errors.
    dir: PathBuf,
}

/// The number of threads for `threads` (0: one per core).
pub(super) fn thread_count(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        std::thread::available_parallelism().map_or(1, usize::from)
    }
}

/// Runs `body` with `threads` builder threads for `design`'s collections
/// (encoding Extended JSON and/or BSON); they stop when `body` returns.
pub(super) fn with_pool<R>(
    pop: &Population<'_>,
    design: &Design,
    (json, bson): (bool, bool),
    threads: usize,
    dir: &Path,
    body: impl FnOnce(&mut Pool) -> Result<R, GenerateError>,
) -> Result<R, GenerateError> {
    let threads = threads.max(1);
    let (jobs, inbox) = channel::<Job>();
    let inbox = Mutex::new(inbox);
    std::thread::scope(|scope| {
        let (done_tx, done) = channel();
        for i in 0..threads {
            let (inbox, done_tx, worker_pop) = (&inbox, done_tx.clone(), pop.clone());
            std::thread::Builder::new()
                .name(format!("squill-build-{i}"))
                .spawn_scoped(scope, move || {
                    build(&worker_pop, design, (json, bson), inbox, &done_tx);
                })
                .map_err(|source| GenerateError::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
        }
        drop(done_tx);
        let mut pool = Pool {
            jobs,
            done,
            waiting: BTreeMap::new(),
            sent: 0,
            returned: 0,
            threads,
            dir: dir.to_path_buf(),
        };
        let result = body(&mut pool);
        // Closing the queue stops the threads; the scope waits for them.
        drop(pool);
        result
    })
}

impl Pool {
    /// Batches out at most: enough to keep every thread busy while the
    /// caller writes one.
    pub fn max_in_flight(&self) -> u64 {
        2 * self.threads as u64 + 2
    }

    pub fn in_flight(&self) -> u64 {
        self.sent - self.returned
    }

    /// Queues a batch of `coll`'s roots (as runs) with the buffers to encode
    /// them into.
    pub fn send(
        &mut self,
        coll: usize,
        runs: Vec<Run>,
        json: Vec<u8>,
        bson: Vec<u8>,
    ) -> Result<(), GenerateError> {
        let job = Job {
            seq: self.sent,
            coll,
            runs,
            json,
            bson,
        };
        if self.jobs.send(job).is_err() {
            return Err(self.stopped("every generating thread has stopped"));
        }
        self.sent += 1;
        Ok(())
    }

    /// The oldest batch not yet returned, once built.
    pub fn next(&mut self) -> Result<Built, GenerateError> {
        let seq = self.returned;
        loop {
            if let Some(built) = self.waiting.remove(&seq) {
                self.returned += 1;
                return built.map_err(|why| self.stopped(&why));
            }
            match self.done.recv() {
                Ok((s, built)) => {
                    self.waiting.insert(s, built);
                }
                Err(_) => return Err(self.stopped("every generating thread has stopped")),
            }
        }
    }

    fn stopped(&self, why: &str) -> GenerateError {
        GenerateError::Io {
            path: self.dir.clone(),
            source: std::io::Error::other(why.to_string()),
        }
    }
}

/// One builder thread: batches in, encoded batches out, until the queue
/// closes or the caller stops listening.
fn build(
    pop: &Population<'_>,
    design: &Design,
    (json, bson): (bool, bool),
    inbox: &Mutex<Receiver<Job>>,
    done: &Sender<(u64, Result<Built, String>)>,
) {
    let builder = Builder {
        pop,
        fanout: Fanout::Drawn,
    };
    let mut scratch = Scratch::default();
    let mut encoder: Option<(usize, RunEncoder<'_>)> = None;
    loop {
        let job = match inbox.lock() {
            Ok(inbox) => inbox.recv(),
            Err(_) => return,
        };
        let Ok(mut job) = job else { return };
        let Some(coll) = design.collections.get(job.coll) else {
            return;
        };
        if encoder.as_ref().is_none_or(|(c, _)| *c != job.coll) {
            encoder = Some((job.coll, RunEncoder::new(pop, coll)));
        }
        let Some((_, encoder)) = &mut encoder else {
            return;
        };
        // A panic here would otherwise leave the caller waiting for this
        // batch forever: it comes back as this batch's error instead.
        let built = catch_unwind(AssertUnwindSafe(|| {
            for run in &job.runs {
                let (jbuf, bbuf) = (json.then_some(&mut job.json), bson.then_some(&mut job.bson));
                encoder.encode(&builder, run, jbuf, bbuf, &mut scratch);
            }
        }))
        .map(|()| Built {
            roots: job.runs.iter().map(Run::len).sum(),
            json: job.json,
            bson: job.bson,
        })
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            format!("a generating thread failed: {what}")
        });
        if done.send((job.seq, built)).is_err() {
            return;
        }
    }
}
