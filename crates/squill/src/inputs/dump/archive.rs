//! `mongodump --archive`: a magic number (0x8199e26d), a prelude (a header
//! document, one metadata document per collection, a terminator of four 0xFF
//! bytes), then blocks, each a namespace header document `{db, collection,
//! EOF, CRC}` followed by that namespace's documents and a terminator. Blocks
//! of different collections interleave. Gzip archives are the same stream
//! compressed as a whole.

use super::framing::{Frame, Framer};
use super::{CollectionInfo, Event, InputError, InputErrorKind as K, Position, metadata};
use crate::inputs::bson::{Container, Scalar, Visitor, walk};
use std::io::Read;
use std::path::Path;

pub(crate) struct Prelude {
    pub collections: Vec<CollectionInfo>,
    /// Problems that did not stop reading (a collection's metadata that does not parse).
    pub errors: Vec<InputError>,
}

pub(crate) fn read_prelude_of_file(path: &Path, gzip: bool) -> Result<Prelude, InputError> {
    let file = std::fs::File::open(path).map_err(|e| InputError::io(path, None, &e))?;
    let reader: Box<dyn Read> = if gzip {
        Box::new(super::gz(file))
    } else {
        Box::new(file)
    };
    read_prelude(path, &mut Framer::new(reader, 0))
}

fn archive_err(path: &Path, at: u64, message: impl Into<String>) -> InputError {
    InputError::new(path, Some(Position::byte(at)), K::Archive(message.into()))
}

/// Reads the magic number and the prelude, leaving `framer` at the first block.
pub(crate) fn read_prelude<R: Read>(
    path: &Path,
    framer: &mut Framer<R>,
) -> Result<Prelude, InputError> {
    let io = |e: std::io::Error, at| InputError::io(path, Some(Position::byte(at)), &e);
    match framer.take_exact(4) {
        Ok(Some(m)) if m == super::format::ARCHIVE_MAGIC => {}
        Ok(_) => return Err(archive_err(path, 0, "missing the archive magic number")),
        Err(e) => return Err(io(e, 0)),
    }
    // The header document (format version, server and tool versions).
    match framer.next_frame() {
        Ok(Some(Frame::Document { .. })) => {}
        Ok(_) => {
            return Err(archive_err(
                path,
                4,
                "the prelude header document is damaged",
            ));
        }
        Err(e) => return Err(io(e, 4)),
    }
    let mut collections = Vec::new();
    let mut errors = Vec::new();
    loop {
        let at = framer.offset();
        match framer.take_terminator() {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => return Err(io(e, at)),
        }
        let doc = match framer.next_frame() {
            Ok(Some(Frame::Document { bytes, .. })) => fields(bytes),
            Ok(_) => {
                return Err(archive_err(
                    path,
                    at,
                    "a collection entry of the prelude is damaged",
                ));
            }
            Err(e) => return Err(io(e, at)),
        };
        let Some(doc) = doc else {
            return Err(archive_err(
                path,
                at,
                "a collection entry of the prelude is not valid BSON",
            ));
        };
        let meta = if doc.metadata.is_empty() {
            metadata::Metadata::default()
        } else {
            metadata::parse(doc.metadata.as_bytes()).unwrap_or_else(|m| {
                let what = format!(
                    "metadata of {}.{} (its indexes are unknown): {m}",
                    doc.db, doc.collection
                );
                errors.push(archive_err(path, at, what));
                metadata::Metadata::default()
            })
        };
        if meta.kind.as_deref() == Some("view") || doc.kind == "view" {
            continue;
        }
        // A time series collection's documents travel as its buckets.
        if meta.kind.as_deref() == Some("timeseries") || doc.kind == "timeseries" {
            collections.push(CollectionInfo {
                database: Some(doc.db.clone()),
                name: format!("system.buckets.{}", doc.collection),
                indexes: Vec::new(),
                origin: path.to_path_buf(),
            });
        }
        collections.push(CollectionInfo {
            database: Some(doc.db),
            name: doc.collection,
            indexes: meta.indexes,
            origin: path.to_path_buf(),
        });
    }
    Ok(Prelude {
        collections,
        errors,
    })
}

/// Reads an archive from its start (the prelude was read once at `open`).
pub(crate) fn read_archive(
    path: &Path,
    reader: impl Read,
    namespaces: &[((String, String), usize)],
    on_event: &mut dyn FnMut(Event<'_>),
) -> u64 {
    let mut framer = Framer::new(reader, 0);
    // Prelude problems were reported when the archive was opened.
    if let Err(e) = read_prelude(path, &mut framer) {
        on_event(Event::Error(e));
        return framer.offset();
    }
    read_body(path, framer, namespaces, on_event)
}

/// Reads the blocks after the prelude; returns the bytes consumed.
pub(crate) fn read_body<R: Read>(
    path: &Path,
    mut framer: Framer<R>,
    namespaces: &[((String, String), usize)],
    on_event: &mut dyn FnMut(Event<'_>),
) -> u64 {
    let mut unknown_reported: Vec<(String, String)> = Vec::new();
    loop {
        // A namespace header starts each block.
        let at = framer.offset();
        let header = match framer.next_frame() {
            Ok(None) => break,
            Ok(Some(Frame::Document { bytes, .. })) => fields(bytes),
            Ok(Some(Frame::Damage { .. })) => None,
            Err(e) => {
                on_event(Event::Error(InputError::io(
                    path,
                    Some(Position::byte(at)),
                    &e,
                )));
                break;
            }
        };
        let Some(header) = header else {
            on_event(Event::Error(archive_err(
                path,
                at,
                "a block header is damaged; the rest of the archive is skipped",
            )));
            break;
        };
        let ns = (header.db, header.collection);
        let collection = namespaces.iter().find(|(n, _)| *n == ns).map(|(_, i)| *i);
        if collection.is_none() && !unknown_reported.contains(&ns) {
            // The oplog of `--oplog` dumps, or a namespace the prelude does not list.
            on_event(Event::Error(archive_err(
                path,
                at,
                format!(
                    "namespace `{}.{}` is not in the prelude; its documents are skipped",
                    ns.0, ns.1
                ),
            )));
            unknown_reported.push(ns.clone());
        }
        // Documents until the terminator.
        loop {
            let at = framer.offset();
            match framer.take_terminator() {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => {
                    on_event(Event::Error(InputError::io(
                        path,
                        Some(Position::byte(at)),
                        &e,
                    )));
                    return framer.offset();
                }
            }
            match framer.next_frame() {
                Ok(None) => {
                    on_event(Event::Error(archive_err(
                        path,
                        at,
                        format!("the archive ends inside the block of `{}.{}`", ns.0, ns.1),
                    )));
                    return framer.offset();
                }
                Ok(Some(Frame::Document { offset, bytes })) => {
                    if let Some(collection) = collection {
                        on_event(Event::Document {
                            collection,
                            bytes,
                            position: Position::byte(offset),
                        });
                    }
                }
                Ok(Some(Frame::Damage {
                    offset,
                    message,
                    resumed_at,
                    ..
                })) => {
                    on_event(Event::Error(InputError::new(
                        path,
                        Some(Position::byte(offset)),
                        K::Framing {
                            message,
                            resumed_at,
                        },
                    )));
                    if resumed_at.is_none() {
                        return framer.offset();
                    }
                }
                Err(e) => {
                    on_event(Event::Error(InputError::io(
                        path,
                        Some(Position::byte(at)),
                        &e,
                    )));
                    return framer.offset();
                }
            }
        }
    }
    framer.offset()
}

/// The string and boolean fields of a prelude entry or block header.
#[derive(Default)]
struct Fields {
    db: String,
    collection: String,
    metadata: String,
    kind: String,
}

fn fields(doc: &[u8]) -> Option<Fields> {
    struct Collect(Fields);
    impl Visitor for Collect {
        fn enter(&mut self, _: &str, _: Container, _: u32, _: u32) {}
        fn leave(&mut self, _: Container, _: u32, _: u32) {}
        fn scalar(&mut self, key: &str, value: Scalar<'_>, _: u32, depth: u32) {
            if let (1, Scalar::String(s)) = (depth, value) {
                let slot = match key {
                    "db" => &mut self.0.db,
                    "collection" => &mut self.0.collection,
                    "metadata" => &mut self.0.metadata,
                    "type" => &mut self.0.kind,
                    _ => return,
                };
                *slot = s.as_str().to_string();
            }
        }
    }
    let mut c = Collect(Fields::default());
    walk(doc, &mut c).ok()?;
    Some(c.0)
}
