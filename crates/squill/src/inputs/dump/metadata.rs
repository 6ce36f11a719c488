//! mongodump's `<collection>.metadata.json`: the collection's real name, its
//! type and its index definitions. The file is Extended JSON, so numbers come
//! wrapped (`{"$numberInt": "1"}`); index keys are unwrapped to plain JSON
//! numbers so the scanner can compare them.

use super::IndexSpec;
use serde_json::{Map, Value};

/// What squill uses from a metadata file.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Metadata {
    pub collection_name: Option<String>,
    /// "collection", "view", "timeseries", … (absent in old dumps).
    pub kind: Option<String>,
    pub indexes: Vec<IndexSpec>,
}

pub(crate) fn parse(text: &[u8]) -> Result<Metadata, String> {
    let value: Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    parse_value(&value)
}

pub(crate) fn parse_value(value: &Value) -> Result<Metadata, String> {
    let Value::Object(top) = value else {
        return Err("expected a JSON object".into());
    };
    let mut meta = Metadata {
        collection_name: top
            .get("collectionName")
            .and_then(Value::as_str)
            .map(str::to_string),
        kind: top.get("type").and_then(Value::as_str).map(str::to_string),
        indexes: Vec::new(),
    };
    if let Some(indexes) = top.get("indexes") {
        let Value::Array(indexes) = indexes else {
            return Err("`indexes` is not an array".into());
        };
        for (i, index) in indexes.iter().enumerate() {
            meta.indexes
                .push(index_spec(index).map_err(|e| format!("index {i}: {e}"))?);
        }
    }
    Ok(meta)
}

pub(crate) fn index_spec(value: &Value) -> Result<IndexSpec, String> {
    let Value::Object(fields) = value else {
        return Err("expected an object".into());
    };
    let name = fields
        .get("name")
        .and_then(Value::as_str)
        .ok_or("missing `name`")?
        .to_string();
    let Some(Value::Object(key)) = fields.get("key") else {
        return Err(format!("index `{name}` has no `key` object"));
    };
    let keys = key
        .iter()
        .map(|(k, v)| (k.clone(), unwrap_number(v)))
        .collect();
    let unique = match fields.get("unique").map(unwrap_number) {
        Some(Value::Bool(b)) => b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0),
        _ => false,
    };
    let options: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "key" | "v" | "ns" | "unique"))
        .map(|(k, v)| (k.clone(), unwrap_number(v)))
        .collect();
    Ok(IndexSpec {
        name,
        keys,
        unique,
        options: Value::Object(options),
    })
}

/// `{"$numberInt": "1"}` → `1`, recursively; other values unchanged.
fn unwrap_number(value: &Value) -> Value {
    match value {
        Value::Object(map) if map.len() == 1 => {
            let (k, v) = map.iter().next().expect("one entry");
            let text = v.as_str();
            match (k.as_str(), text) {
                ("$numberInt" | "$numberLong", Some(t)) => t
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or_else(|_| value.clone()),
                ("$numberDouble" | "$numberDecimal", Some(t)) => t
                    .parse::<f64>()
                    .ok()
                    .and_then(|f| {
                        if f.fract() == 0.0 && f.abs() < 9.0e15 {
                            Some(Value::from(f as i64))
                        } else {
                            serde_json::Number::from_f64(f).map(Value::Number)
                        }
                    })
                    .unwrap_or_else(|| value.clone()),
                _ => Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), unwrap_number(v)))
                        .collect(),
                ),
            }
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), unwrap_number(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(unwrap_number).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_indexes_with_wrapped_numbers_in_key_order() {
        let text = br#"{"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},
            {"v":2,"key":{"year":{"$numberInt":"1"},"runtime":{"$numberDouble":"-1.0"},"t":"text"},"name":"y","unique":true,
             "expireAfterSeconds":{"$numberInt":"3600"}}],
            "uuid":"80d9","collectionName":"movies","type":"collection"}"#;
        let m = parse(text).unwrap();
        assert_eq!(m.collection_name.as_deref(), Some("movies"));
        assert_eq!(m.indexes.len(), 2);
        let y = &m.indexes[1];
        assert_eq!(
            y.keys,
            vec![
                ("year".to_string(), Value::from(1)),
                ("runtime".to_string(), Value::from(-1)),
                ("t".to_string(), Value::from("text")),
            ]
        );
        assert!(y.unique);
        assert_eq!(y.options, serde_json::json!({"expireAfterSeconds": 3600}));
        assert!(parse(b"[1]").is_err());
        assert!(parse(br#"{"indexes":[{"name":"x"}]}"#).is_err());
    }
}
