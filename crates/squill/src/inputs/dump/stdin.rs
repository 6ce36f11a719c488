//! Streams: standard input, and any path that is not a regular file (a FIFO,
//! `/dev/stdin`, a shell's `<(…)`). Such input can be read once only and
//! cannot seek, so the format is detected from a peeked head that is then put
//! back in front of the stream; an archive's prelude is read at `open` time to
//! list its collections, and its body is kept for `read`.

use super::discover::{HEAD_BYTES, read_head};
use super::format::{self, InputFormat};
use super::{CollectionInfo, Event, InputError, InputErrorKind as K, Inputs, Source, SourceKind};
use super::{archive, framing::Framer, gz, json, read_bson};
use std::io::{self, Cursor, Read};
use std::path::Path;
use std::sync::Mutex;

type Stream = Box<dyn Read + Send>;

#[derive(Debug)]
pub(crate) enum StdinBody {
    Bson {
        collection: usize,
    },
    Json {
        collection: usize,
        array: bool,
    },
    Archive {
        namespaces: Vec<((String, String), usize)>,
    },
}

/// The stream (taken by the first `read`) and what it holds.
pub(crate) struct Stdin {
    stream: Mutex<Option<Pending>>,
    body: StdinBody,
}

enum Pending {
    Plain(Stream),
    /// An archive whose prelude was consumed at open time.
    ArchiveBody(Framer<Stream>),
}

impl std::fmt::Debug for Stdin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdin")
            .field("body", &self.body)
            .finish_non_exhaustive()
    }
}

impl Stdin {
    /// Moves the stream into a new `Stdin` (this one is left empty).
    pub(crate) fn take(&self) -> Stdin {
        let stream = self.stream.lock().map(|mut s| s.take()).unwrap_or(None);
        let body = match &self.body {
            StdinBody::Bson { collection } => StdinBody::Bson {
                collection: *collection,
            },
            StdinBody::Json { collection, array } => StdinBody::Json {
                collection: *collection,
                array: *array,
            },
            StdinBody::Archive { namespaces } => StdinBody::Archive {
                namespaces: namespaces.clone(),
            },
        };
        Stdin {
            stream: Mutex::new(stream),
            body,
        }
    }

    /// The collections the stream may hold (`Source::collections`).
    pub(crate) fn collections(&self) -> Vec<usize> {
        match &self.body {
            StdinBody::Bson { collection } | StdinBody::Json { collection, .. } => {
                vec![*collection]
            }
            StdinBody::Archive { namespaces } => super::namespace_collections(namespaces),
        }
    }

    pub(crate) fn read(
        &self,
        path: &Path,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<u64, InputError> {
        let pending = self.stream.lock().map(|mut s| s.take()).unwrap_or(None);
        let Some(pending) = pending else {
            return Err(InputError::new(
                path,
                None,
                K::Other("standard input was already read".into()),
            ));
        };
        Ok(match (pending, &self.body) {
            (Pending::Plain(r), StdinBody::Bson { collection }) => {
                read_bson(path, r, 0, *collection, on_event)
            }
            (Pending::Plain(r), StdinBody::Json { collection, array }) => {
                json::read_json(path, r, *array, *collection, on_event)
            }
            (Pending::ArchiveBody(framer), StdinBody::Archive { namespaces }) => {
                archive::read_body(path, framer, namespaces, on_event)
            }
            _ => 0,
        })
    }
}

impl Inputs {
    pub(crate) fn add_stdin(&mut self, format: InputFormat) {
        self.add_stream(Path::new("-"), "stdin", Box::new(io::stdin()), format);
    }

    /// Adds a stream read once from its start: standard input, or a path that
    /// is not a regular file. `name` is the collection a BSON or JSON stream
    /// fills.
    pub(crate) fn add_stream(
        &mut self,
        path: &Path,
        name: &str,
        stream: Stream,
        format: InputFormat,
    ) {
        match self.stream_source(path, name, stream, format) {
            Ok(Some(source)) => self.sources.push(source),
            Ok(None) => {}
            Err(e) => self.errors.push(e),
        }
    }

    /// Builds the source for standard input (tests pass their own stream).
    pub(crate) fn stdin_source(
        &mut self,
        stream: Stream,
        format: InputFormat,
    ) -> Result<Option<Source>, InputError> {
        self.stream_source(Path::new("-"), "stdin", stream, format)
    }

    fn stream_source(
        &mut self,
        path: &Path,
        name: &str,
        mut stream: Stream,
        format: InputFormat,
    ) -> Result<Option<Source>, InputError> {
        let path = path.to_path_buf();
        let io_err = |e: io::Error| InputError::io(&path, None, &e);
        let mut head = read_head(&mut stream, HEAD_BYTES).map_err(io_err)?;
        stream = Box::new(Cursor::new(head.clone()).chain(stream));
        if format::is_gzip(&head) {
            let mut decoded: Stream = Box::new(gz(stream));
            head = read_head(&mut decoded, HEAD_BYTES).map_err(io_err)?;
            stream = Box::new(Cursor::new(head.clone()).chain(decoded));
        }
        if head.is_empty() {
            return Err(InputError::new(&path, None, K::Empty));
        }
        let detected = match format {
            InputFormat::Auto | InputFormat::Dump => format::detect(&head),
            forced => Some(forced),
        };
        let Some(detected) = detected else {
            return Err(InputError::new(
                &path,
                Some(super::Position::byte(0)),
                K::UnknownFormat,
            ));
        };
        let add = |inputs: &mut Inputs| {
            inputs.collections.push(CollectionInfo {
                database: None,
                name: name.to_string(),
                indexes: Vec::new(),
                origin: path.clone(),
            });
            inputs.collections.len() - 1
        };
        let (pending, body) = match detected {
            InputFormat::Archive => {
                let mut framer = Framer::new(stream, 0);
                let prelude = archive::read_prelude(&path, &mut framer)?;
                self.errors.extend(prelude.errors);
                let namespaces = prelude
                    .collections
                    .into_iter()
                    .map(|c| {
                        let ns = (c.database.clone().unwrap_or_default(), c.name.clone());
                        self.collections.push(c);
                        (ns, self.collections.len() - 1)
                    })
                    .collect();
                (
                    Pending::ArchiveBody(framer),
                    StdinBody::Archive { namespaces },
                )
            }
            InputFormat::JsonArray | InputFormat::JsonLines => (
                Pending::Plain(stream),
                StdinBody::Json {
                    collection: add(self),
                    array: detected == InputFormat::JsonArray,
                },
            ),
            _ => (
                Pending::Plain(stream),
                StdinBody::Bson {
                    collection: add(self),
                },
            ),
        };
        Ok(Some(Source {
            path,
            kind: SourceKind::Stdin(Stdin {
                stream: Mutex::new(Some(pending)),
                body,
            }),
            file_len: None,
        }))
    }
}
