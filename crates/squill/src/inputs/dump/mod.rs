//! Reading what `scan` measures: mongodump directories, `.bson(.gz)` files,
//! `mongodump --archive` files, mongoexport JSON (lines or arrays, Extended
//! JSON v2 or legacy), and standard input. Everything is delivered as BSON
//! bytes (JSON is transcoded on the fly) so the scanner has one path to
//! measure, and nothing is held: documents stream through a callback.
//!
//! Usage (what the scanner does):
//! ```no_run
//! use squill::inputs::dump::{open, Event, InputFormat};
//! let inputs = open(&["dump/".into()], InputFormat::Auto);
//! for e in &inputs.errors { eprintln!("{e}"); }           // problems found while opening
//! for source in inputs.sources.iter().flat_map(|s| s.split(2)) {
//!     let _ = source.read(&mut |event| match event {
//!         Event::Document { collection, bytes, position } => {
//!             let _ = (&inputs.collections[collection], bytes, position); // walk with inputs::bson::walk
//!         }
//!         Event::Error(e) => eprintln!("{e}"),                 // reading goes on
//!     });
//! }
//! ```
//! Damaged input never stops the whole read: every problem becomes an
//! `InputError` naming the file and the byte offset (BSON) or line:column (JSON).

mod archive;
mod discover;
mod error;
mod format;
pub(crate) mod framing;
#[doc(hidden)]
pub mod fuzzing;
mod json;
pub(crate) mod metadata;
mod stdin;

pub use error::{InputError, InputErrorKind, Position};
pub use format::InputFormat;

use framing::{Frame, Framer};
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Everything found in the paths given to [`open`].
#[derive(Debug, Default)]
pub struct Inputs {
    /// Every collection found, indexed by `Event::Document::collection`.
    /// A collection may have no source (empty `.bson`, or a metadata file
    /// whose data was not dumped): it has zero documents but its indexes count.
    pub collections: Vec<CollectionInfo>,
    /// The units of reading, in path order.
    pub sources: Vec<Source>,
    /// Problems found while opening (unreadable paths, unknown formats, bad metadata).
    pub errors: Vec<InputError>,
    /// Paths passed over on purpose, with why (special files inside a
    /// directory, a real path reached a second time through a link). Nothing
    /// of them is lost: either they cannot be read safely or they were read.
    pub skipped: Vec<InputError>,
    /// Real paths of the directories and files taken so far.
    seen: std::collections::HashSet<PathBuf>,
}

/// A collection and what its metadata says.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionInfo {
    /// The database: the directory holding the data file when found by walking
    /// a directory, the namespace's database in an archive, `None` for a file
    /// given alone or standard input.
    pub database: Option<String>,
    pub name: String,
    /// From `<name>.metadata.json(.gz)` or the archive prelude; empty when there is none.
    pub indexes: Vec<IndexSpec>,
    /// The data file (or archive, or metadata file) it came from; `-` for stdin.
    pub origin: PathBuf,
}

/// One index definition from the dump's metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    pub name: String,
    /// Key fields in order with their direction or kind (`1`, `-1`, `"text"`,
    /// `"2dsphere"`, `"hashed"`); Extended JSON numbers are unwrapped.
    pub keys: Vec<(String, serde_json::Value)>,
    pub unique: bool,
    /// Every other option (`expireAfterSeconds`, `partialFilterExpression`,
    /// `sparse`, …) as an object; `v` and `ns` are dropped.
    pub options: serde_json::Value,
}

/// One unit of reading: a `.bson(.gz)` file (or a byte range of one), a JSON
/// file, an archive (documents of many collections), or standard input.
/// `Source` is `Send + Sync`: sources may be read from several threads at once.
#[derive(Debug)]
pub struct Source {
    path: PathBuf,
    kind: SourceKind,
    file_len: Option<u64>,
}

#[derive(Debug)]
pub(crate) enum SourceKind {
    /// Documents from `start` up to (not including) a document starting at or after `end`.
    Bson {
        collection: usize,
        gzip: bool,
        start: u64,
        end: Option<u64>,
    },
    Json {
        collection: usize,
        gzip: bool,
        array: bool,
    },
    /// `namespaces` maps (database, collection) to a collection index.
    Archive {
        gzip: bool,
        namespaces: Vec<((String, String), usize)>,
    },
    Stdin(stdin::Stdin),
}

/// What happened while reading a source.
#[derive(Debug)]
pub enum Event<'a> {
    /// One document as BSON bytes (transcoded when the input is JSON). Not yet
    /// validated beyond its framing: walk it with `inputs::bson::walk` and
    /// report a failure with [`InputError::invalid_document`].
    Document {
        collection: usize,
        bytes: &'a [u8],
        position: Position,
    },
    /// A problem in the input; reading goes on after it where it can.
    Error(InputError),
}

/// Counts for one `Source::read`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ReadSummary {
    pub documents: u64,
    /// Bytes of input consumed (decompressed; JSON text for JSON).
    pub bytes: u64,
    pub errors: u64,
}

/// Opens the paths (`-` is standard input) and finds what to read. Never
/// fails as a whole: problems go into `Inputs::errors` and the rest is kept.
/// `format` applies to every file (gzip is detected whatever it says);
/// `Auto` detects each file's format from its first bytes.
pub fn open(paths: &[PathBuf], format: InputFormat) -> Inputs {
    let mut inputs = Inputs::default();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.add_stdin(format);
        } else {
            inputs.add_path(path, format);
        }
    }
    inputs
}

/// The collections an archive's namespaces name, each once, in index order.
fn namespace_collections(namespaces: &[((String, String), usize)]) -> Vec<usize> {
    let mut all: Vec<usize> = namespaces.iter().map(|(_, c)| *c).collect();
    all.sort_unstable();
    all.dedup();
    all
}

impl Source {
    /// The file this source reads (`-` for standard input).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The collections whose documents this source may hold, by their index
    /// in `Inputs::collections`: one for a data file, an archive's
    /// namespaces (its documents may come in any order among them). A
    /// reader that keeps something per collection knows a collection is
    /// complete once every source listing it has been read.
    pub fn collections(&self) -> Vec<usize> {
        match &self.kind {
            SourceKind::Bson { collection, .. } | SourceKind::Json { collection, .. } => {
                vec![*collection]
            }
            SourceKind::Archive { namespaces, .. } => namespace_collections(namespaces),
            SourceKind::Stdin(stdin) => stdin.collections(),
        }
    }

    /// Size in bytes for progress bars: of the file, or of this part of it;
    /// `None` for stdin. For gzip sources it is the compressed size while
    /// `Position::byte_offset` and `ReadSummary::bytes` count decompressed
    /// bytes, so treat it as an estimate there.
    pub fn len_bytes(&self) -> Option<u64> {
        match &self.kind {
            SourceKind::Bson {
                start,
                end: Some(end),
                ..
            } => Some(end - start),
            SourceKind::Bson { start, .. } => self.file_len.map(|l| l.saturating_sub(*start)),
            SourceKind::Stdin(_) => None,
            _ => self.file_len,
        }
    }

    /// Streams the documents to `on_event`. Per-document problems are
    /// `Event::Error`s and reading goes on where it can; `Err` is returned
    /// only when the source cannot be read at all (it cannot be opened, or
    /// stdin was already read). Errors passed as events are counted in the
    /// summary, not returned.
    pub fn read(&self, on_event: &mut dyn FnMut(Event<'_>)) -> Result<ReadSummary, InputError> {
        let mut summary = ReadSummary::default();
        let mut counting = |e: Event<'_>| {
            match &e {
                Event::Document { .. } => summary.documents += 1,
                Event::Error(_) => summary.errors += 1,
            }
            on_event(e);
        };
        let bytes = match &self.kind {
            SourceKind::Bson {
                collection,
                gzip,
                start,
                end,
            } => {
                let mut file = self.open_file()?;
                if *start > 0 {
                    file.seek(SeekFrom::Start(*start))
                        .map_err(|e| InputError::io(&self.path, None, &e))?;
                }
                let reader: Box<dyn Read> = match (gzip, end) {
                    (true, _) => Box::new(gz(file)),
                    (false, Some(end)) => Box::new(BufReader::new(file).take(end - start)),
                    (false, None) => Box::new(file),
                };
                read_bson(&self.path, reader, *start, *collection, &mut counting)
            }
            SourceKind::Json {
                collection,
                gzip,
                array,
            } => {
                let file = self.open_file()?;
                let reader: Box<dyn Read> = if *gzip {
                    Box::new(gz(file))
                } else {
                    Box::new(file)
                };
                json::read_json(&self.path, reader, *array, *collection, &mut counting)
            }
            SourceKind::Archive { gzip, namespaces } => {
                let file = self.open_file()?;
                let reader: Box<dyn Read> = if *gzip {
                    Box::new(gz(file))
                } else {
                    Box::new(file)
                };
                archive::read_archive(&self.path, reader, namespaces, &mut counting)
            }
            SourceKind::Stdin(stdin) => stdin.read(&self.path, &mut counting)?,
        };
        summary.bytes = bytes;
        Ok(summary)
    }

    /// Splits a plain (uncompressed) `.bson` file at document boundaries into
    /// up to `parts` sources of similar size, so several threads can share one
    /// big collection. Every other source (gzip, JSON, archive, stdin, small
    /// files) returns itself alone. Finding boundaries reads the length
    /// prefixes only; if a length is damaged the rest stays in one part (whose
    /// reader reports the damage).
    pub fn split(&self, parts: usize) -> Vec<Source> {
        const MIN_PART: u64 = 4 << 20;
        let SourceKind::Bson {
            collection,
            gzip: false,
            start: 0,
            end: None,
        } = self.kind
        else {
            return vec![self.same()];
        };
        let Some(len) = self.file_len else {
            return vec![self.same()];
        };
        if parts < 2 || len < 2 * MIN_PART {
            return vec![self.same()];
        }
        let parts = (parts as u64).min(len / MIN_PART);
        let targets: Vec<u64> = (1..parts).map(|i| len * i / parts).collect();
        let Ok(bounds) = File::open(&self.path).and_then(|f| boundaries(f, &targets)) else {
            return vec![self.same()];
        };
        let mut starts = vec![0];
        starts.extend(bounds.into_iter().filter(|&b| b > 0 && b < len));
        starts.dedup();
        let mut out = Vec::with_capacity(starts.len());
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied();
            out.push(Source {
                path: self.path.clone(),
                kind: SourceKind::Bson {
                    collection,
                    gzip: false,
                    start,
                    end,
                },
                file_len: self.file_len,
            });
        }
        out
    }

    /// A copy of a file source (stdin cannot be copied: it is moved out once).
    fn same(&self) -> Source {
        let kind = match &self.kind {
            SourceKind::Bson {
                collection,
                gzip,
                start,
                end,
            } => SourceKind::Bson {
                collection: *collection,
                gzip: *gzip,
                start: *start,
                end: *end,
            },
            SourceKind::Json {
                collection,
                gzip,
                array,
            } => SourceKind::Json {
                collection: *collection,
                gzip: *gzip,
                array: *array,
            },
            SourceKind::Archive { gzip, namespaces } => SourceKind::Archive {
                gzip: *gzip,
                namespaces: namespaces.clone(),
            },
            SourceKind::Stdin(s) => SourceKind::Stdin(s.take()),
        };
        Source {
            path: self.path.clone(),
            kind,
            file_len: self.file_len,
        }
    }

    fn open_file(&self) -> Result<File, InputError> {
        File::open(&self.path).map_err(|e| InputError::io(&self.path, None, &e))
    }
}

pub(crate) fn gz<R: Read>(r: R) -> flate2::read::MultiGzDecoder<BufReader<R>> {
    flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, r))
}

/// The first document boundary at or after each target offset (ascending),
/// found by hopping over length prefixes. Stops early at a damaged length.
fn boundaries(file: File, targets: &[u64]) -> io::Result<Vec<u64>> {
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut at = 0u64;
    let mut out = Vec::with_capacity(targets.len());
    let mut len = [0u8; 4];
    for &target in targets {
        while at < target {
            if r.read_exact(&mut len).is_err() {
                return Ok(out);
            }
            let n = i32::from_le_bytes(len);
            if n < 5 || n as usize > crate::inputs::bson::MAX_DOCUMENT_BYTES {
                return Ok(out);
            }
            r.seek_relative(i64::from(n) - 4)?;
            at += n as u64;
        }
        out.push(at);
    }
    Ok(out)
}

/// Frames concatenated BSON documents from `reader` (stream offset `base`)
/// and reports them; returns the bytes consumed.
pub(crate) fn read_bson(
    path: &Path,
    reader: impl Read,
    base: u64,
    collection: usize,
    on_event: &mut dyn FnMut(Event<'_>),
) -> u64 {
    let mut framer = Framer::new(reader, base);
    loop {
        match framer.next_frame() {
            Ok(None) => break,
            Ok(Some(Frame::Document { offset, bytes })) => on_event(Event::Document {
                collection,
                bytes,
                position: Position::byte(offset),
            }),
            Ok(Some(Frame::Damage {
                offset,
                message,
                resumed_at,
                ..
            })) => on_event(Event::Error(InputError::new(
                path,
                Some(Position::byte(offset)),
                InputErrorKind::Framing {
                    message,
                    resumed_at,
                },
            ))),
            Err(e) => {
                on_event(Event::Error(InputError::io(
                    path,
                    Some(Position::byte(framer.offset())),
                    &e,
                )));
                break;
            }
        }
    }
    framer.offset() - base
}

#[cfg(test)]
pub(crate) mod tests;
