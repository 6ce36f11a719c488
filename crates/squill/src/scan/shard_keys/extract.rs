//! The second reading of the dump, for `--shard-keys`: each candidate
//! field's value in every document, in record order (the order the dump
//! holds them, which stands for the order they were inserted), and each
//! document's size. The first reading (`scan::driver`) keeps bounded
//! profiles and never the values; a shard key's metrics need them all,
//! so only the fields that some candidate names are read, into one column
//! per field. `each` schedules the sources and hands each collection's
//! columns on once complete.

use super::column::{Column, Interner};
use super::lookup::{self, Hit};
use super::value::KeyValue;
use crate::inputs::bson::{Container, KeyCache, Scalar, Visitor, walk_cached};
use crate::inputs::dump::{Event, InputError, Source};
use std::path::PathBuf;

/// One collection's columns.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    /// The fields read, as dotted paths.
    pub paths: Vec<String>,
    /// Per field, its value in each document in record order (null when
    /// the document has no such field), as ranks among its distinct values.
    pub columns: Vec<Column>,
    /// Per field, the documents where the field is an array or passes
    /// through one (a shard key cannot hold an array).
    pub arrays: Vec<u64>,
    /// Per field, the documents where it holds a sub-document (a key of
    /// whole documents, which squill does not order).
    pub documents_as_values: Vec<u64>,
    pub documents: u64,
    /// BSON bytes of every document together.
    pub bytes: u64,
}

/// One collection's columns while a source is read.
#[derive(Default)]
struct Reading {
    columns: Vec<Interner>,
    arrays: Vec<u64>,
    documents_as_values: Vec<u64>,
    documents: u64,
    bytes: u64,
}

impl Reading {
    fn new(fields: usize) -> Reading {
        Reading {
            columns: (0..fields).map(|_| Interner::default()).collect(),
            arrays: vec![0; fields],
            documents_as_values: vec![0; fields],
            documents: 0,
            bytes: 0,
        }
    }

    fn finish(self, paths: &[String]) -> Columns {
        Columns {
            paths: paths.to_vec(),
            columns: self.columns.into_iter().map(Interner::finish).collect(),
            arrays: self.arrays,
            documents_as_values: self.documents_as_values,
            documents: self.documents,
            bytes: self.bytes,
        }
    }
}

impl Columns {
    pub fn column(&self, path: &str) -> Option<usize> {
        self.paths.iter().position(|p| p == path)
    }
}

/// One source read: the columns of each collection of `held` (by index,
/// below `n`; the collections it may hold), and its errors. A document of
/// any other collection is not kept.
pub(super) fn read_source(
    source: &Source,
    held: &[usize],
    n: usize,
    wanted: &[Vec<String>],
    failed: Option<&[PathBuf]>,
) -> (Vec<(usize, Columns)>, Vec<InputError>) {
    let held: Vec<usize> = held.iter().copied().filter(|&c| c < n).collect();
    let mut reading: Vec<Option<Reading>> = (0..n).map(|_| None).collect();
    for &c in &held {
        reading[c] = Some(Reading::new(wanted.get(c).map_or(0, Vec::len)));
    }
    let mut errors = Vec::new();
    let mut keys = KeyCache::default();
    let mut visitor = Reader::default();
    let walked_clean = failed.is_some_and(|f| !f.iter().any(|p| p == source.path()));
    let read = source.read(&mut |event| match event {
        Event::Document {
            collection, bytes, ..
        } => {
            let Some(paths) = wanted.get(collection).filter(|p| !p.is_empty()) else {
                return;
            };
            let Some(Some(c)) = reading.get_mut(collection) else {
                return;
            };
            visitor.start(collection, paths);
            if walked_clean && visitor.look_up(bytes, c) {
                return;
            }
            if walk_cached(bytes, &mut visitor, &mut keys).is_ok() {
                visitor.finish(c, bytes.len() as u64);
            }
        }
        Event::Error(e) => errors.push(e),
    });
    if let Err(e) = read {
        errors.push(e);
    }
    // Each source's values sorted here, in parallel, once read.
    let columns = held
        .into_iter()
        .filter_map(|c| {
            let r = reading[c].take()?;
            Some((c, r.finish(wanted.get(c).map_or(&[][..], Vec::as_slice))))
        })
        .collect();
    (columns, errors)
}

impl Columns {
    /// No document yet, for the fields `paths`.
    pub(super) fn new(paths: &[String]) -> Columns {
        Columns {
            paths: paths.to_vec(),
            columns: vec![Column::default(); paths.len()],
            arrays: vec![0; paths.len()],
            documents_as_values: vec![0; paths.len()],
            documents: 0,
            bytes: 0,
        }
    }

    /// `other`'s documents after these.
    pub(super) fn append(&mut self, other: Columns) {
        if other.documents == 0 {
            return;
        }
        if self.documents == 0 {
            *self = other;
            return;
        }
        for (mine, theirs) in self.columns.iter_mut().zip(other.columns) {
            mine.append(theirs);
        }
        for (a, b) in self.arrays.iter_mut().zip(other.arrays) {
            *a += b;
        }
        for (a, b) in self
            .documents_as_values
            .iter_mut()
            .zip(other.documents_as_values)
        {
            *a += b;
        }
        self.documents += other.documents;
        self.bytes += other.bytes;
    }
}

/// Walks one document, keeping the wanted fields' values.
#[derive(Default)]
struct Reader {
    /// The collection whose paths `parts` holds.
    collection: Option<usize>,
    /// The dotted paths wanted, split at the dots.
    parts: Vec<Vec<String>>,
    /// The keys of the containers the walk is in (below the document),
    /// kept only while they are on some wanted field's path (`None` past
    /// it: most containers are not, and their keys are never looked at).
    stack: Vec<Option<Box<str>>>,
    /// How many of them are arrays.
    in_array: usize,
    arrays: Vec<Container>,
    found: Vec<Option<KeyValue>>,
    array_hit: Vec<bool>,
    document_hit: Vec<bool>,
}

impl Reader {
    fn start(&mut self, collection: usize, paths: &[String]) {
        if self.collection != Some(collection) {
            self.collection = Some(collection);
            self.parts = paths
                .iter()
                .map(|p| p.split('.').map(str::to_string).collect())
                .collect();
        }
        let n = self.parts.len();
        self.stack.clear();
        self.arrays.clear();
        self.in_array = 0;
        self.found.clear();
        self.found.resize(n, None);
        self.array_hit.clear();
        self.array_hit.resize(n, false);
        self.document_hit.clear();
        self.document_hit.resize(n, false);
    }

    fn finish(&mut self, columns: &mut Reading, bytes: u64) {
        for i in 0..self.parts.len() {
            let value = self.found[i].take().unwrap_or(KeyValue::Null);
            columns.columns[i].push(value);
            columns.arrays[i] += u64::from(self.array_hit[i]);
            columns.documents_as_values[i] += u64::from(self.document_hit[i]);
        }
        columns.documents += 1;
        columns.bytes += bytes;
    }

    /// Reads the wanted fields of a document without walking it; false
    /// (and nothing kept) when some field needs the full walk.
    fn look_up(&mut self, doc: &[u8], columns: &mut Reading) -> bool {
        let mut hits: Vec<Hit<'_>> = Vec::with_capacity(self.parts.len());
        hits.resize_with(self.parts.len(), Hit::default);
        if lookup::find_all(doc, &self.parts, &mut hits).is_err() {
            return false;
        }
        for (i, hit) in hits.iter().enumerate() {
            match &hit.value {
                Some(scalar) => columns.columns[i].push_scalar(scalar),
                None => columns.columns[i].push(KeyValue::Null),
            }
            columns.arrays[i] += u64::from(hit.array);
            columns.documents_as_values[i] += u64::from(hit.document);
        }
        columns.documents += 1;
        columns.bytes += doc.len() as u64;
        true
    }

    /// Whether the element `key` at `depth` is on the path of field `i`:
    /// `Some(true)` when it is the field itself.
    fn on_path(&self, i: usize, key: &str, depth: u32) -> Option<bool> {
        let parts = &self.parts[i];
        let d = depth as usize;
        if d == 0 || d > parts.len() || parts[d - 1] != key {
            return None;
        }
        if self.stack.len() + 1 != d
            || self
                .stack
                .iter()
                .zip(parts)
                .any(|(a, b)| a.as_deref() != Some(b.as_str()))
        {
            return None;
        }
        Some(d == parts.len())
    }
}

impl Visitor for Reader {
    fn enter(&mut self, key: &str, container: Container, _: u32, depth: u32) {
        if depth == 0 {
            return;
        }
        let mut on_a_path = false;
        if self.in_array == 0 {
            for i in 0..self.parts.len() {
                let on = self.on_path(i, key, depth);
                on_a_path |= on == Some(false) && container == Container::Document;
                match (on, container) {
                    (Some(_), Container::Array) => self.array_hit[i] = true,
                    (Some(true), Container::Document) => self.document_hit[i] = true,
                    _ => {}
                }
            }
        }
        self.stack.push(on_a_path.then(|| key.into()));
        self.arrays.push(container);
        if container == Container::Array {
            self.in_array += 1;
        }
    }

    fn leave(&mut self, _: Container, _: u32, depth: u32) {
        if depth == 0 {
            return;
        }
        self.stack.pop();
        if self.arrays.pop() == Some(Container::Array) {
            self.in_array -= 1;
        }
    }

    fn scalar(&mut self, key: &str, value: Scalar<'_>, _: u32, depth: u32) {
        if self.in_array > 0 {
            return;
        }
        for i in 0..self.parts.len() {
            if self.on_path(i, key, depth) == Some(true) {
                self.found[i] = Some(KeyValue::of(&value));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::testing::{B, doc};

    fn columns(docs: &[Vec<u8>], paths: &[&str]) -> Columns {
        let paths: Vec<String> = paths.iter().map(|p| (*p).to_string()).collect();
        let mut c = Reading::new(paths.len());
        let mut r = Reader::default();
        let mut keys = KeyCache::default();
        for d in docs {
            r.start(0, &paths);
            walk_cached(d, &mut r, &mut keys).unwrap();
            r.finish(&mut c, d.len() as u64);
        }
        c.finish(&paths)
    }

    /// The columns read as `read` does in a file the scan found clean:
    /// looked up, walked only where the lookup is unsure.
    fn looked_up(docs: &[Vec<u8>], paths: &[&str]) -> (Columns, usize) {
        let paths: Vec<String> = paths.iter().map(|p| (*p).to_string()).collect();
        let mut c = Reading::new(paths.len());
        let mut r = Reader::default();
        let mut keys = KeyCache::default();
        let mut walked = 0;
        for d in docs {
            r.start(0, &paths);
            if !r.look_up(d, &mut c) {
                walked += 1;
                walk_cached(d, &mut r, &mut keys).unwrap();
                r.finish(&mut c, d.len() as u64);
            }
        }
        (c.finish(&paths), walked)
    }

    /// A document of raw elements: type, key, value bytes.
    fn raw(elements: &[(u8, &str, Vec<u8>)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (ty, key, value) in elements {
            body.push(*ty);
            body.extend_from_slice(key.as_bytes());
            body.push(0);
            body.extend_from_slice(value);
        }
        let mut out = ((body.len() + 5) as i32).to_le_bytes().to_vec();
        out.extend(body);
        out.push(0);
        out
    }

    fn string(s: &str) -> Vec<u8> {
        let mut v = ((s.len() + 1) as i32).to_le_bytes().to_vec();
        v.extend_from_slice(s.as_bytes());
        v.push(0);
        v
    }

    /// Every BSON type, as a value of field `f`: what the lookup skips when
    /// it is off the path and decodes (or leaves to the walk) on it.
    fn every_type() -> Vec<(u8, &'static str, Vec<u8>)> {
        let scope = doc(&[("x", B::I32(1))]);
        let mut code_with_scope = ((4 + 8 + scope.len()) as i32).to_le_bytes().to_vec();
        code_with_scope.extend(string("f()"));
        code_with_scope.extend(&scope);
        let mut binary = 3i32.to_le_bytes().to_vec();
        binary.extend([0x00, 1, 2, 3]);
        let mut pointer = string("db.c");
        pointer.extend([7; 12]);
        vec![
            (0x01, "f", 2.5f64.to_le_bytes().to_vec()),
            (0x02, "f", string("short")),
            (0x02, "f", string("a string longer than fourteen bytes")),
            (0x02, "f", string("é")),
            (0x03, "f", doc(&[("g", B::I32(1))])),
            (0x04, "f", doc(&[("0", B::I32(1))])),
            (0x05, "f", binary),
            (0x06, "f", Vec::new()),
            (0x07, "f", vec![9; 12]),
            (0x08, "f", vec![1]),
            (0x09, "f", (-5i64).to_le_bytes().to_vec()),
            (0x0A, "f", Vec::new()),
            (0x0B, "f", b"^a\0i\0".to_vec()),
            (0x0C, "f", pointer),
            (0x0D, "f", string("f()")),
            (0x0E, "f", string("sym")),
            (0x0F, "f", code_with_scope),
            (0x10, "f", 7i32.to_le_bytes().to_vec()),
            (0x11, "f", [1u8, 0, 0, 0, 2, 0, 0, 0].to_vec()),
            (0x12, "f", 7i64.to_le_bytes().to_vec()),
            (0x13, "f", vec![3; 16]),
            (0xFF, "f", Vec::new()),
            (0x7F, "f", Vec::new()),
        ]
    }

    /// The lookup keeps what the full walk keeps, on every type, nested
    /// paths, repeated keys, arrays on the path and sub-documents.
    #[test]
    fn looking_up_keeps_what_walking_keeps() {
        let mut docs = vec![
            doc(&[
                ("a", B::Doc(vec![("b", B::I32(1))])),
                ("t", B::Arr(vec![B::I32(1)])),
            ]),
            doc(&[("a", B::Doc(vec![("c", B::I32(2))])), ("t", B::I32(3))]),
            doc(&[("x", B::Arr(vec![B::Doc(vec![("b", B::I32(9))])]))]),
            // A repeated key: the last scalar is the value, an array either time flags it.
            doc(&[("t", B::I32(1)), ("t", B::Str("two")), ("f", B::Null)]),
            doc(&[("t", B::Arr(vec![])), ("t", B::I32(4))]),
            doc(&[
                ("a", B::Doc(vec![("b", B::I32(5))])),
                ("a", B::Doc(vec![("c", B::I32(6))])),
            ]),
            doc(&[("a", B::Arr(vec![B::Doc(vec![("b", B::I32(9))])]))]),
            doc(&[("a", B::I32(1)), ("a.b", B::I32(2))]),
        ];
        for (ty, _, value) in every_type() {
            // The type on the path, and off it before and after a wanted field.
            docs.push(raw(&[(ty, "f", value.clone())]));
            docs.push(raw(&[
                (ty, "off", value.clone()),
                (0x10, "t", 1i32.to_le_bytes().to_vec()),
                (ty, "off2", value.clone()),
            ]));
            docs.push(raw(&[(0x03, "a", raw(&[(ty, "b", value)]))]));
        }
        let paths = ["a.b", "t", "a", "f", "missing"];
        let walked = columns(&docs, &paths);
        let (looked, fell_back) = looked_up(&docs, &paths);
        for (i, path) in paths.iter().enumerate() {
            assert_eq!(looked.columns[i].ranks, walked.columns[i].ranks, "{path}");
            let all = |c: &Column| {
                (0..c.distinct())
                    .map(|r| c.distinct_value(r))
                    .collect::<Vec<_>>()
            };
            assert_eq!(all(&looked.columns[i]), all(&walked.columns[i]), "{path}");
        }
        assert_eq!(looked.arrays, walked.arrays);
        assert_eq!(looked.documents_as_values, walked.documents_as_values);
        assert_eq!(looked.documents, walked.documents);
        assert_eq!(looked.bytes, walked.bytes);
        // Only the rare types on a wanted path are walked: binary, regular
        // expression, pointer, code and code with scope, at "f" and "a.b".
        assert_eq!(fell_back, 10);
    }

    fn values(c: &Column) -> Vec<KeyValue> {
        (0..c.ranks.len()).filter_map(|i| c.value(i)).collect()
    }

    #[test]
    fn reads_nested_fields_missing_as_null_and_flags_arrays() {
        let docs = vec![
            doc(&[
                ("a", B::Doc(vec![("b", B::I32(1))])),
                ("t", B::Arr(vec![B::I32(1)])),
            ]),
            doc(&[("a", B::Doc(vec![("c", B::I32(2))])), ("t", B::I32(3))]),
            doc(&[("x", B::Arr(vec![B::Doc(vec![("b", B::I32(9))])]))]),
        ];
        let c = columns(&docs, &["a.b", "t", "a"]);
        assert_eq!(
            values(&c.columns[0]),
            [KeyValue::Number(1.0), KeyValue::Null, KeyValue::Null]
        );
        assert_eq!(
            values(&c.columns[1]),
            [KeyValue::Null, KeyValue::Number(3.0), KeyValue::Null]
        );
        assert_eq!(c.arrays, [0, 1, 0]);
        assert_eq!(c.documents_as_values, [0, 0, 2]);
        assert_eq!(c.documents, 3);
        assert_eq!(c.bytes, docs.iter().map(|d| d.len() as u64).sum::<u64>());
    }
}
