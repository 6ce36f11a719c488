//! A collection's `$jsonSchema` validator, built from the design's `Shape`:
//! bsonType, required, properties, items, maxItems where the design bounds an
//! array, enum where the model lists values. No `additionalProperties: false`:
//! a document may carry fields the design does not know yet (schema
//! versioning), and MongoDB then accepts it; the shape the design relies on is
//! what is enforced.

use crate::design::{Collection, Shape, ShapeType};
use serde_json::{Map, Value as Json, json};

/// `{"$jsonSchema": {...}}` for a collection.
pub(crate) fn validator(collection: &Collection) -> Json {
    json!({ "$jsonSchema": object_schema(&collection.shape, Some(&collection.name)) })
}

fn object_schema(shape: &Shape, title: Option<&str>) -> Json {
    let mut schema = Map::new();
    schema.insert("bsonType".into(), json!("object"));
    if let Some(title) = title {
        schema.insert("title".into(), json!(title));
    }
    let required: Vec<&str> = shape
        .fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name.as_str())
        .collect();
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    let mut properties = Map::new();
    for field in &shape.fields {
        properties.insert(field.name.clone(), type_schema(&field.ty));
    }
    schema.insert("properties".into(), Json::Object(properties));
    Json::Object(schema)
}

fn type_schema(ty: &ShapeType) -> Json {
    match ty {
        ShapeType::Scalar {
            bson_type,
            enum_values,
        } => {
            let mut schema = Map::new();
            schema.insert("bsonType".into(), json!(bson_type));
            if !enum_values.is_empty() {
                schema.insert("enum".into(), json!(enum_values));
            }
            Json::Object(schema)
        }
        ShapeType::Object { shape } => object_schema(shape, None),
        ShapeType::Array { items, max_items } => {
            let mut schema = Map::new();
            schema.insert("bsonType".into(), json!("array"));
            schema.insert("items".into(), type_schema(items));
            if let Some(max) = max_items {
                schema.insert("maxItems".into(), json!(max));
            }
            Json::Object(schema)
        }
    }
}
