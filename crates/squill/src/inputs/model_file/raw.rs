//! The model file as written: every key a person may type, with the source
//! location of each value (`Spanned`) so validation can point at it. Nothing here
//! is checked beyond its shape; `resolve` turns it into a `Model`.
//!
//! Several keys take a short or a long form (`string(40)` or `{type: string,
//! size: 40}`); those are small enums with hand-written visitors, not
//! `#[serde(untagged)]`, because untagged enums lose both source locations and
//! the precise error message.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

pub type S<T> = Spanned<T>;

/// A squill model: entities, relationships between them, and the workload.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "squill model file")]
pub struct RawModel {
    /// A name for reports (default: the file's stem).
    #[schemars(with = "Option<String>")]
    pub name: Option<S<String>>,
    /// Named situations, each giving every operation its own rate ("browsing",
    /// "write_heavy"). A list of names, or a map from name to `{description, total_rate}`.
    /// Default: one mix called `default`.
    pub mixes: Option<RawMixes>,
    /// The kinds of things the application stores, by name.
    #[schemars(with = "NamedMap<RawEntity>")]
    pub entities: S<NamedMap<RawEntity>>,
    /// How entities relate, by relationship name.
    #[serde(default)]
    pub relationships: NamedMap<RawRelationship>,
    /// The application's reads and writes, by operation name.
    #[serde(default)]
    pub operations: NamedMap<RawOperation>,
    /// Groups of write operations that must be atomic together: group name → operation names.
    #[serde(default)]
    #[schemars(with = "NamedMap<Vec<String>>")]
    pub atomic: NamedMap<Vec<S<String>>>,
    /// The layout relationships have in the deployment today (what `squill
    /// scan` recognizes, or the design a team has in mind): relationship
    /// name → a layout, or `{layout, copies}`. advise prices the workload
    /// on it beside its own design and says what to change. The key
    /// `without` lists the entity-level patterns the deployment does not
    /// use today (`{archive: [order], polymorphic: all, timeline: all}`).
    #[serde(default)]
    pub current: RawCurrentSection,
}

/// The `current:` section: relationship name → its layout of today, and
/// under the reserved key `without`, the patterns not used today.
#[derive(Debug, Default)]
pub struct RawCurrentSection {
    pub layouts: NamedMap<S<RawCurrent>>,
    /// The `without` key (for its position) and its value.
    pub without: Option<(S<String>, RawWithout)>,
}

/// The key of `current:` that lists the patterns not used today; no
/// relationship's layout can be given under it.
pub const WITHOUT: &str = crate::model::WITHOUT_KEY;

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

/// The entity-level patterns the deployment does not use today, each for
/// `all` entities or a list of entity names.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "the patterns the deployment does not use today, `{archive: [order], polymorphic: all, timeline: all}` (a relationship named `without` cannot be given a layout here: rename it)"
)]
#[schemars(rename = "Without")]
pub struct RawWithout {
    /// No archive collection for these entities: all their instances in
    /// one collection.
    #[schemars(with = "Option<RawScope>")]
    pub archive: Option<S<RawScope>>,
    /// No polymorphic collection holding these entities: each kind in a
    /// collection of its own.
    #[schemars(with = "Option<RawScope>")]
    pub polymorphic: Option<S<RawScope>>,
    /// No timeline collection for a feed of (items) or for (reader) these
    /// entities.
    #[schemars(with = "Option<RawScope>")]
    pub timeline: Option<S<RawScope>>,
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

/// `all`, or a list of entity names.
#[derive(Debug)]
pub enum RawScope {
    All,
    Entities(Vec<S<String>>),
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

/// A relationship's layout today: `embed`, or `{layout: extended-reference,
/// copies: [name]}`.
#[derive(Debug)]
pub enum RawCurrent {
    Short(String),
    Long(RawCurrentLong),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CurrentLayout")]
pub struct RawCurrentLong {
    /// The layout's name, as for `layout:` on a relationship.
    #[schemars(with = "crate::model::LayoutKind")]
    pub layout: S<String>,
    /// For `extended-reference` and `two-way-extended-reference`: the fields
    /// copied, by name (each is a field of the side it is copied from).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub copies: Vec<S<String>>,
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

/// An entity: how many there are and what fields each has.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Entity")]
pub struct RawEntity {
    /// Estimated number of instances.
    #[schemars(with = "f64", range(min = 0))]
    pub count: S<f64>,
    pub description: Option<String>,
    /// Fields by name: a short type (`string(40)`, `int`, `date?`, `string[5]`) or
    /// `{type, size, distinct, enum, required, unique, description}`. `_id` is implicit.
    #[serde(default)]
    #[schemars(with = "NamedMap<RawField>")]
    pub fields: NamedMap<S<RawField>>,
    /// Combinations of fields (or references to a parent, by the
    /// relationship's name or its `child_field`) that no two instances share:
    /// `[[user, repo]]` for one star per user and repository.
    #[schemars(with = "Option<Vec<Vec<String>>>")]
    pub unique: Option<Vec<Vec<S<String>>>>,
    /// Figures given without being known (`[count]`): the decisions that
    /// rest on them say so.
    #[schemars(with = "Option<Vec<AssumedEntityFigure>>")]
    pub assumed: Option<Vec<S<String>>>,
}

/// The figures of an entity that can be marked as assumed.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
pub enum AssumedEntityFigure {
    Count,
}

/// The figures of a relationship that can be marked as assumed.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
pub enum AssumedRelationshipFigure {
    Children,
    Parents,
}

/// A field: the short form or the long form.
#[derive(Debug)]
pub enum RawField {
    Short(String),
    Long(Box<RawFieldLong>),
}

/// The long form of a field.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "FieldLong")]
pub struct RawFieldLong {
    /// string, int, long, double, decimal, bool, date, objectId, binary, object,
    /// attributes; `T[]` for an array of T.
    #[serde(rename = "type")]
    #[schemars(with = "String")]
    pub ty: S<String>,
    /// Average bytes (string, binary, object) or average element count (array);
    /// at most 16 MiB, MongoDB's document limit.
    #[schemars(with = "Option<f64>", range(min = 0, max = 16_777_216))]
    pub size: Option<S<f64>>,
    /// Number of distinct values (for `attributes`: of one name's values).
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub distinct: Option<S<f64>>,
    /// For `attributes`: how many different names the instances use in all
    /// (default: `size`, every instance with the same names).
    #[schemars(with = "Option<f64>", range(min = 1))]
    pub keys: Option<S<f64>>,
    /// The allowed values.
    #[serde(rename = "enum")]
    #[schemars(with = "Option<Vec<String>>")]
    pub enum_values: Option<Vec<S<String>>>,
    /// Whether every instance has the field (default true).
    pub required: Option<bool>,
    /// No two instances share this field's value (an email, a username): the
    /// same as `unique: [[field]]` under the entity.
    pub unique: Option<bool>,
    pub description: Option<String>,
}

/// A relationship from a parent entity (the "one" side, side A of N:M) to a child.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Relationship")]
pub struct RawRelationship {
    /// one-to-one, one-to-many (default) or many-to-many.
    #[schemars(with = "Option<RelationshipKindName>")]
    pub kind: Option<S<String>>,
    /// The "one" side (side A of a many-to-many).
    #[schemars(with = "String")]
    pub parent: S<String>,
    /// The "many" side (side B of a many-to-many).
    #[schemars(with = "String")]
    pub child: S<String>,
    /// Children per parent. Default 1 for one-to-one; required otherwise.
    #[schemars(with = "Option<RawCardinality>")]
    pub children: Option<S<RawCardinality>>,
    /// Parents per child. Default 1; required for many-to-many and for shared children.
    #[schemars(with = "Option<RawCardinality>")]
    pub parents: Option<S<RawCardinality>>,
    /// The child is read or updated on its own, not only through its parent (default false).
    pub standalone: Option<bool>,
    /// A child can belong to several parents (default false).
    pub shared: Option<bool>,
    /// Field in the parent that holds the children or their ids (default: the relationship's name).
    #[schemars(with = "Option<String>")]
    pub parent_field: Option<S<String>>,
    /// Field in the child that holds the parent or its id (default: the parent entity's name).
    #[schemars(with = "Option<String>")]
    pub child_field: Option<S<String>>,
    /// Pin the relationship to one layout (the design it has today, or one to
    /// compare): advise keeps it and decides the rest around it.
    #[schemars(with = "Option<crate::model::LayoutKind>")]
    pub layout: Option<S<String>>,
    /// Fields of the parent the child keeps as they were when it was written
    /// (the price on an invoice line): copied into the child, never refreshed.
    #[schemars(with = "Option<Vec<String>>")]
    pub snapshot: Option<Vec<S<String>>>,
    /// Fields of the link itself in a many-to-many (a member's `role`, when
    /// they `joined_at`), written like an entity's fields: they travel with
    /// the reference, and includes may name them in `fields`.
    #[serde(default)]
    #[schemars(with = "NamedMap<RawField>")]
    pub attributes: NamedMap<S<RawField>>,
    /// A tree's greatest depth: the longest path from a root to a node
    /// (`levels: 7`). Only for an entity's one-to-many with itself; it
    /// bounds the path a node keeps when the design stores it.
    #[schemars(with = "Option<u32>", range(min = 1, max = 100))]
    pub levels: Option<S<f64>>,
    pub description: Option<String>,
    /// Figures given without being known (`[children]`): the decisions
    /// that rest on them say so.
    #[schemars(with = "Option<Vec<AssumedRelationshipFigure>>")]
    pub assumed: Option<Vec<S<String>>>,
}

/// The names a relationship kind may take.
#[derive(JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "RelationshipKind")]
pub enum RelationshipKindName {
    OneToOne,
    OneToMany,
    ManyToMany,
}

/// A cardinality: a plain number (exactly that many) or `{min, typical, max, growth_per_day}`.
#[derive(Debug)]
pub enum RawCardinality {
    Exactly(f64),
    Range(Box<RawCardinalityLong>),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CardinalityRange")]
pub struct RawCardinalityLong {
    /// Default 0.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub min: Option<S<f64>>,
    #[schemars(with = "f64", range(min = 0))]
    pub typical: Option<S<f64>>,
    /// A number or `unbounded`.
    #[schemars(with = "RawCount")]
    pub max: Option<S<RawCount>>,
    /// Items added per owner per day.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub growth_per_day: Option<S<f64>>,
    /// 95th percentile: 95% of owners have at most this many.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub p95: Option<S<f64>>,
    /// 99th percentile: 99% of owners have at most this many (the outliers are above).
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub p99: Option<S<f64>>,
}

/// A number or `unbounded`.
#[derive(Debug)]
pub enum RawCount {
    Number(f64),
    Unbounded,
}

/// Mixes: a list of names, or a map of name → details.
#[derive(Debug)]
pub enum RawMixes {
    List(Vec<S<String>>),
    Map(NamedMap<Option<RawMix>>),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Mix")]
pub struct RawMix {
    pub description: Option<String>,
    /// Operations per second of the whole mix: the operations' `weights` in this mix
    /// are scaled so they add up to it. Without it, a weight is a rate per second.
    #[schemars(with = "Option<f64>", range(min = 0, max = 1e9))]
    pub total_rate: Option<S<f64>>,
}

/// One operation: exactly one of `read`, `insert`, `update`, `delete` names its
/// entity, and exactly one of `rate`, `rates`, `weights` says how often it runs.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Operation")]
pub struct RawOperation {
    /// Reads instances of this entity; a list reads a family of entities
    /// in one query (`[car, phone, flat]`), by fields they all have.
    #[schemars(with = "Option<OneOrMany>")]
    pub read: Option<S<OneOrMany>>,
    /// Inserts instances of this entity.
    #[schemars(with = "Option<String>")]
    pub insert: Option<S<String>>,
    /// Updates instances of this entity.
    #[schemars(with = "Option<String>")]
    pub update: Option<S<String>>,
    /// Deletes instances of this entity.
    #[schemars(with = "Option<String>")]
    pub delete: Option<S<String>>,
    /// Links an existing parent and an existing child through this
    /// relationship (a star, a track added to a playlist).
    #[schemars(with = "Option<String>")]
    pub link: Option<S<String>>,
    /// Removes a link between a parent and a child of this relationship.
    #[schemars(with = "Option<String>")]
    pub unlink: Option<S<String>>,
    /// Operations per second, the same in every mix.
    #[schemars(with = "Option<f64>", range(min = 0, max = 1e9))]
    pub rate: Option<S<f64>>,
    /// Operations per second in each named mix (0 in mixes not named).
    #[schemars(with = "Option<NamedMap<f64>>")]
    pub rates: Option<S<NamedMap<S<f64>>>>,
    /// Relative weight in each named mix (see the mix's `total_rate`).
    #[schemars(with = "Option<NamedMap<f64>>")]
    pub weights: Option<S<NamedMap<S<f64>>>>,
    pub description: Option<String>,
    /// Conditions: field (or `relationship.field`) → eq, range or in. Read, update, delete.
    #[schemars(with = "Option<NamedMap<FilterOpName>>")]
    pub filter: Option<NamedMap<S<String>>>,
    /// Sort keys, `-field` for descending (or `{field: -1}`). Read only.
    #[schemars(with = "Option<Sort>")]
    pub sort: Option<S<Sort>>,
    /// At most this many results. Read only.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub limit: Option<S<f64>>,
    /// Fields returned (default all). Read only.
    #[schemars(with = "Option<Vec<String>>")]
    pub fields: Option<Vec<S<String>>>,
    /// Related data returned with each result, by relationship name. Read only.
    pub include: Option<RawIncludes>,
    /// Aggregates of children: `count(rel)`, `sum(rel.field)`, `min`, `max`, `avg`. Read only.
    #[schemars(with = "Option<Vec<AggregateText>>")]
    pub aggregates: Option<Vec<S<String>>>,
    /// The aggregates per time unit of the children's date over the latest
    /// units (`{per: minute, last: 1440}`: 1-minute values of the last day). Read only.
    pub window: Option<RawWindow>,
    /// Relationships the new instance is linked through. Insert only.
    #[schemars(with = "Option<Vec<String>>")]
    pub links: Option<Vec<S<String>>>,
    /// Instances inserted by one operation (default 1). Insert only.
    #[schemars(with = "Option<f64>", range(min = 1))]
    pub count: Option<S<f64>>,
    /// Fields whose value changes. Update only.
    #[schemars(with = "Option<Vec<String>>")]
    pub changes: Option<Vec<S<String>>>,
    /// Relationships re-pointed by the update. Update only.
    #[schemars(with = "Option<Vec<String>>")]
    pub relinks: Option<Vec<S<String>>>,
    /// Whether it changes many instances (default false). Update only.
    #[schemars(with = "Option<bool>")]
    pub multi: Option<S<bool>>,
}

/// A filter operator: `eq`, `range` (or `<`, `>=`, `gt`, …), `range(0.02)`
/// with the share it keeps, `in`, `under`, `since(90 days)`, `before(1 year)`
/// (read in any case).
#[derive(JsonSchema)]
#[schemars(transparent)]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "FilterOp")]
pub struct FilterOpName(
    #[schemars(regex(
        pattern = r"^\s*(eq|equality|=|==|range|<|>|<=|>=|gt|gte|lt|lte|in|under|subtree|range\s*\(\s*[0-9.eE+-]+\s*\)|(since|before)\s*\([^()]*\))\s*$"
    ))]
    String,
);

/// `count(rel)` or `fn(rel.field)` with fn one of sum, min, max, avg.
#[derive(JsonSchema)]
#[schemars(transparent)]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "Aggregate")]
pub struct AggregateText(
    #[schemars(regex(
        pattern = r"^\s*(count|sum|min|max|avg|first|last)\s*\(\s*[^()\s]+\s*\)(\s+within\s+[0-9.]+\s*%?)?\s*$"
    ))]
    String,
);

/// A time window of aggregates: one value per `per` for the latest `last`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Window")]
pub struct RawWindow {
    /// The time unit of one value: minute, hour, day or month.
    #[schemars(with = "String")]
    pub per: S<String>,
    /// How many of the latest units.
    #[schemars(with = "f64", range(min = 1))]
    pub last: S<f64>,
    /// The children's date field (default: their only date field).
    #[schemars(with = "Option<String>")]
    pub by: Option<S<String>>,
}

/// Includes: a list of relationship names, or a map of name → details.
#[derive(Debug)]
pub enum RawIncludes {
    List(Vec<S<String>>),
    Map(NamedMap<Option<RawInclude>>),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Include")]
pub struct RawInclude {
    /// Fields of the related entity returned (default all).
    #[schemars(with = "Option<Vec<String>>")]
    pub fields: Option<Vec<S<String>>>,
    /// Only this many related items.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub limit: Option<S<f64>>,
    #[schemars(with = "Option<Sort>")]
    pub sort: Option<S<Sort>>,
    #[schemars(with = "Option<NamedMap<FilterOpName>>")]
    pub filter: Option<NamedMap<S<String>>>,
    pub include: Option<RawIncludes>,
    /// Through a relationship of an entity with itself: every level
    /// (`true`: ancestors up to the root, or the whole subtree) or at most
    /// this many levels.
    #[schemars(with = "Option<RecursiveSchema>")]
    pub recursive: Option<S<RawRecursive>>,
}

/// `recursive: true` or `recursive: 3`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RawRecursive {
    All,
    Off,
    Levels(f64),
}

/// Schema helper for `RawRecursive`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
pub enum RecursiveSchema {
    All(bool),
    Levels(u32),
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

/// One string or a list of strings.
#[derive(Debug)]
pub enum OneOrMany {
    One(String),
    Many(Vec<S<String>>),
}

/// A map whose keys are names, kept in file order with each key's location.
/// Duplicate keys are kept so validation can report them.
#[derive(Debug)]
pub struct NamedMap<V>(pub Vec<(S<String>, V)>);

impl<V> Default for NamedMap<V> {
    fn default() -> Self {
        NamedMap(Vec::new())
    }
}

// ---- hand-written visitors -------------------------------------------------

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
            "description": "A field type: `string`, `string(40)` (average bytes), `int`, `long`, `double`, `decimal`, `bool`, `date`, `objectId`, `binary(1024)`, `object(200)`, `string[]` / `string[5]` (array, average element count); a trailing `?` marks it optional. Or the long form.",
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
            "a number or a map `{min, typical, max, growth_per_day}`",
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
            "description": "A number (exactly that many) or `{min, typical, max, growth_per_day}`.",
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

/// `sort:`: `-date`, `[-date, name]`, or MongoDB's own `{date: -1, name: 1}`
/// (`asc`/`desc` too), all read as the same `-field`/`field` names.
#[derive(Debug)]
pub struct Sort(pub OneOrMany);

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

/// Schema helper: `T` or a list of `T`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
pub enum OneOrManySchema<T> {
    One(T),
    Many(Vec<T>),
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
