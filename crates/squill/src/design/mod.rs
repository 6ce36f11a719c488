//! The `Design`: what `squill advise` recommends, as data. Reporters render it
//! (text, Markdown, JSON) and `generate` builds artifacts from it, so its
//! serialized form is a documented, stable structure (docs/design-json.md).
//! Additive changes only; a field's meaning never changes under its name.

pub mod capacity;
mod layout;
pub mod purpose;
pub mod reason;
mod shape;
pub mod shard_key;
pub mod sharding;
mod tenancy;

pub use layout::{Aggregation, BucketBy, Layout, Side};
pub use purpose::{MergeBlock, Purpose, Unreached, Warning};
pub use reason::{Explain, Figure, Reason, Unit};
pub use shape::{
    ARRIVED, BucketPart, FieldOrigin, GEOJSON_POINT, GEOJSON_POLYGON, PAGE, Shape, ShapeField,
    ShapeType, VERSION,
};
pub use tenancy::{ScopedEntity, TenancyReport, TenantCost};

use crate::finding::Finding;
pub use crate::model::FilterOp;
use serde::Serialize;

/// Version of the serialized structure; bumped only on breaking changes.
pub const DESIGN_SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Design {
    pub schema_version: u32,
    pub model: String,
    /// The workload mix the design was optimized for.
    pub mix: String,
    pub collections: Vec<Collection>,
    pub relationships: Vec<RelationshipDecision>,
    /// Entity-level decisions: polymorphic collections, computed fields.
    pub entities: Vec<EntityDecision>,
    pub operations: Vec<OperationPlan>,
    /// Workload-weighted totals of the chosen design.
    pub totals: Cost,
    /// When the model has several mixes: this design priced under each
    /// (its plans, each mix's rates), the mix it was made for included.
    pub mixes: Vec<MixTotals>,
    /// Design-level findings (limits approached, trade-offs that need attention).
    pub findings: Vec<Finding>,
    /// The deployment's design today (the model's `current:` layouts)
    /// priced on the same workload, beside this one; absent when the model
    /// gives no layout of today.
    pub current: Option<CurrentComparison>,
    /// For a model with a `tenant:`: what each operation on a scoped
    /// entity costs at the largest tenant beside the typical one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenancy: Option<TenancyReport>,
    /// With a horizon (`advise --horizon 36m`): the design's data month
    /// by month against MongoDB's limits and the deployment's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<capacity::Capacity>,
}

/// A design's workload totals under one mix's rates.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MixTotals {
    pub mix: String,
    pub totals: Cost,
}

/// The design of today against the recommended one.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CurrentComparison {
    /// The design of today costs no more than the recommended one: nothing
    /// to change.
    pub already_best: bool,
    /// Workload totals of the design of today.
    pub current_totals: Cost,
    /// Workload totals of the recommended design (as `totals`).
    pub recommended_totals: Cost,
    /// Per relationship the model gives a layout of today for.
    pub relationships: Vec<LayoutChange>,
    /// Per operation, its cost per execution on each design.
    pub operations: Vec<OperationComparison>,
    /// Relationships without a layout of today: advise chose theirs for
    /// both designs.
    pub unstated: Vec<String>,
    /// The collections of entity-level patterns (an archive, a polymorphic
    /// collection, a timeline) the recommended design has and the design
    /// of today has not (`current: without:`), and the other way.
    pub patterns_added: Vec<String>,
    pub patterns_dropped: Vec<String>,
}

/// One relationship today and as recommended.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LayoutChange {
    pub relationship: String,
    pub current: Layout,
    pub recommended: Layout,
    /// The workload totals of today minus those with only this
    /// relationship changed (what the change gains alone; positive is
    /// cheaper); `None` when it does not change or cannot change alone.
    pub gain: Option<Cost>,
}

/// One operation on both designs.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OperationComparison {
    pub operation: String,
    /// Executions per second in the mix.
    pub rate: f64,
    pub current: Cost,
    pub recommended: Cost,
}

/// One collection of the design.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Collection {
    pub name: String,
    /// The entities stored here as top-level documents (more than one for a
    /// polymorphic collection, told apart by `discriminator`).
    pub entities: Vec<String>,
    pub discriminator: Option<String>,
    pub shape: Shape,
    /// An example document with realistic values, as relaxed Extended JSON, at
    /// typical cardinality.
    pub example: serde_json::Value,
    pub documents: u64,
    pub size: DocumentSize,
    pub indexes: Vec<Index>,
    /// The shard key advise chooses, with every candidate priced: with
    /// `advise --shard`, or when the projection's data outgrows one
    /// replica set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<sharding::Sharding>,
}

/// Estimated BSON bytes of one document.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DocumentSize {
    pub typical_bytes: u64,
    /// `None` when some embedded array is unbounded.
    pub max_bytes: Option<u64>,
    pub nesting_depth: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Index {
    pub name: String,
    /// Key paths with direction (1 or -1), or `SPHERE_2D` for a
    /// `2dsphere` key (written `"2dsphere"`).
    #[serde(serialize_with = "keys_out")]
    #[schemars(with = "Vec<(String, KeyKind)>")]
    pub keys: Vec<(String, i32)>,
    pub unique: bool,
    /// Operations that use it (names). Empty only for the implicit `_id` index.
    pub used_by: Vec<String>,
    /// A partial index: only documents meeting every condition are indexed
    /// (a unique key that some documents lack, or one kind of a polymorphic
    /// collection). Empty: every document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial: Vec<PartialCondition>,
    /// A TTL index: the server deletes a document this many seconds after
    /// the date in its (single) key (`expireAfterSeconds`). Its deletes are
    /// the server's: no operation of the workload runs them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expire_after_seconds: Option<u64>,
    /// A TTL index's upkeep: documents the TTL monitor deletes per second,
    /// in the steady state as many as the workload inserts. Each is a
    /// write (the document and an entry of each of the collection's
    /// indexes) that no operation's plan counts. Absent when nothing is
    /// inserted, or for any other index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired_per_second: Option<PerSecond>,
    /// A TTL index's delay as a share of the life it states: the monitor
    /// runs about every 60 s, so a document can outlive its time by up to
    /// this share of it (0.5 for a 2-minute ticket; above 1 for a TTL under
    /// a minute). The reads that must be exact compare the date. Absent
    /// for a TTL of 0 (the date is the moment of expiry) and for any
    /// other index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitor_delay_share: Option<Share>,
    /// Why this partial index stays beside an index over every document
    /// that starts with its keys (`advise::build` keeps one of two such
    /// indexes unless each does what the other cannot). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_beside: Option<KeptBeside>,
    /// A TTL index on the newest date of buckets: the entity whose children
    /// the buckets hold. A bucket goes when its newest child expires, so
    /// an older child stays up to one bucket's span past its time
    /// (audit44 D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_buckets_of: Option<String>,
    /// A unique index no operation of the workload uses: the data's
    /// `unique:` (or `unique_within`) requires it whatever the workload
    /// does (an admin tool or a migration loads the entity). Absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kept_by_data: bool,
}

/// A partial index kept beside `index`, an index over every document
/// that starts with its keys, and why (`KeptBeside::words` says it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct KeptBeside {
    pub index: String,
    pub why: BesideWhy,
}

/// What each of the two indexes does that the other cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BesideWhy {
    /// This one is unique over the documents it holds, which the full one
    /// cannot be (documents without the keys would collide on null); the
    /// full one serves reads that do not test this one's condition.
    Unique,
    /// Its users are claims that stop at the first document meeting their
    /// condition: over the full one they would walk past every document
    /// that fails it, each fetched to test it, and that walk costs more
    /// than this index's upkeep (audit45 gap 6).
    Walk,
}

/// A rate, per second: a finite number (rates are checked on input), so
/// an index that holds one can still be compared whole.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct PerSecond(pub f64);

impl Eq for PerSecond {}

/// A share (0.5 is half): a finite number, so an index that holds one can
/// still be compared whole, as with [`PerSecond`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Share(pub f64);

impl Eq for Share {}

/// The direction a `2dsphere` key has among the index keys: neither 1 nor
/// -1, and unchanged when an index is walked the other way.
pub const SPHERE_2D: i32 = 0;

/// An index key's kind as MongoDB writes it: `1`, `-1` or `"2dsphere"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum KeyKind {
    Direction(i32),
    Named(&'static str),
}

/// The kind of an index key with direction `d`.
pub fn key_kind(d: i32) -> KeyKind {
    if d == SPHERE_2D {
        KeyKind::Named("2dsphere")
    } else {
        KeyKind::Direction(d)
    }
}

impl std::fmt::Display for KeyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyKind::Direction(d) => write!(f, "{d}"),
            KeyKind::Named(n) => f.write_str(n),
        }
    }
}

fn keys_out<S: serde::Serializer>(keys: &[(String, i32)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(keys.len()))?;
    for (k, d) in keys {
        seq.serialize_element(&(k, key_kind(*d)))?;
    }
    seq.end()
}

/// A condition of a partial index's `partialFilterExpression`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "test")]
pub enum PartialCondition {
    /// `{path: {$exists: true}}`.
    Exists { path: String },
    /// `{path: value}`: the discriminator of a polymorphic collection.
    Equals { path: String, value: String },
    /// `{path: {$gt: 0}}`: the buckets that hold children (a bucket a
    /// delete emptied keeps a count of 0 and null figures), the ones a
    /// parent's figure is read again from.
    Positive { path: String },
}

/// The decision for one relationship, with its reasons and what it beat.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RelationshipDecision {
    pub relationship: String,
    pub parent: String,
    pub child: String,
    /// The seeds' class of the relationship ("one-to-few", …).
    pub class: String,
    pub chosen: Layout,
    /// Rules that support or shaped the choice, with the reason in this model's terms.
    pub rules: Vec<RuleHit>,
    pub alternatives: Vec<Alternative>,
    /// What the choice gives up ("reassigning a task takes two updates that are
    /// not atomic").
    pub tradeoffs: Vec<String>,
    /// The parent's fields each child keeps as they were when it was
    /// written, never refreshed (the model's `snapshot:`): a layout that
    /// copies only these is a snapshot, not an extended reference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshot: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RuleHit {
    pub rule: &'static str,
    /// Why, as the rule's typed evidence; serialized as `reason` (the
    /// sentence) and `evidence` (the figures and names).
    #[serde(flatten)]
    pub reason: Reason,
}

/// A candidate that lost, and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Alternative {
    pub layout: Layout,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// A rule forbids it (a limit it breaks).
    Rejected {
        rule: &'static str,
        /// Serialized as `reason` and `evidence`, as in `RuleHit`.
        #[serde(flatten)]
        reason: Reason,
    },
    /// Allowed, but the whole design costs more with it.
    Costlier {
        /// Weighted cost difference against the chosen design (positive = worse).
        delta: Cost,
        /// In words and numbers: "embedding saves 2 round trips on 1,200 reads/s
        /// but a part's name change rewrites 300 products".
        explanation: String,
        /// `delta.score` split by operation; what no operation accounts
        /// for is the upkeep of the indexes.
        by_operation: Vec<OperationDelta>,
    },
    /// Cheaper than the chosen layout, which the model pins (`layout:`).
    Cheaper {
        /// Weighted cost difference against the chosen design (negative = better).
        delta: Cost,
        /// In words and numbers, as for `Costlier`.
        explanation: String,
        by_operation: Vec<OperationDelta>,
    },
}

/// What one operation costs more (positive) or less per second with an
/// alternative than with the chosen design: its score per execution
/// times its rate.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OperationDelta {
    pub operation: String,
    pub score: f64,
}

impl OperationDelta {
    /// Per operation of `chosen`, what `other` costs more per second;
    /// operations that cost the same are left out.
    pub fn between(chosen: &[OperationPlan], other: &[OperationPlan]) -> Vec<OperationDelta> {
        chosen
            .iter()
            .filter_map(|a| {
                let b = other.iter().find(|b| b.operation == a.operation)?;
                let score = (b.cost.score - a.cost.score) * a.rate;
                (score.abs() > 1e-9).then(|| OperationDelta {
                    operation: a.operation.clone(),
                    score,
                })
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "decision")]
pub enum EntityDecision {
    Polymorphic {
        collection: String,
        entities: Vec<String>,
        discriminator: String,
        rules: Vec<RuleHit>,
    },
    ComputedField {
        entity: String,
        field: String,
        /// What it stands for, e.g. "count of views".
        computes: String,
        maintained_by: Vec<String>,
        rules: Vec<RuleHit>,
    },
    /// The archive pattern: instances older than `horizon_days` move from
    /// `collection` to `archive` by a scheduled job.
    Archive {
        entity: String,
        collection: String,
        archive: String,
        /// The date field that tells the age.
        field: String,
        horizon_days: f64,
        /// Instances the job moves per second (the entity's inserts).
        moved_per_second: f64,
        /// Operations that run on both collections, their filters keeping
        /// to neither side of the horizon.
        on_both: Vec<String>,
        /// What the live collection keeps in memory with the archive, and
        /// what the one collection did without it.
        working_set: WorkingSet,
        without_archive: WorkingSet,
        /// What the design without the archive costs more (positive: the
        /// archive saves it).
        saves: Cost,
        rules: Vec<RuleHit>,
    },
    /// Fan-out on write: `collection` keeps a document per `reader` (under
    /// its id) with copies of the newest `limit` `items` of the parents it
    /// follows, in the feed's order, pushed by each new item into the
    /// timelines of its parent's followers. Parents with more followers than
    /// `threshold` are not pushed: each timeline lists such parents it
    /// follows in `outliers`, and the feed reads their items at read time.
    Timeline {
        collection: String,
        reader: String,
        items: String,
        /// The feed read it serves.
        feed: String,
        limit: u64,
        threshold: Option<u64>,
        /// Timelines one new item is pushed into, typically.
        pushed: f64,
        /// Operations that write it.
        maintained_by: Vec<String>,
        rules: Vec<RuleHit>,
    },
}

impl EntityDecision {
    /// The rules behind the decision.
    pub fn rules(&self) -> &[RuleHit] {
        match self {
            EntityDecision::Polymorphic { rules, .. }
            | EntityDecision::ComputedField { rules, .. }
            | EntityDecision::Archive { rules, .. }
            | EntityDecision::Timeline { rules, .. } => rules,
        }
    }
}

/// The part of a collection the server keeps in memory to serve its
/// workload without reading disk: the documents younger than the horizon
/// (those the frequent reads reach) and every index entry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WorkingSet {
    pub documents: u64,
    pub document_bytes: u64,
    pub index_entries: u64,
    /// Keys and record ids of the entries, before WiredTiger's prefix compression.
    pub index_bytes: u64,
}

/// How one operation runs under the design.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OperationPlan {
    pub operation: String,
    pub rate: f64,
    pub steps: Vec<Step>,
    pub transaction: bool,
    /// Per execution.
    pub cost: Cost,
    /// Per execution: entries of the design's secondary indexes its
    /// updates rewrite (an index whose key path one of them writes, once
    /// per document updated). Their upkeep is in the score through each
    /// index's; this says it of the operation. Absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub index_entries_rewritten: f64,
    #[serde(serialize_with = "purpose::warnings_json")]
    #[schemars(with = "purpose::WarningsJson")]
    pub warnings: Vec<Warning>,
    /// Changed fields each `$set` to a value the caller passes under the
    /// model's name for it (`current_price = :offer`), the same value the
    /// write's conditions test. Absent when the model names none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_to: Vec<SetTo>,
}

/// `current_price = :offer`: field `field` of entity `entity` (and every
/// copy of it the write keeps) is set to the caller's value `value`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SetTo {
    pub entity: String,
    pub field: String,
    pub value: String,
}

/// A step that counts the documents its filter matches (`returns: count`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepCount {
    /// The index holds every condition: the server counts its keys and
    /// fetches no document (a covered count).
    pub covered: bool,
}

/// One command sent to the server.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Step {
    pub collection: String,
    pub action: Action,
    /// Field paths tested, with the operator.
    pub filter: Vec<StepFilter>,
    pub sort: Vec<(String, i32)>,
    pub limit: Option<u64>,
    /// Fields returned (empty = whole document).
    pub projection: Vec<String>,
    /// Update operators applied (for updates and upserts).
    pub updates: Vec<UpdateOp>,
    /// Name of the index used, if any.
    pub index: Option<String>,
    /// Documents this step touches at the model's typical cardinality.
    pub documents: f64,
    /// Why the step exists (one step may serve several: a parent updated
    /// once for its child's id and its count).
    #[serde(serialize_with = "purpose::purposes_json")]
    #[schemars(with = "purpose::PurposesJson")]
    pub purpose: Vec<Purpose>,
    /// The entity whose copied fields this step refreshes (a write that only
    /// keeps denormalized copies in sync).
    pub copy_of: Option<String>,
    /// The step runs once every this many executions of the operation: a
    /// counter the readers accept approximately, written in batches (the
    /// application adds up `every` views, then `$inc`s by their number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    /// The step runs only when the write before it matched nothing (an
    /// outlier's parent with no room left): one or the other, never both.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
    /// The step runs only when the conditional write at this step
    /// (1-based) matched a document: a parent's max read again only when
    /// the changed child held it (`every` says how rarely that is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_matched: Option<usize>,
    /// With `if_matched`: only when that write changed its document, not
    /// only matched it. An edit of a bucketed child retried sets what is
    /// already there and changes nothing, so the parent's sum does not
    /// move twice by the caller's difference (issue 41).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub if_changed: bool,
    /// The step runs only when (`holds`) or only unless a `deleteMany`
    /// deleted every document an earlier find returned: a parents'
    /// counters taken down by what a group counted before the delete are
    /// exact only when this run deleted all of them; another delete that
    /// took some first already took its own down (issue 41).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_deleted_all: Option<DeletedAll>,
    /// For a `find`: the first document in the sort's order for each value
    /// of this path, not the documents themselves (one aggregation:
    /// `$match` the filter, `$sort`, `$group` by the path keeping each
    /// projected field's `$first`): a figure read again for every parent a
    /// delete touched, the parent's id under `_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_first: Option<String>,
    /// For a `find`: only how many documents match (`countDocuments`),
    /// none sent back; `documents` is the count expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<StepCount>,
    /// For a grouped find (`group_first`): totals of each group, each
    /// under its name (`$sum` of a field, or `$sum: 1` for a count): the
    /// children a delete removes from each parent, counted before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_sums: Vec<GroupSum>,
    /// For `graph_lookup`: the walk from each document the filter finds.
    // Boxed: the search copies steps and most have none; inline, the larger
    // step made the 200-entity search 7% slower (BENCHMARKS.md, session 18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<Box<GraphWalk>>,
    /// Tests on the current document the write applies only under
    /// (`remaining > 0`): the filter and the change are one atomic
    /// single-document write, with no window between a read and the write.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<StepCondition>,
    /// What the application does when a conditional write or a claim
    /// matches nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<crate::model::Otherwise>,
    /// For a read the model says is paged: how a page past the first is
    /// found and what the deep pages cost. Boxed like `graph`: most steps
    /// have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging: Option<Box<StepPaging>>,
    /// For a `bulk_write`: where each document's id and its own amounts
    /// come from. Boxed like `graph`: most steps have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub each: Option<Box<StepEach>>,
    /// For a search of an area of points (`near`, `within`): what it finds
    /// and reads where the places are densest (the model's `density.max`),
    /// when that is more than at the typical density the step is priced
    /// at. Boxed like `graph`: most steps have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub densest: Option<Box<StepDensest>>,
    /// For a find whose filter names one parent (a user's follows), or
    /// that takes the ids such a find returned (`$in`): what it finds
    /// and walks at the relationship's largest parent (its `max`), where
    /// that is more than at the typical parent the step is priced at.
    /// Not in the price (audit48 B3). Boxed like `graph`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub largest: Option<Box<StepLargest>>,
    /// The step's `$push` takes the list of new children a batch insert
    /// brings (`count:` above 1) with `$each`, not one child, and moves
    /// the counters it keeps by their number (issue 41); into buckets, in
    /// chunks that fit a bucket, one upsert each (`documents` counts them).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
    /// For a `findOneAndUpdate`: it returns the document as it was before
    /// the write (its `projection`), none when it matched nothing. A
    /// figure over a subset of the children (`count(tickets where status
    /// = open)`) moves by what the child held before and holds after:
    /// one atomic write of the child, whose old values no other writer
    /// can have changed in between.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before: bool,
    /// For a `find` whose documents are reduced to figures on the server:
    /// one aggregation (`$match` the filter, `$group` by the parent, and by
    /// the window's unit of time when there is one, `$sort` by the group)
    /// that returns a row of figures per group, not the documents. Boxed
    /// like `graph`: most steps have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<Box<StepFigures>>,
    /// For a `find` of children embedded in an array, read on their own:
    /// the array. The filter's tests of its elements hold for one element
    /// (`$elemMatch`), and the step returns the matching elements, each
    /// with its document's `_id` (one aggregation: `$match`, `$unwind`,
    /// `$match` the element, `$sort`, `$limit`), not the whole documents
    /// ordered by their least element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<String>,
    /// With `elements`, for children kept in buckets: the buckets' own
    /// order and how many the read takes before their children are
    /// unwound (the newest pages a newest-first read needs), while `sort`
    /// and `limit` order and cut the children (audit44 B). `None` when
    /// the read takes every bucket of the parent that matches.
    /// With `elements`, for children in an array inside another array (a
    /// shop's products, each with its sales): the arrays around
    /// `elements`, outermost first, each unwound before it (embed46).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elements_within: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket_order: Option<Box<BucketOrder>>,
    /// An outlier's rest: the step runs only when a parent the find at
    /// `step` read holds its array full (only such a parent has children
    /// in documents of their own; `every` says how rarely that is), and
    /// its children are merged with the array's in the read's order and
    /// cut to its limit (audit45 gap 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_full: Option<Box<IfFull>>,
    /// For a `find`: arrays of embedded children that come back cut to
    /// the first `limit` in an order (a post with its newest 3 comments),
    /// not whole. The server still reads the whole document; what it sends
    /// back is the cut array (embed46).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<ArraySlice>,
    /// For a write that moves what it finds out of its own selection (a
    /// sweep that cancels stale requests, `model::clears_own_selection`):
    /// the documents its first run after deployment finds, every one
    /// already in the state. `documents` (and the price) is what each
    /// later run finds: those that arrived since the run before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backlog: Option<f64>,
}

/// An embedded array returned cut: its unexpired elements (`unexpired`),
/// ordered by `sort` (their own fields; none: as stored, which is the
/// order they were pushed in), then the first `limit` of them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ArraySlice {
    pub path: String,
    pub sort: Vec<(String, i32)>,
    /// None: every element (kept to leave out the expired ones).
    pub limit: Option<u64>,
    /// Elements of an expiring entity kept in the array (a layout pinned
    /// though `expiry-lost` refuses it): only those whose date `field` is
    /// less than `seconds` old come back. Nothing deletes the others: the
    /// TTL index deletes whole documents only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexpired: Option<SliceUnexpired>,
    /// Tests of the elements' own fields (paths under `path`): only the
    /// elements that pass come back (`$filter`), before the order and the
    /// cut. An outlier's children read by their own fields (a parcel's
    /// scans of one kind): the array once came back whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filter: Vec<StepFilter>,
    /// The number of the elements that pass comes back under `path`, not
    /// the elements (`$size` of the `$filter`): a count of an outlier's
    /// children counts the array's on the server.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub count: bool,
    /// The array's stored length comes back too, under
    /// `ArraySlice::stored_key`: the test of whether an outlier's parent
    /// is full cannot read it from an array that comes back filtered.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stored: bool,
    /// Figures computed on the server over the array's elements, each
    /// beside the array under its own key (`tickets_count_status_open`):
    /// a read's aggregate over children embedded in its parent, over the
    /// live elements that pass its test (review48 A6: the whole array
    /// came back, expired elements included, and no figure).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<SliceFigure>,
}

/// One figure of an array's elements computed in the find's projection:
/// `function` of `field` (none for a count) over the elements that pass
/// `test` (a path under the element) and are still alive (`unexpired`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SliceFigure {
    pub name: String,
    pub function: crate::model::AggregateFn,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<StepCondition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unexpired: Option<SliceUnexpired>,
}

impl ArraySlice {
    /// The key the array's stored length comes back under (`stored`):
    /// `_stored_scans` for `scans`: a computed field of the projection,
    /// beside the array, that the cookbook's full-array test reads.
    pub fn stored_key(&self) -> String {
        format!("_stored_{}", self.path.replace('.', "_"))
    }
}

/// The date an expiring element's life counts from and the life, in
/// seconds (the entity's `expires`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SliceUnexpired {
    pub field: String,
    pub seconds: u64,
}

/// The parent read that says whether an outlier's rest is read: the find
/// at `step` (1-based), whose documents hold the children in `array`, at
/// most `threshold` of them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct IfFull {
    pub step: usize,
    pub array: String,
    pub threshold: u64,
    /// The query runs once for each such parent, by its id, and its
    /// `limit` is that parent's: the newest N of each parent read, not N
    /// over them all (a read of several parents with their newest
    /// children; embed46). Each parent's children are merged with its own
    /// array's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub each: bool,
}

/// The buckets a read of bucketed children takes before it unwinds them:
/// their order and their number (`limit` buckets for a page of children;
/// page N of a read paged by `skip` takes N times as many).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BucketOrder {
    pub sort: Vec<(String, i32)>,
    pub limit: Option<u64>,
}

/// What a find that computes figures groups by and returns (an
/// aggregate read over children kept in their own collection: the hourly
/// min, max and average temperature of a device's readings).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepFigures {
    /// The path of the parent's id in each document: a group per parent.
    pub by: String,
    /// For figures per unit of time: the date path and its unit (`hour`),
    /// each group's time the date truncated to the unit (`$dateTrunc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per: Option<StepPer>,
    /// Each figure: its name in the row, its function and the field it is
    /// computed over (none for a count).
    pub figures: Vec<StepFigure>,
    /// Rows returned, typically (groups: parents times units).
    pub rows: f64,
    /// Children kept in buckets: the array each bucket holds them in,
    /// unwound after the buckets are matched, each child then tested by
    /// the filter again (the window) before the groups (audit44 C).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unwind: Option<String>,
}

/// A group's unit of time: the date path truncated to `unit`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepPer {
    pub field: String,
    pub unit: String,
}

/// One figure of a group.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepFigure {
    pub name: String,
    pub function: crate::model::AggregateFn,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// A fan-out read's worst case: the same query at the largest parent
/// of `relationship` (its `max` children), beside the typical parent the
/// plan prices. Not in the price.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepLargest {
    pub relationship: String,
    /// The relationship's parent and child entities, as the text names
    /// them ("the largest user (7,500 follows)").
    pub parent: String,
    pub child: String,
    /// The largest parent's children: the relationship's `max`.
    pub children: f64,
    /// For a find by the ids of an earlier step (`$in`): how many ids
    /// that step returns at the largest parent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<f64>,
    /// Documents the query returns there.
    pub documents: f64,
    /// Documents it examines, and index keys it walks, there.
    pub examined: f64,
    pub keys: f64,
}

/// A geo search's worst case: the same query where the places are
/// densest, what the busiest area costs per execution. The plan's cost
/// weighs it by `share` (the model's `density.densest_share`) and the
/// typical case by the rest; without a share, the cost is the typical one.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepDensest {
    /// Documents the query finds there.
    pub documents: f64,
    /// Documents it examines there.
    pub examined: f64,
    /// Bytes it reads there.
    pub bytes_read: f64,
    /// The share of searches the plan's cost prices here (the model's
    /// `density.densest_share`); absent: none, the model does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
}

/// The documents of a bulk write and the amount each one gets: one
/// `updateOne` per value of `id` in the documents an earlier step
/// returned (or, with no such step, per id the caller passes with its
/// amounts), each `$inc`ing by the value next to that id.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepEach {
    /// The earlier step (1-based) whose documents hold the ids and the
    /// amounts; `None`: the caller passes them.
    pub from_step: Option<usize>,
    /// The path of the written document's id in those documents
    /// (`items.product`).
    pub id: String,
    pub amounts: Vec<EachAmount>,
    /// Fields `$set` from the object next to the id (a figure each
    /// parent's group found), beside the amounts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<EachSet>,
    /// The documents written, where they are not the objects of
    /// `from_step`: one per distinct id at a path of an earlier step's
    /// documents, each `$set` from the object of `from_step` whose `id` is
    /// that id, and to null where `from_step` has none (a parent a delete
    /// of several children left with no child, which no group names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids_from: Option<IdsFrom>,
}

/// Where a bulk write's ids come from when its values come from another
/// step (`StepEach::ids_from`): the distinct values at `path` in the
/// documents step `step` (1-based) returned (the reference to the parent
/// in the children a delete found).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct IdsFrom {
    pub step: usize,
    pub path: String,
}

/// One total of a grouped find: its name in each group, and the field it
/// adds up (none: it counts the documents).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GroupSum {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// One `$set` of a bulk write's updates: the field written, and the path
/// of its value in each object.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct EachSet {
    pub path: String,
    pub from: String,
    /// A count or sum recounted: 0 where the object has none (a parent
    /// left with no child), and the value in the type the validator keeps
    /// the field in. False: the value as it is, null where none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zero: bool,
}

impl Step {
    /// Whether the step stands in for another write of the plan, one or
    /// the other, never both: the write into an outlier's overflow when
    /// the parent had no room (`fallback`), or the recount after a delete
    /// another one overlapped, instead of the count down. Not a write of
    /// its own when the plan's writes are counted.
    pub fn instead_of_another(&self) -> bool {
        self.fallback || self.if_deleted_all.as_ref().is_some_and(|g| !g.holds)
    }
}

/// A gate on a delete of many documents (`Step::if_deleted_all`): the
/// `deleteMany` at step `delete` deleted as many documents as the find at
/// step `found` returned (`holds`), or fewer (`!holds`). Steps numbered
/// from 1.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DeletedAll {
    pub delete: usize,
    pub found: usize,
    pub holds: bool,
}

/// One `$inc` of a bulk write's updates: the field written, and the path
/// of its amount next to the id (`items.quantity`), added or taken away.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct EachAmount {
    pub path: String,
    pub from: String,
    pub negative: bool,
}

/// A condition of a conditional write, at its path in the document.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepCondition {
    pub path: String,
    /// The write's amount added to the path's value before the test
    /// (`available + rooms <= total`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plus: Option<crate::model::Plus>,
    pub test: crate::model::Test,
    pub value: crate::model::Literal,
}

/// How a paged step finds a page past the first, and the index keys it
/// walks past to get there.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepPaging {
    pub by: crate::model::PagingBy,
    /// Keyset paging: the sort key the next page starts after (the last
    /// item seen's value, `{created_at: {$gt: last}}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Keyset paging on a sort of several keys: the sort's later keys, in
    /// order. The next page starts after the last item's whole tuple
    /// (`after`, these, then `_id`), compared key by key in the sort's
    /// directions; the first key alone would skip the rest of its value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub then: Vec<String>,
    /// Index keys skipped per execution, on average (0 under keyset).
    pub skipped: f64,
    /// Index keys skipped to reach the deepest page (0 under keyset).
    pub deepest_skipped: f64,
    /// Index keys one page reads (the limit).
    pub page: f64,
    /// When the deepest page the model states lies past every item the
    /// filter matches even at the largest parent: the two figures that
    /// disagree. Absent when the deepest page can exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub past_the_matches: Option<PastTheMatches>,
    /// The share of executions that ask for the deepest page, where the
    /// model states it: `skipped` counts them at `deepest_skipped` each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deepest_share: Option<f64>,
}

/// A paged read's stated depth against its filter's matches: page 200 of
/// 25 listings asks for 5,000 where the largest event has 1,562 that pass.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PastTheMatches {
    /// Items up to the end of the deepest page (deepest page × limit).
    pub deepest_items: f64,
    /// Items the filter matches at the largest parent (the relationship's
    /// `max` children where the filter names the parent), else overall.
    pub matched_at_largest: f64,
}

/// A `$graphLookup` over the step's collection: from each document the
/// filter finds, follow `connect_from` to the documents whose `connect_to`
/// holds it, up to `max_depth` more times, into the array `into`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GraphWalk {
    /// The first values (the path of the found document's field).
    pub start_with: String,
    pub connect_from: String,
    pub connect_to: String,
    pub into: String,
    /// Further levels after the first (`maxDepth`).
    pub max_depth: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Find,
    /// An aggregation: `$match` on the filter, then `$graphLookup` (see
    /// `Step::graph`): a walk up or down a tree in one command.
    GraphLookup,
    InsertOne,
    InsertMany,
    UpdateOne,
    UpdateMany,
    Upsert,
    DeleteOne,
    DeleteMany,
    /// Finds the first document of the filter in the sort's order, changes
    /// it and returns it, in one atomic command (a claim).
    FindOneAndUpdate,
    /// One `updateOne` per document in one command: each document changed
    /// by an amount of its own (each product less its own line's
    /// quantity), which one `updateMany` cannot say. `Step::each` says
    /// where the documents' ids and amounts come from.
    BulkWrite,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepFilter {
    pub path: String,
    /// The test: equality, membership (`$in`) or a range.
    pub op: FilterOp,
    /// Where the value compared comes from.
    pub value_from: ValueSource,
    /// For a `near` or a circle `within`: the radius searched, in metres
    /// (`$maxDistance`, `$centerSphere`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius_m: Option<f64>,
}

/// Where a step's filter value comes from: what the cookbook turns into a
/// parameter, a value carried from an earlier step, or a constant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "source")]
pub enum ValueSource {
    /// A value the application passes in (the operation's parameter).
    Param,
    /// Values that an earlier step of the same plan read (1-based).
    FromStep { step: usize },
    /// The ids that any of these earlier steps read (1-based): children
    /// kept as an outlier are found both in their parents' arrays and in
    /// their own collection, and the next step matches the two together.
    FromSteps { steps: Vec<usize> },
    /// The value `field` held before this operation changed it (the old
    /// parent of a re-pointed child, the old value of a copied key).
    Old { field: String },
    /// The value `field` takes with this operation (the new parent).
    New { field: String },
    /// The id of the parent a new document names in `field`, where it
    /// names two parents of one entity (a follow's `followed` beside the
    /// `follower` that keeps it): a parameter of its own (`followed_id`),
    /// so that the two ids are never one.
    LinkId { field: String },
    /// The parameter `field`, truncated to the time `unit` (a time bucket).
    Truncated { field: String, unit: String },
    /// A constant: the polymorphic collection's discriminator value.
    Literal { value: String },
    /// Below a constant: a count bucket that still has room.
    Below { limit: u64 },
    /// At most `limit` less the length of a batch's chunk: a count bucket
    /// with room for the whole chunk (issue 41).
    RoomFor { limit: u64 },
    /// Above a constant: a count bucket that holds children (an emptied
    /// one keeps figures of none, which sort before every value).
    Above { limit: u64 },
    /// The path does not exist: an array with no element at that index
    /// still has room (an outlier's embedded children).
    Missing,
    /// No element of the array holds the caller's value at this path
    /// (`$ne`): the guard of an upsert's `$push`, so that of two callers
    /// adding the same element at once only the first matches.
    NotHeld,
    /// At or after the start of the window the read asks of `field` (the
    /// children's date, `events.ts`): a bucket's last date, so that a
    /// bucket holding any child of the window is read (audit44 B).
    WindowStart { field: String },
    /// Before the end of the window the read asks of `field`: a bucket's
    /// first date.
    WindowEnd { field: String },
    /// A time bucket's key (the hour) in the window the read asks of
    /// `field` (the children's date), from the window's start truncated
    /// to `unit` (the bucket holding the start) to before its end: one
    /// range, with the children's own parameters (issue 41).
    WindowKey { field: String, unit: String },
    /// After now less `seconds`: a document of an entity that expires
    /// `seconds` after this date and is not yet past it. The TTL monitor
    /// deletes it only up to a minute later, so a read or a claim that
    /// must not see an expired document compares the date
    /// (`model::expiry`).
    Unexpired { seconds: u64 },
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum UpdateOp {
    Set {
        path: String,
    },
    Unset {
        path: String,
    },
    /// `$setOnInsert`: written only when an upsert creates the document
    /// (a bucket's first value).
    SetOnInsert {
        path: String,
    },
    /// `$inc`: by `by` where the model states the amount (`increments:
    /// {remaining: -1}`), so the write's guard (`remaining > 0`) holds for
    /// the amount it is written for; `None`: a count's 1, or an amount the
    /// caller or an earlier step gives (a child's value, a batch's sum).
    /// With `amount`, the caller passes the amount under that name
    /// (`increments: {available: -quantity}`) and `by` is the sign the
    /// model writes before it (-1: the write takes `quantity` away).
    Inc {
        path: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount: Option<String>,
    },
    /// `$inc` by a negative amount: a count or sum falls (a child deleted,
    /// a link removed).
    Dec {
        path: String,
    },
    Min {
        path: String,
    },
    Max {
        path: String,
    },
    /// `$push` with optional `$each`/`$sort`/`$slice` (a subset keeps the latest K).
    Push {
        path: String,
        sort: Option<(String, i32)>,
        slice: Option<i64>,
    },
    AddToSet {
        path: String,
    },
    Pull {
        path: String,
    },
    /// The part of a path array above the moved node replaced by the new
    /// parent's path (an update pipeline: `$concatArrays` of the new
    /// parent's path and the array from the node on).
    Rebase {
        path: String,
    },
    /// `$set` of `path` to the value the changed child's `field` held
    /// before the write, in a write whose filter asks that `path` still
    /// equal it: nothing changes, and the write matches only when the
    /// child may have held the parent's figure (a conditional write that
    /// only tests; the parent's validator keeps the figure required).
    SetOld {
        path: String,
        field: String,
    },
    /// `$set` of the value at `field` in the document an earlier step
    /// (`step`, numbered from 1) found: a parent's max, min, first or last
    /// of its children read again from them after one was lowered or
    /// removed (issue 41), where `$max` kept a lowered maximum.
    SetFrom {
        path: String,
        step: usize,
        field: String,
        /// The figure the parent keeps (max, min, first, last).
        function: crate::model::AggregateFn,
    },
    /// `$set` of the value at `field` in the one document step `step`
    /// (1-based) found: a relinked child's reference and its copies of
    /// the new parent's fields, taken from the new parent as that step
    /// read it, so that they cannot disagree with it (audit43 K). When
    /// the step found nothing, the operation fails.
    CopyFrom {
        path: String,
        step: usize,
        field: String,
    },
    /// An update pipeline's rewrite of the elements of the array `path`
    /// that the step's filter matches (its tests under `path.`): `fields`
    /// set in each (`$map`, `$mergeObjects`). Written beside `Recompute`,
    /// where `$set path.$.field` could not recompute in the same update;
    /// and for a write of elements whose condition compares two fields of
    /// each element (`qty < cap`), which neither `arrayFilters` nor a
    /// top-level `$expr` can test element by element (issue 41).
    SetElements {
        path: String,
        fields: Vec<String>,
        /// Amounts added to fields of each matched element (`Inc`, its
        /// path the element's field: `qty`), written as `$add` of the
        /// element's own value (`{$add: ["$$e.qty", 1]}`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        adds: Vec<UpdateOp>,
    },
    /// An update pipeline's removal of the elements of the array `path`
    /// that the step's filter matches (`$filter`), beside `Recompute`.
    DropElements {
        path: String,
    },
    /// An update pipeline's removal of the elements of the array `path`
    /// past their life (`field` more than `seconds` old), beside the
    /// `Push` of a new one in the same write: no TTL index deletes an
    /// element of an array, and MongoDB refuses `$push` and `$pull` on
    /// one path in one update.
    PullExpired {
        path: String,
        field: String,
        seconds: u64,
    },
    /// An aggregate a document keeps over its own array, computed again
    /// from the array in the same update pipeline, after the elements
    /// changed (`$size`, `$sum`, `$min`, `$max` of `over`; the first and
    /// last element's value): a bucket's count, sum, min and max stay what
    /// its readings say, atomically (issue 41).
    ///
    /// `by`: the children's date (`ticks.time`) a first or last follows:
    /// the value of the element with the least or greatest date, not the
    /// first or last to arrive. A bucket keeps `last_time` as its `$max`,
    /// so a `last_price` from the newest arrival came from another child
    /// than `last_time` when a child arrived late (review46 item 5).
    Recompute {
        path: String,
        function: crate::model::AggregateFn,
        over: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// A figure set to what it is over no children (in a pipeline, which
    /// converts the 0 of a count or a sum to the figure's type; a max,
    /// min or last to null): every child of the parent was deleted.
    Reset {
        path: String,
        function: crate::model::AggregateFn,
    },
}

impl UpdateOp {
    /// Whether the update is a stage of an update pipeline (MongoDB 4.2+:
    /// `updateOne(filter, [{$set: ...}])`) rather than an update operator.
    pub fn in_pipeline(&self) -> bool {
        matches!(
            self,
            UpdateOp::Rebase { .. }
                | UpdateOp::SetElements { .. }
                | UpdateOp::DropElements { .. }
                | UpdateOp::PullExpired { .. }
                | UpdateOp::Recompute { .. }
                | UpdateOp::Reset { .. }
        )
    }

    /// The path the operator writes.
    pub fn path(&self) -> &str {
        match self {
            UpdateOp::Set { path }
            | UpdateOp::Unset { path }
            | UpdateOp::SetOnInsert { path }
            | UpdateOp::Inc { path, .. }
            | UpdateOp::Dec { path }
            | UpdateOp::Min { path }
            | UpdateOp::Max { path }
            | UpdateOp::Push { path, .. }
            | UpdateOp::AddToSet { path }
            | UpdateOp::Pull { path }
            | UpdateOp::Rebase { path }
            | UpdateOp::SetOld { path, .. }
            | UpdateOp::SetFrom { path, .. }
            | UpdateOp::CopyFrom { path, .. }
            | UpdateOp::SetElements { path, .. }
            | UpdateOp::DropElements { path }
            | UpdateOp::PullExpired { path, .. }
            | UpdateOp::Recompute { path, .. }
            | UpdateOp::Reset { path, .. } => path,
        }
    }

    /// The path the operator writes, to rename it (`lines.$[e].qty` →
    /// `lines.$[].qty` where no test names the elements).
    pub fn path_mut(&mut self) -> &mut String {
        match self {
            UpdateOp::Set { path }
            | UpdateOp::Unset { path }
            | UpdateOp::SetOnInsert { path }
            | UpdateOp::Inc { path, .. }
            | UpdateOp::Dec { path }
            | UpdateOp::Min { path }
            | UpdateOp::Max { path }
            | UpdateOp::Push { path, .. }
            | UpdateOp::AddToSet { path }
            | UpdateOp::Pull { path }
            | UpdateOp::Rebase { path }
            | UpdateOp::SetOld { path, .. }
            | UpdateOp::SetFrom { path, .. }
            | UpdateOp::CopyFrom { path, .. }
            | UpdateOp::SetElements { path, .. }
            | UpdateOp::DropElements { path }
            | UpdateOp::PullExpired { path, .. }
            | UpdateOp::Recompute { path, .. }
            | UpdateOp::Reset { path, .. } => path,
        }
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Cost of an operation (per execution) or of a workload (weighted by rates, per second).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Cost {
    pub round_trips: f64,
    pub documents_examined: f64,
    pub index_keys_examined: f64,
    pub bytes_read: f64,
    pub bytes_written: f64,
    /// Documents written only to keep copies of denormalized data in sync.
    pub sync_writes: f64,
    pub transactions: f64,
    /// Documents written (inserted, updated, deleted), sync writes included.
    pub documents_written: f64,
    /// Commands a sharded cluster's router sends to shards beyond the one
    /// an unsharded collection takes: a join into a sharded collection
    /// spread over several shards, and the prepare and commit of a
    /// transaction across shards (docs/cost-model.md, "On a sharded
    /// cluster"). Priced as round trips; absent from the JSON when zero,
    /// as it is on one replica set.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shard_requests: f64,
    /// Entries held in memory by the design's secondary indexes (workload
    /// totals only; an archive's indexes stay on disk): their memory and
    /// upkeep are part of the score.
    pub index_entries: f64,
    /// The single figure the optimizer minimizes (see docs/cost-model.md).
    pub score: f64,
}
