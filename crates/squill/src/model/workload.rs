//! The workload: what the application reads and writes, how often, in which mix.

pub use super::sort_key::SortKey;
use super::{EntityId, RelationshipId};
use serde::Serialize;

super::index_type!(
    /// Index of an operation in `Workload::operations`.
    OperationId
);

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Workload {
    /// Named mixes. There is always at least one; a model that names none gets a
    /// single mix called `default`.
    pub mixes: Vec<Mix>,
    pub operations: Vec<Operation>,
    /// Sets of write operations that must be atomic together.
    pub atomic_groups: Vec<AtomicGroup>,
}

impl Workload {
    pub fn mix(&self, name: &str) -> Option<usize> {
        self.mixes.iter().position(|m| m.name == name)
    }
}

/// A mix: the operations' rates in one situation ("browsing", "write_heavy").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mix {
    pub name: String,
    pub description: Option<String>,
}

/// One access pattern of the application.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Operation {
    pub name: String,
    pub kind: OperationKind,
    /// Operations per second in each mix, indexed like `Workload::mixes`. Weights
    /// given in the file are turned into rates by the mix's total (default 1.0/s
    /// per unit of weight), so costs compare across operations of one mix.
    pub rates: Vec<f64>,
    pub description: Option<String>,
    /// How a write guards itself (a condition, a claim, amounts added);
    /// empty for a read and a plain write.
    #[serde(skip_serializing_if = "super::WriteTerms::is_plain")]
    pub terms: super::WriteTerms,
    /// How the application pages through a sorted, limited read: `None`
    /// for a read that only ever asks for its first page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging: Option<Paging>,
    /// A read that finds its tenant (an API key looked up by its hash, a
    /// login by email): under a model's `tenant:`, it names no tenant, so
    /// no filter on it is added and its index does not lead with it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub finds_tenant: bool,
    /// An operation that runs across every tenant (`all_tenants: true`: a
    /// maintenance job that purges every store's expired carts, a report
    /// over all of them): under a model's `tenant:`, it names no tenant, so
    /// no filter on it is added, it is priced over every tenant's
    /// documents, and an index that leads with the tenant does not serve
    /// it. Its cookbook function takes no tenant's id.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub all_tenants: bool,
    /// A read that returns only how many instances its filter matches
    /// (`returns: count`): a `countDocuments`, no document sent back, and
    /// none fetched where an index holds every condition.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub counts: bool,
}

impl Operation {
    pub fn rate(&self, mix: usize) -> f64 {
        self.rates.get(mix).copied().unwrap_or(0.0)
    }

    /// The fields an update writes: those it `changes` (`$set`) and those
    /// it `increments` (`$inc`), each once. An index holding one of them
    /// has its entry rewritten either way (ttl45).
    pub fn written_fields(&self) -> Vec<&str> {
        let mut out: Vec<&str> = match &self.kind {
            OperationKind::Update { changes, .. } => changes.iter().map(String::as_str).collect(),
            _ => return Vec::new(),
        };
        for inc in &self.terms.increments {
            if !out.contains(&inc.field.as_str()) {
                out.push(inc.field.as_str());
            }
        }
        out
    }

    /// The entity the operation starts from: a link's is the parent, whose
    /// id it is given with the child's.
    pub fn entity_in(&self, model: &super::Model) -> EntityId {
        match &self.kind {
            OperationKind::Read { entity, .. }
            | OperationKind::Insert { entity, .. }
            | OperationKind::Update { entity, .. }
            | OperationKind::Delete { entity, .. } => *entity,
            OperationKind::Link { relationship, .. }
            | OperationKind::UpdateLink { relationship, .. } => {
                model.relationship(*relationship).parent
            }
        }
    }

    pub fn is_write(&self) -> bool {
        !matches!(self.kind, OperationKind::Read { .. })
    }

    /// A read of the children of one parent asked on the children (tracks
    /// by the playlist they are in, comments by their post) as what it is:
    /// the parent's include, with the read's fields, order, limit, own
    /// conditions and includes. `None` for any other operation, and for a
    /// read that also tests another entity or aggregates. The facts and the
    /// planner both take it in this form, so the design does not depend on
    /// how the read is written.
    pub fn as_parent_include(&self, model: &super::Model) -> Option<(EntityId, Include)> {
        self.parent_include(model, Tenant::None)
    }

    /// `as_parent_include`, where the read may also name the tenant whose
    /// id the parent's buckets hold for their children
    /// (`Model::bucket_tenant`: a symbol's ticks and their org). The
    /// include leaves that test out, as it does the parent's: the planner
    /// tests it on each bucket (`costs::plan::tenant`). Only for children
    /// kept in buckets, whose every step on the buckets tests the tenant;
    /// a child of another layout, read by its parent, would lose its
    /// tenant's test.
    pub fn as_bucket_parent_include(&self, model: &super::Model) -> Option<(EntityId, Include)> {
        self.parent_include(model, Tenant::Buckets)
    }

    /// `as_parent_include`, where the read may also name the child's own
    /// tenant (a parcel's scans of one kind, under its carrier). For an
    /// outlier's children: the planner tests the tenant on the parent's
    /// find and on the query of the rest (`costs::plan::tenant`).
    pub fn as_tenant_parent_include(&self, model: &super::Model) -> Option<(EntityId, Include)> {
        self.parent_include(model, Tenant::Child)
    }

    fn parent_include(&self, model: &super::Model, tenant: Tenant) -> Option<(EntityId, Include)> {
        let OperationKind::Read {
            entity,
            filter,
            sort,
            limit,
            fields,
            include,
            aggregates,
            family,
        } = &self.kind
        else {
            return None;
        };
        // A read that names one instance (its `_id`, or a combination
        // unique within the parent) reads that instance, not the parent's
        // children: the parent only tests it (`model::identity`).
        if !aggregates.is_empty()
            || !family.is_empty()
            || identity(model, *entity, filter).is_some()
        {
            return None;
        }
        let mut through = filter.iter().filter_map(|f| {
            let related = f.related.as_ref()?;
            let rel = model.relationship(related.relationship);
            // The tenant's id carried down a chain (a sale's seller, through
            // its product) scopes the read; the read is not of the
            // tenant's children.
            (rel.child == *entity
                && related.field == "_id"
                && f.op == FilterOp::Eq
                && rel.tenant_chain.is_empty())
            .then_some(related.relationship)
        });
        let r = through.next()?;
        // Besides the parent's id, only the child's own fields are tested
        // (and, in buckets, the tenant the parent's buckets hold).
        let own = |f: &&Filter| {
            f.related.as_ref().is_none_or(|x| {
                let named = match tenant {
                    Tenant::None => None,
                    Tenant::Buckets => model.bucket_tenant(r),
                    Tenant::Child => model.tenant_relationship(*entity),
                };
                x.field == "_id"
                    && (x.relationship == r
                        || (x.further.is_empty()
                            && f.op == FilterOp::Eq
                            && named == Some(x.relationship)))
            })
        };
        if through.next().is_some() || !filter.iter().all(|f| own(&f)) {
            return None;
        }
        let inc = Include {
            relationship: r,
            to_children: true,
            fields: fields.clone(),
            limit: *limit,
            sort: sort.clone(),
            filter: filter
                .iter()
                .filter(|f| f.related.is_none())
                .cloned()
                .collect(),
            include: include.clone(),
            recursive: None,
            paging: self.paging,
        };
        Some((model.relationship(r).parent, inc))
    }
}

/// Which tenant a read of a parent's children may name beside the
/// parent (`Operation::parent_include`).
#[derive(Clone, Copy)]
enum Tenant {
    None,
    /// The tenant the parent's buckets hold (`Model::bucket_tenant`).
    Buckets,
    /// The child's own tenant (`Model::tenant_relationship`).
    Child,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum OperationKind {
    /// Find instances of `entity` and, with each, related data.
    Read {
        entity: EntityId,
        filter: Vec<Filter>,
        sort: Vec<SortKey>,
        limit: Option<u64>,
        /// Fields of `entity` returned; empty means all.
        fields: Vec<String>,
        include: Vec<Include>,
        /// The read aggregates children (count/sum/min/max/avg) rather than
        /// listing them: a computed field could answer it.
        aggregates: Vec<Aggregate>,
        /// Further entities the same query reads with `entity`, a family
        /// with no parent in common (`read: [car, phone, flat]`): the
        /// filter, sort and fields are theirs too, the limit is the
        /// family's. Empty for a read of one entity.
        family: Vec<EntityId>,
    },
    Insert {
        entity: EntityId,
        /// Relationships the new instance is linked through (to its parent(s)).
        links: Vec<RelationshipId>,
        /// How many instances one operation inserts (default 1).
        count: u64,
    },
    Update {
        entity: EntityId,
        filter: Vec<Filter>,
        /// Fields whose value changes.
        changes: Vec<String>,
        /// Relationships re-pointed by this update (reassigning a task).
        relinks: Vec<RelationshipId>,
        /// Whether it touches one instance or many.
        multi: bool,
    },
    Delete {
        entity: EntityId,
        filter: Vec<Filter>,
    },
    /// Links one existing parent and one existing child through
    /// `relationship` (a user stars a repository, a track joins a playlist),
    /// or removes that link (`unlink`). Neither instance is created or
    /// deleted.
    Link {
        relationship: RelationshipId,
        unlink: bool,
    },
    /// Changes fields of the link itself (the many-to-many's `attributes`:
    /// a member's role, a student's progress in a course) on one existing
    /// link. Neither side's own fields change, and the link stays.
    UpdateLink {
        relationship: RelationshipId,
        changes: Vec<String>,
    },
}

/// One condition of a filter. `path` is a field of the operation's entity, or
/// `relationship.field` for a field of a related entity (items whose seller is in
/// a region: `seller.region`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Filter {
    pub path: Vec<String>,
    pub op: FilterOp,
    /// Where the path leads when it goes through a relationship, resolved
    /// once when the filter is made (`Filter::new`), so the search never
    /// matches names again.
    pub related: Option<Related>,
    /// The fraction of instances a range keeps, when the model says so
    /// (`range(0.02)`: the last week of a year); otherwise a quarter. On
    /// an `_id: in`, the fraction its list names, where that is known (the
    /// archiving job's batch); otherwise a few ids.
    pub selectivity: Option<f64>,
    /// A range by age on the entity's date field (`since(90 days)`: the
    /// orders younger than 90 days): which end of the history it keeps.
    /// Its `selectivity` follows from the entity's insert rate and count.
    pub age: Option<Age>,
    /// For a GeoJSON test (`near`, `within`): the area searched.
    pub geo: Option<GeoArea>,
}

/// The area a `near` or `within` searches: a circle of `radius_km`, or a
/// polygon the query gives (no radius), of `km2`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GeoArea {
    pub km2: f64,
    pub radius_km: Option<f64>,
}

/// A range on a date field measured from now: the instances younger
/// (`since`) or older (`before`) than `days`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Age {
    pub days: f64,
    pub older: bool,
    /// The range is the entity's life (`expires:`), added by squill to a
    /// read or a claim that must not see an expired document
    /// (`model::expiry`), not written in the model file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub expiry: bool,
}

impl Age {
    /// The share of `count` instances inside the range when
    /// `inserts_per_day` are added a day, the oldest first to go past it.
    pub fn share(&self, count: u64, inserts_per_day: f64) -> f64 {
        let young = (self.days * inserts_per_day / count.max(1) as f64).clamp(0.0, 1.0);
        if self.older { 1.0 - young } else { young }
    }
}

/// A filter path through a relationship: the relationship and the field of
/// the related entity the condition tests (`_id` when the path names only
/// the relationship).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    pub relationship: super::RelationshipId,
    pub field: String,
    /// The path past the first hop, when it takes more hops (posts whose
    /// author is followed by a user: `followers.follower` on the author);
    /// empty for one hop.
    pub further: Vec<String>,
}

impl Filter {
    /// A condition on `path` of `entity`'s documents, resolved against `model`.
    pub fn new(
        model: &super::Model,
        entity: super::EntityId,
        path: Vec<String>,
        op: FilterOp,
    ) -> Filter {
        let related = model.related(entity, &path);
        Filter {
            path,
            op,
            related,
            selectivity: None,
            age: None,
            geo: None,
        }
    }

    /// Whether the condition is a GeoJSON test (served by a `2dsphere` index).
    pub fn is_geo(&self) -> bool {
        self.op.is_geo()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FilterOp {
    Eq,
    Range,
    In,
    /// In the subtree of the given node of a tree (the node and everything
    /// below it): on the `_id` of an entity that forms a tree, or on a
    /// reference to one (the products of a category and of all its
    /// subcategories).
    Under,
    /// Near a point, nearest first (`$near`), within a radius: on a GeoJSON
    /// point field.
    Near,
    /// Inside an area (`$geoWithin`): a circle or a polygon the query gives.
    Within,
    /// Whose shape contains or crosses the point the query gives
    /// (`$geoIntersects`): the delivery zone of an address.
    Intersects,
}

impl FilterOp {
    /// Whether the operator tests GeoJSON (served by a `2dsphere` index).
    pub fn is_geo(self) -> bool {
        matches!(
            self,
            FilterOp::Near | FilterOp::Within | FilterOp::Intersects
        )
    }
}

/// Related data returned together with the operation's entity, through one
/// relationship, possibly nested (comments received, with each comment's author).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Include {
    pub relationship: RelationshipId,
    /// Which way the relationship is walked: from parent to children (`true`) or
    /// from a child to its parent(s).
    pub to_children: bool,
    /// Fields of the related entity returned; empty means all.
    pub fields: Vec<String>,
    /// Only some related items: the latest K (limit with sort) or a page.
    pub limit: Option<u64>,
    pub sort: Vec<SortKey>,
    pub filter: Vec<Filter>,
    pub include: Vec<Include>,
    /// Through a relationship of an entity with itself: the walk repeats,
    /// up to this many levels (a category's ancestors, a subtree).
    pub recursive: Option<u32>,
    /// How the application pages through the limited items (see `Paging`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging: Option<Paging>,
}

impl Include {
    /// Whether this include fetches every child an aggregate over its
    /// relationship covers, so the read computes the aggregate from what it
    /// fetched (one hour of readings and their average). That holds only
    /// for a window: a filter made of ranges (which an aggregate beside it
    /// is taken to share), read whole rather than a page at a time. An
    /// equality filter picks a subset (the visible comments), and a paged
    /// include holds one page: the count above the first 30 comments
    /// covers them all, so it is planned or kept on its own.
    pub fn fetches_aggregated(&self, agg: &Aggregate) -> bool {
        self.relationship == agg.relationship
            && !self.filter.is_empty()
            && self.filter.iter().all(|f| f.op == FilterOp::Range)
            && self.paging.is_none()
    }
}

/// How the application asks for pages past the first of a sorted, limited
/// read (a forum thread's posts, 25 a page). A page 1,000 deep costs what
/// page 1 costs under keyset paging, and 1,000 times the page's keys under
/// `skip`: the model says which, and how deep readers go.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Paging {
    pub by: PagingBy,
    /// The share of executions that ask for a page past the first.
    pub past_first: f64,
    /// The page number such a page typically has (2 or more).
    pub depth: f64,
    /// The deepest page readers reach.
    pub deepest: f64,
    /// The share of executions that ask for the deepest page, when the
    /// model states it (`depth: {max_share: 0.002}`), part of `past_first`.
    /// A skip to page 600 walks 600 times what page 2's does: a few such
    /// executions can weigh more than all the typical ones (audit48 B4).
    pub deepest_share: Option<f64>,
}

impl Paging {
    /// Index keys a `skip` walks past before its page, per execution on
    /// average: the pages before the one asked for, over every execution
    /// (the first page skips none). The executions that ask for the
    /// deepest page, where the model states their share, walk to it; the
    /// rest of the later pages walk to the typical one. Keyset paging
    /// skips none.
    pub fn skipped(&self, limit: u64) -> f64 {
        self.skipped_within(limit, f64::INFINITY)
    }

    /// As `skipped`, where the filter matches at most `matched` items: a
    /// skip walks no further than the last of them (a page past them walks
    /// them all and returns nothing).
    pub fn skipped_within(&self, limit: u64, matched: f64) -> f64 {
        match self.by {
            PagingBy::Keyset => 0.0,
            PagingBy::Skip => {
                let before =
                    |page: f64| ((page - 1.0).max(0.0) * limit as f64).min(matched.max(0.0));
                let deep = self.deepest_share.unwrap_or(0.0).min(self.past_first);
                (self.past_first - deep) * before(self.depth) + deep * before(self.deepest)
            }
        }
    }

    /// Index keys skipped to reach the deepest page (none under keyset).
    pub fn deepest_skipped(&self, limit: u64) -> f64 {
        match self.by {
            PagingBy::Keyset => 0.0,
            PagingBy::Skip => (self.deepest - 1.0).max(0.0) * limit as f64,
        }
    }
}

/// How a page past the first is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PagingBy {
    /// A range from the sort key of the last item seen
    /// (`created_at > last`): one range scan of `limit` keys at any depth.
    Keyset,
    /// `skip((page - 1) * limit)`: the server walks the skipped keys.
    Skip,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregate {
    pub relationship: RelationshipId,
    pub function: AggregateFn,
    /// Field of the child aggregated (`None` for count).
    pub field: Option<String>,
    /// The relative error the reader accepts (`count(views) within 1%`):
    /// a counter may then be written in batches.
    pub tolerance: Option<f64>,
    /// Counts the parents of a many-to-many's child (a user's teams) rather
    /// than a parent's children. advise prices such a count with the links
    /// as an entity of their own, where each side counts its links.
    pub from_child: bool,
    /// One value per time unit of the children's date field over the latest
    /// units (1-minute candles of the last day), instead of one over all.
    pub window: Option<Window>,
    /// Only the children that meet this test on a constant count
    /// (`count(tickets where status = open)`): a filtered aggregate. A kept
    /// figure then moves when a child enters or leaves the subset, not
    /// only when one arrives or goes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<super::Condition>,
}

/// Aggregates grouped by a time unit of the children's date `field`: one
/// value per `unit` for the latest `last` units.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Window {
    pub field: String,
    pub unit: String,
    pub last: u64,
}

/// The time units a window or a time bucket groups by, with how many fit a day.
pub const TIME_UNITS: [(&str, f64); 4] = [
    ("month", 1.0 / 30.0),
    ("day", 1.0),
    ("hour", 24.0),
    ("minute", 1440.0),
];

/// How many of `unit` fit a day; `None` for a unit squill does not group by.
pub fn units_a_day(unit: &str) -> Option<f64> {
    TIME_UNITS.iter().find(|(u, _)| *u == unit).map(|(_, n)| *n)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AggregateFn {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    /// The value of the first child to arrive (a candle's open).
    First,
    /// The value of the latest child to arrive (a candle's close, the last price).
    Last,
}

impl AggregateFn {
    /// The name the model file and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            AggregateFn::Count => "count",
            AggregateFn::Sum => "sum",
            AggregateFn::Min => "min",
            AggregateFn::Max => "max",
            AggregateFn::Avg => "avg",
            AggregateFn::First => "first",
            AggregateFn::Last => "last",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AtomicGroup {
    pub name: String,
    pub operations: Vec<OperationId>,
    /// `same: show`: every write of the group addresses one instance of
    /// this entity (a seat sold and its show's count taken down: one
    /// show). Where the layout keeps all of them in that instance's
    /// document, the writes are one single-document write and need no
    /// transaction. `None`: the model does not say (a transfer's two
    /// accounts are two documents).
    pub same: Option<super::EntityId>,
}

impl AtomicGroup {
    /// Whether `op` names one instance of `entity`: an update or delete of
    /// it by `_id`, an update or delete of its child by the child's field
    /// that holds its id, or an insert of its child linked to it (by one
    /// relationship only).
    pub fn addresses(model: &super::Model, op: &Operation, entity: super::EntityId) -> bool {
        // `show: eq` on a seat: resolved to the relationship and the
        // parent's `_id`.
        let parent_of = |e: super::EntityId, f: &Filter| {
            f.op == FilterOp::Eq
                && f.related.as_ref().is_some_and(|r| {
                    let rel = model.relationship(r.relationship);
                    rel.child == e
                        && rel.parent == entity
                        && r.field == "_id"
                        && r.further.is_empty()
                })
        };
        match &op.kind {
            OperationKind::Update {
                entity: e, filter, ..
            }
            | OperationKind::Delete { entity: e, filter } => filter.iter().any(|f| {
                (*e == entity && f.op == FilterOp::Eq && f.path == ["_id"]) || parent_of(*e, f)
            }),
            // Exactly one link to it: a comment linked to its sender and to
            // its receiver, both users, does not say which one it names.
            OperationKind::Insert { links, .. } => {
                links
                    .iter()
                    .filter(|r| model.relationship(**r).parent == entity)
                    .count()
                    == 1
            }
            _ => false,
        }
    }
}

impl super::Model {
    /// Instances of `entity` inserted a day by the workload, in its busiest
    /// mix: what tells how many instances are younger than an age.
    pub fn inserts_per_day(&self, entity: EntityId) -> f64 {
        (0..self.workload.mixes.len().max(1))
            .map(|m| self.inserts_per_second(entity, m))
            .fold(0.0, f64::max)
            * 86_400.0
    }

    /// Instances of `entity` the workload inserts per second in mix `mix`.
    pub fn inserts_per_second(&self, entity: EntityId, mix: usize) -> f64 {
        self.workload
            .operations
            .iter()
            .map(|op| match op.kind {
                OperationKind::Insert {
                    entity: e, count, ..
                } if e == entity => op.rate(mix) * count as f64,
                _ => 0.0,
            })
            .sum()
    }

    /// `inserts_per_day` of every entity, by index, in one pass over the
    /// operations: asking entity by entity walks every operation for each
    /// (10,000 entities by 20,000 operations on an enterprise model).
    pub fn inserts_per_day_all(&self) -> Vec<f64> {
        let mixes = self.workload.mixes.len().max(1);
        let mut per_mix = vec![vec![0.0_f64; self.entities.len()]; mixes];
        for op in &self.workload.operations {
            if let OperationKind::Insert { entity, count, .. } = op.kind {
                for (mix, row) in per_mix.iter_mut().enumerate() {
                    row[entity.index()] += op.rate(mix) * count as f64;
                }
            }
        }
        (0..self.entities.len())
            .map(|e| per_mix.iter().map(|row| row[e]).fold(0.0, f64::max) * 86_400.0)
            .collect()
    }

    /// The operations that update `field` of `entity` (a date a hold or a
    /// heartbeat sets), by name.
    pub fn updates_setting(&self, entity: EntityId, field: &str) -> Vec<String> {
        self.workload
            .operations
            .iter()
            .filter(|op| {
                matches!(&op.kind, OperationKind::Update { entity: e, changes, .. }
                    if *e == entity && changes.iter().any(|c| c == field))
            })
            .map(|op| op.name.clone())
            .collect()
    }

    /// Dates of `entity`'s `field` written a day, in the busiest mix: by
    /// the inserts when every instance has the field, and by each run of
    /// an update that changes it (one document a run: a `multi` update sets
    /// at least that many, so the young share is a floor).
    pub(crate) fn dates_written_per_day(
        &self,
        entity: EntityId,
        field: &str,
        inserts_per_day: f64,
    ) -> f64 {
        let required = self.entity(entity).field(field).is_none_or(|f| f.required);
        let updated = (0..self.workload.mixes.len().max(1))
            .map(|mix| {
                self.workload
                    .operations
                    .iter()
                    .filter(|op| {
                        matches!(&op.kind, OperationKind::Update { entity: e, changes, .. }
                            if *e == entity && changes.iter().any(|c| c == field))
                    })
                    .map(|op| op.rate(mix))
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
            * 86_400.0;
        if required {
            inserts_per_day + updated
        } else if updated > 0.0 {
            updated
        } else {
            inserts_per_day
        }
    }

    /// Sets the share each age filter keeps (`since(90 days)`) from its
    /// entity's count and the rate its date is written: the inserts, and
    /// the updates that change it (`age_shares` in the model file refuses
    /// what this cannot tell).
    pub fn fill_age_shares(&mut self) {
        let per_day = self.inserts_per_day_all();
        let counts: Vec<u64> = self.entities.iter().map(|e| e.count).collect();
        let written: Vec<Vec<(String, f64)>> = self
            .entities
            .iter()
            .enumerate()
            .map(|(i, ent)| {
                let e = EntityId::from_index(i);
                ent.fields
                    .iter()
                    .filter(|f| f.ty == super::FieldType::Date)
                    .map(|f| {
                        (
                            f.name.clone(),
                            self.dates_written_per_day(e, &f.name, per_day[i]),
                        )
                    })
                    .collect()
            })
            .collect();
        let share = |e: EntityId, filters: &mut [Filter]| {
            for f in filters.iter_mut() {
                if let Some(age) = f.age {
                    let field = f.path.join(".");
                    let rate = written[e.index()]
                        .iter()
                        .find(|(n, _)| *n == field)
                        .map_or(per_day[e.index()], |(_, r)| *r);
                    f.selectivity = Some(age.share(counts[e.index()], rate).max(1e-9));
                }
            }
        };
        fn includes(
            rels: &[super::Relationship],
            list: &mut [Include],
            share: &dyn Fn(EntityId, &mut [Filter]),
        ) {
            for inc in list {
                let rel = &rels[inc.relationship.index()];
                let target = if inc.to_children {
                    rel.child
                } else {
                    rel.parent
                };
                share(target, &mut inc.filter);
                includes(rels, &mut inc.include, share);
            }
        }
        let rels = self.relationships.clone();
        for op in &mut self.workload.operations {
            match &mut op.kind {
                OperationKind::Read {
                    entity,
                    filter,
                    include,
                    ..
                } => {
                    share(*entity, filter);
                    includes(&rels, include, &share);
                }
                OperationKind::Update { entity, filter, .. }
                | OperationKind::Delete { entity, filter } => share(*entity, filter),
                _ => {}
            }
        }
    }
}

/// What picks the one instance a filter selects, when something does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// `_id: eq`, at this condition.
    Id(usize),
    /// Every key of a `unique:` combination tested for equality: the
    /// combination (its index in the entity's `unique`) and the conditions
    /// that test its keys, in the combination's order.
    Unique {
        combination: usize,
        parts: Vec<usize>,
    },
}

/// The condition of `filter` that selects one instance of `e` by itself,
/// or the unique combination whose keys it tests for equality.
pub fn identity(model: &super::Model, e: EntityId, filter: &[Filter]) -> Option<Identity> {
    if let Some(i) = filter
        .iter()
        .position(|c| c.op == FilterOp::Eq && c.related.is_none() && c.path == ["_id"])
    {
        return Some(Identity::Id(i));
    }
    let entity = model.entity(e);
    entity
        .unique
        .iter()
        .enumerate()
        .find_map(|(combination, keys)| {
            let parts = keys
                .iter()
                .map(|k| {
                    filter.iter().position(|c| match k {
                        super::KeyPart::Field(name) => {
                            c.op == FilterOp::Eq
                                && c.related.is_none()
                                && c.path.len() == 1
                                && c.path[0] == *name
                        }
                        super::KeyPart::Parent(r) => names_parent(c, *r, e, model),
                    })
                })
                .collect::<Option<Vec<usize>>>()?;
            Some(Identity::Unique { combination, parts })
        })
}

/// Whether condition `c` on `e` is an equality on the parent of `r`
/// (`store: eq` for the products of a store).
pub(super) fn names_parent(
    c: &Filter,
    r: RelationshipId,
    e: EntityId,
    model: &super::Model,
) -> bool {
    c.op == FilterOp::Eq
        && c.related.as_ref().is_some_and(|x| {
            x.relationship == r
                && x.field == "_id"
                && x.further.is_empty()
                && model.relationship(r).child == e
        })
}
