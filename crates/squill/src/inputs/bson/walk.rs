//! The walk itself: iterative over the bytes, recursive only in the visitor's
//! view, bounded by `MAX_DEPTH`.

use super::{BsonError, BsonErrorKind as K, Container, ElementType as T, Scalar, Visitor};

/// MongoDB's limit on nesting (documents and arrays).
pub const MAX_DEPTH: u32 = 100;
/// MongoDB's limit on a document's size.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024 * 1024;

/// Walks one document (`doc` must be exactly its bytes), calling `visitor`.
/// Documents over 16 MiB are rejected before any callback.
pub fn walk(doc: &[u8], visitor: &mut impl Visitor) -> Result<(), BsonError> {
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
    Walker {
        bytes: doc,
        visitor,
    }
    .container("", Container::Document, 0, len, 0)
}

fn err<V>(offset: usize, kind: super::BsonErrorKind) -> Result<V, BsonError> {
    Err(BsonError { offset, kind })
}

/// Reads and checks the length prefix of a document starting at `at`.
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

struct Walker<'a, V> {
    bytes: &'a [u8],
    visitor: &'a mut V,
}

impl<'a, V: Visitor> Walker<'a, V> {
    fn container(
        &mut self,
        key: &str,
        kind: Container,
        start: usize,
        len: usize,
        depth: u32,
    ) -> Result<(), BsonError> {
        if depth >= MAX_DEPTH {
            return err(start, K::TooDeep);
        }
        self.visitor.enter(key, kind, len as u32, depth);
        let end = start + len - 1; // the terminating NUL
        let mut pos = start + 4;
        let mut elements = 0u32;
        while pos < end {
            let type_byte = self.bytes[pos];
            let Some(ty) = T::from_byte(type_byte) else {
                return err(pos, K::UnknownType(type_byte));
            };
            let key_start = pos + 1;
            let Some(nul) = memchr0(&self.bytes[key_start..end]) else {
                return err(key_start, K::UnterminatedKey);
            };
            let key = utf8(&self.bytes[key_start..key_start + nul], key_start)?;
            let value_at = key_start + nul + 1;
            pos = self.element(ty, key, value_at, end, depth + 1)?;
            elements += 1;
        }
        if pos != end {
            return err(end, K::Truncated);
        }
        self.visitor.leave(kind, elements, depth);
        Ok(())
    }

    /// Visits one element's value at `at`, returns the offset after it.
    fn element(
        &mut self,
        ty: T,
        key: &str,
        at: usize,
        end: usize,
        depth: u32,
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
            T::String | T::JavaScript | T::Symbol => {
                let (s, n) = self.string(at, end)?;
                let v = match ty {
                    T::String => Scalar::String(s),
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
                self.container(key, kind, at, len, depth)?;
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
            T::ObjectId => (Scalar::ObjectId(arr12(need(12)?)), 12),
            T::Boolean => match need(1)?[0] {
                0 => (Scalar::Boolean(false), 1),
                1 => (Scalar::Boolean(true), 1),
                other => return err(at, K::BadBoolean(other)),
            },
            T::DateTime => (Scalar::DateTime(i64::from_le_bytes(arr8(need(8)?))), 8),
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
                // The scope is a document: validate it without reporting its fields.
                walk(scope, &mut NoVisitor).map_err(|e| BsonError {
                    offset: scope_at + e.offset,
                    kind: e.kind,
                })?;
                (Scalar::JavaScriptWithScope { code, scope }, total)
            }
            T::Int32 => {
                let r = need(4)?;
                (
                    Scalar::Int32(i32::from_le_bytes([r[0], r[1], r[2], r[3]])),
                    4,
                )
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
            T::Int64 => (Scalar::Int64(i64::from_le_bytes(arr8(need(8)?))), 8),
            T::Decimal128 => {
                let r: &'a [u8; 16] = need(16)?.try_into().expect("16 bytes");
                (Scalar::Decimal128(r), 16)
            }
            T::MinKey => (Scalar::MinKey, 0),
            T::MaxKey => (Scalar::MaxKey, 0),
        };
        self.visitor.scalar(key, value, size as u32, depth);
        Ok(at + size)
    }

    /// An int32-length-prefixed, NUL-terminated UTF-8 string; returns it and its encoded size.
    fn string(&self, at: usize, end: usize) -> Result<(&'a str, usize), BsonError> {
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
        let s = utf8(&b[at + 4..at + 4 + n - 1], at + 4)?;
        Ok((s, 4 + n))
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

fn memchr0(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == 0)
}

fn utf8(bytes: &[u8], offset: usize) -> Result<&str, BsonError> {
    // std's check has a word-at-a-time ASCII fast path of its own.
    std::str::from_utf8(bytes).map_err(|e| BsonError {
        offset: offset + e.valid_up_to(),
        kind: K::InvalidUtf8,
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
}
