//! The documents `generate` builds, as a small owned BSON value with two
//! writers: Extended JSON text (its pieces in `json_text`) and BSON bytes.
//! `Scalar` is the borrowed leaf both writers, and the data encoder in
//! `sink`, go through.
//!
//! Extended JSON is v2 relaxed, except that 64-bit integers always keep
//! `$numberLong`: a relaxed reader would otherwise turn a small long into an
//! int, and the validators tell `int` from `long`.

use super::byte_out::ByteOut;
use super::json_text::*;
pub use super::json_text::{decimal_text, iso_date, object_id_hex};
use crate::text_codec::{base64_into, hex_over};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Double(f64),
    /// A decimal128 `coefficient × 10^exponent`.
    Decimal {
        coefficient: i64,
        exponent: i32,
    },
    String(String),
    /// Milliseconds since the Unix epoch.
    Date(i64),
    ObjectId([u8; 12]),
    Binary(Vec<u8>),
    Array(Vec<Value>),
    Document(Document),
}

/// A document: fields in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document(pub Vec<(String, Value)>);

/// A scalar value that borrows its text or bytes: what data generation
/// encodes straight into its output buffers, without an owned `Value` per
/// field. Both encoders below write a `Value`'s scalars through it, so the
/// two paths give the same bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'s> {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Double(f64),
    Decimal {
        coefficient: i64,
        exponent: i32,
    },
    Str(&'s str),
    /// A string known to need no JSON escape (built from squill's own word
    /// lists and digits): written as a `Str` is, without the escape test.
    /// Its bytes are UTF-8; they are bytes so that generated words need no
    /// UTF-8 test (`values::words`).
    Plain(&'s [u8]),
    Date(i64),
    ObjectId([u8; 12]),
    Binary(&'s [u8]),
}

impl Scalar<'_> {
    pub fn to_value(self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Int(i),
            Scalar::Long(i) => Value::Long(i),
            Scalar::Double(f) => Value::Double(f),
            Scalar::Decimal {
                coefficient,
                exponent,
            } => Value::Decimal {
                coefficient,
                exponent,
            },
            Scalar::Str(s) => Value::String(s.to_string()),
            Scalar::Plain(s) => Value::String(String::from_utf8_lossy(s).into_owned()),
            Scalar::Date(ms) => Value::Date(ms),
            Scalar::ObjectId(id) => Value::ObjectId(id),
            Scalar::Binary(b) => Value::Binary(b.to_vec()),
        }
    }

    /// The BSON element type byte.
    pub fn bson_type_byte(self) -> u8 {
        match self {
            Scalar::Double(_) => 0x01,
            Scalar::Str(_) | Scalar::Plain(_) => 0x02,
            Scalar::Binary(_) => 0x05,
            Scalar::ObjectId(_) => 0x07,
            Scalar::Bool(_) => 0x08,
            Scalar::Date(_) => 0x09,
            Scalar::Null => 0x0A,
            Scalar::Int(_) => 0x10,
            Scalar::Long(_) => 0x12,
            Scalar::Decimal { .. } => 0x13,
        }
    }

    /// Appends the element's value bytes (after its type and name).
    #[inline(always)]
    pub fn write_bson_payload<O: ByteOut>(self, out: &mut O) {
        match self {
            Scalar::Null => {}
            Scalar::Bool(b) => out.put_byte(u8::from(b)),
            Scalar::Int(i) => out.put(&i.to_le_bytes()),
            Scalar::Long(i) | Scalar::Date(i) => out.put(&i.to_le_bytes()),
            Scalar::Double(f) => out.put(&f.to_le_bytes()),
            Scalar::Decimal {
                coefficient,
                exponent,
            } => out.put(&decimal128_bytes(coefficient, exponent)),
            Scalar::Str(s) => string_payload(out, s.as_bytes()),
            Scalar::Plain(s) => string_payload(out, s),
            Scalar::ObjectId(id) => out.put(&id),
            Scalar::Binary(bytes) => {
                out.put(&bson_len(bytes.len()));
                out.put_byte(0);
                out.put(bytes);
            }
        }
    }

    /// Appends the value as Extended JSON.
    #[inline(always)]
    pub fn write_ejson<O: JsonOut>(self, out: &mut O) {
        match self {
            Scalar::Null => out.push_ascii(b"null"),
            Scalar::Bool(b) => out.push_ascii(if b { b"true" } else { b"false" }),
            Scalar::Int(i) => out.push_ascii(itoa::Buffer::new().format(i).as_bytes()),
            Scalar::Long(i) => {
                out.push_ascii(b"{\"$numberLong\":\"");
                out.push_ascii(itoa::Buffer::new().format(i).as_bytes());
                out.push_ascii(b"\"}");
            }
            Scalar::Double(f) => write_double(out, f),
            Scalar::Decimal {
                coefficient,
                exponent,
            } => {
                out.push_ascii(b"{\"$numberDecimal\":\"");
                write_decimal(out, coefficient, exponent);
                out.push_ascii(b"\"}");
            }
            Scalar::Str(s) => write_json_string(out, s),
            Scalar::Plain(s) => {
                out.push_byte(b'"');
                out.push_utf8(s);
                out.push_byte(b'"');
            }
            Scalar::Date(ms) if iso_range(ms) => {
                // One copy of the whole `{"$date":"…"}`.
                let mut buf = *b"{\"$date\":\"0000-00-00T00:00:00.000Z\"}";
                iso_date_into(&mut buf[10..34], ms);
                out.push_ascii(&buf);
            }
            Scalar::Date(ms) => {
                write!(out, "{{\"$date\":{{\"$numberLong\":\"{ms}\"}}}}");
            }
            Scalar::ObjectId(id) => {
                let mut buf = *b"{\"$oid\":\"000000000000000000000000\"}";
                hex_over(&mut buf[9..33], &id);
                out.push_ascii(&buf);
            }
            Scalar::Binary(bytes) => {
                out.push_ascii(b"{\"$binary\":{\"base64\":\"");
                let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
                base64_into(&mut text, bytes);
                out.push_ascii(text.as_bytes());
                out.push_ascii(b"\",\"subType\":\"00\"}}");
            }
        }
    }
}

impl Document {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The value at a dotted path; through arrays, the first element that has it.
    pub fn path(&self, path: &str) -> Option<&Value> {
        let (head, rest) = match path.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (path, None),
        };
        let v = self.get(head)?;
        match rest {
            None => Some(v),
            Some(rest) => v.path(rest),
        }
    }

    pub fn push(&mut self, name: impl Into<String>, value: Value) {
        self.0.push((name.into(), value));
    }

    pub fn to_ejson(&self) -> String {
        let mut out = String::new();
        write_ejson_document(&mut out, self, None);
        out
    }

    /// Appends the document as one line of Extended JSON.
    pub fn write_ejson_line(&self, out: &mut String) {
        write_ejson_document(out, self, None);
        out.push('\n');
    }

    /// Indented Extended JSON for example files.
    pub fn to_ejson_pretty(&self) -> String {
        let mut out = String::new();
        write_ejson_document(&mut out, self, Some(0));
        out
    }

    /// Appends the document's BSON bytes to `out`. Data generation writes
    /// BSON through `sink::Encoder`; this separate writer is kept for the
    /// tests, as the encoder's check.
    #[cfg(test)]
    pub fn write_bson(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        for (name, value) in &self.0 {
            write_bson_element(out, name, value);
        }
        out.push(0);
        patch_len(out, start);
    }
}

impl Value {
    /// The value as a `Scalar`; `None` for arrays and documents.
    pub fn as_scalar(&self) -> Option<Scalar<'_>> {
        Some(match self {
            Value::Null => Scalar::Null,
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Int(i) => Scalar::Int(*i),
            Value::Long(i) => Scalar::Long(*i),
            Value::Double(f) => Scalar::Double(*f),
            Value::Decimal {
                coefficient,
                exponent,
            } => Scalar::Decimal {
                coefficient: *coefficient,
                exponent: *exponent,
            },
            Value::String(s) => Scalar::Str(s),
            Value::Date(ms) => Scalar::Date(*ms),
            Value::ObjectId(id) => Scalar::ObjectId(*id),
            Value::Binary(b) => Scalar::Binary(b),
            Value::Array(_) | Value::Document(_) => return None,
        })
    }

    fn path(&self, path: &str) -> Option<&Value> {
        match self {
            Value::Document(d) => d.path(path),
            Value::Array(items) => items.iter().find_map(|i| i.path(path)),
            _ => None,
        }
    }

    /// The `$type` alias of the value.
    pub fn bson_type(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Long(_) => "long",
            Value::Double(_) => "double",
            Value::Decimal { .. } => "decimal",
            Value::String(_) => "string",
            Value::Date(_) => "date",
            Value::ObjectId(_) => "objectId",
            Value::Binary(_) => "binData",
            Value::Array(_) => "array",
            Value::Document(_) => "object",
        }
    }

    pub fn to_ejson(&self) -> String {
        let mut out = String::new();
        write_ejson(&mut out, self, None);
        out
    }
}

fn newline(out: &mut String, indent: Option<usize>) {
    if let Some(n) = indent {
        out.push('\n');
        for _ in 0..n {
            out.push_str("  ");
        }
    }
}

fn write_ejson_document(out: &mut String, doc: &Document, indent: Option<usize>) {
    if doc.0.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push('{');
    let inner = indent.map(|n| n + 1);
    for (i, (name, value)) in doc.0.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, inner);
        write_json_string(out, name);
        out.push(':');
        if indent.is_some() {
            out.push(' ');
        }
        write_ejson(out, value, inner);
    }
    newline(out, indent);
    out.push('}');
}

fn write_ejson(out: &mut String, value: &Value, indent: Option<usize>) {
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            let inner = indent.map(|n| n + 1);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, inner);
                write_ejson(out, item, inner);
            }
            newline(out, indent);
            out.push(']');
        }
        Value::Document(d) => write_ejson_document(out, d, indent),
        scalar => {
            if let Some(s) = scalar.as_scalar() {
                s.write_ejson(out);
            }
        }
    }
}

pub(super) fn patch_len(out: &mut [u8], start: usize) {
    let len = bson_len(out.len() - start);
    out[start..start + 4].copy_from_slice(&len);
}

/// A BSON length field (int32, little-endian) for `n` bytes.
pub(super) fn bson_len(n: usize) -> [u8; 4] {
    i32::try_from(n).unwrap_or(i32::MAX).to_le_bytes()
}

/// A BSON string's payload: its length with the NUL, the bytes, the NUL.
fn string_payload<O: ByteOut>(out: &mut O, s: &[u8]) {
    out.put(&bson_len(s.len() + 1));
    out.put(s);
    out.put_byte(0);
}

pub(super) fn cstring(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

#[cfg(test)]
fn write_bson_element(out: &mut Vec<u8>, name: &str, value: &Value) {
    match value {
        Value::Array(items) => {
            out.push(0x04);
            cstring(out, name);
            let start = out.len();
            out.extend_from_slice(&[0; 4]);
            let mut key = itoa::Buffer::new();
            for (i, item) in items.iter().enumerate() {
                write_bson_element(out, key.format(i), item);
            }
            out.push(0);
            patch_len(out, start);
        }
        Value::Document(d) => {
            out.push(0x03);
            cstring(out, name);
            d.write_bson(out);
        }
        scalar => {
            if let Some(s) = scalar.as_scalar() {
                out.push(s.bson_type_byte());
                cstring(out, name);
                s.write_bson_payload(out);
            }
        }
    }
}

/// IEEE 754-2008 decimal128 in BID encoding, for coefficients that fit in 64
/// bits (all squill generates): sign, biased exponent (bias 6176) in the 14
/// bits after it, coefficient in the low bits.
pub fn decimal128_bytes(coefficient: i64, exponent: i32) -> [u8; 16] {
    let sign = u64::from(coefficient < 0);
    let biased = u64::try_from(i64::from(exponent) + 6176).unwrap_or(6176) & 0x3fff;
    let high = (sign << 63) | (biased << 49);
    let low = coefficient.unsigned_abs();
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&low.to_le_bytes());
    bytes[8..].copy_from_slice(&high.to_le_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Document {
        Document(vec![
            ("_id".into(), Value::ObjectId([1; 12])),
            ("n".into(), Value::Int(5)),
            ("l".into(), Value::Long(5)),
            ("d".into(), Value::Double(2.0)),
            (
                "p".into(),
                Value::Decimal {
                    coefficient: 1234,
                    exponent: -2,
                },
            ),
            ("t".into(), Value::Date(0)),
            ("a".into(), Value::Array(vec![Value::String("x\"".into())])),
            ("b".into(), Value::Binary(vec![1, 2, 3, 4])),
        ])
    }

    #[test]
    fn extended_json_keeps_bson_types() {
        assert_eq!(
            doc().to_ejson(),
            r#"{"_id":{"$oid":"010101010101010101010101"},"n":5,"l":{"$numberLong":"5"},"d":2.0,"p":{"$numberDecimal":"12.34"},"t":{"$date":"1970-01-01T00:00:00.000Z"},"a":["x\""],"b":{"$binary":{"base64":"AQIDBA==","subType":"00"}}}"#
        );
    }

    #[test]
    fn bson_bytes_have_consistent_lengths() {
        let mut out = Vec::new();
        doc().write_bson(&mut out);
        assert_eq!(
            i32::from_le_bytes(out[..4].try_into().unwrap()) as usize,
            out.len()
        );
        assert_eq!(out.last(), Some(&0));
    }
}
