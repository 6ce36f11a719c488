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

/// An enum value as the field's type holds it: a number field's `enum`
/// lists numbers, which the server compares by value with the stored int,
/// long, double or decimal ("1" would match no number: audit50 A6).
fn enum_json(bson_type: &str, v: &str) -> Json {
    let number = matches!(bson_type, "int" | "long" | "double" | "decimal" | "number");
    match (v.parse::<i64>(), v.parse::<f64>()) {
        (Ok(n), _) if number => json!(n),
        (_, Ok(x)) if number && x.is_finite() => json!(x),
        _ => json!(v),
    }
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
                let values: Vec<Json> = enum_values
                    .iter()
                    .map(|v| enum_json(bson_type, v))
                    .collect();
                schema.insert("enum".into(), Json::Array(values));
            }
            Json::Object(schema)
        }
        ShapeType::Object { shape } => match ty.geojson() {
            Some(geometry) => geojson_schema(shape, geometry),
            None => object_schema(shape, None),
        },
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

/// A GeoJSON Point or Polygon as the GeoJSON spec (RFC 7946, 3.1.1) and
/// a `2dsphere` index take it. A position is a longitude in -180..180, a
/// latitude in -90..90 and an optional altitude (the spec allows more
/// numbers but advises against them; MongoDB reads the first two), each
/// any BSON number: a driver stores a whole number as an int (Python,
/// Node.js), which a `double` would refuse. A polygon is one or more
/// rings of at least 4 positions (the first repeated last: the closing
/// `$jsonSchema` cannot test, the index build refuses an open ring). The
/// design's own shape keeps the doubles squill writes.
fn geojson_schema(shape: &Shape, geometry: &str) -> Json {
    let number = |range: Option<i64>| {
        let mut schema = Map::new();
        schema.insert("bsonType".into(), json!("number"));
        if let Some(bound) = range {
            schema.insert("minimum".into(), json!(-bound));
            schema.insert("maximum".into(), json!(bound));
        }
        Json::Object(schema)
    };
    let position = json!({
        "bsonType": "array",
        "minItems": 2,
        "maxItems": 3,
        "items": [number(Some(180)), number(Some(90)), number(None)],
    });
    let coordinates = if geometry == crate::design::GEOJSON_POLYGON {
        json!({
            "bsonType": "array",
            "minItems": 1,
            "items": {"bsonType": "array", "minItems": 4, "items": position},
        })
    } else {
        position
    };
    let mut schema = object_schema(shape, None);
    if let Some(Json::Object(properties)) = schema.get_mut("properties") {
        properties.insert("coordinates".into(), coordinates);
    }
    schema
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

#[cfg(test)]
mod tests {
    use crate::synthetic::check::check;
    use crate::synthetic::{Document, Value};
    use serde_json::Value as Json;

    /// The `$jsonSchema` of field `field` of S15's collection that holds it.
    fn s15_schema(field: &str) -> Json {
        let model = crate::advise::tests::golden::example("scenarios/s15-restaurants");
        let settings = crate::settings::Settings::default();
        let (_, design) = crate::advise::advise_with_model(&model, &settings, None).unwrap();
        design
            .collections
            .iter()
            .find_map(|c| {
                let v = super::validator(c);
                v["$jsonSchema"]["properties"].get(field).cloned()
            })
            .unwrap_or_else(|| panic!("no collection holds `{field}`"))
    }

    fn geometry(ty: &str, coordinates: Value) -> Document {
        Document(vec![
            ("type".into(), Value::String(ty.into())),
            ("coordinates".into(), coordinates),
        ])
    }

    fn position(numbers: Vec<Value>) -> Value {
        Value::Array(numbers)
    }

    /// Issue 41: a point of whole numbers (a driver stores them as ints)
    /// is a point; one of one number, of none, or off the globe is not.
    #[test]
    fn a_point_takes_any_number_and_refuses_a_short_or_stray_position() {
        let schema = s15_schema("location");
        let point = |p: Vec<Value>| check(&schema, &geometry("Point", position(p)));
        assert_eq!(point(vec![Value::Int(13), Value::Int(52)]), Ok(()));
        assert_eq!(point(vec![Value::Double(13.4), Value::Long(52)]), Ok(()));
        let altitude = vec![Value::Double(13.4), Value::Double(52.5), Value::Int(34)];
        assert_eq!(point(altitude), Ok(()));
        assert!(point(vec![Value::Double(13.4)]).is_err());
        assert!(point(vec![]).is_err());
        assert!(point(vec![Value::Double(181.0), Value::Double(52.5)]).is_err());
        assert!(point(vec![Value::Double(13.4), Value::Int(-91)]).is_err());
        assert!(point(vec![Value::Double(1.0); 4]).is_err());
        assert!(point(vec![Value::String("13".into()), Value::Int(52)]).is_err());
    }

    /// A polygon is rings of at least 4 positions, each a position.
    #[test]
    fn a_polygon_s_rings_hold_four_positions_or_more() {
        let schema = s15_schema("area");
        let at = |x: i32, y: i32| position(vec![Value::Int(x), Value::Int(y)]);
        let polygon = |rings: Vec<Vec<Value>>| {
            let rings = rings.into_iter().map(Value::Array).collect();
            check(&schema, &geometry("Polygon", Value::Array(rings)))
        };
        let square = vec![at(0, 0), at(1, 0), at(1, 1), at(0, 0)];
        assert_eq!(polygon(vec![square.clone()]), Ok(()));
        assert!(polygon(vec![]).is_err());
        assert!(polygon(vec![square[..3].to_vec()]).is_err());
        let mut stray = square;
        stray[1] = at(1, 95);
        assert!(polygon(vec![stray]).is_err());
    }
}
