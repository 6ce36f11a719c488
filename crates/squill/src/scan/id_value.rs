//! An example document's `_id`, kept so every finding can point at a real
//! document; rendered as canonical Extended JSON v2.

use crate::inputs::bson::Scalar;
use crate::text_codec::base64;

#[derive(Debug, Clone, PartialEq)]
pub enum IdValue {
    ObjectId([u8; 12]),
    String(String),
    Int32(i32),
    Int64(i64),
    Double(f64),
    DateTime(i64),
    Binary {
        subtype: u8,
        bytes: Vec<u8>,
    },
    /// A type shown by name only (documents and arrays as `_id` are rare).
    Other(&'static str),
}

impl IdValue {
    pub fn from_scalar(v: &Scalar<'_>) -> Self {
        match *v {
            Scalar::ObjectId(b) => IdValue::ObjectId(*b),
            Scalar::String(s) => IdValue::String(s.as_str().to_string()),
            Scalar::Int32(i) => IdValue::Int32(i),
            Scalar::Int64(i) => IdValue::Int64(i),
            Scalar::Double(d) => IdValue::Double(d),
            Scalar::DateTime(d) => IdValue::DateTime(d),
            Scalar::Binary { subtype, bytes } if bytes.len() <= 64 => IdValue::Binary {
                subtype,
                bytes: bytes.to_vec(),
            },
            other => IdValue::Other(other.element_type().name()),
        }
    }

    /// Canonical Extended JSON v2 text.
    pub fn to_extended_json(&self) -> String {
        match self {
            IdValue::ObjectId(b) => {
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                format!("{{\"$oid\":\"{hex}\"}}")
            }
            IdValue::String(s) => serde_json::Value::String(s.clone()).to_string(),
            IdValue::Int32(i) => format!("{{\"$numberInt\":\"{i}\"}}"),
            IdValue::Int64(i) => format!("{{\"$numberLong\":\"{i}\"}}"),
            IdValue::Double(d) => {
                let text = if d.is_nan() {
                    "NaN".to_string()
                } else if d.is_infinite() {
                    if *d > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
                } else if d.fract() == 0.0 && d.abs() < 1e15 {
                    format!("{d:.1}")
                } else {
                    format!("{d:?}")
                };
                format!("{{\"$numberDouble\":\"{text}\"}}")
            }
            IdValue::DateTime(ms) => format!("{{\"$date\":{{\"$numberLong\":\"{ms}\"}}}}"),
            IdValue::Binary { subtype, bytes } => format!(
                "{{\"$binary\":{{\"base64\":\"{}\",\"subType\":\"{subtype:02x}\"}}}}",
                base64(bytes)
            ),
            IdValue::Other(name) => format!("{{\"$type\":\"{name}\"}}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_canonical_extended_json() {
        let oid = IdValue::ObjectId([
            0x57, 0x3a, 0x13, 0x90, 0xf2, 0x9f, 0x31, 0x5d, 0x58, 0x48, 0xbc, 0x3e,
        ]);
        assert_eq!(
            oid.to_extended_json(),
            r#"{"$oid":"573a1390f29f315d5848bc3e"}"#
        );
        assert_eq!(
            IdValue::Int32(5).to_extended_json(),
            r#"{"$numberInt":"5"}"#
        );
        assert_eq!(
            IdValue::String("a\"b".into()).to_extended_json(),
            r#""a\"b""#
        );
        assert_eq!(
            IdValue::Double(1.0).to_extended_json(),
            r#"{"$numberDouble":"1.0"}"#
        );
        assert_eq!(
            IdValue::Binary {
                subtype: 4,
                bytes: b"hello".to_vec()
            }
            .to_extended_json(),
            r#"{"$binary":{"base64":"aGVsbG8=","subType":"04"}}"#
        );
    }
}
