//! A collection's `$jsonSchema` validator, built from the design's `Shape`:
//! bsonType, required, properties, items, maxItems where the design bounds an
//! array, enum where the model lists values. No `additionalProperties: false`:
//! a document may carry fields the design does not know yet (schema
//! versioning), and MongoDB then accepts it; the shape the design relies on is
//! what is enforced.

use crate::design::{Collection, FieldOrigin, Shape, ShapeField, ShapeType};
use crate::model::AggregateFn;
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
        let mut ty = type_schema(&field.ty);
        if can_be_empty(field) {
            allow_null(&mut ty);
        }
        properties.insert(field.name.clone(), ty);
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

/// A parent's max, min, first or last of its children has no value once
/// its last child is deleted: the plan then `$set`s it to null (the read of
/// the children again found none), so the validator takes null as well as
/// the figure's type. A count or a sum is 0 then, and keeps its type.
fn can_be_empty(field: &ShapeField) -> bool {
    matches!(
        field.origin,
        FieldOrigin::Computed {
            function: AggregateFn::Max | AggregateFn::Min | AggregateFn::First | AggregateFn::Last,
            ..
        }
    )
}

/// `bsonType: "int"` → `["int", "null"]`, and null among the values of an
/// `enum`.
fn allow_null(schema: &mut Json) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(Json::String(t)) = obj.get("bsonType").cloned() {
        obj.insert("bsonType".into(), json!([t, "null"]));
    }
    if let Some(Json::Array(values)) = obj.get_mut("enum") {
        values.push(Json::Null);
    }
}
