//! The walk itself: iterative over the bytes, recursive only in the visitor's
//! view, bounded by `MAX_DEPTH`.
//!
//! Keys are most of the UTF-8 checks, and the keys of one collection repeat from
//! document to document. So a key is first compared (with its NUL) against the
//! key seen last at the same place (same field position under the same path, in
//! a small per-thread cache of already validated keys) and, in arrays, against
//! the expected index ("0", "1", …): a match is the same bytes that passed the
//! check before, so finding the NUL and validating UTF-8 are skipped. Anything
//! else takes the full path; what is accepted or rejected does not change.

use super::{BsonError, BsonErrorKind as K, Container, ElementType as T, Scalar, Text, Visitor};
use std::cell::RefCell;

/// MongoDB's limit on nesting (documents and arrays).
pub const MAX_DEPTH: u32 = 100;
/// MongoDB's limit on a document's size.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;

/// Slots in a thread's key cache (a power of two).
const KEY_SLOTS: usize = 1024;

thread_local! {
    static KEYS: RefCell<KeyCache> = RefCell::new(KeyCache::new(KEY_SLOTS));
}

/// Walks one document (`doc` must be exactly its bytes), calling `visitor`.
/// Documents over 16 MiB are rejected before any callback.
pub fn walk(doc: &[u8], visitor: &mut impl Visitor) -> Result<(), BsonError> {
    KEYS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut keys) => walk_with(doc, visitor, &mut keys),
        // A visitor that walks another document from inside a callback.
        Err(_) => walk_with(doc, visitor, &mut KeyCache::new(1)),
    })
}

/// `walk` with a key cache the caller keeps (one per thread's run of
/// documents), which saves the thread-local lookup per document.
pub fn walk_cached(
    doc: &[u8],
    visitor: &mut impl Visitor,
    keys: &mut KeyCache,
) -> Result<(), BsonError> {
    walk_with(doc, visitor, keys)
}

fn walk_with(doc: &[u8], visitor: &mut impl Visitor, keys: &mut KeyCache) -> Result<(), BsonError> {
    if doc.len() > MAX_DOCUMENT_BYTES {
        return Err(BsonError {
            offset: 0,
            kind: K::TooLarge(doc.len()),
        });
    }
    let len = document_len(doc, 0)?;
    if len != doc.len() {
        return Err(BsonError {
            offset: 0,
            kind: K::LengthMismatch {
                declared: len as i64,
                available: doc.len(),
            },
        });
    }
    visitor.enter("", Container::Document, len as u32, 0);
    Walker {
        bytes: doc,
        visitor,
        keys,
    }
    .container(Container::Document, 0, len, 0, ROOT_PATH)
}

fn err<V>(offset: usize, kind: super::BsonErrorKind) -> Result<V, BsonError> {
    Err(BsonError { offset, kind })
}

/// Reads and checks the length prefix of a document starting at `at`.
#[inline]
fn document_len(bytes: &[u8], at: usize) -> Result<usize, BsonError> {
    let Some(raw) = bytes.get(at..at + 4) else {
        return err(at, K::TooShort);
    };
    let declared = i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
    if declared < 5 {
        return err(
            at,
            K::LengthMismatch {
                declared: i64::from(declared),
                available: bytes.len() - at,
            },
        );
    }
    let len = declared as usize;
    if len > bytes.len() - at {
        return err(
            at,
            K::LengthMismatch {
                declared: i64::from(declared),
                available: bytes.len() - at,
            },
        );
    }
    if bytes[at + len - 1] != 0 {
        return err(at + len - 1, K::MissingTerminator);
    }
    Ok(len)
}

/// Validated keys in slots chosen by where the key occurs (the path of its
/// container and its position there); an empty slot never matches, as a key is
/// only taken from the cache when the byte after it is its NUL.
pub struct KeyCache {
    slots: Vec<String>,
}

impl Default for KeyCache {
    fn default() -> Self {
        KeyCache::new(KEY_SLOTS)
    }
}

impl KeyCache {
    fn new(slots: usize) -> Self {
        debug_assert!(slots.is_power_of_two());
        KeyCache {
            slots: vec![String::new(); slots],
        }
    }

    #[inline]
    fn slot(&self, path: u32, index: u32) -> usize {
        let h = path.wrapping_add(index).wrapping_mul(0x9E37_79B9);
        (h >> 16) as usize & (self.slots.len() - 1)
    }

    #[inline]
    /// The text of a validated key: from the cache, or from where it was found.
    fn text<'k>(&'k self, key: Key<'k>) -> &'k str {
        match key {
            Key::Cached(slot) => &self.slots[slot],
            Key::Index(s) => s,
            Key::Checked(s) => s,
        }
    }
}

const ROOT_PATH: u32 = 0x5bd1_e995;

/// The path of the container that is element `index` of a container at `path`;
/// the elements of an array share one path, as they share one field in a profile.
#[inline]
fn child_path(path: u32, kind: Container, index: u32) -> u32 {
    let index = match kind {
        Container::Document => index,
        Container::Array => u32::MAX,
    };
    (path ^ index.wrapping_mul(0x85EB_CA6B))
        .rotate_left(13)
        .wrapping_mul(0xC2B2_AE35)
}

/// A validated key: in the cache, an array index, or checked in place.
#[derive(Clone, Copy)]
enum Key<'a> {
    Cached(usize),
    Index(&'static str),
    Checked(&'a str),
}

/// The decimal strings of 0..=9999, back to back: array keys.
static INDEX_BYTES: [u8; 38_890] = index_bytes();
static INDEX_KEYS: &str = match std::str::from_utf8(&INDEX_BYTES) {
    Ok(s) => s,
    Err(_) => panic!("digits are ASCII"),
};

const fn index_bytes() -> [u8; 38_890] {
    let mut out = [0u8; 38_890];
    let mut at = 0;
    let mut i = 0u32;
    while i < 10_000 {
        let digits = if i < 10 {
            1
        } else if i < 100 {
            2
        } else if i < 1000 {
            3
        } else {
            4
        };
        let mut d = digits;
        let mut v = i;
        while d > 0 {
            d -= 1;
            out[at + d] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        at += digits;
        i += 1;
    }
    out
}

/// The key an array's element `i` must have, for `i` below 10,000.
#[inline]
fn index_key(i: u32) -> Option<&'static str> {
    let i = i as usize;
    let (at, n) = match i {
        0..=9 => (i, 1),
        10..=99 => (10 + (i - 10) * 2, 2),
        100..=999 => (190 + (i - 100) * 3, 3),
        1000..=9999 => (2890 + (i - 1000) * 4, 4),
        _ => return None,
    };
    INDEX_KEYS.get(at..at + n)
}

struct Walker<'a, 'c, V> {
    bytes: &'a [u8],
    visitor: &'c mut V,
    keys: &'c mut KeyCache,
}

impl<'a, V: Visitor> Walker<'a, '_, V> {
    /// Walks the elements of a container whose `enter` was already called.
    fn container(
        &mut self,
        kind: Container,
        start: usize,
        len: usize,
        depth: u32,
        path: u32,
    ) -> Result<(), BsonError> {
        let end = start + len - 1; // the terminating NUL
        let mut pos = start + 4;
        let mut elements = 0u32;
        while pos < end {
            let type_byte = self.bytes[pos];
            let Some(ty) = T::from_byte(type_byte) else {
                return err(pos, K::UnknownType(type_byte));
            };
            let (key, value_at) = self.key(kind, pos + 1, end, path, elements)?;
            pos = self.element(ty, key, value_at, end, depth + 1, (path, kind, elements))?;
            elements += 1;
        }
        if pos != end {
            return err(end, K::Truncated);
        }
        self.visitor.leave(kind, elements, depth);
        Ok(())
    }

    /// Finds and validates the key starting at `at` (element `index` of a
    /// container at `path`); returns it and the offset after its NUL.
    #[inline]
    fn key(
        &mut self,
        kind: Container,
        at: usize,
        end: usize,
        path: u32,
        index: u32,
    ) -> Result<(Key<'a>, usize), BsonError> {
        let b = self.bytes;
        let slot = match kind {
            Container::Array => {
                // Most arrays are short: one digit and the NUL.
                if index < 10 {
                    if at + 1 < end && b[at] == b'0' + index as u8 && b[at + 1] == 0 {
                        return Ok((
                            Key::Index(&INDEX_KEYS[index as usize..=index as usize]),
                            at + 2,
                        ));
                    }
                } else if let Some(s) = index_key(index) {
                    let n = s.len();
                    if at + n < end && b[at + n] == 0 && same_bytes(&b[at..at + n], s.as_bytes()) {
                        return Ok((Key::Index(s), at + n + 1));
                    }
                }
                None
            }
            Container::Document => {
                let slot = self.keys.slot(path, index);
                let cached = self.keys.slots[slot].as_bytes();
                let n = cached.len();
                if at + n < end && b[at + n] == 0 && same_bytes(&b[at..at + n], cached) {
                    return Ok((Key::Cached(slot), at + n + 1));
                }
                Some(slot)
            }
        };
        let Some(nul) = memchr0(&b[at..end]) else {
            return err(at, K::UnterminatedKey);
        };
        let key = utf8(&b[at..at + nul], at)?;
        if let Some(slot) = slot {
            let s = &mut self.keys.slots[slot];
            s.clear();
            s.push_str(key);
        }
        Ok((Key::Checked(key), at + nul + 1))
    }

    /// Visits one element's value at `at`, returns the offset after it.
    /// `place` is the container's path, kind and this element's index: what
    /// the path of a nested container is made of (computed only for those).
    #[inline]
    fn element(
        &mut self,
        ty: T,
        key: Key<'a>,
        at: usize,
        end: usize,
        depth: u32,
        place: (u32, Container, u32),
    ) -> Result<usize, BsonError> {
        let b = self.bytes;
        let need = |n: usize| -> Result<&'a [u8], BsonError> {
            b.get(at..at + n)
                .filter(|_| at + n <= end)
                .ok_or(BsonError {
                    offset: at,
                    kind: K::Truncated,
                })
        };
        let (value, size): (Scalar<'a>, usize) = match ty {
            T::Double => (Scalar::Double(f64::from_le_bytes(arr8(need(8)?))), 8),
            T::Int32 => {
                let r = need(4)?;
                (
                    Scalar::Int32(i32::from_le_bytes([r[0], r[1], r[2], r[3]])),
                    4,
                )
            }
            T::Int64 => (Scalar::Int64(i64::from_le_bytes(arr8(need(8)?))), 8),
            T::ObjectId => (Scalar::ObjectId(arr12(need(12)?)), 12),
            T::DateTime => (Scalar::DateTime(i64::from_le_bytes(arr8(need(8)?))), 8),
            T::String => {
                let (s, n) = self.text(at, end)?;
                (Scalar::String(s), n)
            }
            T::JavaScript | T::Symbol => {
                let (s, n) = self.string(at, end)?;
                let v = match ty {
                    T::JavaScript => Scalar::JavaScript(s),
                    _ => Scalar::Symbol(s),
                };
                (v, n)
            }
            T::Document | T::Array => {
                if at + 5 > end {
                    return err(at, K::Truncated);
                }
                let len = document_len(&b[..end], at)?;
                let kind = if ty == T::Document {
                    Container::Document
                } else {
                    Container::Array
                };
                if depth >= MAX_DEPTH {
                    return err(at, K::TooDeep);
                }
                let key = self.keys.text(key);
                self.visitor.enter(key, kind, len as u32, depth);
                let path = child_path(place.0, place.1, place.2);
                self.container(kind, at, len, depth, path)?;
                return Ok(at + len);
            }
            T::Binary => {
                let raw = need(5)?;
                let n = i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
                if n < 0 || at + 5 + n as usize > end {
                    return err(at, K::BadBinaryLength(i64::from(n)));
                }
                let n = n as usize;
                let subtype = raw[4];
                let bytes = &b[at + 5..at + 5 + n];
                // Subtype 2 (old binary) carries its own length, which must agree.
                if subtype == 2 {
                    if n < 4 {
                        return err(at, K::BadBinaryLength(n as i64));
                    }
                    let inner = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                    if inner < 0 || inner as usize != n - 4 {
                        return err(at, K::BadBinaryLength(i64::from(inner)));
                    }
                }
                (Scalar::Binary { subtype, bytes }, 5 + n)
            }
            T::Undefined => (Scalar::Undefined, 0),
            T::Boolean => match need(1)?[0] {
                0 => (Scalar::Boolean(false), 1),
                1 => (Scalar::Boolean(true), 1),
                other => return err(at, K::BadBoolean(other)),
            },
            T::Null => (Scalar::Null, 0),
            T::Regex => {
                let (pattern, n1) = self.cstring(at, end)?;
                let (options, n2) = self.cstring(at + n1, end)?;
                (Scalar::Regex { pattern, options }, n1 + n2)
            }
            T::DbPointer => {
                let (namespace, n) = self.string(at, end)?;
                let id = b
                    .get(at + n..at + n + 12)
                    .filter(|_| at + n + 12 <= end)
                    .ok_or(BsonError {
                        offset: at + n,
                        kind: K::Truncated,
                    })?;
                (
                    Scalar::DbPointer {
                        namespace,
                        id: arr12(id),
                    },
                    n + 12,
                )
            }
            T::JavaScriptWithScope => {
                let raw = need(4)?;
                let total = i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
                // int32 total + string (>= 5) + document (>= 5)
                if total < 14 || at + total as usize > end {
                    return err(at, K::BadCodeWithScope);
                }
                let total = total as usize;
                let inner_end = at + total;
                let (code, n) = self.string(at + 4, inner_end)?;
                let scope_at = at + 4 + n;
                let scope_len = document_len(&b[..inner_end], scope_at).map_err(|_| BsonError {
                    offset: scope_at,
                    kind: K::BadCodeWithScope,
                })?;
                if scope_at + scope_len != inner_end {
                    return err(at, K::BadCodeWithScope);
                }
                let scope = &b[scope_at..inner_end];
                // The scope is a document: validate it without reporting its
                // fields (with a cache of its own: `key` may be in this one).
                walk_with(scope, &mut NoVisitor, &mut KeyCache::new(1)).map_err(|e| BsonError {
                    offset: scope_at + e.offset,
                    kind: e.kind,
                })?;
                (Scalar::JavaScriptWithScope { code, scope }, total)
            }
            T::Timestamp => {
                let r = need(8)?;
                (
                    Scalar::Timestamp {
                        increment: u32::from_le_bytes([r[0], r[1], r[2], r[3]]),
                        time: u32::from_le_bytes([r[4], r[5], r[6], r[7]]),
                    },
                    8,
                )
            }
            T::Decimal128 => {
                let r: &'a [u8; 16] = need(16)?.try_into().expect("16 bytes");
                (Scalar::Decimal128(r), 16)
            }
            T::MinKey => (Scalar::MinKey, 0),
            T::MaxKey => (Scalar::MaxKey, 0),
        };
        let key = self.keys.text(key);
        self.visitor.scalar(key, value, size as u32, depth);
        Ok(at + size)
    }

    /// An int32-length-prefixed, NUL-terminated string's bytes (without the
    /// NUL) and its encoded size; the bytes are not checked yet.
    #[inline]
    fn string_bytes(&self, at: usize, end: usize) -> Result<(&'a [u8], usize), BsonError> {
        let b = self.bytes;
        let Some(raw) = b.get(at..at + 4).filter(|_| at + 4 <= end) else {
            return err(at, K::Truncated);
        };
        let n = i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
        if n < 1 || at + 4 + n as usize > end {
            return err(at, K::BadStringLength(i64::from(n)));
        }
        let n = n as usize;
        if b[at + 4 + n - 1] != 0 {
            return err(at + 4 + n - 1, K::UnterminatedString);
        }
        Ok((&b[at + 4..at + 4 + n - 1], 4 + n))
    }

    /// A length-prefixed UTF-8 string; returns it and its encoded size.
    #[inline]
    fn string(&self, at: usize, end: usize) -> Result<(&'a str, usize), BsonError> {
        let (bytes, size) = self.string_bytes(at, end)?;
        Ok((utf8(bytes, at + 4)?, size))
    }

    /// A string value, as checked bytes (see `Text`); returns it and its
    /// encoded size.
    #[inline]
    fn text(&self, at: usize, end: usize) -> Result<(Text<'a>, usize), BsonError> {
        let (bytes, size) = self.string_bytes(at, end)?;
        Ok((text(bytes, at + 4)?, size))
    }

    /// A NUL-terminated UTF-8 string; returns it and its encoded size.
    fn cstring(&self, at: usize, end: usize) -> Result<(&'a str, usize), BsonError> {
        let slice = self.bytes.get(at..end).unwrap_or(&[]);
        let Some(nul) = memchr0(slice) else {
            return err(at, K::UnterminatedString);
        };
        Ok((utf8(&slice[..nul], at)?, nul + 1))
    }
}

/// Byte equality without a call to `memcmp` for the short strings keys are:
/// two overlapping word compares cover 4 to 16 bytes.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    fn w8(s: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"))
    }
    fn w4(s: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"))
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4),
        9..=16 => w8(a, 0) == w8(b, 0) && w8(a, n - 8) == w8(b, n - 8),
        _ => a == b,
    }
}

#[inline]
fn memchr0(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == 0)
}

/// `bytes` as checked text: an ASCII test (word-wise, the common case),
/// else the full UTF-8 check, which says where it fails.
#[inline]
fn text(bytes: &[u8], offset: usize) -> Result<Text<'_>, BsonError> {
    if bytes.is_ascii() {
        return Ok(Text::from_ascii(bytes));
    }
    utf8(bytes, offset).map(Text::from)
}

#[inline]
fn utf8(bytes: &[u8], offset: usize) -> Result<&str, BsonError> {
    // Most strings in documents are short (the Atlas samples average 8
    // bytes): std's check has no set-up to pay on them. simdutf8 checks 32
    // bytes at a time where the CPU allows, which pays from 64 bytes on.
    // std's check, on failure, says where.
    let checked = if bytes.len() < 64 {
        std::str::from_utf8(bytes).ok()
    } else {
        simdutf8::basic::from_utf8(bytes).ok()
    };
    checked.ok_or(()).or_else(|()| {
        std::str::from_utf8(bytes).map_err(|e| BsonError {
            offset: offset + e.valid_up_to(),
            kind: K::InvalidUtf8,
        })
    })
}

fn arr8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    a
}

fn arr12(b: &[u8]) -> &[u8; 12] {
    b[..12].try_into().expect("12 bytes")
}

/// Validates without observing.
struct NoVisitor;

impl Visitor for NoVisitor {
    fn enter(&mut self, _: &str, _: Container, _: u32, _: u32) {}
    fn leave(&mut self, _: Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: Scalar<'_>, _: u32, _: u32) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Log(Vec<String>);

    impl Visitor for Log {
        fn enter(&mut self, key: &str, c: Container, bytes: u32, depth: u32) {
            self.0.push(format!("enter {key:?} {c:?} {bytes} @{depth}"));
        }
        fn leave(&mut self, c: Container, n: u32, depth: u32) {
            self.0.push(format!("leave {c:?} {n} @{depth}"));
        }
        fn scalar(&mut self, key: &str, v: Scalar<'_>, size: u32, depth: u32) {
            self.0.push(format!("{key:?} {v:?} {size} @{depth}"));
        }
    }

    /// {"a": 1, "b": {"c": "x"}} encoded by hand.
    fn sample() -> Vec<u8> {
        let inner: Vec<u8> = [
            &14i32.to_le_bytes()[..],
            &[0x02, b'c', 0],
            &2i32.to_le_bytes(),
            b"x\0",
            &[0],
        ]
        .concat();
        let body: Vec<u8> = [
            &[0x10, b'a', 0][..],
            &1i32.to_le_bytes(),
            &[0x03, b'b', 0],
            &inner,
            &[0],
        ]
        .concat();
        [&((body.len() + 4) as i32).to_le_bytes()[..], &body].concat()
    }

    #[test]
    fn walks_nested_document() {
        let mut log = Log::default();
        walk(&sample(), &mut log).unwrap();
        insta::assert_debug_snapshot!(log.0, @r#"
        [
            "enter \"\" Document 29 @0",
            "\"a\" Int32(1) 4 @1",
            "enter \"b\" Document 14 @1",
            "\"c\" String(\"x\") 6 @2",
            "leave Document 1 @1",
            "leave Document 2 @0",
        ]
        "#);
    }

    #[test]
    fn rejects_lying_length_unknown_type_and_truncation() {
        let mut doc = sample();
        doc[0] = 200;
        assert!(matches!(
            walk(&doc, &mut NoVisitor).unwrap_err().kind,
            K::LengthMismatch { .. }
        ));

        let mut doc = sample();
        doc[4] = 0x42;
        assert_eq!(
            walk(&doc, &mut NoVisitor).unwrap_err(),
            BsonError {
                offset: 4,
                kind: K::UnknownType(0x42)
            }
        );

        let doc = sample();
        assert!(walk(&doc[..doc.len() - 3], &mut NoVisitor).is_err());
    }

    #[test]
    fn rejects_nesting_beyond_the_limit() {
        // 101 nested empty documents under key "a".
        fn nest(levels: u32) -> Vec<u8> {
            if levels == 0 {
                return vec![5, 0, 0, 0, 0];
            }
            let inner = nest(levels - 1);
            let body = [&[0x03, b'a', 0][..], &inner, &[0]].concat();
            [&((body.len() + 4) as i32).to_le_bytes()[..], &body].concat()
        }
        assert!(walk(&nest(99), &mut NoVisitor).is_ok());
        assert_eq!(
            walk(&nest(100), &mut NoVisitor).unwrap_err().kind,
            K::TooDeep
        );
    }

    /// A document of string fields, keys given as raw bytes.
    fn raw_doc(fields: &[(&[u8], &str)], array: bool) -> Vec<u8> {
        let mut body = Vec::new();
        for (k, v) in fields {
            body.push(0x02);
            body.extend_from_slice(k);
            body.push(0);
            body.extend_from_slice(&((v.len() + 1) as i32).to_le_bytes());
            body.extend_from_slice(v.as_bytes());
            body.push(0);
        }
        body.push(0);
        let inner = [&((body.len() + 4) as i32).to_le_bytes()[..], &body].concat();
        let ty = if array { 0x04 } else { 0x03 };
        let outer = [&[ty, b'x', 0][..], &inner, &[0]].concat();
        [&((outer.len() + 4) as i32).to_le_bytes()[..], &outer].concat()
    }

    fn keys_of(doc: &[u8]) -> Vec<String> {
        let mut log = Log::default();
        walk(doc, &mut log).unwrap();
        log.0
    }

    #[test]
    fn cached_keys_never_stand_in_for_other_bytes() {
        // The same place in successive documents: equal keys hit the cache,
        // others (a longer key sharing the prefix, the same length, invalid
        // UTF-8) must be read and checked afresh.
        let a = raw_doc(&[(b"name", "1"), (b"age", "2")], false);
        let b = raw_doc(&[(b"names", "1"), (b"agf", "2")], false);
        let bad = raw_doc(&[(b"name", "1"), (b"ag\xff", "2")], false);
        for _ in 0..2 {
            assert!(keys_of(&a).iter().any(|l| l.starts_with("\"age\"")));
            let log = keys_of(&b);
            assert!(log.iter().any(|l| l.starts_with("\"names\"")));
            assert!(log.iter().any(|l| l.starts_with("\"agf\"")));
            let e = walk(&bad, &mut NoVisitor).unwrap_err();
            assert_eq!(e.kind, K::InvalidUtf8);
            // outer length, x-key, inner length, first element (12 bytes), type, "ag"
            assert_eq!(e.offset, 4 + 3 + 4 + 12 + 1 + 2, "offset of the 0xff byte");
        }
    }

    #[test]
    fn array_keys_are_checked_like_any_key() {
        let good = raw_doc(&[(b"0", "a"), (b"1", "b")], true);
        assert!(keys_of(&good).iter().any(|l| l.starts_with("\"1\"")));
        // Not the index, but valid UTF-8: accepted as before, reported as is.
        let odd = raw_doc(&[(b"0", "a"), (b"10", "b")], true);
        assert!(keys_of(&odd).iter().any(|l| l.starts_with("\"10\"")));
        let bad = raw_doc(&[(b"0", "a"), (b"1\xc3", "b")], true);
        assert_eq!(walk(&bad, &mut NoVisitor).unwrap_err().kind, K::InvalidUtf8);
        assert_eq!(index_key(0), Some("0"));
        assert_eq!(index_key(99), Some("99"));
        assert_eq!(index_key(1000), Some("1000"));
        assert_eq!(index_key(9999), Some("9999"));
        assert_eq!(index_key(10_000), None);
    }

    #[test]
    fn same_bytes_agrees_with_slice_equality() {
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for n in 0..base.len() {
            let a = &base[..n];
            assert!(same_bytes(a, a));
            assert!(!same_bytes(a, &base[..n + 1]));
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] ^= 0x20;
                assert!(!same_bytes(a, &b), "length {n}, byte {at}");
            }
        }
    }
}
