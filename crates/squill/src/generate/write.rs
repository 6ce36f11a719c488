//! Writing files so that a reader never sees half of one: each file is written
//! to a temporary name in the same directory and renamed into place when
//! complete. Existing files are refused unless the caller forces overwriting,
//! and the refusal happens before anything is written.
//!
//! A large file can have its disk space reserved ahead of its writes
//! (`reserve_ahead`): on this project's machine (Linux 6.18, ext4),
//! `generate data` of about 800 MB then spent 0.30 s rather than 0.40 s of
//! system time, and a plain write with an fsync at the end finished sooner
//! (BENCHMARKS.md "generate"). Each write lands in blocks already allocated
//! rather than reserving them page by page. What is reserved past the end is given back at commit.

use super::GenerateError;
use super::direct::Direct;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Fails with the first of `paths` that exists, unless `force`.
pub fn refuse_existing(paths: &[PathBuf], force: bool) -> Result<(), GenerateError> {
    if force {
        return Ok(());
    }
    match paths.iter().find(|p| p.exists()) {
        Some(p) => Err(GenerateError::Exists { path: p.clone() }),
        None => Ok(()),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GenerateError + '_ {
    move |source| GenerateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The most disk space a data file keeps reserved past what is written
/// (`AtomicFile::reserve_ahead`): with 64 MiB, a file written in 1 MiB
/// pieces asks for space once per 64 MiB.
pub const RESERVE_AHEAD: u64 = 64 << 20;

/// A file asked to go past the page cache goes there once this many bytes
/// have come; a smaller one is written through the cache at commit. A file
/// past the cache takes a 4 MiB stage on huge pages and its own threads: for
/// the tiny files of a collection of a few documents, faulting the stage's
/// first huge page took 7.9-16.1 ms per file in three of four traces, at the
/// start of `generate data`, where the disk waits for the first large file
/// (BENCHMARKS.md "generate").
pub const DIRECT_FROM: usize = 1 << 20;

/// What an `AtomicFile` writes through.
enum Sink {
    /// The page cache, in 64 KiB batches.
    Cached(BufWriter<File>),
    /// Asked to go past the page cache (`bypass_cache`), with fewer than
    /// `DIRECT_FROM` bytes so far: the bytes are held here.
    Held(File, Vec<u8>),
    /// Past the page cache.
    Direct(Direct),
}

impl Sink {
    fn cached(file: File) -> Sink {
        Sink::Cached(BufWriter::with_capacity(64 << 10, file))
    }

    fn file(&self) -> &File {
        match self {
            Sink::Cached(out) => out.get_ref(),
            Sink::Held(file, _) => file,
            Sink::Direct(d) => d.file(),
        }
    }

    /// Appends, and takes a held file past the page cache once it has
    /// `DIRECT_FROM` bytes (through the cache if the kernel will not).
    fn write_all(self, bytes: &[u8]) -> (Sink, std::io::Result<()>) {
        match self {
            Sink::Cached(mut out) => {
                let r = out.write_all(bytes);
                (Sink::Cached(out), r)
            }
            Sink::Direct(mut d) => {
                let r = d.write_all(bytes);
                (Sink::Direct(d), r)
            }
            Sink::Held(file, mut held) => {
                held.extend_from_slice(bytes);
                if held.len() < DIRECT_FROM {
                    return (Sink::Held(file, held), Ok(()));
                }
                match Direct::open(file) {
                    Ok(d) => Sink::Direct(d).write_all(&held),
                    Err(file) => Sink::cached(file).write_all(&held),
                }
            }
        }
    }

    /// Everything written, the file handed back (`O_DIRECT` cleared).
    fn finish(self) -> std::io::Result<File> {
        match self {
            Sink::Cached(out) => out.into_inner().map_err(|e| e.into_error()),
            Sink::Held(mut file, held) => file.write_all(&held).map(|()| file),
            Sink::Direct(d) => d.finish(),
        }
    }
}

/// A file being written under a temporary name; `commit` renames it into
/// place, dropping it uncommitted (or after a failed `commit`) removes the
/// temporary file.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<Sink>,
    renamed: bool,
    /// Bytes handed to `write_all` so far.
    written: u64,
    /// Where the space reserved on disk ends, and how far past what is
    /// written it is kept (0: no reserving).
    reserved: u64,
    ahead: u64,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<Self, GenerateError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let file = File::create(&tmp).map_err(io(&tmp))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(Sink::cached(file)),
            renamed: false,
            written: 0,
            reserved: 0,
            ahead: 0,
        })
    }

    /// From now on, keeps disk space reserved past what is written: as much
    /// again as is written, up to `bytes` (so a small file reserves little).
    /// Where the platform or file system cannot (or the disk has not that
    /// much room left), writing goes on without: a real lack of space still
    /// fails the write that meets it.
    pub fn reserve_ahead(&mut self, bytes: u64) {
        self.ahead = bytes;
    }

    /// Writes the file past the page cache (`direct.rs`) where the platform
    /// and the file system allow it, once it has `DIRECT_FROM` bytes (a
    /// smaller file goes through the cache at commit); true if the file
    /// system allows it. Call before writing.
    pub fn bypass_cache(&mut self) -> bool {
        if self.written > 0 {
            return false;
        }
        self.out = match self.out.take() {
            Some(Sink::Cached(out)) => match out.into_inner() {
                Ok(file) if Direct::possible(&file) => Some(Sink::Held(file, Vec::new())),
                Ok(file) => Some(Sink::cached(file)),
                // Nothing was written, so nothing was buffered: unreachable,
                // but the file is kept as it was.
                Err(e) => Some(Sink::Cached(e.into_inner())),
            },
            other => other,
        };
        matches!(self.out, Some(Sink::Held(..)))
    }

    /// Whether the bytes go past the page cache (asking the kernel to write
    /// the file back early then has nothing to do); not yet for a file still
    /// held under `DIRECT_FROM`, nor ever for one that stays small.
    pub fn bypasses_cache(&self) -> bool {
        matches!(&self.out, Some(Sink::Direct(d)) if d.bypassing())
    }

    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), GenerateError> {
        let Some(out) = self.out.take() else {
            return Ok(());
        };
        self.written += bytes.len() as u64;
        if self.ahead > 0 && self.written > self.reserved {
            let end = self.written + self.written.min(self.ahead);
            if reserve(out.file(), self.reserved, end - self.reserved) {
                self.reserved = end;
            } else {
                self.ahead = 0;
            }
        }
        let (out, written) = out.write_all(bytes);
        self.out = Some(out);
        written.map_err(io(&self.tmp))
    }

    /// Hands what is buffered to the kernel; past the page cache, the
    /// stage is written when full, not before.
    pub fn flush(&mut self) -> Result<(), GenerateError> {
        match self.out.as_mut() {
            Some(Sink::Cached(out)) => out.flush().map_err(io(&self.tmp)),
            _ => Ok(()),
        }
    }

    /// The temporary name the file is written under until `commit`.
    pub fn temporary_path(&self) -> &Path {
        &self.tmp
    }

    pub fn commit(mut self) -> Result<PathBuf, GenerateError> {
        if let Some(out) = self.out.take() {
            let file = out.finish().map_err(io(&self.tmp))?;
            if self.reserved > self.written {
                // Gives back the space reserved past the end (a truncation
                // to the same length frees it).
                file.set_len(self.written).map_err(io(&self.tmp))?;
            }
            file.sync_all().map_err(io(&self.tmp))?;
        }
        std::fs::rename(&self.tmp, &self.path).map_err(io(&self.path))?;
        self.renamed = true;
        Ok(self.path.clone())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.renamed {
            // Close before removing.
            self.out = None;
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Reserves disk space for `len` bytes from `offset` without changing the
/// file's length; false when that cannot be done.
#[cfg(target_os = "linux")]
fn reserve(file: &File, offset: u64, len: u64) -> bool {
    use rustix::fs::{FallocateFlags, fallocate};
    fallocate(file, FallocateFlags::KEEP_SIZE, offset, len).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn reserve(_: &File, _: u64, _: u64) -> bool {
    false
}

/// Writes a whole file atomically.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<PathBuf, GenerateError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty directory of this test process's own under the temp dir.
    fn scratch_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("squill-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect()
    }

    #[test]
    fn a_failed_commit_reports_the_path_and_removes_the_temporary_file() {
        let dir = scratch_dir("atomic");
        let target = dir.join("x.json");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"{}\n").unwrap();
        // A non-empty directory where the file should go: the rename fails.
        std::fs::create_dir_all(target.join("in-the-way")).unwrap();
        let err = f.commit().unwrap_err();
        assert!(
            matches!(&err, GenerateError::Io { path, .. } if *path == target),
            "{err}"
        );
        assert_eq!(leftovers(&dir), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Writes `pieces` to a new file asked to go past the page cache:
    /// whether it did, and whether the bytes read back whole.
    fn write_bypassing(dir: &Path, pieces: &[Vec<u8>]) -> bool {
        let target = dir.join("bypassing.bin");
        let mut f = AtomicFile::create(&target).unwrap();
        let possible = f.bypass_cache();
        for p in pieces {
            f.write_all(p).unwrap();
        }
        let went = f.bypasses_cache();
        let path = f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), pieces.concat());
        assert!(!went || possible);
        went
    }

    #[test]
    fn a_small_file_stays_in_the_page_cache_and_a_large_one_goes_past_it() {
        let dir = scratch_dir("held");
        let piece =
            |i: usize, len: usize| -> Vec<u8> { (0..len).map(|j| (i * 7 + j) as u8).collect() };
        // Under `DIRECT_FROM` in all: held, then written through the cache.
        let small: Vec<Vec<u8>> = (0..3).map(|i| piece(i, 1000 + i * 333)).collect();
        assert!(!write_bypassing(&dir, &small));
        // Past it in uneven pieces: the held bytes go first, past the cache
        // where the file system takes direct writes.
        let large: Vec<Vec<u8>> = (0..9).map(|i| piece(i, 300_001 + i * 7_919)).collect();
        let target = dir.join("probe");
        std::fs::create_dir_all(&dir).unwrap();
        let possible = Direct::possible(&File::create(&target).unwrap());
        assert_eq!(write_bypassing(&dir, &large), possible);
        if !possible {
            eprintln!("notice: {} takes no direct writes", dir.display());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Disk space held by `path`, in bytes.
    #[cfg(unix)]
    fn allocated(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).unwrap().blocks() * 512
    }

    #[cfg(unix)]
    #[test]
    fn space_reserved_ahead_holds_the_bytes_and_is_given_back_at_commit() {
        let dir = scratch_dir("reserve");
        let target = dir.join("big.bin");
        let mut f = AtomicFile::create(&target).unwrap();
        f.reserve_ahead(RESERVE_AHEAD);
        let mut expected = Vec::new();
        for i in 0..40u8 {
            // Uneven pieces, some past the write buffer, some inside it.
            let piece = vec![i; 100_000 + 37_123 * usize::from(i % 5)];
            f.write_all(&piece).unwrap();
            expected.extend_from_slice(&piece);
        }
        f.flush().unwrap();
        let written = expected.len() as u64;
        let held = allocated(f.temporary_path());
        if held < written + (1 << 20) {
            // A file system without `fallocate`: nothing to give back.
            eprintln!("notice: no space was reserved ahead here ({held} bytes for {written})");
        }
        let path = f.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        let held = allocated(&path);
        assert!(
            held < written + (64 << 10),
            "{held} bytes held for {written} written"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
