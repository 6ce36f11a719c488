//! How the keys with a short and a long form are read and described: the
//! hand-written serde visitors (untagged enums would lose both the source
//! locations and the precise error message) and the JSON schemas written by
//! hand for the same types. The types themselves are in `raw`.

use super::raw::{
    NamedMap, OneOrMany, OneOrManySchema, RawAmount, RawAtomicGroup, RawAtomicLong, RawCardinality,
    RawCardinalityLong, RawCount, RawCurrent, RawCurrentLong, RawCurrentSection, RawField,
    RawFieldLong, RawInclude, RawIncludes, RawMix, RawMixes, RawRecursive, RawScope, RawWithout, S,
    Sort, WITHOUT,
};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

impl<'de> Deserialize<'de> for RawCurrentSection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl<'de> Visitor<'de> for V_ {
            type Value = RawCurrentSection;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of relationship names to layouts, and `without`")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(RawCurrentSection::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(RawCurrentSection::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = RawCurrentSection::default();
                while let Some(key) = map.next_key::<S<String>>()? {
                    if key.value == WITHOUT {
                        let WithoutEntry(entry) = map.next_value()?;
                        out.without = Some((key, entry));
                    } else {
                        out.layouts.0.push((key, map.next_value()?));
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V_)
    }
}

impl JsonSchema for RawCurrentSection {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "CurrentSection".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "properties": { WITHOUT: generator.subschema_for::<RawWithout>() },
            "additionalProperties": generator.subschema_for::<RawCurrent>(),
        })
    }
}

/// The value under `without`: a map of patterns; a layout's name there
/// says why it cannot be one (the long form, `{layout: …}`, is an unknown
/// key that lists the patterns).
struct WithoutEntry(RawWithout);

impl<'de> Deserialize<'de> for WithoutEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        string_or_map(
            d,
            "a map of patterns `{archive: [entity], polymorphic: all, timeline: all}`",
            |s| {
                Err(format!(
                    "`without` in `current:` lists the patterns the deployment does not use today, not a layout (`{s}`): a relationship named `without` cannot be given a layout here: rename it"
                ))
            },
            WithoutEntry,
        )
    }
}

impl<'de> Deserialize<'de> for RawScope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl<'de> Visitor<'de> for V_ {
            type Value = RawScope;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`all` or a list of entity names")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawScope, E> {
                if v.trim() == "all" {
                    Ok(RawScope::All)
                } else {
                    Err(E::custom(format!(
                        "expected `all` or a list of entity names, found `{v}`"
                    )))
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawScope, A::Error> {
                let mut out = Vec::new();
                while let Some(name) = seq.next_element::<S<String>>()? {
                    out.push(name);
                }
                Ok(RawScope::Entities(out))
            }
        }
        d.deserialize_any(V_)
    }
}

impl JsonSchema for RawScope {
    fn schema_name() -> Cow<'static, str> {
        "Scope".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "`all`, or a list of entity names.",
            "oneOf": [
                {"const": "all"},
                {"type": "array", "items": {"type": "string"}},
            ]
        })
    }
}

impl<'de> Deserialize<'de> for RawCurrent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        string_or_map(
            d,
            "a layout such as `embed` or a map `{layout: extended-reference, copies: [name]}`",
            |s| Ok(RawCurrent::Short(s)),
            RawCurrent::Long,
        )
    }
}

impl JsonSchema for RawCurrent {
    fn schema_name() -> Cow<'static, str> {
        "Current".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The layout a relationship has today: a layout name, or `{layout, copies}`.",
            "oneOf": [
                generator.subschema_for::<crate::model::LayoutKind>(),
                generator.subschema_for::<RawCurrentLong>(),
            ]
        })
    }
}

impl<'de> Deserialize<'de> for RawAtomicGroup {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl<'de> Visitor<'de> for V_ {
            type Value = RawAtomicGroup;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of write operations, or a map `{writes: [buy, count_down], same: show}`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(name) = seq.next_element::<S<String>>()? {
                    out.push(name);
                }
                Ok(RawAtomicGroup::List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                RawAtomicLong::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RawAtomicGroup::Long)
            }
        }
        d.deserialize_any(V_)
    }
}

impl JsonSchema for RawAtomicGroup {
    fn schema_name() -> Cow<'static, str> {
        "AtomicGroup".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The write operations that must be atomic together: a list of names, or `{writes, same}` when every write addresses one instance of the entity `same`.",
            "oneOf": [
                {"type": "array", "items": {"type": "string"}},
                generator.subschema_for::<RawAtomicLong>(),
            ]
        })
    }
}

impl<'de> Deserialize<'de> for RawAmount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl Visitor<'_> for V_ {
            type Value = RawAmount;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number, or a related field (`-ordered.quantity`)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawAmount, E> {
                Ok(RawAmount::Number(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawAmount, E> {
                Ok(RawAmount::Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawAmount, E> {
                Ok(RawAmount::Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawAmount, E> {
                Ok(RawAmount::Path(v.to_string()))
            }
        }
        d.deserialize_any(V_)
    }
}

impl<'de> Deserialize<'de> for RawRecursive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl Visitor<'_> for V_ {
            type Value = RawRecursive;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true` or a number of levels")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawRecursive, E> {
                Ok(if v {
                    RawRecursive::All
                } else {
                    RawRecursive::Off
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawRecursive, E> {
                Ok(RawRecursive::Levels(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawRecursive, E> {
                Ok(RawRecursive::Levels(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawRecursive, E> {
                Ok(RawRecursive::Levels(v))
            }
        }
        d.deserialize_any(V_)
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for NamedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V_<V> {
            type Value = NamedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of names")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(NamedMap::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(NamedMap::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<S<String>>()? {
                    let value = map.next_value::<V>()?;
                    out.push((key, value));
                }
                Ok(NamedMap(out))
            }
        }
        d.deserialize_map(V_(PhantomData))
    }
}

impl<V: JsonSchema> JsonSchema for NamedMap<V> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("NamedMap_{}", V::schema_name()).into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>(),
        })
    }
}

/// Deserializes a string through `short` or a map through `T`'s own `Deserialize`.
fn string_or_map<'de, D, T, O>(
    d: D,
    expecting: &'static str,
    short: fn(String) -> Result<O, String>,
    long: fn(T) -> O,
) -> Result<O, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V_<T, O> {
        expecting: &'static str,
        short: fn(String) -> Result<O, String>,
        long: fn(T) -> O,
    }
    impl<'de, T: Deserialize<'de>, O> Visitor<'de> for V_<T, O> {
        type Value = O;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.expecting)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<O, E> {
            (self.short)(v.to_string()).map_err(E::custom)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<O, E> {
            (self.short)(v.to_string()).map_err(E::custom)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<O, E> {
            (self.short)(v.to_string()).map_err(E::custom)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<O, E> {
            (self.short)(v.to_string()).map_err(E::custom)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<O, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map)).map(self.long)
        }
    }
    d.deserialize_any(V_ {
        expecting,
        short,
        long,
    })
}

impl<'de> Deserialize<'de> for RawField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        string_or_map(
            d,
            "a field type such as `string(40)` or a map `{type: string, size: 40}`",
            |s| Ok(RawField::Short(s)),
            |l| RawField::Long(Box::new(l)),
        )
    }
}

impl JsonSchema for RawField {
    fn schema_name() -> Cow<'static, str> {
        "Field".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A field type: `string`, `string(40)` (average bytes), `int`, `long`, `double`, `decimal`, `bool`, `date`, `objectId`, `binary(1024)`, `object(200)`, `attributes`, `point` (a GeoJSON Point), `polygon` / `polygon(12)` (a GeoJSON Polygon, corners, at least 3), `string[]` / `string[5]` (array, average element count); a trailing `?` marks it optional. Or the long form.",
            "oneOf": [
                {"type": "string", "pattern": r"^\s*[A-Za-z][A-Za-z0-9_]*\s*(\(\s*\d+(\.\d+)?\s*\))?\s*(\[\s*\]|\[\s*\d+(\.\d+)?\s*\])*\s*\??\s*$"},
                generator.subschema_for::<RawFieldLong>(),
            ]
        })
    }
}

impl<'de> Deserialize<'de> for RawCardinality {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        string_or_map(
            d,
            "a number or a map `{min, typical, max, growth_per_day | growth}`",
            |s| {
                s.trim()
                    .parse::<f64>()
                    .map(RawCardinality::Exactly)
                    .map_err(|_| {
                        format!("expected a number or `{{min, typical, max}}`, found `{s}`")
                    })
            },
            |r| RawCardinality::Range(Box::new(r)),
        )
    }
}

impl JsonSchema for RawCardinality {
    fn schema_name() -> Cow<'static, str> {
        "Cardinality".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A number (exactly that many) or `{min, typical, max, growth_per_day | growth}`.",
            "oneOf": [
                {"type": "number", "minimum": 0},
                generator.subschema_for::<RawCardinalityLong>(),
            ]
        })
    }
}

impl<'de> Deserialize<'de> for RawCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl Visitor<'_> for V_ {
            type Value = RawCount;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or `unbounded`")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawCount, E> {
                #[allow(clippy::cast_precision_loss)] // counts far below 2^53
                Ok(RawCount::Number(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawCount, E> {
                #[allow(clippy::cast_precision_loss)] // counts far below 2^53
                Ok(RawCount::Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawCount, E> {
                Ok(RawCount::Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawCount, E> {
                if v.trim() == "unbounded" {
                    Ok(RawCount::Unbounded)
                } else {
                    Err(E::custom(format!(
                        "expected a number or `unbounded`, found `{v}`"
                    )))
                }
            }
        }
        d.deserialize_any(V_)
    }
}

impl JsonSchema for RawCount {
    fn schema_name() -> Cow<'static, str> {
        "Count".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "oneOf": [
                {"type": "number", "minimum": 0},
                {"const": "unbounded"},
            ]
        })
    }
}

/// A list of names or a map of name → `T` (or nothing).
fn list_or_map<'de, D, T>(d: D, expecting: &'static str) -> Result<ListOrMap<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V_<T>(&'static str, PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V_<T> {
        type Value = ListOrMap<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(v) = seq.next_element::<S<String>>()? {
                out.push(v);
            }
            Ok(ListOrMap::List(out))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            NamedMap::<Option<T>>::deserialize(de::value::MapAccessDeserializer::new(map))
                .map(ListOrMap::Map)
        }
    }
    d.deserialize_any(V_(expecting, PhantomData))
}

enum ListOrMap<T> {
    List(Vec<S<String>>),
    Map(NamedMap<Option<T>>),
}

impl<'de> Deserialize<'de> for RawMixes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            match list_or_map::<D, RawMix>(d, "a list of mix names or a map of mixes")? {
                ListOrMap::List(l) => RawMixes::List(l),
                ListOrMap::Map(m) => RawMixes::Map(m),
            },
        )
    }
}

impl JsonSchema for RawMixes {
    fn schema_name() -> Cow<'static, str> {
        "Mixes".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "oneOf": [
                {"type": "array", "items": {"type": "string"}},
                {"type": "object", "additionalProperties": {
                    "oneOf": [{"type": "null"}, generator.subschema_for::<RawMix>()]
                }},
            ]
        })
    }
}

impl<'de> Deserialize<'de> for RawIncludes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            match list_or_map::<D, RawInclude>(
                d,
                "a list of relationship names or a map of relationship name → {fields, limit, sort, filter, include}",
            )? {
                ListOrMap::List(l) => RawIncludes::List(l),
                ListOrMap::Map(m) => RawIncludes::Map(m),
            },
        )
    }
}

impl JsonSchema for RawIncludes {
    fn schema_name() -> Cow<'static, str> {
        "Includes".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Related data returned with each result: relationship names, or a map of relationship name → details.",
            "oneOf": [
                {"type": "array", "items": {"type": "string"}},
                {"type": "object", "additionalProperties": {
                    "oneOf": [{"type": "null"}, generator.subschema_for::<RawInclude>()]
                }},
            ]
        })
    }
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Names { sort: false })
    }
}

impl<'de> Deserialize<'de> for Sort {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Names { sort: true }).map(Sort)
    }
}

/// A name or a list of names; with `sort`, also a map of name → direction.
struct Names {
    sort: bool,
}

impl<'de> Visitor<'de> for Names {
    type Value = OneOrMany;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(if self.sort {
            "a field name (`-field` for descending), a list of them, or a map of field → 1 or -1"
        } else {
            "a field name or a list of field names"
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMany, E> {
        Ok(OneOrMany::One(v.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<S<String>>()? {
            out.push(v);
        }
        Ok(OneOrMany::Many(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OneOrMany, A::Error> {
        if !self.sort {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        }
        let mut out = Vec::new();
        while let Some(mut key) = map.next_key::<S<String>>()? {
            if map.next_value::<Direction>()?.descending {
                key.value.insert(0, '-');
            }
            out.push(key);
        }
        Ok(OneOrMany::Many(out))
    }
}

/// The direction of a sort key written MongoDB's way.
struct Direction {
    descending: bool,
}

impl<'de> Deserialize<'de> for Direction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_;
        impl<'de> Visitor<'de> for V_ {
            type Value = Direction;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("1 or -1 (or asc / desc)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Direction, E> {
                match v {
                    1 => Ok(Direction { descending: false }),
                    -1 => Ok(Direction { descending: true }),
                    _ => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Direction, E> {
                match v {
                    1 => Ok(Direction { descending: false }),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Direction, E> {
                match v {
                    1.0 => Ok(Direction { descending: false }),
                    -1.0 => Ok(Direction { descending: true }),
                    _ => Err(E::invalid_value(de::Unexpected::Float(v), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Direction, E> {
                match v.to_ascii_lowercase().as_str() {
                    "asc" | "ascending" => Ok(Direction { descending: false }),
                    "desc" | "descending" => Ok(Direction { descending: true }),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V_)
    }
}

impl JsonSchema for Sort {
    fn schema_name() -> Cow<'static, str> {
        "Sort".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Sort keys: `-field` for descending (or SQL's `field desc`, `a, b desc`), a list of them, or a map of field → 1, -1, \"asc\" or \"desc\".",
            "oneOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}},
                {"type": "object", "additionalProperties": {"enum": [1, -1, "asc", "desc", "ascending", "descending"]}},
            ]
        })
    }
}

impl JsonSchema for OneOrMany {
    fn schema_name() -> Cow<'static, str> {
        "OneOrMany".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        OneOrManySchema::<String>::json_schema(generator)
    }
}
