//! Where the document builder puts what it builds: a `Value` tree (example
//! documents, the validator checks, tests) or, for synthetic data, Extended
//! JSON and BSON written straight into the output buffers. The second skips a
//! tree of owned strings per document, which was most of the allocation and
//! copying in `generate data` (BENCHMARKS.md).
//!
//! Both encoders write scalars through `Scalar`'s writers, the same ones the
//! `Value` tree uses, so a document comes out byte for byte the same either
//! way; a test in `tests.rs` compares them on every example model.

use super::byte_out::ByteOut;
use super::json_text::{JsonOut, write_json_string};
use super::value::{Document, Scalar, Value, cstring, patch_len};

/// A field name with its Extended JSON forms (`"name":`, and `,"name":`
/// after another field) and its BSON form (a type byte, the name and a NUL)
/// encoded once.
#[derive(Debug, Clone)]
pub struct Key {
    pub name: String,
    /// `[json, json after a comma]`.
    json: [String; 2],
    /// The BSON element's name, with a placeholder type byte first.
    bson: Vec<u8>,
    /// `json` and `bson` padded to 16 bytes, when they fit: appended as one
    /// fixed-size copy (then cut to length) rather than a call to `memcpy`.
    json16: [Option<[u8; 16]>; 2],
    bson16: Option<[u8; 16]>,
}

fn pad16(bytes: &[u8]) -> Option<[u8; 16]> {
    let mut padded = [0; 16];
    padded.get_mut(..bytes.len())?.copy_from_slice(bytes);
    Some(padded)
}

impl Key {
    pub fn new(name: &str) -> Self {
        let mut json = String::with_capacity(name.len() + 3);
        write_json_string(&mut json, name);
        json.push(':');
        let after_comma = format!(",{json}");
        let mut bson = Vec::with_capacity(name.len() + 2);
        bson.push(0);
        cstring(&mut bson, name);
        Key {
            name: name.to_string(),
            json16: [pad16(json.as_bytes()), pad16(after_comma.as_bytes())],
            bson16: pad16(&bson),
            json: [json, after_comma],
            bson,
        }
    }

    /// Appends `"name":`, after a comma when `comma`.
    // Inlined by force: out of line, the two leads' calls were 6% of
    // `generate data`'s instructions (plain `#[inline]` changed nothing).
    #[inline(always)]
    pub(super) fn push_json<J: JsonOut>(&self, out: &mut J, comma: bool) {
        let i = usize::from(comma);
        match &self.json16[i] {
            Some(padded) => out.push_padded(&self.json[i], padded),
            None => out.push_str(&self.json[i]),
        }
    }

    /// Appends the BSON element's type byte and name.
    #[inline(always)]
    pub(super) fn push_bson<O: ByteOut>(&self, out: &mut O, type_byte: u8) {
        match &self.bson16 {
            Some(padded) => {
                let mut typed = *padded;
                typed[0] = type_byte;
                out.put_padded(&typed, self.bson.len());
            }
            None => {
                out.put_byte(type_byte);
                out.put(&self.bson[1..]);
            }
        }
    }
}

/// Where a value goes in its container.
#[derive(Debug, Clone, Copy)]
pub enum Name<'k> {
    /// A field of a document.
    Field(&'k Key),
    /// An element of an array (BSON names it by its index).
    Index(usize),
    /// The top-level document.
    Top,
}

/// Receives one document, value by value, in order.
pub trait Sink {
    fn scalar(&mut self, name: Name<'_>, value: Scalar<'_>);
    /// Opens a document (or an array) that the following values go into.
    fn open(&mut self, name: Name<'_>, array: bool);
    fn close(&mut self);

    /// A whole value, taken apart into the calls above.
    fn value(&mut self, name: Name<'_>, value: &Value) {
        match value {
            Value::Array(items) => {
                self.open(name, true);
                for (i, item) in items.iter().enumerate() {
                    self.value(Name::Index(i), item);
                }
                self.close();
            }
            Value::Document(doc) => {
                self.open(name, false);
                for (k, v) in &doc.0 {
                    self.value(Name::Field(&Key::new(k)), v);
                }
                self.close();
            }
            other => {
                if let Some(s) = other.as_scalar() {
                    self.scalar(name, s);
                }
            }
        }
    }
}

/// Builds the `Value` tree.
#[derive(Debug, Default)]
pub(super) struct TreeSink {
    /// Open containers, innermost last, with the name they go under.
    stack: Vec<(Option<String>, Value)>,
    done: Option<Document>,
}

impl TreeSink {
    /// The top-level document, once closed.
    pub(super) fn finish(self) -> Document {
        self.done.unwrap_or_default()
    }

    /// Adds `value` to the innermost open container, under `key` in a
    /// document; with none open, it is the finished top-level document.
    fn put(&mut self, key: Option<String>, value: Value) {
        match self.stack.last_mut() {
            Some((_, Value::Array(items))) => items.push(value),
            Some((_, Value::Document(doc))) => doc.0.push((key.unwrap_or_default(), value)),
            _ => {
                if let Value::Document(doc) = value {
                    self.done = Some(doc);
                }
            }
        }
    }
}

/// The key a value is stored under in a `Document` (array items and the
/// top-level document have none).
fn key_of(name: Name<'_>) -> Option<String> {
    match name {
        Name::Field(k) => Some(k.name.clone()),
        Name::Index(_) | Name::Top => None,
    }
}

impl Sink for TreeSink {
    fn scalar(&mut self, name: Name<'_>, value: Scalar<'_>) {
        self.put(key_of(name), value.to_value());
    }

    fn open(&mut self, name: Name<'_>, array: bool) {
        let key = key_of(name);
        let empty = if array {
            Value::Array(Vec::new())
        } else {
            Value::Document(Document::default())
        };
        self.stack.push((key, empty));
    }

    fn close(&mut self) {
        if let Some((key, value)) = self.stack.pop() {
            self.put(key, value);
        }
    }
}

/// Writes one document as a line of Extended JSON and/or as BSON, appending
/// to the caller's buffers. The JSON goes into bytes (`Vec<u8>`, what data
/// generation uses: no UTF-8 bookkeeping) or a `String`.
pub struct Encoder<'o, J: JsonOut = Vec<u8>> {
    json: Option<&'o mut J>,
    bson: Option<&'o mut Vec<u8>>,
    /// Whether a JSON value was written in the innermost open container yet
    /// (for the commas): kept here rather than on the stack, since every
    /// value asks.
    written: bool,
    open: OpenStack,
}

/// An open container: where its BSON length goes, whether it is an array,
/// and `written` of the container it is in, restored when it closes.
#[derive(Debug, Clone, Copy, Default)]
struct Open {
    start: usize,
    array: bool,
    outer_written: bool,
}

/// Containers kept in place before `deeper` is used.
const INLINE: usize = 8;

/// The open containers, innermost last. The first few are kept in place (a
/// generated document rarely nests deeper), so that an encoder, made once
/// per document, allocates nothing: the `Vec` it had was a `malloc` and a
/// `free` per document, 3.5% of `generate data`'s instructions.
#[derive(Debug, Default)]
struct OpenStack {
    inline: [Open; INLINE],
    len: usize,
    deeper: Vec<Open>,
}

impl OpenStack {
    fn push(&mut self, open: Open) {
        if self.len < INLINE {
            self.inline[self.len] = open;
        } else {
            self.deeper.push(open);
        }
        self.len += 1;
    }

    fn pop(&mut self) -> Option<Open> {
        self.len = self.len.checked_sub(1)?;
        if self.len < INLINE {
            Some(self.inline[self.len])
        } else {
            self.deeper.pop()
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'o, J: JsonOut> Encoder<'o, J> {
    pub fn new(json: Option<&'o mut J>, bson: Option<&'o mut Vec<u8>>) -> Self {
        Encoder {
            json,
            bson,
            written: false,
            open: OpenStack::default(),
        }
    }

    /// The JSON text before a value: a comma after the first, the key in a
    /// document.
    #[inline(always)]
    fn json_lead(json: &mut J, written: &mut bool, name: Name<'_>) {
        let comma = std::mem::replace(written, true);
        match name {
            Name::Field(k) => k.push_json(json, comma),
            Name::Index(_) | Name::Top if comma => json.push_byte(b','),
            Name::Index(_) | Name::Top => {}
        }
    }

    #[inline(always)]
    fn bson_lead(bson: &mut Vec<u8>, type_byte: u8, name: Name<'_>) {
        match name {
            Name::Field(k) => k.push_bson(bson, type_byte),
            // Array indexes below 100 without formatting.
            Name::Index(i @ 0..10) => bson.extend_from_slice(&[type_byte, b'0' + i as u8, 0]),
            Name::Index(i @ 10..100) => {
                let (tens, ones) = (b'0' + (i / 10) as u8, b'0' + (i % 10) as u8);
                bson.extend_from_slice(&[type_byte, tens, ones, 0]);
            }
            Name::Index(i) => {
                bson.push(type_byte);
                cstring(bson, itoa::Buffer::new().format(i));
            }
            Name::Top => {}
        }
    }
}

impl<J: JsonOut> Sink for Encoder<'_, J> {
    fn scalar(&mut self, name: Name<'_>, value: Scalar<'_>) {
        if let Some(json) = self.json.as_deref_mut() {
            Self::json_lead(json, &mut self.written, name);
            value.write_ejson(json);
        }
        if let Some(bson) = self.bson.as_deref_mut() {
            Self::bson_lead(bson, value.bson_type_byte(), name);
            value.write_bson_payload(bson);
        }
    }

    fn open(&mut self, name: Name<'_>, array: bool) {
        if let Some(json) = self.json.as_deref_mut() {
            Self::json_lead(json, &mut self.written, name);
            json.push_byte(if array { b'[' } else { b'{' });
        }
        let mut start = 0;
        if let Some(bson) = self.bson.as_deref_mut() {
            Self::bson_lead(bson, if array { 0x04 } else { 0x03 }, name);
            start = bson.len();
            bson.extend_from_slice(&[0; 4]);
        }
        self.open.push(Open {
            start,
            array,
            // After a top-level document the next one starts a line of its
            // own, without a comma.
            outer_written: self.written && !matches!(name, Name::Top),
        });
        self.written = false;
    }

    fn close(&mut self) {
        let Some(Open {
            start,
            array,
            outer_written,
        }) = self.open.pop()
        else {
            return;
        };
        self.written = outer_written;
        if let Some(json) = self.json.as_deref_mut() {
            json.push_byte(if array { b']' } else { b'}' });
            if self.open.is_empty() {
                json.push_byte(b'\n');
            }
        }
        if let Some(bson) = self.bson.as_deref_mut() {
            bson.push(0);
            patch_len(bson, start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A builder thread encodes a whole batch with one encoder: each
    /// document is a line of its own (no comma carried over from the last).
    /// The names include ones too long for the padded fast path and one
    /// that JSON must escape.
    #[test]
    fn one_encoder_writes_document_after_document() {
        let docs = [
            Document(vec![("a".into(), Value::Int(1))]),
            Document(vec![
                ("b".into(), Value::Array(vec![Value::Int(2), Value::Null])),
                ("c".into(), Value::Bool(true)),
            ]),
            Document(vec![("d".into(), Value::Document(Document::default()))]),
            Document(vec![
                (
                    "a_field_name_longer_than_sixteen_bytes".into(),
                    Value::Int(3),
                ),
                ("fourteen_bytes".into(), Value::Long(4)),
                ("fifteen_bytes_x".into(), Value::Null),
                ("say \"hi\"".into(), Value::String("x".into())),
            ]),
        ];
        let (mut want_json, mut want_bson) = (String::new(), Vec::new());
        for doc in &docs {
            doc.write_ejson_line(&mut want_json);
            doc.write_bson(&mut want_bson);
        }
        let (mut json, mut bson) = (Vec::new(), Vec::new());
        let mut encoder = Encoder::new(Some(&mut json), Some(&mut bson));
        for doc in docs {
            encoder.value(Name::Top, &Value::Document(doc));
        }
        drop(encoder);
        assert_eq!(String::from_utf8(json).unwrap(), want_json);
        assert_eq!(bson, want_bson);
    }

    /// Deeper than the containers kept in place: the encoder still writes
    /// what the tree writes.
    #[test]
    fn deep_nesting_encodes_like_the_tree() {
        let mut v = Value::Int(1);
        for depth in 0..(INLINE * 2 + 3) {
            v = if depth % 2 == 0 {
                Value::Array(vec![Value::Null, v, Value::Bool(true)])
            } else {
                Value::Document(Document(vec![("a".into(), v), ("b".into(), Value::Int(2))]))
            };
        }
        let doc = Document(vec![("x".into(), v), ("y".into(), Value::Long(3))]);
        let (mut tree_json, mut tree_bson) = (String::new(), Vec::new());
        doc.write_ejson_line(&mut tree_json);
        doc.write_bson(&mut tree_bson);
        let (mut json, mut bson) = (Vec::new(), Vec::new());
        let mut encoder = Encoder::new(Some(&mut json), Some(&mut bson));
        encoder.value(Name::Top, &Value::Document(doc));
        assert_eq!(String::from_utf8(json).unwrap(), tree_json);
        assert_eq!(bson, tree_bson);
    }
}
