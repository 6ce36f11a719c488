//! Canonical Extended JSON v2 of a BSON document, built from the validating
//! walk. Used to check the walker against the BSON corpus (every valid case
//! must render to its `canonical_extjson`), and handy for showing an example
//! value in a report.

use super::{BsonError, Container, Scalar, Visitor, walk};
use crate::text_codec::{base64, hex};
use serde_json::{Map, Value, json};

/// Walks `doc` (validating it) and renders it as canonical Extended JSON.
pub fn to_canonical_extjson(doc: &[u8]) -> Result<Value, BsonError> {
    let mut b = Builder {
        stack: Vec::new(),
        done: None,
    };
    walk(doc, &mut b)?;
    Ok(b.done.unwrap_or(Value::Null))
}

/// Renders one scalar as canonical Extended JSON.
pub fn scalar_to_canonical_extjson(value: &Scalar<'_>) -> Value {
    match *value {
        Scalar::Double(d) => json!({ "$numberDouble": double(d) }),
        Scalar::String(s) => Value::from(s.as_str()),
        Scalar::Binary { subtype, bytes } => {
            // Subtype 2 carries its own length prefix, which is not data.
            let data = if subtype == 2 {
                &bytes[4.min(bytes.len())..]
            } else {
                bytes
            };
            json!({ "$binary": { "base64": base64(data), "subType": format!("{subtype:02x}") } })
        }
        Scalar::Undefined => json!({ "$undefined": true }),
        Scalar::ObjectId(id) => json!({ "$oid": hex(id) }),
        Scalar::Boolean(b) => Value::from(b),
        Scalar::DateTime(ms) => json!({ "$date": { "$numberLong": ms.to_string() } }),
        Scalar::Null => Value::Null,
        Scalar::Regex { pattern, options } => {
            // Canonical options are in alphabetical order.
            let mut sorted: Vec<char> = options.chars().collect();
            sorted.sort_unstable();
            let options: String = sorted.into_iter().collect();
            json!({ "$regularExpression": { "pattern": pattern, "options": options } })
        }
        Scalar::DbPointer { namespace, id } => {
            json!({ "$dbPointer": { "$ref": namespace, "$id": { "$oid": hex(id) } } })
        }
        Scalar::JavaScript(code) => json!({ "$code": code }),
        Scalar::Symbol(s) => json!({ "$symbol": s }),
        Scalar::JavaScriptWithScope { code, scope } => {
            let scope = to_canonical_extjson(scope).unwrap_or(Value::Null);
            json!({ "$code": code, "$scope": scope })
        }
        Scalar::Int32(i) => json!({ "$numberInt": i.to_string() }),
        Scalar::Timestamp { time, increment } => {
            json!({ "$timestamp": { "t": time, "i": increment } })
        }
        Scalar::Int64(i) => json!({ "$numberLong": i.to_string() }),
        Scalar::Decimal128(d) => {
            json!({ "$numberDecimal": crate::inputs::ejson::decimal::format(d) })
        }
        Scalar::MinKey => json!({ "$minKey": 1 }),
        Scalar::MaxKey => json!({ "$maxKey": 1 }),
    }
}

fn double(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else if d.fract() == 0.0 && d.abs() < 1e15 {
        format!("{d:.1}")
    } else {
        // Shortest round-trip digits, in the corpus' spelling: `1.0E+20`.
        let text = format!("{d:?}");
        match text.split_once('e') {
            None => text,
            Some((mantissa, exp)) => {
                let point = if mantissa.contains('.') { "" } else { ".0" };
                let sign = if exp.starts_with('-') { "" } else { "+" };
                format!("{mantissa}{point}E{sign}{exp}")
            }
        }
    }
}

/// An open container: its key in the parent and its entries so far.
type Open = (String, Container, Map<String, Value>, Vec<Value>);

struct Builder {
    stack: Vec<Open>,
    done: Option<Value>,
}

impl Builder {
    fn put(&mut self, key: &str, value: Value) {
        match self.stack.last_mut() {
            Some((_, Container::Document, map, _)) => {
                map.insert(key.to_string(), value);
            }
            Some((_, Container::Array, _, items)) => items.push(value),
            None => self.done = Some(value),
        }
    }
}

impl Visitor for Builder {
    fn enter(&mut self, key: &str, container: Container, _: u32, _: u32) {
        self.stack
            .push((key.to_string(), container, Map::new(), Vec::new()));
    }
    fn leave(&mut self, _: Container, _: u32, _: u32) {
        if let Some((key, container, map, items)) = self.stack.pop() {
            let value = match container {
                Container::Document => Value::Object(map),
                Container::Array => Value::Array(items),
            };
            self.put(&key, value);
        }
    }
    fn scalar(&mut self, key: &str, value: Scalar<'_>, _: u32, _: u32) {
        self.put(key, scalar_to_canonical_extjson(&value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_scalars_canonically() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(&[0xff, 0xff]), "//8=");
        assert_eq!(base64(b"TEST T3ST"), "VEVTVCBUM1NU");
        assert_eq!(double(1.0), "1.0");
        assert_eq!(double(-0.0), "-0.0");
        assert_eq!(double(1.2345678921232e18), "1.2345678921232E+18");
        assert_eq!(double(1e-20), "1.0E-20");
        // {"a": 1}
        let doc = [12, 0, 0, 0, 0x10, b'a', 0, 1, 0, 0, 0, 0];
        assert_eq!(
            to_canonical_extjson(&doc).unwrap(),
            json!({"a": {"$numberInt": "1"}})
        );
    }
}
