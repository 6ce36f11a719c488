//! One thread that owns the data files and writes them, so that building and
//! encoding documents (on the calling thread) overlaps with the disk instead
//! of alternating with it.
//!
//! The caller fills buffers of about two megabytes and hands them over a
//! bounded channel; the writer appends them to its `AtomicFile`s and hands the
//! emptied buffers back, so memory is a few dozen chunks whatever the scale
//! (the caller allocates only when none has come back). The writer hands the
//! kernel at most `WRITE_PIECE` per `write`: single writes of 3-4 MiB made the
//! kernel's copy several times slower here (BENCHMARKS.md). An earlier note
//! blamed the CPU cache for that; a C program writing one reused buffer showed
//! the same slowdown, so it is the size of the write.
//!
//! Every `sync_every` bytes appended to a file, the writer asks a third thread
//! to `fdatasync` it, without waiting. Without that the kernel keeps all the
//! data in its page cache (with the usual `vm.dirty_background_ratio` of 10%
//! and `dirty_expire_centisecs` of 30 s it starts writing back only at
//! gigabytes of dirty data or after 30 s) and the disk starts at the fsync at
//! close, after generation is over; with it the disk works while documents are built, and
//! the final fsync has only the tail left. The syncing thread opens the file
//! on its own descriptor and ignores its errors: a write-back error is
//! reported to every descriptor open when it happens, so the writer's own
//! fsync at commit still sees it, and it alone decides whether the file is
//! renamed into place.
//!
//! Errors: the writer stops at its first I/O error, drops its open files
//! (which removes their temporary files) and its end of the channel; the
//! caller's next hand-over fails, and the caller then joins the writer and
//! returns its error, with the path. Files are renamed into place only on an
//! explicit commit, so stopping early on either side never leaves a file
//! behind.

use super::GenerateError;
use super::write::{AtomicFile, RESERVE_AHEAD, write_file};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

/// Sizes of the hand-over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// The size a buffer is made for: a batch of documents is sized to
    /// about this many bytes (`data::Sizer`).
    pub chunk: usize,
    /// Buffers waiting for the writer at most; the caller blocks beyond.
    pub queue: usize,
    /// Bytes appended to one file between two requests to write it back.
    pub sync_every: u64,
}

impl Tuning {
    /// Batches of 2 MiB rather than 1 MiB: `generate data` of host-logs at
    /// scale 9 took 4-8% less time in three alternated series and the same
    /// in a fourth (BENCHMARKS.md); larger ones were slower.
    pub(crate) const DEFAULT: Tuning = Tuning {
        chunk: 2 << 20,
        queue: 8,
        sync_every: 32 << 20,
    };
}

/// What the writer wrote: the committed files, in the order of the commits.
#[derive(Debug, Default)]
pub(super) struct Committed {
    pub files: Vec<PathBuf>,
}

/// Which open file a job is for: the caller numbers them.
pub(super) type Slot = usize;

enum Job {
    Create { slot: Slot, path: PathBuf },
    Append { slot: Slot, bytes: Vec<u8> },
    Commit { slot: Slot },
    Whole { path: PathBuf, bytes: Vec<u8> },
}

/// The caller's handle on the writer thread.
pub(super) struct WriteThread {
    jobs: Option<SyncSender<Job>>,
    free: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<Result<Committed, GenerateError>>>,
    /// Named in the error when the thread cannot start or dies.
    dir: PathBuf,
    tuning: Tuning,
}

impl WriteThread {
    /// Starts the writer; `dir` is where the files go (for error messages).
    pub(super) fn start(dir: &Path, tuning: Tuning) -> Result<Self, GenerateError> {
        let (jobs, inbox) = sync_channel(tuning.queue.max(1));
        let (done, free) = channel();
        let thread = std::thread::Builder::new()
            .name("squill-write".into())
            .spawn(move || run(&inbox, &done, tuning.sync_every))
            .map_err(|source| GenerateError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        Ok(WriteThread {
            jobs: Some(jobs),
            free,
            thread: Some(thread),
            dir: dir.to_path_buf(),
            tuning,
        })
    }

    /// An empty buffer: one the writer handed back, or a new one.
    pub(super) fn buffer(&self) -> Vec<u8> {
        self.free
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(self.tuning.chunk + (self.tuning.chunk >> 3)))
    }

    pub(super) fn create(&mut self, slot: Slot, path: PathBuf) -> Result<(), GenerateError> {
        self.send(Job::Create { slot, path })
    }

    pub(super) fn append(&mut self, slot: Slot, bytes: Vec<u8>) -> Result<(), GenerateError> {
        self.send(Job::Append { slot, bytes })
    }

    /// fsync and rename into place.
    pub(super) fn commit(&mut self, slot: Slot) -> Result<(), GenerateError> {
        self.send(Job::Commit { slot })
    }

    /// Writes a whole small file (after the jobs before it).
    pub(super) fn whole(&mut self, path: PathBuf, bytes: Vec<u8>) -> Result<(), GenerateError> {
        self.send(Job::Whole { path, bytes })
    }

    /// Waits for every job: what was committed.
    pub(super) fn finish(mut self) -> Result<Committed, GenerateError> {
        self.join()
    }

    fn send(&mut self, job: Job) -> Result<(), GenerateError> {
        let sent = match &self.jobs {
            Some(jobs) => jobs.send(job).is_ok(),
            None => false,
        };
        if sent {
            return Ok(());
        }
        // The writer stopped: its error says why.
        match self.join() {
            Err(e) => Err(e),
            Ok(_) => Err(self.died()),
        }
    }

    fn join(&mut self) -> Result<Committed, GenerateError> {
        self.jobs = None;
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or_else(|_| Err(self.died())),
            None => Err(self.died()),
        }
    }

    fn died(&self) -> GenerateError {
        GenerateError::Io {
            path: self.dir.clone(),
            source: std::io::Error::other("the writer thread stopped"),
        }
    }
}

impl Drop for WriteThread {
    /// Closing the channel without commits makes the writer remove its
    /// temporary files; waiting for it means they are gone when the caller
    /// returns.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The most one `write` call hands the kernel. On this project's machine
/// (Linux 6.18, ext4) the kernel's copy into the page cache got slower per
/// byte as single writes grew past 2 MiB: `generate data` in 3 MiB writes
/// took twice the system time of 1 MiB writes, and a C program writing one
/// reused buffer 3.5 times (BENCHMARKS.md), so a bigger batch is written in
/// pieces of this size.
const WRITE_PIECE: usize = 1 << 20;

struct Open {
    file: AtomicFile,
    unsynced: u64,
}

/// The thread that writes files back to disk while the writer goes on.
struct Syncer {
    requests: Option<SyncSender<PathBuf>>,
    thread: Option<JoinHandle<()>>,
}

impl Syncer {
    /// `None` when no thread can be started: the fsync at commit then does
    /// all the work, as it would anyway.
    fn start() -> Self {
        let (requests, inbox) = sync_channel::<PathBuf>(2);
        let thread = std::thread::Builder::new()
            .name("squill-sync".into())
            .spawn(move || {
                for path in inbox {
                    // Gone (committed or removed) or failing: the writer's
                    // fsync is the one that counts.
                    if let Ok(file) = File::open(&path) {
                        let _ = file.sync_data();
                    }
                }
            })
            .ok();
        Syncer {
            requests: thread.as_ref().map(|_| requests),
            thread,
        }
    }

    /// Asks for `path` to be written back; skipped while two requests wait
    /// (the next one covers it).
    fn request(&self, path: &Path) {
        if let Some(requests) = &self.requests {
            // Full: skipped. Disconnected: the thread is gone, nothing to do.
            let _ = requests.try_send(path.to_path_buf());
        }
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(
    inbox: &Receiver<Job>,
    free: &Sender<Vec<u8>>,
    sync_every: u64,
) -> Result<Committed, GenerateError> {
    // Declared first, dropped last: the open files (and their temporary
    // names) are gone before the syncing thread is joined.
    let syncer = Syncer::start();
    let mut open: Vec<Option<Open>> = Vec::new();
    let mut committed = Committed::default();
    for job in inbox {
        match job {
            Job::Create { slot, path } => {
                let mut file = AtomicFile::create(&path)?;
                file.reserve_ahead(RESERVE_AHEAD);
                if open.len() <= slot {
                    open.resize_with(slot + 1, || None);
                }
                open[slot] = Some(Open { file, unsynced: 0 });
            }
            Job::Append { slot, mut bytes } => {
                if let Some(o) = open.get_mut(slot).and_then(Option::as_mut) {
                    for piece in bytes.chunks(WRITE_PIECE) {
                        o.file.write_all(piece)?;
                    }
                    o.unsynced += bytes.len() as u64;
                    if o.unsynced >= sync_every {
                        o.file.flush()?;
                        syncer.request(o.file.temporary_path());
                        o.unsynced = 0;
                    }
                }
                bytes.clear();
                // The caller may be gone already: then the buffer is freed.
                let _ = free.send(bytes);
            }
            Job::Commit { slot } => {
                if let Some(o) = open.get_mut(slot).and_then(Option::take) {
                    committed.files.push(o.file.commit()?);
                }
            }
            Job::Whole { path, bytes } => committed.files.push(write_file(&path, &bytes)?),
        }
    }
    Ok(committed)
}
