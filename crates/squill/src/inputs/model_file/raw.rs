//! The model file as written: every key a person may type, with the source
//! location of each value (`Spanned`) so validation can point at it. Nothing here
//! is checked beyond its shape; `resolve` turns it into a `Model`.
//!
//! Several keys take a short or a long form (`string(40)` or `{type: string,
//! size: 40}`); those are small enums with hand-written visitors, not
//! `#[serde(untagged)]`, because untagged enums lose both source locations and
//! the precise error message. Those visitors, and the JSON schemas written by
//! hand, are in `raw_visitors`: this file is the shape alone.

use schemars::JsonSchema;
use serde_saphyr::Spanned;

pub(super) type S<T> = Spanned<T>;

/// A squill model: entities, relationships between them, and the workload.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "squill model file")]
pub(super) struct RawModel {
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
    /// Groups of write operations that must be atomic together: group name →
    /// operation names, or `{writes: [names], same: entity}` when every write
    /// of the group addresses one instance of that entity.
    #[serde(default)]
    pub atomic: NamedMap<RawAtomicGroup>,
    /// The layout relationships have in the deployment today (what `squill
    /// scan` recognizes, or the design a team has in mind): relationship
    /// name → a layout, or `{layout, copies}`. advise prices the workload
    /// on it beside its own design and says what to change. The key
    /// `without` lists the entity-level patterns the deployment does not
    /// use today (`{archive: [order], polymorphic: all, timeline: all}`).
    #[serde(default)]
    pub current: RawCurrentSection,
    /// The entity every operation names, in an application shared by
    /// tenants (a store): `tenant: store`, or `{entity: store, largest:
    /// 0.015}` with the largest tenant's share of the instances.
    #[schemars(with = "Option<super::tenant_word::RawTenant>")]
    pub tenant: Option<S<super::tenant_word::RawTenant>>,
    /// The deployment the application runs on, for `advise --horizon`:
    /// `{ram: 64GiB, disk: 4TiB, shards: 1, compression: 0.5}`. The
    /// command line's `--ram`/`--disk` and `squill.toml`'s `[deployment]`
    /// say the same; the command line wins, then this, then the file.
    #[schemars(with = "Option<RawDeployment>")]
    pub deployment: Option<S<RawDeployment>>,
}

/// The `current:` section: relationship name → its layout of today, and
/// under the reserved key `without`, the patterns not used today.
#[derive(Debug, Default)]
pub(super) struct RawCurrentSection {
    pub layouts: NamedMap<S<RawCurrent>>,
    /// The `without` key (for its position) and its value.
    pub without: Option<(S<String>, RawWithout)>,
}

/// The key of `current:` that lists the patterns not used today; no
/// relationship's layout can be given under it.
pub(super) const WITHOUT: &str = crate::model::WITHOUT_KEY;

/// The entity-level patterns the deployment does not use today, each for
/// `all` entities or a list of entity names.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "the patterns the deployment does not use today, `{archive: [order], polymorphic: all, timeline: all}` (a relationship named `without` cannot be given a layout here: rename it)"
)]
#[schemars(rename = "Without")]
pub(super) struct RawWithout {
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

/// `all`, or a list of entity names.
#[derive(Debug)]
pub(super) enum RawScope {
    All,
    Entities(Vec<S<String>>),
}

/// An atomic group: a list of write operations, or `{writes, same}`.
#[derive(Debug)]
pub(super) enum RawAtomicGroup {
    List(Vec<S<String>>),
    Long(RawAtomicLong),
}

impl RawAtomicGroup {
    pub(super) fn writes(&self) -> &[S<String>] {
        match self {
            RawAtomicGroup::List(w) => w,
            RawAtomicGroup::Long(l) => &l.writes,
        }
    }
    pub(super) fn same(&self) -> Option<&S<String>> {
        match self {
            RawAtomicGroup::List(_) => None,
            RawAtomicGroup::Long(l) => l.same.as_ref(),
        }
    }
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "AtomicGroupLong")]
pub(super) struct RawAtomicLong {
    /// The write operations that must succeed or fail together, by name.
    #[schemars(with = "Vec<String>")]
    pub writes: Vec<S<String>>,
    /// An entity one instance of which every write of the group
    /// addresses (`same: show`: the seat sold and the count taken down
    /// are of one show). Where the layout keeps all of them in that
    /// instance's document, they are one single-document write.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub same: Option<S<String>>,
}

/// A relationship's layout today: `embed`, or `{layout: extended-reference,
/// copies: [name]}`.
#[derive(Debug)]
pub(super) enum RawCurrent {
    Short(String),
    Long(RawCurrentLong),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CurrentLayout")]
pub(super) struct RawCurrentLong {
    /// The layout's name, as for `layout:` on a relationship.
    #[schemars(with = "crate::model::LayoutKind")]
    pub layout: S<String>,
    /// For `extended-reference` and `two-way-extended-reference`: the fields
    /// copied, by name (each is a field of the side it is copied from).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub copies: Vec<S<String>>,
}

/// An entity: how many there are and what fields each has.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Entity")]
pub(super) struct RawEntity {
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
    /// The server removes an instance a set time after one of its date
    /// fields: `{from: last_used, after: 30 minutes}` (a TTL index).
    pub expires: Option<RawExpiry>,
    /// For an entity with a GeoJSON point field (or an array of points,
    /// `point[3]`: then it counts places): how densely its instances lie,
    /// per km² (or per the circle of `per`), typical and in the densest
    /// place. A read `near` a point or `within` an area finds this many
    /// per km² it covers; the plan prices the typical and states the
    /// densest. `squill scan --emit-model` measures it from the data.
    #[schemars(with = "Option<RawDensity>")]
    pub density: Option<S<RawDensity>>,
    /// How the count grows over time, for `advise --horizon`: a share
    /// (`{percent: 8, per: month}`, compounded) or a number (`{add:
    /// 50000, per: day}`) per period.
    #[schemars(with = "Option<RawCountGrowth>")]
    pub growth: Option<S<RawCountGrowth>>,
}

/// Instances per km², typical and at most: `{typical: 40, max: 2500}`, or
/// per a radius: `{typical: 1100, max: 70000, per: 3 km}`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Density")]
pub(crate) struct RawDensity {
    /// Instances in the unit of `per`, where they typically are.
    #[schemars(with = "f64", range(min = 0))]
    pub typical: S<f64>,
    /// Instances in the unit of `per` in the densest place (default: typical).
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub max: Option<S<f64>>,
    /// What the figures count in: `km2` (the default), another area
    /// (`m2`, `mi2`), or the circle of a radius (`3 km`, `500 m`, `2 mi`).
    #[schemars(with = "Option<String>")]
    pub per: Option<S<String>>,
    /// The share of searches (0 to 1) that land where the places are at
    /// `max`: the expected cost weighs the densest case by it. Without
    /// it, a search is priced at the typical density alone.
    #[schemars(with = "Option<f64>", range(min = 0, max = 1))]
    pub densest_share: Option<S<f64>>,
}

/// Expiry: the date field the time counts from, and how long after it an
/// instance is removed (`30 minutes`, `7 days`, `0 seconds` for a field
/// that holds the moment of expiry itself).
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Expiry")]
pub(crate) struct RawExpiry {
    /// A date field of the entity.
    #[schemars(with = "String")]
    pub from: S<String>,
    /// A duration: a number and a unit (seconds, minutes, hours, days, weeks, months, years).
    // The pattern is what `conditional::seconds` reads (a test holds them
    // to one list of samples), but for its bound of 2^31 - 1 seconds.
    #[schemars(
        with = "String",
        regex(
            pattern = r"^\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*(s|secs?|seconds?|mins?|minutes?|h|hours?|d|days?|w|weeks?|months?|y|years?)\s*$"
        )
    )]
    pub after: S<String>,
}

/// Paging of a sorted, limited read: how pages past the first are found
/// and how deep readers go.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Paging")]
pub(crate) struct RawPaging {
    /// `keyset` (a range from the sort key of the last item seen) or
    /// `skip` (`skip((page - 1) * limit)`).
    #[schemars(with = "PagingBy")]
    pub by: S<String>,
    /// The share of executions that ask for a page past the first (0 to 1).
    #[schemars(with = "f64", range(min = 0, max = 1))]
    pub past_first: S<f64>,
    /// The page number of a page past the first: typical, and the deepest
    /// readers reach.
    #[schemars(with = "RawDepth")]
    pub depth: S<RawDepth>,
}

/// Schema helper for `RawPaging::by`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
pub(super) enum PagingBy {
    Keyset,
    Skip,
}

/// Page numbers, typical and at most: `{typical: 20, max: 1000}`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PageDepth")]
pub(crate) struct RawDepth {
    /// The page number a page past the first typically has (at least 2).
    #[schemars(with = "f64", range(min = 2))]
    pub typical: S<f64>,
    /// The deepest page (default: typical).
    #[schemars(with = "Option<f64>", range(min = 2))]
    pub max: Option<S<f64>>,
    /// The share of all executions that ask for the deepest page (0 to
    /// `past_first`). Unstated, the deepest page is a worst case only.
    #[schemars(with = "Option<f64>", range(min = 0, max = 1))]
    pub max_share: Option<S<f64>>,
}

/// The figures of an entity that can be marked as assumed.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
pub(super) enum AssumedEntityFigure {
    Count,
}

/// The figures of a relationship that can be marked as assumed.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
pub(super) enum AssumedRelationshipFigure {
    Children,
    Parents,
}

/// A field: the short form or the long form.
#[derive(Debug)]
pub(super) enum RawField {
    Short(String),
    Long(Box<RawFieldLong>),
}

/// The long form of a field.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "FieldLong")]
pub(super) struct RawFieldLong {
    /// string, int, long, double, decimal, bool, date, objectId, binary, object,
    /// attributes, point (a GeoJSON Point), polygon (a GeoJSON Polygon, `size`
    /// its corners, at least 3); `T[]` for an array of T.
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
    /// No two children of one parent share this field's value (a SKU
    /// within its store): the reference to the parent (a relationship's
    /// name or its `child_field`, as in `unique:`) and the field are
    /// unique together.
    #[schemars(with = "Option<String>")]
    pub unique_within: Option<S<String>>,
    pub description: Option<String>,
}

/// A relationship from a parent entity (the "one" side, side A of N:M) to a child.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Relationship")]
pub(super) struct RawRelationship {
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
pub(super) enum RelationshipKindName {
    OneToOne,
    OneToMany,
    ManyToMany,
}

/// A cardinality: a plain number (exactly that many) or `{min, typical, max, growth_per_day | growth}`.
#[derive(Debug)]
pub(super) enum RawCardinality {
    Exactly(f64),
    Range(Box<RawCardinalityLong>),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CardinalityRange")]
pub(super) struct RawCardinalityLong {
    /// Default 0.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub min: Option<S<f64>>,
    /// The usual number; a mean may be a fraction (0.2 deals per contact).
    #[schemars(with = "f64", range(min = 0))]
    pub typical: Option<S<f64>>,
    /// A number or `unbounded`.
    #[schemars(with = "RawCount")]
    pub max: Option<S<RawCount>>,
    /// Items added per owner per day (the typical owner's; `growth` gives
    /// the spread).
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub growth_per_day: Option<S<f64>>,
    /// Items added per owner per period, with the spread between owners:
    /// `{typical, p95, p99, max, per}`. Not with `growth_per_day`.
    #[schemars(with = "Option<RawGrowth>")]
    pub growth: Option<S<RawGrowth>>,
    /// 95th percentile: 95% of owners have at most this many.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub p95: Option<S<f64>>,
    /// 99th percentile: 99% of owners have at most this many (the outliers are above).
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub p99: Option<S<f64>>,
}

/// Children added per parent per period: typical, and the spread up to
/// the busiest parent.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Growth")]
pub(super) struct RawGrowth {
    /// Children the typical parent (the median) gains per period.
    #[schemars(with = "f64", range(min = 0))]
    pub typical: S<f64>,
    /// 95% of parents gain at most this many per period.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub p95: Option<S<f64>>,
    /// 99% of parents gain at most this many per period.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub p99: Option<S<f64>>,
    /// The busiest parent's gain per period: layouts that grow with time
    /// are bounded here.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub max: Option<S<f64>>,
    /// The period the figures are per (default `day`).
    #[schemars(with = "Option<GrowthPeriod>")]
    pub per: Option<S<String>>,
}

/// Schema helper for `RawGrowth::per`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
pub(super) enum GrowthPeriod {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

/// A number or `unbounded`.
#[derive(Debug)]
pub(super) enum RawCount {
    Number(f64),
    Unbounded,
}

/// Mixes: a list of names, or a map of name → details.
#[derive(Debug)]
pub(super) enum RawMixes {
    List(Vec<S<String>>),
    Map(NamedMap<Option<RawMix>>),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Mix")]
pub(super) struct RawMix {
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
pub(super) struct RawOperation {
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
    /// How the application asks for pages past the first (with `sort`
    /// and `limit`): `{by: keyset, past_first: 0.05, depth: {typical: 20, max: 1000}}`. Read only.
    #[schemars(with = "Option<RawPaging>")]
    pub paging: Option<S<RawPaging>>,
    /// Fields returned (default all). Read only.
    #[schemars(with = "Option<Vec<String>>")]
    pub fields: Option<Vec<S<String>>>,
    /// Related data returned with each result, by relationship name. Read only.
    pub include: Option<RawIncludes>,
    /// The read finds its tenant (an API key by its hash, a login by
    /// email): under the model's `tenant:` it names none, and its index
    /// does not lead with it. Read only, on an entity the tenant scopes.
    #[schemars(with = "Option<bool>")]
    pub finds_tenant: Option<S<bool>>,
    /// The operation runs across every tenant (a maintenance job over all
    /// stores): under the model's `tenant:` it names none, and it is
    /// priced over every tenant's documents. Read, update or delete of an
    /// entity the tenant scopes; not with `finds_tenant`.
    #[schemars(with = "Option<bool>")]
    pub all_tenants: Option<S<bool>>,
    /// What the read returns when not the documents: `count`, how many
    /// the filter matches (`countDocuments`), with no document fetched
    /// where an index holds every condition. Read only, without `fields`,
    /// `include`, `aggregates`, `sort`, `limit` or `paging`.
    #[schemars(with = "Option<ReturnsName>")]
    pub returns: Option<S<String>>,
    /// Aggregates of children: `count(rel)`, `sum(rel.field)`, `min`, `max`, `avg`;
    /// over a subset with `where` (`count(tickets where status = open)`). Read only.
    #[schemars(with = "Option<Vec<AggregateText>>")]
    pub aggregates: Option<S<Vec<S<String>>>>,
    /// The aggregates per time unit of the children's date over the latest
    /// units (`{per: minute, last: 1440}`: 1-minute values of the last day). Read only.
    pub window: Option<RawWindow>,
    /// Relationships the new instance is linked through. Insert only.
    #[schemars(with = "Option<Vec<String>>")]
    pub links: Option<Vec<S<String>>>,
    /// Instances inserted by one operation (default 1). Insert only.
    #[schemars(with = "Option<f64>", range(min = 1))]
    pub count: Option<S<f64>>,
    /// Fields whose value changes. Update only. An entry `field = :name`
    /// sets the field to the value the caller passes under that name, the
    /// one a `when:` condition tests (`current_price = :offer`).
    #[schemars(with = "Option<Vec<String>>")]
    pub changes: Option<Vec<S<String>>>,
    /// Relationships re-pointed by the update. Update only.
    #[schemars(with = "Option<Vec<String>>")]
    pub relinks: Option<Vec<S<String>>>,
    /// Whether it changes many instances (default false). Update only.
    #[schemars(with = "Option<bool>")]
    pub multi: Option<S<bool>>,
    /// Claims one instance of this entity: of those `filter` matches, the
    /// first in `sort` order is changed (`changes`, `increments`) and
    /// returned in the same step (a worker taking the next job).
    #[schemars(with = "Option<String>")]
    pub claim: Option<S<String>>,
    /// Conditions on the current document the write applies only under:
    /// `["remaining > 0", "status = pending"]` (`=`, `!=`, `<`, `<=`, `>`,
    /// `>=`; a number, `true`, `false`, a word, the name of an amount the
    /// caller passes that `increments` names: `available >= quantity`,
    /// another field of the entity of the same kind: `used < quota`, or a
    /// value the caller passes for the test, written with a colon:
    /// `version = :expected`, `status = :wanted`; a bare name that is
    /// neither a field nor such an amount is an error). On the left, a
    /// number field may take the write's amount: `available + rooms <=
    /// total`. Update, delete, link, unlink, claim.
    #[schemars(with = "Option<Vec<ConditionText>>")]
    pub when: Option<Vec<S<String>>>,
    /// What the application does when the write matches nothing: `fail`
    /// (tell the caller; the default for one document), `undo` (undo the
    /// earlier writes of its atomic group), `skip` (already done; the
    /// default with `multi: true`). With `when` or `claim`. Or `insert`
    /// on an `update` with `increments` and no `when`: add the amounts to
    /// the instance the filter's keys name, or add that instance (an
    /// upsert).
    #[schemars(with = "Option<OtherwiseName>")]
    pub otherwise: Option<S<String>>,
    /// The share of calls of an `otherwise: insert` write that add the
    /// instance, above 0 and at most 1 (`0.2`: one call in five). Without
    /// it the plan assumes every call may (1) and says so.
    #[schemars(with = "Option<f64>", range(min = 0, max = 1))]
    pub inserts: Option<S<f64>>,
    /// Amounts added to fields in the same write (`{remaining: -1}`: `$inc`):
    /// a number; a name for the amount the caller passes (`{available:
    /// -quantity}`, which a condition may compare with: `available >=
    /// quantity`); or a field of the instance related through a
    /// relationship of the entity, when each document gets its own amount
    /// (`{stock: -ordered.quantity}`: one update per document). Update, claim.
    #[schemars(with = "Option<NamedMap<AmountSchema>>")]
    pub increments: Option<NamedMap<S<RawAmount>>>,
}

/// An increment's amount: a constant, `[-]name` (the caller's), or
/// `[-]relationship.field`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum RawAmount {
    Number(f64),
    Path(String),
}

/// An amount `$inc` adds: a number, `[-]name`, the amount the caller
/// passes under that name, or `[-]relationship.field`, the amount each
/// document takes from its related instance.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "Amount")]
pub(super) enum AmountSchema {
    Number(f64),
    Path(
        #[schemars(regex(pattern = r"^[-+]?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$"))]
        String,
    ),
}

/// A condition of a write: `field OP value`, the value a constant, an
/// amount the caller passes, another field of the entity (`used < quota`),
/// or a value the caller passes, after a colon (`version = :expected`,
/// `status = :wanted`);
/// the field may take the write's amount (`available + rooms <= total`).
#[derive(JsonSchema)]
#[schemars(transparent)]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "Condition")]
pub(crate) struct ConditionText(
    #[schemars(regex(
        pattern = r"^\s*[A-Za-z_][A-Za-z0-9_]*(\s*[-+]\s*[A-Za-z_][A-Za-z0-9_]*)?\s*(=|==|!=|<|<=|>|>=)\s*\S.*$"
    ))]
    String,
);

/// What a read returns instead of its documents: `count`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "Returns")]
pub(crate) enum ReturnsName {
    Count,
}

/// What a conditional write does when it matches nothing: `fail` by
/// default for one document, `skip` with `multi: true`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "Otherwise")]
pub(crate) enum OtherwiseName {
    Fail,
    Undo,
    Skip,
    Insert,
}

/// A filter operator: `eq`, `range` (or `<`, `>=`, `gt`, …), `range(0.02)`
/// with the share it keeps, `in`, `under`, `since(90 days)`, `before(1 year)`,
/// and on a GeoJSON field `near(3 km)`, `within(3 km)` (a circle),
/// `within(12 km2)` (a polygon of that area), `intersects` (read in any case).
#[derive(JsonSchema)]
#[schemars(transparent)]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "FilterOp")]
pub(super) struct FilterOpName(
    #[schemars(regex(
        pattern = r"^\s*(eq|equality|=|==|range|<|>|<=|>=|gt|gte|lt|lte|in|under|subtree|range\s*\(\s*[0-9.eE+-]+\s*\)|(since|before|near|within)\s*\([^()]*\)|intersects)\s*$"
    ))]
    String,
);

/// `count(rel)` or `fn(rel.field)` with fn one of sum, min, max, avg;
/// `count(rel where field = value)` over the children that pass the test.
#[derive(JsonSchema)]
#[schemars(transparent)]
#[allow(dead_code)] // only its schema is used
#[schemars(rename = "Aggregate")]
pub(super) struct AggregateText(
    #[schemars(regex(
        pattern = r"^\s*(count|sum|min|max|avg|first|last)\s*\(\s*[^()\s]+(\s+where\s+[^()]+)?\s*\)(\s+within\s+[0-9.]+\s*%?)?\s*$"
    ))]
    String,
);

/// A time window of aggregates: one value per `per` for the latest `last`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Window")]
pub(super) struct RawWindow {
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
pub(super) enum RawIncludes {
    List(Vec<S<String>>),
    Map(NamedMap<Option<RawInclude>>),
}

#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Include")]
pub(super) struct RawInclude {
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
    /// How the application asks for pages past the first of the limited
    /// items (see the operation's `paging`).
    #[schemars(with = "Option<RawPaging>")]
    pub paging: Option<S<RawPaging>>,
    pub include: Option<RawIncludes>,
    /// Through a relationship of an entity with itself: every level
    /// (`true`: ancestors up to the root, or the whole subtree) or at most
    /// this many levels.
    #[schemars(with = "Option<RecursiveSchema>")]
    pub recursive: Option<S<RawRecursive>>,
}

/// `recursive: true` or `recursive: 3`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum RawRecursive {
    All,
    Off,
    Levels(f64),
}

/// Schema helper for `RawRecursive`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
pub(super) enum RecursiveSchema {
    All(bool),
    Levels(u32),
}

/// One string or a list of strings.
#[derive(Debug)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<S<String>>),
}

/// A map whose keys are names, kept in file order with each key's location.
/// Duplicate keys are kept so validation can report them.
#[derive(Debug)]
pub(super) struct NamedMap<V>(pub Vec<(S<String>, V)>);

impl<V> Default for NamedMap<V> {
    fn default() -> Self {
        NamedMap(Vec::new())
    }
}

/// `sort:`: `-date`, `[-date, name]`, or MongoDB's own `{date: -1, name: 1}`
/// (`asc`/`desc` too), all read as the same `-field`/`field` names.
#[derive(Debug)]
pub(super) struct Sort(pub OneOrMany);

/// Schema helper: `T` or a list of `T`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
pub(super) enum OneOrManySchema<T> {
    One(T),
    Many(Vec<T>),
}

/// An entity's growth: `percent` or `add`, per a period.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CountGrowth")]
pub(super) struct RawCountGrowth {
    /// The count grows by this share of itself each period, compounded
    /// (8: ×1.08 a period).
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub percent: Option<S<f64>>,
    /// The count grows by this many instances each period.
    #[schemars(with = "Option<f64>", range(min = 0))]
    pub add: Option<S<f64>>,
    /// The period (default `day`): minute, hour, day, week, month (30
    /// days) or year (365 days).
    #[schemars(with = "Option<GrowthPeriod>")]
    pub per: Option<S<String>>,
}

/// The deployment: each figure optional.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Deployment")]
pub(super) struct RawDeployment {
    /// RAM of each member (`64GiB`): the WiredTiger cache is 50 % of
    /// (RAM − 1 GiB), at least 256 MiB.
    #[schemars(with = "Option<String>")]
    pub ram: Option<S<String>>,
    /// Disk of each member (`4TiB`).
    #[schemars(with = "Option<String>")]
    pub disk: Option<S<String>>,
    /// Shards (default 1: one replica set).
    #[schemars(with = "Option<u32>", range(min = 1))]
    pub shards: Option<S<f64>>,
    /// On-disk bytes per byte of data, above 0 and at most 1 (0.4: the
    /// data takes 40 % of its size on disk). Default 1 (docs/capacity.md).
    #[schemars(with = "Option<f64>", range(min = 0, max = 1))]
    pub compression: Option<S<f64>>,
}
