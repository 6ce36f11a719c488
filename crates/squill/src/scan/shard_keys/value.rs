//! One shard-key field's value, owned and ordered as MongoDB orders index
//! keys (the BSON comparison order: MinKey, null, numbers, strings,
//! documents, arrays, binary, ObjectId, booleans, dates, timestamps,
//! regular expressions, MaxKey). Numbers compare by value whatever their
//! type, as the server does, so `1`, `1.0` and `NumberLong(1)` are one
//! value. A missing field is null: the server keys a document without the
//! field as null.

use crate::inputs::bson::Scalar;
use std::cmp::Ordering;

#[derive(Debug, Clone)]
pub enum KeyValue {
    MinKey,
    Null,
    /// int, long, double (decimal128 is kept by its bytes, below).
    Number(f64),
    /// Strings and symbols, by their bytes (the simple collation).
    String(Box<[u8]>),
    /// Binary: subtype and bytes, ordered by length, then subtype, then bytes.
    Binary(u8, Box<[u8]>),
    ObjectId([u8; 12]),
    Bool(bool),
    Date(i64),
    Timestamp(u64),
    /// Values squill does not order among their kind (decimal128, regular
    /// expressions, code): equal when their bytes are.
    Other(u8, Box<[u8]>),
    MaxKey,
}

impl KeyValue {
    /// The value of a scalar element.
    pub fn of(scalar: &Scalar<'_>) -> KeyValue {
        match *scalar {
            Scalar::MinKey => KeyValue::MinKey,
            Scalar::MaxKey => KeyValue::MaxKey,
            Scalar::Null | Scalar::Undefined => KeyValue::Null,
            Scalar::Double(f) => KeyValue::Number(f),
            Scalar::Int32(i) => KeyValue::Number(f64::from(i)),
            Scalar::Int64(i) => KeyValue::Number(i as f64),
            Scalar::String(t) => KeyValue::String(t.as_bytes().into()),
            Scalar::Symbol(s) => KeyValue::String(s.as_bytes().into()),
            Scalar::Binary { subtype, bytes } => KeyValue::Binary(subtype, bytes.into()),
            Scalar::ObjectId(b) => KeyValue::ObjectId(*b),
            Scalar::Boolean(b) => KeyValue::Bool(b),
            Scalar::DateTime(ms) => KeyValue::Date(ms),
            Scalar::Timestamp { time, increment } => {
                KeyValue::Timestamp((u64::from(time) << 32) | u64::from(increment))
            }
            Scalar::Decimal128(b) => KeyValue::Other(0x13, b.as_slice().into()),
            Scalar::Regex { pattern, options } => {
                KeyValue::Other(0x0B, format!("{pattern}\0{options}").into_bytes().into())
            }
            Scalar::JavaScript(code) => KeyValue::Other(0x0D, code.as_bytes().into()),
            Scalar::JavaScriptWithScope { code, .. } => {
                KeyValue::Other(0x0F, code.as_bytes().into())
            }
            Scalar::DbPointer { namespace, id } => {
                let mut bytes = namespace.as_bytes().to_vec();
                bytes.extend_from_slice(id);
                KeyValue::Other(0x0C, bytes.into())
            }
        }
    }

    /// The rank of the value's type in the BSON comparison order.
    fn rank(&self) -> u8 {
        match self {
            KeyValue::MinKey => 0,
            KeyValue::Null => 1,
            KeyValue::Number(_) => 2,
            KeyValue::String(_) => 3,
            KeyValue::Binary(..) => 6,
            KeyValue::ObjectId(_) => 7,
            KeyValue::Bool(_) => 8,
            KeyValue::Date(_) => 9,
            KeyValue::Timestamp(_) => 10,
            KeyValue::Other(0x13, _) => 2,
            KeyValue::Other(0x0B, _) => 11,
            KeyValue::Other(..) => 12,
            KeyValue::MaxKey => 255,
        }
    }

    /// The value as canonical Extended JSON, for `--show-values`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            KeyValue::MinKey => json!({"$minKey": 1}),
            KeyValue::MaxKey => json!({"$maxKey": 1}),
            KeyValue::Null => serde_json::Value::Null,
            KeyValue::Number(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => json!(*f as i64),
            KeyValue::Number(f) => json!(f),
            KeyValue::String(b) => json!(String::from_utf8_lossy(b)),
            KeyValue::Binary(subtype, b) => {
                json!({"$binary": {"base64": crate::text_codec::base64(b), "subType": format!("{subtype:02x}")}})
            }
            KeyValue::ObjectId(b) => {
                json!({"$oid": b.iter().map(|x| format!("{x:02x}")).collect::<String>()})
            }
            KeyValue::Bool(b) => json!(b),
            KeyValue::Date(ms) => json!({"$date": {"$numberLong": ms.to_string()}}),
            KeyValue::Timestamp(t) => json!({"$timestamp": {"t": t >> 32, "i": t & 0xffff_ffff}}),
            KeyValue::Other(_, b) => json!(String::from_utf8_lossy(b)),
        }
    }
}

impl Ord for KeyValue {
    fn cmp(&self, other: &Self) -> Ordering {
        use KeyValue as V;
        self.rank()
            .cmp(&other.rank())
            .then_with(|| match (self, other) {
                (V::Number(a), V::Number(b)) => a.total_cmp(b),
                (V::String(a), V::String(b)) => a.cmp(b),
                (V::Binary(sa, a), V::Binary(sb, b)) => a
                    .len()
                    .cmp(&b.len())
                    .then(sa.cmp(sb))
                    .then_with(|| a.cmp(b)),
                (V::ObjectId(a), V::ObjectId(b)) => a.cmp(b),
                (V::Bool(a), V::Bool(b)) => a.cmp(b),
                (V::Date(a), V::Date(b)) => a.cmp(b),
                (V::Timestamp(a), V::Timestamp(b)) => a.cmp(b),
                (V::Other(ta, a), V::Other(tb, b)) => ta.cmp(tb).then_with(|| a.cmp(b)),
                // A decimal among doubles: ordered after them (squill does not
                // decode decimal128), never equal to one.
                (V::Other(..), V::Number(_)) => Ordering::Greater,
                (V::Number(_), V::Other(..)) => Ordering::Less,
                _ => Ordering::Equal,
            })
    }
}

impl PartialOrd for KeyValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for KeyValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KeyValue {}

/// Consistent with `Ord`: two values compare equal only when they are the
/// same kind with the same contents (numbers by their bits, as `total_cmp`
/// tells them apart), so each hashes its kind and contents.
impl std::hash::Hash for KeyValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use KeyValue as V;
        std::mem::discriminant(self).hash(state);
        match self {
            V::MinKey | V::Null | V::MaxKey => {}
            V::Number(f) => f.to_bits().hash(state),
            V::String(b) => b.hash(state),
            V::Binary(t, b) | V::Other(t, b) => {
                t.hash(state);
                b.hash(state);
            }
            V::ObjectId(b) => b.hash(state),
            V::Bool(b) => b.hash(state),
            V::Date(d) => d.hash(state),
            V::Timestamp(t) => t.hash(state),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_any_type_are_one_value_and_types_keep_their_order() {
        assert_eq!(
            KeyValue::of(&Scalar::Int32(1)),
            KeyValue::of(&Scalar::Double(1.0))
        );
        assert_eq!(
            KeyValue::of(&Scalar::Int64(1)),
            KeyValue::of(&Scalar::Int32(1))
        );
        let mut values = [
            KeyValue::of(&Scalar::Boolean(false)),
            KeyValue::of(&Scalar::String("a".into())),
            KeyValue::of(&Scalar::Int32(7)),
            KeyValue::Null,
            KeyValue::of(&Scalar::ObjectId(&[0; 12])),
            KeyValue::of(&Scalar::Double(-2.5)),
        ];
        values.sort();
        let json: Vec<String> = values.iter().map(|v| v.to_json().to_string()).collect();
        assert_eq!(
            json,
            [
                "null",
                "-2.5",
                "7",
                "\"a\"",
                "{\"$oid\":\"000000000000000000000000\"}",
                "false"
            ]
        );
    }
}
