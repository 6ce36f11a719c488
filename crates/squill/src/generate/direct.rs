//! Writing a large file past the page cache (`O_DIRECT`, Linux only).
//!
//! Why: on this project's machine (Linux 6.18, ext4 on virtio), the kernel's
//! copy of `generate data`'s 802 MB into the page cache took 0.22-0.33 s of
//! system time, on one of the two cores the builder threads need, and `dd`
//! through the page cache spent 1.3-1.7 s of system time in bad spells.
//! Written past the cache, the same run spent 0.04-0.14 s, and a plain write
//! of 833 MB took 0.32-0.58 s either way (BENCHMARKS.md "generate").
//!
//! How: appended bytes are staged in buffers aligned as the file system asks
//! (`statx`'s `STATX_DIOALIGN`) and on huge pages, and written a whole stage
//! at a time, so every direct write starts and ends on that alignment. A
//! thread of the file's own writes the full stages while the caller fills
//! the next. What is left at the
//! end (less than one alignment unit) is written through the page cache after
//! `O_DIRECT` is cleared. Where the file system does not report an alignment
//! (tmpfs, other platforms), `Direct::open` gives the file back and the caller
//! writes through the page cache as before. Where the kernel refuses a direct
//! write anyway (`EINVAL`), the file falls back to ordinary writes and the
//! bytes are written all the same.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

/// Bytes staged between two direct writes: from ordinary pages, writes of
/// 4 MiB took 800 MiB onto this machine's disk in 0.47-0.49 s, against
/// 0.51-0.65 s for 1 MiB and 0.60-0.62 s for 16 MiB (one at a time, three
/// runs each); from huge pages, 16 MiB did no better than 4 MiB.
pub const STAGE: usize = 4 << 20;

/// A stage is aligned to this and asked to be backed by huge pages
/// (transparent huge pages, where the system has them on request). A direct
/// write is cut into requests of at most so many pieces of contiguous memory
/// (254 on this machine's virtio disk): from 4 KiB pages a 4 MiB write needs
/// at least four requests, from 2 MiB pages one. Writing 800 MiB in 4 MiB
/// writes took 0.32-0.41 s from huge pages, against 0.49-0.67 s from ordinary
/// ones (a C program, five alternated runs each).
const HUGE_PAGE: usize = 2 << 20;

/// Stages per file: one filling, the others written or waiting to be.
const STAGES: usize = 4;

/// A stage this full goes to the disk before it is full when the file's
/// thread has nothing left to write: the disk would otherwise wait for the
/// rest of the stage (at the start of a file, the builders take longer to
/// fill the first stage than the disk takes to write it).
const EARLY: usize = 1 << 20;

/// The largest piece handed to an ordinary `write` once the file has fallen
/// back (see `write_thread::WRITE_PIECE` for why pieces).
const CACHED_PIECE: usize = 1 << 20;

thread_local! {
    /// Stages of the files finished on this thread, for its next ones: a new
    /// stage costs the kernel's zeroing of its pages when first written,
    /// which took about 4% of a run's CPU time when every file made its own.
    static SPARE: RefCell<Vec<Stage>> = const { RefCell::new(Vec::new()) };
}

/// Spare stages kept at most: enough for two files (EJSON and BSON) at once.
const SPARES: usize = 2 * STAGES;

/// A buffer aligned for direct writes, and where its bytes go in the file.
struct Stage {
    /// The bytes are `buf[at..at + filled]`; `buf[at..]` is aligned.
    buf: Vec<u8>,
    at: usize,
    filled: usize,
    offset: u64,
}

impl Stage {
    /// No buffer: what is left in place of a stage moved out.
    fn none() -> Stage {
        Stage {
            buf: Vec::new(),
            at: 0,
            filled: 0,
            offset: 0,
        }
    }

    /// A stage of `STAGE` bytes, aligned for direct writes. (It was also
    /// advised onto huge pages, through an `unsafe` madvise; issue 18 took
    /// the `unsafe` out.)
    fn new(align: usize) -> Stage {
        let align = align.max(HUGE_PAGE);
        let buf = vec![0u8; STAGE + align];
        let at = buf.as_ptr().align_offset(align);
        Stage {
            buf,
            at,
            filled: 0,
            offset: 0,
        }
    }

    /// A spare stage this thread kept from a finished file, or a new one.
    fn take(align: usize) -> Stage {
        SPARE
            .with_borrow_mut(|spare| spare.pop())
            .filter(|s| s.fits(align))
            .map(|mut s| {
                s.filled = 0;
                s.offset = 0;
                s
            })
            .unwrap_or_else(|| Stage::new(align))
    }

    fn give_back(stages: impl Iterator<Item = Stage>) {
        SPARE.with_borrow_mut(|spare| {
            spare.extend(stages.filter(|s| !s.buf.is_empty()));
            spare.truncate(SPARES);
        });
    }

    fn fits(&self, align: usize) -> bool {
        !self.buf.is_empty() && self.buf[self.at..].as_ptr().align_offset(align) == 0
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[self.at..self.at + self.filled]
    }
}

/// A file written past the page cache, a stage at a time. `STAGES` stages
/// take turns: one is filled on the caller's thread while a thread of the
/// file's own writes the others, so the disk is not left idle while a stage
/// fills (the kernel makes a direct write wait for the device).
pub struct Direct {
    file: File,
    stage: Stage,
    /// The alignment direct writes keep (offsets and lengths).
    align: usize,
    /// Stages this file has taken so far (at most `STAGES`).
    taken: usize,
    full: Option<SyncSender<Stage>>,
    free: Receiver<Stage>,
    /// The writing thread: its first error, if any.
    thread: Option<JoinHandle<io::Result<()>>>,
    /// Cleared when a direct write was refused and the file fell back.
    bypassing: Arc<AtomicBool>,
    /// Stages sent to the thread and not yet written.
    pending: Arc<AtomicUsize>,
}

impl Direct {
    /// Whether `file` can be written past the page cache, as far as the
    /// file system says before a write is tried.
    pub fn possible(file: &File) -> bool {
        alignment(file).is_some()
    }

    /// Starts writing `file` (empty, just created) past the page cache;
    /// gives it back when the platform or the file system cannot.
    pub fn open(file: File) -> Result<Direct, File> {
        match alignment(&file) {
            Some(align) if set_direct(&file, true) => Direct::start(file, align, 0),
            _ => Err(file),
        }
    }

    /// Writes from `offset` on, with `O_DIRECT` already set on `file`.
    fn start(file: File, align: usize, offset: u64) -> Result<Direct, File> {
        let Ok(theirs) = file.try_clone() else {
            return Err(file);
        };
        let (full, inbox) = sync_channel::<Stage>(STAGES - 1);
        let (done, free) = channel();
        let bypassing = Arc::new(AtomicBool::new(true));
        let flag = Arc::clone(&bypassing);
        let pending = Arc::new(AtomicUsize::new(0));
        let written = Arc::clone(&pending);
        let thread = std::thread::Builder::new()
            .name("squill-direct".into())
            .spawn(move || {
                for stage in inbox {
                    write_stage(&theirs, &stage, &flag)?;
                    written.fetch_sub(1, Ordering::Release);
                    // The caller has gone: nothing more will come.
                    if done.send(stage).is_err() {
                        break;
                    }
                }
                Ok(())
            });
        let Ok(thread) = thread else {
            return Err(file);
        };
        let mut stage = Stage::take(align);
        stage.offset = offset;
        Ok(Direct {
            file,
            stage,
            align,
            taken: 1,
            full: Some(full),
            free,
            thread: Some(thread),
            bypassing,
            pending,
        })
    }

    /// Whether writes still go past the page cache.
    pub fn bypassing(&self) -> bool {
        self.bypassing.load(Ordering::Relaxed)
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    pub fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let n = (STAGE - self.stage.filled).min(bytes.len());
            let from = self.stage.at + self.stage.filled;
            self.stage.buf[from..from + n].copy_from_slice(&bytes[..n]);
            self.stage.filled += n;
            bytes = &bytes[n..];
            if self.stage.filled == STAGE {
                self.hand_over(STAGE)?;
            }
        }
        if self.stage.filled >= EARLY && self.pending.load(Ordering::Acquire) == 0 {
            // The disk has nothing to do: what is aligned goes now.
            self.hand_over(self.stage.filled - self.stage.filled % self.align)?;
        }
        Ok(())
    }

    /// Sends the stage's first `whole` bytes (all of it, or as many as keep
    /// the alignment) to be written and takes an empty stage, with the rest
    /// moved to its start: a new one while the file has fewer than `STAGES`,
    /// then the oldest one the thread has written.
    fn hand_over(&mut self, whole: usize) -> io::Result<()> {
        let mut next = match self.thread_sent_back()? {
            Some(stage) => stage,
            None => {
                self.taken += 1;
                Stage::take(self.align)
            }
        };
        // Less than one alignment unit.
        let rest = self.stage.at + whole..self.stage.at + self.stage.filled;
        next.buf[next.at..next.at + rest.len()].copy_from_slice(&self.stage.buf[rest.clone()]);
        next.filled = rest.len();
        next.offset = self.stage.offset + whole as u64;
        let mut full = std::mem::replace(&mut self.stage, next);
        full.filled = whole;
        self.pending.fetch_add(1, Ordering::Release);
        match self.full.as_ref().map(|f| f.send(full)) {
            Some(Ok(())) => Ok(()),
            _ => Err(self.stop()),
        }
    }

    /// The stage the thread wrote first of those it holds; `None` while
    /// this file has taken fewer than `STAGES`.
    fn thread_sent_back(&mut self) -> io::Result<Option<Stage>> {
        if self.taken < STAGES {
            return Ok(None);
        }
        self.free.recv().map(Some).map_err(|_| self.stop())
    }

    /// Joins the thread after it stopped: its error.
    fn stop(&mut self) -> io::Error {
        self.full = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => e,
            _ => io::Error::other("the direct-write thread stopped"),
        }
    }

    /// Writes what is staged, waits for the thread and hands the file back,
    /// with `O_DIRECT` cleared.
    pub fn finish(mut self) -> io::Result<File> {
        let whole = self.stage.filled - self.stage.filled % self.align;
        let tail = self.stage.bytes()[whole..].to_vec();
        let tail_at = self.stage.offset + whole as u64;
        if whole > 0 {
            self.stage.filled = whole;
            let last = std::mem::replace(&mut self.stage, Stage::none());
            self.pending.fetch_add(1, Ordering::Release);
            if let Some(full) = &self.full {
                let _ = full.send(last);
            }
        }
        self.full = None;
        if let Some(thread) = self.thread.take() {
            thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the direct-write thread panicked")))?;
        }
        if self.bypassing() {
            fall_back(&self.file, &self.bypassing)?;
        }
        // The stages back to this thread's spares, for its next file.
        let stages = std::mem::replace(&mut self.stage, Stage::none());
        Stage::give_back(self.free.try_iter().chain([stages]));
        write_all_at(&self.file, &tail, tail_at)?;
        // A second handle on the file: `self` is dropped.
        self.file.try_clone()
    }
}

/// Writes a stage at its offset: past the cache while the kernel takes it,
/// else in ordinary pieces.
fn write_stage(file: &File, stage: &Stage, bypassing: &AtomicBool) -> io::Result<()> {
    let bytes = stage.bytes();
    let mut done = 0;
    while done < bytes.len() {
        let direct = bypassing.load(Ordering::Relaxed);
        let piece = if direct {
            bytes.len() - done
        } else {
            CACHED_PIECE.min(bytes.len() - done)
        };
        match write_at(file, &bytes[done..done + piece], stage.offset + done as u64) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // Refused as a direct write (alignment, or a file system that
            // accepted the flag but not the write): the rest goes through
            // the page cache.
            Err(e) if direct && e.raw_os_error() == Some(EINVAL) => fall_back(file, bypassing)?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::write_at(file, bytes, offset)
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

// Never called: `Direct::open` gives the file back off Linux.
#[cfg(not(unix))]
fn write_at(_: &File, _: &[u8], _: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(unix))]
fn write_all_at(_: &File, _: &[u8], _: u64) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

fn fall_back(file: &File, bypassing: &AtomicBool) -> io::Result<()> {
    bypassing.store(false, Ordering::Relaxed);
    if set_direct(file, false) {
        Ok(())
    } else {
        Err(io::Error::other("could not clear O_DIRECT"))
    }
}

impl Drop for Direct {
    /// Waits for the thread, so that the file is not written after the
    /// caller removed it.
    fn drop(&mut self) {
        self.full = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(target_os = "linux")]
const EINVAL: i32 = rustix::io::Errno::INVAL.raw_os_error();
#[cfg(not(target_os = "linux"))]
const EINVAL: i32 = 22;

/// The alignment direct writes to `file` need, when the file system says:
/// the larger of the memory and offset alignments, at least 512 bytes.
#[cfg(target_os = "linux")]
fn alignment(file: &File) -> Option<usize> {
    use rustix::fs::{AtFlags, StatxFlags, statx};
    let st = statx(file, "", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN).ok()?;
    let supported = StatxFlags::from_bits_retain(st.stx_mask).contains(StatxFlags::DIOALIGN);
    let align = st.stx_dio_mem_align.max(st.stx_dio_offset_align) as usize;
    // 0: no direct I/O on this file. Past the stage: not worth it.
    (supported && st.stx_dio_offset_align > 0 && align.is_power_of_two() && align <= STAGE)
        .then_some(align.max(512))
}

#[cfg(not(target_os = "linux"))]
fn alignment(_: &File) -> Option<usize> {
    None
}

/// Sets or clears `O_DIRECT`; false when that fails.
#[cfg(target_os = "linux")]
fn set_direct(file: &File, on: bool) -> bool {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let Ok(flags) = fcntl_getfl(file) else {
        return false;
    };
    let flags = if on {
        flags | OFlags::DIRECT
    } else {
        flags - OFlags::DIRECT
    };
    fcntl_setfl(file, flags).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_: &File, _: bool) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Uneven pieces, some larger than the stage, most smaller.
    fn pieces() -> Vec<Vec<u8>> {
        (0..23u32)
            .map(|i| {
                let len = 1 + (i as usize * 611_953) % (STAGE + STAGE / 3);
                (0..len).map(|j| (i as usize * 31 + j) as u8).collect()
            })
            .collect()
    }

    fn scratch(tag: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("squill-direct-{tag}-{}", std::process::id()))
    }

    /// Writes `pieces()` through `d` and checks the file holds `before`
    /// (already in it) and them.
    fn write(mut d: Direct, path: &std::path::Path, before: &[u8]) -> (Vec<u8>, bool) {
        let mut expected = before.to_vec();
        for p in pieces() {
            d.write_all(&p).unwrap();
            expected.extend_from_slice(&p);
        }
        let bypassing = d.bypassing();
        d.finish().unwrap().sync_all().unwrap();
        assert_eq!(std::fs::read(path).unwrap(), expected);
        (expected, bypassing)
    }

    #[test]
    fn bytes_written_past_the_page_cache_read_back_whole() {
        let path = scratch("whole");
        let file = File::create(&path).unwrap();
        match Direct::open(file) {
            Ok(d) => {
                let (_, bypassing) = write(d, &path, b"");
                assert!(bypassing, "the direct writes fell back");
            }
            Err(_) => eprintln!(
                "notice: {} takes no direct writes; nothing to test here",
                path.display()
            ),
        }
        let _ = std::fs::remove_file(&path);
    }

    /// Waits (a few seconds at most) until the thread has written every
    /// stage it was sent.
    fn idle(d: &Direct) {
        for _ in 0..5000 {
            if d.pending.load(Ordering::Acquire) == 0 {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("the direct-write thread did not finish its stages");
    }

    #[test]
    fn stages_go_early_when_the_disk_is_idle_and_lose_nothing() {
        let path = scratch("early");
        let file = File::create(&path).unwrap();
        let Ok(mut d) = Direct::open(file) else {
            eprintln!("notice: {} takes no direct writes", path.display());
            let _ = std::fs::remove_file(&path);
            return;
        };
        let mut expected = Vec::new();
        // One MiB and a few bytes, with the thread idle: all but the bytes
        // past the alignment go to the disk, the rest starts the next stage.
        let first: Vec<u8> = (0..EARLY + 123).map(|j| (j % 251) as u8).collect();
        d.write_all(&first).unwrap();
        expected.extend_from_slice(&first);
        let whole = EARLY + 123 - (EARLY + 123) % d.align;
        assert_eq!(
            (d.stage.offset, d.stage.filled),
            (whole as u64, EARLY + 123 - whole)
        );
        // Then uneven pieces, each after the thread went idle.
        for p in pieces() {
            idle(&d);
            d.write_all(&p).unwrap();
            expected.extend_from_slice(&p);
        }
        assert!(d.bypassing(), "the direct writes fell back");
        d.finish().unwrap().sync_all().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_refused_direct_write_falls_back_and_loses_nothing() {
        let path = scratch("refused");
        let file = File::create(&path).unwrap();
        // One byte written first: every direct write then starts off its
        // alignment, and the kernel refuses it.
        (&file).write_all(b"#").unwrap();
        let Some(align) = alignment(&file).filter(|_| set_direct(&file, true)) else {
            eprintln!("notice: {} takes no direct writes", path.display());
            let _ = std::fs::remove_file(&path);
            return;
        };
        let Ok(d) = Direct::start(file, align, 1) else {
            panic!("no thread")
        };
        let (_, bypassing) = write(d, &path, b"#");
        assert!(!bypassing, "a misaligned direct write was taken");
        let _ = std::fs::remove_file(&path);
    }
}
