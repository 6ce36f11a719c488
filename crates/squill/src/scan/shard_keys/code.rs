//! Fixed-width codes for the values most shard-key fields hold: a `u128`
//! whose integer order is `KeyValue`'s order (the BSON comparison order),
//! and which two values share only when `KeyValue` finds them equal. An
//! ObjectId, a number, a date, a boolean, a timestamp, null and a string of
//! at most `SHORT_STRING` bytes have one; binary data, decimal128, longer
//! strings and the rare types have none and stay `KeyValue`s.
//!
//! Why: a column of codes is interned by hashing and comparing two
//! integers, with nothing on the heap per value, where a `KeyValue` is a
//! 24-byte value with a string allocated apart, compared through a
//! pointer (BENCHMARKS.md, "scan --shard-keys: where the time and memory
//! went").
//!
//! Layout, most significant byte first: the type's place in the BSON order
//! (`KeyValue::rank`'s numbers), then the payload:
//! - number: the `f64`'s bits made to sort as `total_cmp` does, 8 bytes;
//! - string: its bytes padded with zeros to 14, then its length (so a
//!   string sorts before the same bytes with a NUL more, as byte order has it);
//! - ObjectId: its 12 bytes; date: the `i64` with its sign bit flipped;
//!   timestamp: the `u64`; boolean: 0 or 1.

use super::value::KeyValue;
use crate::inputs::bson::Scalar;

/// The longest string that has a code.
pub const SHORT_STRING: usize = 14;

const MIN_KEY: u8 = 0;
const NULL: u8 = 1;
const NUMBER: u8 = 2;
const STRING: u8 = 3;
const OBJECT_ID: u8 = 7;
const BOOL: u8 = 8;
const DATE: u8 = 9;
const TIMESTAMP: u8 = 10;
const MAX_KEY: u8 = 255;

fn tagged(tag: u8, payload: u128) -> u128 {
    (u128::from(tag) << 120) | payload
}

fn number(f: f64) -> u128 {
    let bits = f.to_bits();
    // `total_cmp`'s order as unsigned integers: negatives reversed below
    // the positives.
    let key = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    tagged(NUMBER, u128::from(key) << 56)
}

fn string(bytes: &[u8]) -> Option<u128> {
    if bytes.len() > SHORT_STRING {
        return None;
    }
    let mut be = [0u8; 16];
    be[0] = STRING;
    be[1..1 + bytes.len()].copy_from_slice(bytes);
    be[15] = bytes.len() as u8;
    Some(u128::from_be_bytes(be))
}

/// The code of an ObjectId.
pub fn object_id(b: &[u8; 12]) -> u128 {
    let mut be = [0u8; 16];
    be[0] = OBJECT_ID;
    be[1..13].copy_from_slice(b);
    u128::from_be_bytes(be)
}

/// The code of a scalar, as `KeyValue::of` reads it; `None` when it has
/// none.
pub fn of_scalar(scalar: &Scalar<'_>) -> Option<u128> {
    Some(match *scalar {
        Scalar::MinKey => tagged(MIN_KEY, 0),
        Scalar::MaxKey => tagged(MAX_KEY, 0),
        Scalar::Null | Scalar::Undefined => tagged(NULL, 0),
        Scalar::Double(f) => number(f),
        Scalar::Int32(i) => number(f64::from(i)),
        Scalar::Int64(i) => number(i as f64),
        Scalar::String(t) => string(t.as_bytes())?,
        Scalar::Symbol(s) => string(s.as_bytes())?,
        Scalar::ObjectId(b) => object_id(b),
        Scalar::Boolean(b) => tagged(BOOL, u128::from(b)),
        Scalar::DateTime(ms) => tagged(DATE, u128::from((ms as u64) ^ (1 << 63))),
        Scalar::Timestamp { time, increment } => tagged(
            TIMESTAMP,
            u128::from((u64::from(time) << 32) | u64::from(increment)),
        ),
        _ => return None,
    })
}

/// The code of a value; `None` when it has none.
pub fn of(value: &KeyValue) -> Option<u128> {
    Some(match value {
        KeyValue::MinKey => tagged(MIN_KEY, 0),
        KeyValue::MaxKey => tagged(MAX_KEY, 0),
        KeyValue::Null => tagged(NULL, 0),
        KeyValue::Number(f) => number(*f),
        KeyValue::String(b) => string(b)?,
        KeyValue::ObjectId(b) => object_id(b),
        KeyValue::Bool(b) => tagged(BOOL, u128::from(*b)),
        KeyValue::Date(ms) => tagged(DATE, u128::from((*ms as u64) ^ (1 << 63))),
        KeyValue::Timestamp(t) => tagged(TIMESTAMP, u128::from(*t)),
        KeyValue::Binary(..) | KeyValue::Other(..) => return None,
    })
}

/// The ObjectId a code stands for, when it stands for one: an ObjectId
/// column can keep its 12 bytes instead of the 16 of its codes.
pub fn object_id_bytes(code: u128) -> Option<[u8; 12]> {
    let be = code.to_be_bytes();
    if be[0] != OBJECT_ID {
        return None;
    }
    let mut b = [0u8; 12];
    b.copy_from_slice(&be[1..13]);
    Some(b)
}

/// The value a code stands for.
pub fn value(code: u128) -> KeyValue {
    let be = code.to_be_bytes();
    match be[0] {
        MIN_KEY => KeyValue::MinKey,
        NULL => KeyValue::Null,
        NUMBER => {
            let key = (code >> 56) as u64;
            let bits = if key >> 63 == 1 {
                key & !(1 << 63)
            } else {
                !key
            };
            KeyValue::Number(f64::from_bits(bits))
        }
        STRING => {
            let n = usize::from(be[15]).min(SHORT_STRING);
            KeyValue::String(be[1..1 + n].into())
        }
        OBJECT_ID => KeyValue::ObjectId(object_id_bytes(code).unwrap_or_default()),
        BOOL => KeyValue::Bool(code & 1 == 1),
        DATE => KeyValue::Date(((code as u64) ^ (1 << 63)) as i64),
        TIMESTAMP => KeyValue::Timestamp(code as u64),
        _ => KeyValue::MaxKey,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::bson::Text;

    fn scalars() -> Vec<Scalar<'static>> {
        static OIDS: [[u8; 12]; 3] = [[0; 12], [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0xff; 12]];
        let mut out = vec![
            Scalar::MinKey,
            Scalar::MaxKey,
            Scalar::Null,
            Scalar::Undefined,
            Scalar::Boolean(false),
            Scalar::Boolean(true),
            Scalar::DateTime(i64::MIN),
            Scalar::DateTime(-1),
            Scalar::DateTime(0),
            Scalar::DateTime(1_700_000_000_000),
            Scalar::Timestamp {
                time: 1,
                increment: 2,
            },
            Scalar::Timestamp {
                time: 2,
                increment: 1,
            },
            Scalar::Int32(i32::MIN),
            Scalar::Int32(-1),
            Scalar::Int32(0),
            Scalar::Int32(7),
            Scalar::Int64(i64::MAX),
            Scalar::Double(-0.0),
            Scalar::Double(0.0),
            Scalar::Double(-2.5),
            Scalar::Double(7.0),
            Scalar::Double(f64::INFINITY),
            Scalar::Double(f64::NEG_INFINITY),
            Scalar::Double(f64::NAN),
            Scalar::Double(-f64::NAN),
            Scalar::Double(f64::MIN_POSITIVE),
            Scalar::Symbol("b"),
        ];
        for s in [
            "",
            "a",
            "a\0",
            "a\u{1}",
            "ab",
            "b",
            "é",
            "fourteen bytes",
            "fifteen bytes!!",
        ] {
            out.push(Scalar::String(Text::from(s)));
        }
        out.extend(OIDS.iter().map(Scalar::ObjectId));
        out
    }

    /// Codes sort and compare as the values do, and give the values back.
    #[test]
    fn codes_order_as_values_and_decode_to_them() {
        let all = scalars();
        for a in &all {
            let va = KeyValue::of(a);
            let Some(ca) = of_scalar(a) else {
                assert!(
                    matches!(a, Scalar::String(t) if t.len() > SHORT_STRING),
                    "{a:?}"
                );
                assert_eq!(of(&va), None);
                continue;
            };
            assert_eq!(of(&va), Some(ca), "{a:?}");
            let back = value(ca);
            assert_eq!(back, va, "{a:?}");
            assert_eq!(back.to_json(), va.to_json(), "{a:?}");
            for b in &all {
                let vb = KeyValue::of(b);
                let Some(cb) = of_scalar(b) else { continue };
                assert_eq!(ca.cmp(&cb), va.cmp(&vb), "{a:?} against {b:?}");
            }
        }
    }
}
