//! Turns paths into collections and sources: walks dump directories, pairs
//! each data file with its `.metadata.json(.gz)`, and detects each file's
//! format from its first bytes.

use super::format::{self, InputFormat};
use super::{
    CollectionInfo, InputError, InputErrorKind as K, Inputs, Source, SourceKind, metadata,
};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How many bytes are enough to tell formats apart.
pub(crate) const HEAD_BYTES: usize = 512;

/// Reads up to `n` bytes (fewer only at the end of the stream).
pub(crate) fn read_head(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// A file's first bytes, decompressed if it is gzip; and whether it was.
pub(crate) fn file_head(path: &Path) -> io::Result<(Vec<u8>, bool)> {
    let mut file = fs::File::open(path)?;
    let head = read_head(&mut file, HEAD_BYTES)?;
    if format::is_gzip(&head) {
        let file = fs::File::open(path)?;
        let mut gz = flate2::read::MultiGzDecoder::new(io::BufReader::new(file));
        return Ok((read_head(&mut gz, HEAD_BYTES)?, true));
    }
    Ok((head, false))
}

/// The data file's collection name: the file name without its extensions,
/// with mongodump's percent-escapes undone (`caf%C3%A9s.bson` → `cafés`).
fn collection_name(file_name: &str) -> String {
    let stem = [
        ".bson.gz",
        ".bson",
        ".json.gz",
        ".jsonl.gz",
        ".json",
        ".jsonl",
        ".ndjson",
    ]
    .iter()
    .find_map(|ext| file_name.strip_suffix(ext))
    .unwrap_or(file_name);
    percent_decode(stem)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

fn is_metadata(name: &str) -> bool {
    name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz")
}

fn is_data_file(name: &str) -> bool {
    !is_metadata(name)
        && name != "prelude.json"
        && name != "prelude.json.gz"
        && name != "oplog.bson"
        && [
            ".bson",
            ".bson.gz",
            ".json",
            ".json.gz",
            ".jsonl",
            ".jsonl.gz",
            ".ndjson",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// The metadata file beside a data file, if any.
fn metadata_beside(data: &Path) -> Option<PathBuf> {
    let name = data.file_name()?.to_str()?;
    let stem = [".bson.gz", ".bson", ".json.gz", ".json"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))?;
    let dir = data.parent()?;
    [".metadata.json", ".metadata.json.gz"]
        .iter()
        .map(|ext| dir.join(format!("{stem}{ext}")))
        .find(|p| p.is_file())
}

pub(crate) fn read_metadata(path: &Path) -> Result<metadata::Metadata, InputError> {
    let mut bytes = Vec::new();
    let result = fs::File::open(path).and_then(|f| {
        if path.extension().is_some_and(|e| e == "gz") {
            flate2::read::MultiGzDecoder::new(io::BufReader::new(f)).read_to_end(&mut bytes)
        } else {
            io::BufReader::new(f).read_to_end(&mut bytes)
        }
    });
    result.map_err(|e| InputError::io(path, None, &e))?;
    metadata::parse(&bytes).map_err(|m| InputError::new(path, None, K::Metadata(m)))
}

impl Inputs {
    fn add_collection(&mut self, info: CollectionInfo) -> usize {
        self.collections.push(info);
        self.collections.len() - 1
    }

    /// Whether `path`'s real location is met for the first time; when not,
    /// notes it as skipped. A path that cannot be resolved counts as new (its
    /// reading reports the problem).
    fn first_visit(&mut self, path: &Path) -> bool {
        let Ok(real) = fs::canonicalize(path) else {
            return true;
        };
        if self.seen.insert(real.clone()) {
            return true;
        }
        self.skipped
            .push(InputError::new(path, None, K::AlreadyRead(real)));
        false
    }

    /// Adds one path given by the user.
    pub(crate) fn add_path(&mut self, path: &Path, format: InputFormat) {
        let meta = match fs::metadata(path) {
            Ok(m) => m,
            Err(e) => {
                self.errors.push(InputError::io(path, None, &e));
                return;
            }
        };
        if !meta.is_dir() && !meta.is_file() && format != InputFormat::Dump {
            // A FIFO, `/dev/stdin` or `<(…)`: readable once, from the start.
            if !self.first_visit(path) {
                return;
            }
            let name = path.file_name().map_or_else(
                || "stream".to_string(),
                |n| collection_name(&n.to_string_lossy()),
            );
            match fs::File::open(path) {
                Ok(f) => self.add_stream(path, &name, Box::new(f), format),
                Err(e) => self.errors.push(InputError::io(path, None, &e)),
            }
            return;
        }
        if meta.is_dir() {
            let before = self.sources.len() + self.collections.len();
            self.add_dir(path, format);
            if self.sources.len() + self.collections.len() == before {
                self.errors.push(InputError::new(path, None, K::NoInputs));
            }
        } else if format == InputFormat::Dump {
            self.errors.push(InputError::new(
                path,
                None,
                K::Other("--input-format dump needs a directory".into()),
            ));
        } else {
            self.add_file(path, format, None, true);
        }
    }

    /// Walks a directory in name order: a whole dump (db directories inside)
    /// or one database's directory. The database is the data file's directory name.
    fn add_dir(&mut self, dir: &Path, format: InputFormat) {
        if !self.first_visit(dir) {
            return;
        }
        let mut entries = match fs::read_dir(dir) {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect::<Vec<_>>(),
            Err(e) => {
                self.errors.push(InputError::io(dir, None, &e));
                return;
            }
        };
        entries.sort();
        let database = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let mut data_stems = Vec::new();
        for entry in &entries {
            let Some(name) = entry.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let meta = fs::metadata(entry);
            if meta.as_ref().is_ok_and(fs::Metadata::is_dir) {
                self.add_dir(entry, format);
            } else if is_data_file(name) {
                if meta.as_ref().is_ok_and(|m| !m.is_file()) {
                    self.skipped
                        .push(InputError::new(entry, None, K::NotRegular));
                } else {
                    data_stems.push(collection_name(name));
                    self.add_file(entry, format, database.clone(), false);
                }
            }
        }
        // A metadata file without data: a collection whose data was not dumped
        // (or a view). Its indexes still count.
        for entry in &entries {
            let Some(name) = entry.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !is_metadata(name) {
                continue;
            }
            let stem = name
                .trim_end_matches(".gz")
                .trim_end_matches(".metadata.json");
            if data_stems.iter().any(|s| *s == percent_decode(stem)) {
                continue;
            }
            if !entry.is_file() {
                self.skipped
                    .push(InputError::new(entry, None, K::NotRegular));
                continue;
            }
            match read_metadata(entry) {
                Ok(m) if m.kind.as_deref() == Some("view") => {}
                Ok(m) => {
                    self.add_collection(CollectionInfo {
                        database: database.clone(),
                        name: m.collection_name.unwrap_or_else(|| percent_decode(stem)),
                        indexes: m.indexes,
                        origin: entry.clone(),
                    });
                }
                Err(e) => self.errors.push(e),
            }
        }
    }

    /// Adds one file. `explicit` files that are empty are an error; an empty
    /// `.bson` inside a dump is an empty collection.
    fn add_file(
        &mut self,
        path: &Path,
        format: InputFormat,
        database: Option<String>,
        explicit: bool,
    ) {
        if !self.first_visit(path) {
            return;
        }
        let (head, gzip) = match file_head(path) {
            Ok(h) => h,
            Err(e) => {
                self.errors.push(InputError::io(path, None, &e));
                return;
            }
        };
        let name_str = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let detected = match format {
            InputFormat::Auto | InputFormat::Dump => format::detect(&head),
            forced => Some(forced),
        };
        let mut name = collection_name(&name_str);
        let mut indexes = Vec::new();
        if let Some(meta_path) = metadata_beside(path) {
            match read_metadata(&meta_path) {
                Ok(m) => {
                    if let Some(n) = m.collection_name {
                        name = n;
                    }
                    indexes = m.indexes;
                }
                Err(e) => self.errors.push(e),
            }
        }
        if head.is_empty() {
            if explicit {
                self.errors.push(InputError::new(path, None, K::Empty));
            } else {
                self.add_collection(CollectionInfo {
                    database,
                    name,
                    indexes,
                    origin: path.to_path_buf(),
                });
            }
            return;
        }
        let Some(detected) = detected else {
            self.errors.push(InputError::new(
                path,
                Some(super::Position::byte(0)),
                K::UnknownFormat,
            ));
            return;
        };
        let kind = match detected {
            InputFormat::Archive => match super::archive::read_prelude_of_file(path, gzip) {
                Ok(prelude) => {
                    self.errors.extend(prelude.errors);
                    let namespaces = prelude
                        .collections
                        .into_iter()
                        .map(|c| {
                            let ns = (c.database.clone().unwrap_or_default(), c.name.clone());
                            (ns, self.add_collection(c))
                        })
                        .collect();
                    SourceKind::Archive { gzip, namespaces }
                }
                Err(e) => {
                    self.errors.push(e);
                    return;
                }
            },
            other => {
                let collection = self.add_collection(CollectionInfo {
                    database,
                    name,
                    indexes,
                    origin: path.to_path_buf(),
                });
                match other {
                    InputFormat::JsonArray => SourceKind::Json {
                        collection,
                        gzip,
                        array: true,
                    },
                    InputFormat::JsonLines => SourceKind::Json {
                        collection,
                        gzip,
                        array: false,
                    },
                    _ => SourceKind::Bson {
                        collection,
                        gzip,
                        start: 0,
                        end: None,
                    },
                }
            }
        };
        let len = fs::metadata(path).ok().map(|m| m.len());
        self.sources.push(Source {
            path: path.to_path_buf(),
            kind,
            file_len: len,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds_of_files() {
        assert_eq!(collection_name("caf%C3%A9s.bson"), "cafés");
        assert_eq!(collection_name("a%24b.bson.gz"), "a$b");
        assert_eq!(collection_name("x.json"), "x");
        assert_eq!(collection_name("100%"), "100%");
        assert!(is_data_file("foo.bson.gz"));
        assert!(!is_data_file("foo.metadata.json"));
        assert!(!is_data_file("prelude.json"));
        assert!(!is_data_file("README.adoc"));
    }
}
