//! Checks a document against a `$jsonSchema`, for the keywords squill emits,
//! with MongoDB's semantics: `bsonType` names one BSON type (an `int` is not a
//! `long`; a `double` is not an `int`), `number` matches any of int, long,
//! double and decimal; `required`, `properties`, `items` (one schema, or one
//! a position), `minItems`, `maxItems`, `minimum`, `maximum`, `enum`. An unknown keyword is an error, so a validator that
//! grows a keyword cannot pass here unchecked.

use super::value::{Document, Value};
use serde_json::Value as Json;

/// Why a document does not match: the path and the broken keyword.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct Violation {
    pub path: String,
    pub message: String,
}

/// Checks `doc` against a validator (`{"$jsonSchema": …}`) or a bare schema.
pub fn check(validator: &Json, doc: &Document) -> Result<(), Violation> {
    let schema = validator.get("$jsonSchema").unwrap_or(validator);
    check_value(schema, &Value::Document(doc.clone()), "$")
}

fn fail(path: &str, message: String) -> Result<(), Violation> {
    Err(Violation {
        path: path.to_string(),
        message,
    })
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "number" => matches!(
            value,
            Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal { .. }
        ),
        other => value.bson_type() == other,
    }
}

fn check_value(schema: &Json, value: &Value, path: &str) -> Result<(), Violation> {
    let Some(schema) = schema.as_object() else {
        return fail(path, "schema is not an object".into());
    };
    for (keyword, arg) in schema {
        match keyword.as_str() {
            "title" | "description" => {}
            "bsonType" => {
                let names: Vec<&str> = match arg {
                    Json::String(s) => vec![s.as_str()],
                    Json::Array(items) => items.iter().filter_map(Json::as_str).collect(),
                    _ => return fail(path, "bsonType is neither a string nor an array".into()),
                };
                if !names.iter().any(|n| type_matches(n, value)) {
                    return fail(
                        path,
                        format!(
                            "bsonType: expected {}, found {}",
                            names.join(" or "),
                            value.bson_type()
                        ),
                    );
                }
            }
            "enum" => {
                let allowed = arg.as_array().map(Vec::as_slice).unwrap_or_default();
                if !allowed.iter().any(|a| json_equals(a, value)) {
                    return fail(path, format!("enum: {} is not allowed", value.to_ejson()));
                }
            }
            "required" => {
                if let Value::Document(doc) = value {
                    for name in arg.as_array().map(Vec::as_slice).unwrap_or_default() {
                        let name = name.as_str().unwrap_or_default();
                        if doc.get(name).is_none() {
                            return fail(path, format!("required: field `{name}` is missing"));
                        }
                    }
                }
            }
            "properties" => {
                if let (Value::Document(doc), Some(props)) = (value, arg.as_object()) {
                    for (name, field) in &doc.0 {
                        if let Some(sub) = props.get(name) {
                            check_value(sub, field, &format!("{path}.{name}"))?;
                        }
                    }
                }
            }
            // One schema for every item, or (an array) one for each
            // position, the items past the list unchecked.
            "items" => {
                if let Value::Array(items) = value {
                    for (i, item) in items.iter().enumerate() {
                        let sub = match arg {
                            Json::Array(each) => match each.get(i) {
                                Some(sub) => sub,
                                None => break,
                            },
                            one => one,
                        };
                        check_value(sub, item, &format!("{path}[{i}]"))?;
                    }
                }
            }
            "minimum" | "maximum" => {
                let bound = arg.as_f64().unwrap_or(0.0);
                let n = match value {
                    Value::Int(n) => Some(f64::from(*n)),
                    #[allow(clippy::cast_precision_loss)] // a bound on a coordinate
                    Value::Long(n) => Some(*n as f64),
                    Value::Double(n) => Some(*n),
                    _ => None,
                };
                if let Some(n) = n {
                    let ok = if keyword == "minimum" {
                        n >= bound
                    } else {
                        n <= bound
                    };
                    if !ok {
                        return fail(path, format!("{keyword}: {n}, bound {bound}"));
                    }
                }
            }
            "maxItems" | "minItems" => {
                if let Value::Array(items) = value {
                    let bound = arg.as_u64().unwrap_or(0);
                    let n = items.len() as u64;
                    let ok = if keyword == "maxItems" {
                        n <= bound
                    } else {
                        n >= bound
                    };
                    if !ok {
                        return fail(path, format!("{keyword}: {n} items, bound {bound}"));
                    }
                }
            }
            other => return fail(path, format!("keyword `{other}` is not supported")),
        }
    }
    Ok(())
}

/// `enum` compares values: squill's enums are strings, numbers or booleans.
fn json_equals(json: &Json, value: &Value) -> bool {
    match (json, value) {
        (Json::String(a), Value::String(b)) => a == b,
        (Json::Bool(a), Value::Bool(b)) => a == b,
        (Json::Null, Value::Null) => true,
        (Json::Number(n), Value::Int(i)) => n.as_i64() == Some(i64::from(*i)),
        (Json::Number(n), Value::Long(i)) => n.as_i64() == Some(*i),
        #[allow(clippy::float_cmp)] // enum membership is exact equality
        (Json::Number(n), Value::Double(f)) => n.as_f64() == Some(*f),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Json {
        json!({"$jsonSchema": {
            "bsonType": "object",
            "required": ["_id", "n"],
            "properties": {
                "_id": {"bsonType": "objectId"},
                "n": {"bsonType": "int"},
                "x": {"bsonType": "number"},
                "s": {"bsonType": "string", "enum": ["a", "b"]},
                "tags": {"bsonType": "array", "items": {"bsonType": "string"}, "maxItems": 2}
            }
        }})
    }

    fn doc(fields: Vec<(&str, Value)>) -> Document {
        Document(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    #[test]
    fn accepts_a_matching_document() {
        let d = doc(vec![
            ("_id", Value::ObjectId([0; 12])),
            ("n", Value::Int(1)),
            ("x", Value::Long(3)),
            ("s", Value::String("a".into())),
            ("tags", Value::Array(vec![Value::String("t".into())])),
            ("extra", Value::Bool(true)),
        ]);
        assert_eq!(check(&schema(), &d), Ok(()));
    }

    #[test]
    fn int_is_not_long_and_double_is_not_int() {
        let long = doc(vec![
            ("_id", Value::ObjectId([0; 12])),
            ("n", Value::Long(1)),
        ]);
        assert!(check(&schema(), &long).is_err());
        let double = doc(vec![
            ("_id", Value::ObjectId([0; 12])),
            ("n", Value::Double(1.0)),
        ]);
        let err = check(&schema(), &double).unwrap_err();
        assert_eq!(err.path, "$.n");
    }

    #[test]
    fn rejects_missing_required_enum_and_bounds() {
        let missing = doc(vec![("_id", Value::ObjectId([0; 12]))]);
        assert!(
            check(&schema(), &missing)
                .unwrap_err()
                .message
                .contains("`n`")
        );
        let bad_enum = doc(vec![
            ("_id", Value::ObjectId([0; 12])),
            ("n", Value::Int(1)),
            ("s", Value::String("c".into())),
        ]);
        assert!(check(&schema(), &bad_enum).is_err());
        let too_many = doc(vec![
            ("_id", Value::ObjectId([0; 12])),
            ("n", Value::Int(1)),
            ("tags", Value::Array(vec![Value::String("t".into()); 3])),
        ]);
        assert!(
            check(&schema(), &too_many)
                .unwrap_err()
                .message
                .contains("maxItems")
        );
    }

    #[test]
    fn unknown_keywords_are_not_silently_accepted() {
        let s = json!({"bsonType": "object", "patternProperties": {}});
        assert!(check(&s, &Document::default()).is_err());
    }
}
