//! How one operation runs under a placement: its steps (collection, action,
//! filter, sort, projection, updates, index) and what each costs. This file
//! holds the planner's shared parts; each kind of operation is planned in a
//! file of its own (`find`, `include`, `aggregate`, `insert`, `update`,
//! `delete`).

use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::placement::{Home, Placement};
use crate::candidates::space::Space;
use crate::design::{Action, Cost, Purpose, Step, StepFilter, UpdateOp, ValueSource, Warning};
use crate::design::{BucketBy, Layout, PartialCondition, Side};
use crate::model::{
    AggregateFn, EntityId, Filter, FilterOp, Include, KeyPart, OperationId, OperationKind, Related,
    RelationshipId, RelationshipKind, SortKey,
};

/// An index a step relies on.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexNeed {
    pub collection: String,
    pub keys: Vec<(String, i32)>,
    /// Entries the index holds (one per document, one per element for arrays).
    pub entries: f64,
    /// Entries the index keeps in memory: all of them, but none in the
    /// archive of an entity split by age, read rarely enough to stay on disk.
    pub held: f64,
    /// Writes per second of the indexed documents.
    pub writes: f64,
    /// Keys one write of an indexed document writes: one per key of the
    /// index, times the elements of an array key (a multikey index has an
    /// entry per element, each written).
    pub keys_per_write: f64,
    pub operation: OperationId,
    /// The step (0-based) that uses it.
    pub step: usize,
    /// A unique index the entity's `unique:` asks for (kept even when a
    /// longer index starts with its keys).
    pub unique: bool,
    /// Conditions of a partial index: a unique one over the documents
    /// that have its keys, a claim's, a re-read of the buckets that hold
    /// children.
    pub partial: Vec<crate::design::PartialCondition>,
    /// How many of the first keys the step tests by equality (a claim's
    /// `{org, status}` before its sort keys): their direction serves the
    /// query either way, so an index that differs only there serves it too.
    pub equalities: usize,
    /// A unique index the data's `unique:` asks for, carried by an
    /// operation that neither inserts the entity nor uses the index (no
    /// operation inserts it: its documents come from elsewhere): the
    /// report says the data keeps it, not that this operation uses it.
    pub by_data: bool,
}

/// A document an operation writes: the root entity and whether it is one
/// document (`false` for updateMany).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub root: EntityId,
    pub many: bool,
}

#[derive(Debug, Clone, Default)]
pub struct OpPlan {
    pub steps: Vec<Step>,
    pub cost: Cost,
    pub indexes: Vec<IndexNeed>,
    pub targets: Vec<Target>,
    pub warnings: Vec<Warning>,
    pub transaction: bool,
    /// For an insert of an entity that expires by TTL: the TTL index's
    /// upkeep, counted as the indexes the steps need are (`expiry`).
    pub expiry: Option<expiry::TtlUpkeep>,
}

impl OpPlan {
    /// Gives each step the name of the index it uses (`sensor_1_hour_1`).
    pub fn name_indexes(&mut self) {
        for need in self.indexes.iter().filter(|n| !n.unique) {
            if let Some(step) = self.steps.get_mut(need.step) {
                // A partial index is named apart from one of the same keys
                // over every document (`advise::build`), which would not
                // serve the step.
                let mut name = index_name(&need.keys);
                if !need.partial.is_empty() {
                    name.push_str("_partial");
                }
                step.index = Some(name);
            }
        }
    }
}

/// Keys of an index a step uses, the entity whose documents it indexes, its entries.
type IndexUse = (Vec<(String, i32)>, EntityId, f64);

/// A write besides the entity's own: entity, action, filter, updates, documents, sync writes, why.
type ExtraWrite = (
    EntityId,
    Action,
    Vec<StepFilter>,
    Vec<UpdateOp>,
    f64,
    f64,
    Purpose,
    Option<String>,
);

/// What one step costs (per execution of the operation).
#[derive(Debug, Clone, Copy, Default)]
struct StepCost {
    keys: f64,
    docs: f64,
    bytes_read: f64,
    docs_written: f64,
    bytes_written: f64,
    sync: f64,
    /// Round trips past the step's one: a batch of children upserted
    /// into buckets in chunks, one upsert each (`bucket::add_to_bucket`).
    more_trips: f64,
}

/// A write of root documents that hold `entity`: what `write_root` and
/// `root_write` are asked to do, as one value rather than seven arguments.
struct RootWrite<P> {
    entity: EntityId,
    action: Action,
    filter: Vec<StepFilter>,
    updates: Vec<UpdateOp>,
    /// Documents written.
    docs: f64,
    /// Writes that wait for one another (every copy but the first).
    sync: f64,
    purpose: P,
}

/// Where an entity's instances are and how to reach them.
#[derive(Clone)]
struct Access {
    collection: String,
    prefix: String,
    root: EntityId,
    root_bytes: f64,
    /// Instances per root document.
    per_root: f64,
    /// Documents in the collection.
    docs: f64,
    /// The discriminator value when the collection is polymorphic.
    kind: Option<String>,
}

impl Access {
    fn path(&self, field: &str) -> String {
        if self.prefix.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.prefix)
        }
    }
}

/// What a read asks for: the filter, the order, how many at most, and the
/// fields it returns. One value, so that the steps that find instances take
/// the read whole rather than four arguments beside the plan's own.
#[derive(Clone, Copy)]
struct Read<'q> {
    filter: &'q [Filter],
    sort: &'q [SortKey],
    limit: Option<u64>,
    fields: &'q [String],
    /// How pages past the first are found (`None`: the first page only).
    paging: Option<crate::model::Paging>,
    /// Only how many match (`returns: count`), not the documents.
    count: bool,
    /// The most a run finds, below what the filter matches: a sweep that
    /// moves what it finds out of its own filter finds only what arrived
    /// since its last run (`steady`).
    most: Option<f64>,
}

impl<'q> Read<'q> {
    /// Every instance the filter matches, unsorted, with these fields.
    fn by(filter: &'q [Filter], fields: &'q [String]) -> Self {
        Read {
            filter,
            sort: &[],
            limit: None,
            fields,
            paging: None,
            count: false,
            most: None,
        }
    }
}

/// One include being planned: where it starts (`m` instances of `from`,
/// found at step `from_step`), what it asks, and how many it returns.
#[derive(Clone, Copy)]
struct Joined<'i> {
    from: EntityId,
    m: f64,
    from_step: usize,
    inc: &'i Include,
    target: EntityId,
    /// Related instances per starting one, after the include's filter.
    each: f64,
    /// `each`, cut to the include's limit.
    wanted: f64,
    returned: f64,
    /// The query runs in one execution out of this many: the pages past a
    /// subset, which only those executions ask for.
    every: Option<u64>,
}

pub(crate) struct Planner<'a> {
    pub facts: &'a Facts<'a>,
    pub space: &'a Space,
    pub p: &'a Placement<'a>,
}

mod aggregate;
mod bucket;
mod cascade;
mod conditional;
mod count;
mod delete;
mod elements;
pub(crate) mod expiry;
mod filter_keys;
mod find;
mod find_keys;
mod include;
mod insert;
mod link;
mod merged;
mod outlier_children;
mod outlier_find;
mod paging;
mod reread;
mod sharded;
mod sorted_ids;
mod steady;
mod subset;
mod tenant;
mod tenant_local;
mod tenant_parent;
mod timeline;
mod tree;
mod update;
mod upsert;

/// The parent's counters a bucketed child's write moves (`$inc` of its
/// count and sums, `$min`, `$max`) run only when that write (step
/// `written`, numbered from 1) matched: the parent's id is the caller's,
/// not one a find returned, so a retried delete, or one of a child that
/// is not there, would take the count down again. `changed`: an edit,
/// which a retry matches again and leaves as it is; its `$inc` (the
/// caller's difference) then runs only when the write changed the bucket,
/// or a retry would move the sum twice. A `$min` or `$max` is idempotent:
/// it stays gated on matched, so a retry after a failure between the two
/// writes repairs it. The re-reads need no gate (they set what the buckets
/// hold).
fn gate_counters(steps: &mut [Step], written: usize, changed: bool) {
    for s in steps {
        let moves = |u: &UpdateOp| matches!(u, UpdateOp::Inc { .. } | UpdateOp::Dec { .. });
        let counts = s
            .updates
            .iter()
            .any(|u| moves(u) || matches!(u, UpdateOp::Min { .. } | UpdateOp::Max { .. }));
        if counts && s.if_matched.is_none() {
            s.if_matched = Some(written);
            s.if_changed = changed && s.updates.iter().any(moves);
        }
    }
}

fn index_name(keys: &[(String, i32)]) -> String {
    keys.iter()
        .map(|(k, d)| format!("{k}_{}", crate::design::key_kind(*d)))
        .collect::<Vec<_>>()
        .join("_")
}

/// Drops a read's first step when it only returns the `_id` the caller
/// passed in (a post's comments, asked for by the post's id): the steps after
/// it take the parameter instead, and the plan no longer pays for the
/// round trip. `first` is what that step cost.
fn drop_given_id_step(plan: &mut OpPlan, first: &Cost) {
    let Some(s) = plan.steps.first() else {
        return;
    };
    let by_given_id = s.action == Action::Find
        && s.filter.len() == 1
        && s.filter[0].path == "_id"
        && s.filter[0].value_from == ValueSource::Param
        && s.projection == ["_id"];
    // The step returns nothing but the `_id` it was given (an include that
    // needs a field the document holds adds it to the projection), so what
    // later steps take from it is that `_id`: children found by their
    // reference to it, as `parent` or as an extended reference's `parent._id`.
    // Ids matched together with another step's (`FromSteps`) are no
    // parameter of their own: the step stays.
    let merged =
        plan.steps.iter().flat_map(|s| &s.filter).any(
            |f| matches!(&f.value_from, ValueSource::FromSteps { steps } if steps.contains(&1)),
        );
    if !by_given_id || merged || plan.steps.len() < 2 {
        return;
    }
    plan.steps.remove(0);
    for s in &mut plan.steps {
        // A join from the dropped step is now a query by the given id.
        if s.filter
            .iter()
            .any(|f| f.value_from == ValueSource::FromStep { step: 1 })
        {
            for p in &mut s.purpose {
                if let Purpose::Join { target, .. } = p {
                    *p = Purpose::Find {
                        entity: std::mem::take(target),
                    };
                }
            }
        }
    }
    for f in plan.steps.iter_mut().flat_map(|s| &mut s.filter) {
        f.value_from = match &f.value_from {
            ValueSource::FromStep { step: 1 } => {
                // One document by its id gave one value.
                if f.op == FilterOp::In {
                    f.op = FilterOp::Eq;
                }
                ValueSource::Param
            }
            ValueSource::FromStep { step } => ValueSource::FromStep { step: step - 1 },
            ValueSource::FromSteps { steps } => ValueSource::FromSteps {
                steps: steps.iter().map(|s| s - 1).collect(),
            },
            other => other.clone(),
        };
    }
    // So does the step an outlier's read apart waits on (the holder whose
    // array is full): left as it was, it named the step itself, and the
    // cookbook lost the per-parent read and its merge (REVIEW47 item 7,
    // a read under a tenant, whose first step finds the tenant by its id).
    for full in plan
        .steps
        .iter_mut()
        .filter_map(|s| s.if_full.as_deref_mut())
    {
        if full.step > 1 {
            full.step -= 1;
        }
    }
    for need in &mut plan.indexes {
        need.step = need.step.saturating_sub(1);
    }
    plan.cost.add_scaled(first, -1.0);
}

/// How many values an `in` list holds when the model does not say: five,
/// but never more than half the values the field takes (a list of every
/// value would be no filter, and `status: in` over three states keeps about
/// half of them, not all), and at least one.
fn in_list(distinct: f64) -> f64 {
    5.0_f64.min(distinct / 2.0).max(1.0)
}

/// The keys of the index a step needs, in one spelling for every index that
/// serves it: a key's direction matters only relative to the other sort keys
/// (an index is walked either way, and equality or range tests ignore the
/// order), so keys that are not sorted on, and a single sort key, take 1;
/// with several sort keys the first takes 1 and the others keep their
/// direction relative to it. `{sensor: 1, hour: -1}` for "sensor = ?, newest
/// hour first" and `{sensor: 1, hour: 1}` for "sensor = ? and hour = ?" are
/// then one index, as they are for MongoDB.
fn canonical_keys(keys: Vec<(String, i32)>, sort: &[(String, i32)]) -> Vec<(String, i32)> {
    let sorted: Vec<usize> = (0..keys.len())
        .filter(|&i| sort.iter().any(|(f, _)| *f == keys[i].0))
        .collect();
    let sign = sorted.first().map_or(1, |&i| keys[i].1.signum());
    keys.into_iter()
        .enumerate()
        .map(|(i, (k, d))| {
            let d = if d == crate::design::SPHERE_2D {
                d
            } else if sorted.len() > 1 && sorted.contains(&i) {
                d * sign
            } else {
                1
            };
            (k, d)
        })
        .collect()
}

/// What a query asks of an index, path by path: its equality and
/// membership tests (in the filter's order), the `attributes` fields among
/// them (indexed by name and value), its GeoJSON test, its sort, its
/// ranges.
pub(crate) struct QueryShape<'q> {
    pub eq: Vec<&'q str>,
    pub pairs: &'q [String],
    pub geo: Option<&'q str>,
    pub sort: Vec<(String, i32)>,
    pub range: Vec<&'q str>,
}

/// The keys of the index a query needs, in the order that serves it:
/// equality keys first, then the `2dsphere` key (the equalities narrow the
/// cells the geo search walks), then the sort keys, then the ranges not
/// already keyed. After a `2dsphere` key no sort key: the place's key
/// gives no order on the fields after it (a search of an area sorted by
/// another field sorts in memory), so keying the sort would claim an order
/// the index does not give (audit43 P). The one place the planner decides an index's keys from a
/// filter; `serves` asks the same question of an index that exists.
pub(crate) fn query_keys(q: &QueryShape<'_>) -> Vec<(String, i32)> {
    let mut keys: Vec<(String, i32)> = Vec::new();
    for &p in &q.eq {
        if q.pairs.iter().any(|x| x == p) {
            keys.push((format!("{p}.k"), 1));
            keys.push((format!("{p}.v"), 1));
        } else {
            keys.push((p.to_string(), 1));
        }
    }
    if let Some(p) = q.geo {
        keys.push((p.to_string(), crate::design::SPHERE_2D));
    }
    if q.geo.is_none() {
        keys.extend(q.sort.iter().cloned());
    }
    for &p in &q.range {
        if !keys.iter().any(|(k, _)| k == p) {
            keys.push((p.to_string(), 1));
        }
    }
    keys
}

/// Whether an index of `keys` serves a query: it starts with the keys the
/// planner would ask for the query (equalities, then sort and ranges, in
/// the canonical spelling), walked either way.
pub(crate) fn serves(keys: &[(String, i32)], q: &QueryShape<'_>) -> bool {
    let wanted = canonical_keys(query_keys(q), &q.sort);
    !wanted.is_empty() && covers(keys, &wanted)
}

/// Whether index `long` serves every query index `short` would: `short`
/// is its prefix, in the same directions or all reversed.
pub fn covers(long: &[(String, i32)], short: &[(String, i32)]) -> bool {
    long.len() >= short.len()
        && (long.starts_with(short)
            || short
                .iter()
                .zip(long)
                .all(|((a, d), (b, e))| a == b && *d == -*e))
}

/// Whether index `long` serves every query index `short` would, where
/// `short`'s first `equalities` keys are tested by equality: those match
/// by name only (an equality reads one value whichever way its key runs),
/// and the keys after them as `covers` asks, the same directions or all
/// reversed. A claim's `{org: 1, status: 1, priority: -1, created_at: 1}`
/// is served by `{org: 1, status: 1, priority: 1, created_at: -1, _id: -1}`
/// walked backwards.
pub(crate) fn covers_after_equalities(
    long: &[(String, i32)],
    short: &[(String, i32)],
    equalities: usize,
) -> bool {
    let eq = equalities.min(short.len());
    long.len() >= short.len()
        && short[..eq].iter().zip(long).all(|((a, _), (b, _))| a == b)
        && covers(&long[eq..], &short[eq..])
}

/// The share of `count` instances of `entity` a geo condition keeps: those
/// inside the area searched at the entity's typical density (`near`,
/// `within`), or the one shape that contains a point (`intersects`: the
/// delivery zone of an address, zones that do not overlap).
/// With `densest`, at the densest place's density (`density.max`)
/// instead: the worst case of a search the typical density prices.
fn geo_share(entity: &crate::model::Entity, c: &Filter, count: f64, densest: bool) -> f64 {
    let count = count.max(1.0);
    match (c.op, c.geo, entity.density) {
        (FilterOp::Intersects, ..) => 1.0 / count,
        (_, Some(area), Some(d)) => {
            let (typical, max) = d.inside(area.km2);
            ((if densest { max } else { typical }) / count).min(1.0)
        }
        // A polygon field found within an area: the model gives no
        // density for shapes; a quarter, as for a range.
        _ => 0.25,
    }
}

fn filt(path: impl Into<String>, op: FilterOp, from: ValueSource) -> StepFilter {
    StepFilter {
        path: path.into(),
        op,
        value_from: from,
        radius_m: None,
    }
}

/// Whether the parent's field for a relationship holds one id rather than
/// an array: a one-to-one kept by reference keeps its child's id as a plain
/// field (embedded children, subsets and buckets are arrays whatever the kind).
fn single_id(rel: &crate::model::Relationship, layout: &Layout) -> bool {
    rel.kind == RelationshipKind::OneToOne
        && matches!(layout, Layout::ChildReferences | Layout::TwoWayReferences)
}

/// Whether `op` is in an atomic group (its writes then run in a transaction).
fn in_atomic_group(model: &crate::model::Model, op: OperationId) -> bool {
    model
        .workload
        .atomic_groups
        .iter()
        .any(|g| g.operations.contains(&op))
}

/// The update that adds a child (its id) to its parent's field: `$set` for
/// one id, `$push` into an array otherwise.
fn add_id(rel: &crate::model::Relationship, layout: &Layout, path: String) -> UpdateOp {
    if single_id(rel, layout) {
        UpdateOp::Set { path }
    } else {
        UpdateOp::Push {
            path,
            sort: None,
            slice: None,
        }
    }
}

/// The update that removes a child (its id) from its parent's field:
/// `$unset` for one id, `$pull` from an array otherwise.
fn remove_id(rel: &crate::model::Relationship, layout: &Layout, path: String) -> UpdateOp {
    if single_id(rel, layout) {
        UpdateOp::Unset { path }
    } else {
        UpdateOp::Pull { path }
    }
}

impl<'a> Planner<'a> {
    /// Whether a child of `r` holds its parent's id (and under which path):
    /// `user.team` for a bare id or an array of ids, `user.teams._id` when
    /// each id sits in an object with copies or the link's attributes, or
    /// in the parent folded whole into the child (`product.store._id`, as
    /// `advise::document` writes it).
    fn parent_ref_path(&self, r: RelationshipId) -> Option<String> {
        let rel = self.facts.model.relationship(r);
        let field = &rel.child_field;
        let layout = self.layout(r);
        if !layout.child_keeps_parent_id() {
            return None;
        }
        Some(match layout {
            // The child's own id is its parent's.
            Layout::SharedId => "_id".to_string(),
            Layout::EmbedParentInChild => format!("{field}._id"),
            l => match l.many_sides() {
                Some((_, Some(copies)))
                    if !copies.is_empty()
                        || self.facts.attributes_on(r, Side::Child, l).next().is_some() =>
                {
                    format!("{field}._id")
                }
                _ => field.clone(),
            },
        })
    }

    /// Whether the parent of `r` holds its children's ids (and under which
    /// path), as `parent_ref_path` for the other side.
    fn child_ids_path(&self, r: RelationshipId) -> Option<String> {
        let rel = self.facts.model.relationship(r);
        let field = &rel.parent_field;
        let layout = self.layout(r);
        match layout {
            Layout::ChildReferences | Layout::TwoWayReferences => Some(field.clone()),
            l => match l.many_sides() {
                Some((Some(copies), _)) => Some(
                    if copies.is_empty()
                        && self
                            .facts
                            .attributes_on(r, Side::Parent, l)
                            .next()
                            .is_none()
                    {
                        field.clone()
                    } else {
                        format!("{field}._id")
                    },
                ),
                _ => None,
            },
        }
    }

    fn c(&self) -> &crate::settings::CostCoefficients {
        &self.facts.settings.design.costs
    }

    /// Why an `updateMany` runs: the copy of the part's name refreshed in
    /// 300 products.
    fn refresh_purpose(
        &self,
        name: &str,
        copied: &[impl AsRef<str>],
        holders: f64,
        holder: EntityId,
        at_most: crate::model::Count,
    ) -> Purpose {
        Purpose::RefreshCopy {
            source: name.to_string(),
            fields: copied.iter().map(|c| c.as_ref().to_string()).collect(),
            holders,
            holder: self.name(holder).to_string(),
            at_most: at_most.finite(),
        }
    }

    fn name(&self, e: EntityId) -> &str {
        &self.facts.model.entity(e).name
    }

    fn access(&self, e: EntityId) -> Access {
        let p = self.p;
        let root = p.root(e);
        let kind = p.poly[root.index()].map(|_| self.name(root).to_string());
        Access {
            collection: p.collection(self.facts, self.space, e),
            prefix: p.path(self.facts, e),
            root,
            root_bytes: p.root_bytes(self.facts, e),
            per_root: p.per_root(self.facts, e),
            docs: p.documents(self.facts, e, self.root_fill(root)),
            kind,
        }
    }

    /// Marks the read's find of `e` (the plan's last find on its
    /// collection) as returning the matching elements of the array `e` is
    /// embedded in, when it is (`elements_array`), in the read's order and
    /// up to its limit: a parent's elements read by the parent's id came
    /// in its document, unsorted and whole (the top 2 bids of an item).
    fn read_elements(&self, plan: &mut OpPlan, e: EntityId, sort: &[SortKey], limit: Option<u64>) {
        let Some((array, within)) = self.elements_array(e) else {
            return;
        };
        let acc = self.access(e);
        if let Some(s) = plan
            .steps
            .iter_mut()
            .rev()
            .find(|s| s.action == Action::Find && s.collection == acc.collection)
        {
            if s.sort.is_empty() && !sort.is_empty() {
                s.sort = sort
                    .iter()
                    .map(|k| (acc.path(&k.field), if k.descending { -1 } else { 1 }))
                    .collect();
                s.limit = s.limit.or(limit);
            }
            s.elements = Some(array);
            s.elements_within = within;
        }
    }

    /// The array `e` is embedded in (`product_stock`), and the arrays
    /// around it, outermost first (`products` around `products.sales`: a
    /// shop's products, each with its sales), each unwound before it;
    /// `None` for an entity of its own, one embedded alone, or one in
    /// buckets. Sales in products in shops were read as their shops
    /// (embed46): the element's array was not directly in the document.
    fn elements_array(&self, e: EntityId) -> Option<(String, Vec<String>)> {
        let Home::Embedded {
            host, array: true, ..
        } = self.p.home[e.index()]
        else {
            return None;
        };
        let mut outer = Vec::new();
        let mut at = host;
        loop {
            match self.p.home[at.index()] {
                Home::Own => break,
                Home::Embedded { host, array, .. } => {
                    if array {
                        outer.push(self.access(at).prefix);
                    }
                    at = host;
                }
                Home::Bucketed { .. } => return None,
            }
        }
        if self.p.root(e) != at {
            return None;
        }
        outer.reverse();
        Some((self.access(e).prefix, outer))
    }

    /// The children `e` is folded into, each holding a copy of it (a page
    /// copied into its 20,000 views); `None` when it is not folded.
    fn folded_into(&self, e: EntityId) -> Option<f64> {
        match self.p.home[e.index()] {
            Home::Embedded {
                rel, array: false, ..
            } if self.facts.model.relationship(rel).parent == e => Some(self.facts.typical(rel)),
            _ => None,
        }
    }

    /// The root documents that hold one instance of `e`: one, or each child
    /// it is folded into.
    fn copies(&self, e: EntityId) -> f64 {
        self.folded_into(e).map_or(1.0, |n| n.max(1.0))
    }

    fn layout(&self, r: RelationshipId) -> &'a Layout {
        self.p.layouts[r.index()]
    }

    /// The outlier relationship `e` is the child of, its threshold, and the
    /// share of its instances that live in documents of their own (past the
    /// threshold) as "once every N": most live in their parent's array.
    fn outlier_of(&self, e: EntityId) -> Option<(RelationshipId, u64, u64)> {
        self.facts.rels_to[e.index()]
            .iter()
            .find_map(|&r| match self.layout(r) {
                Layout::Outlier { threshold } => {
                    let rel = self.facts.model.relationship(r);
                    let share = rel.children.items_share_above(*threshold).unwrap_or(1.0);
                    Some((r, *threshold, insert::every_one_in(share)))
                }
                _ => None,
            })
    }

    /// An outlier's rest, read for `m` parents: the children past the
    /// threshold of a parent that has more, and how rarely such a parent
    /// comes ("once every N"). `None` when no parent passes it.
    fn outlier_rest(&self, r: RelationshipId, threshold: u64, m: f64) -> Option<(f64, u64)> {
        let children = &self.facts.model.relationship(r).children;
        let outliers = children.share_above(threshold).unwrap_or(0.0);
        if outliers <= 0.0 {
            return None;
        }
        let beyond =
            children.items_share_above(threshold).unwrap_or(0.0) * self.facts.typical(r) / outliers;
        Some(((m * beyond).max(1.0), insert::every_one_in(outliers)))
    }

    /// Pushes the query for an outlier's rest (`step`, filtered by the
    /// parent reference `path`): `n` children of `child`, read whole or,
    /// for a count, from the index alone, in `trips` queries (one for each
    /// full parent when the limit is each parent's).
    #[allow(clippy::too_many_arguments)]
    fn push_outlier_rest(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        mut step: Step,
        path: String,
        ((n, every), trips): ((f64, u64), f64),
        child: EntityId,
        covered: bool,
    ) {
        let acc = self.access(child);
        step.documents = n;
        step.every = Some(every);
        // The index leads with the parent, then the step's sort (an
        // include of the newest children): the walk stops at the limit.
        let keys: Vec<(String, i32)> = std::iter::once((path, 1))
            .chain(step.sort.iter().cloned())
            .collect();
        let cost = StepCost {
            keys: n,
            docs: if covered { 0.0 } else { n },
            bytes_read: if covered { 0.0 } else { n * acc.root_bytes },
            more_trips: trips - 1.0,
            ..StepCost::default()
        };
        self.push(plan, op, step, cost, Some((keys, child, acc.docs)));
    }

    /// Marks a write to a child's own document as the fallback of the write
    /// to its outlier parent's array before it (`every` from `outlier_of`).
    fn as_fallback(step: &mut Step, every: Option<u64>) {
        if let Some(every) = every {
            step.every = Some(every);
            step.fallback = true;
        }
    }

    /// Under an outlier layout, a write of one child by its id goes to the
    /// parent's array, found by the element's id (multikey index); the
    /// write to the child's own document that follows runs only when that
    /// matched nothing. Returns the "once every N" for that fallback.
    fn outlier_first(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        id: ValueSource,
        updates: impl FnOnce(&str) -> Vec<UpdateOp>,
        purpose: Purpose,
    ) -> Option<u64> {
        let (r, _, every) = self.outlier_of(e)?;
        let rel = self.facts.model.relationship(r);
        let holder = self.access(rel.parent).path(&rel.parent_field);
        self.write_root(
            plan,
            op,
            RootWrite {
                entity: rel.parent,
                action: Action::UpdateOne,
                filter: vec![filt(format!("{holder}._id"), FilterOp::Eq, id)],
                updates: updates(&holder),
                docs: 1.0,
                sync: 0.0,
                purpose,
            },
        );
        Some(every)
    }

    /// The member of a merged group whose plan holds its one update: the
    /// first with the highest rate in the mix. Every member's write is part
    /// of each update, so the updates run at least as often as the member
    /// run most; pricing them at the first member's rate lost them in a mix
    /// where it does not run (review41 D5). The transaction path's `share`
    /// assumes equal rates; with them this is the first member, as before.
    fn carrier(&self, group: &crate::model::AtomicGroup) -> usize {
        let rate = |i: usize| {
            self.facts
                .model
                .operation(group.operations[i])
                .rate(self.facts.mix)
        };
        (1..group.operations.len()).fold(0, |best, i| if rate(i) > rate(best) { i } else { best })
    }

    /// Plans an operation, with the transaction its atomic group needs.
    pub(crate) fn plan(&self, op: OperationId) -> OpPlan {
        let mut plan = self.plan_alone(op);
        let model = self.facts.model;
        let mut warned = false;
        for group in &model.workload.atomic_groups {
            if !group.operations.contains(&op) {
                continue;
            }
            // The group's writes, planned alone (this one's is `plan`).
            let alone: Vec<OpPlan> = group
                .operations
                .iter()
                .map(|o| {
                    if *o == op {
                        plan.clone()
                    } else {
                        self.plan_alone(*o)
                    }
                })
                .collect();
            if let Some(entity) = group.same {
                let operations = || -> Vec<String> {
                    group
                        .operations
                        .iter()
                        .map(|o| model.operation(*o).name.clone())
                        .collect()
                };
                match self.merged(group, entity, &alone) {
                    Ok(m) => {
                        let names = operations();
                        let at = self.carrier(group);
                        let into = names[at].clone();
                        let carrier = group.operations[at] == op;
                        plan = OpPlan {
                            steps: if carrier { vec![m.step] } else { Vec::new() },
                            cost: if carrier { m.cost } else { Cost::default() },
                            indexes: if carrier {
                                alone[0].indexes.clone()
                            } else {
                                Vec::new()
                            },
                            targets: alone[0].targets.clone(),
                            warnings: Vec::new(),
                            transaction: false,
                            expiry: None,
                        };
                        plan.warnings.push(Warning::MergedWrite {
                            group: group.name.clone(),
                            entity: model.entity(entity).name.clone(),
                            operations: names,
                            into,
                            carries: carrier,
                        });
                        warned = true;
                        continue;
                    }
                    Err(reason) => plan.warnings.push(Warning::NotMerged {
                        group: group.name.clone(),
                        entity: model.entity(entity).name.clone(),
                        reason,
                    }),
                }
            }
            let mut targets: Vec<Target> = Vec::new();
            let mut writes = 0;
            for p in &alone {
                writes += Self::writes(p);
                for x in &p.targets {
                    if !targets.contains(x) {
                        targets.push(*x);
                    }
                }
            }
            // A target is a kind of document, not a document: two
            // `updateOne account {_id}` (a transfer) are one kind and two
            // documents. Each write step is a call of its own, so the group
            // is atomic without help only when it has one write in all,
            // of one document (issue 41).
            let single = writes <= 1 && targets.len() <= 1 && targets.iter().all(|t| !t.many);
            if !single && self.compensated(group) {
                plan.warnings.push(Warning::Compensated {
                    group: group.name.clone(),
                });
                self.taken_back(&mut plan, op, group);
            } else if !single {
                let share = 1.0 / group.operations.len().max(1) as f64;
                // The group's transaction holds a guarded link's
                // (`link_guarded`) instead of one of its own.
                if plan.transaction {
                    plan.cost.transactions -= 1.0;
                    sharded::unprice_cross_shard_guard(&mut plan);
                }
                plan.transaction = true;
                plan.cost.transactions += share;
                plan.warnings.push(Warning::Transaction {
                    group: group.name.clone(),
                    kinds: targets.len(),
                });
                self.price_cross_shard_commit(&mut plan, &group.name, &targets, share);
            }
            warned = true;
        }
        if !warned && !plan.transaction {
            let distinct: Vec<&Target> = plan.targets.iter().fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
            let writes = Self::writes(&plan);
            if writes > 1 && distinct.len() > 1 {
                plan.warnings.push(Warning::NotAtomic {
                    operation: model.operation(op).name.clone(),
                    writes,
                    written: distinct
                        .iter()
                        .map(|t| self.name(t.root).to_string())
                        .collect(),
                });
            }
        }
        self.price_expiry(&mut plan, op);
        self.price_sharded_steps(&mut plan);
        plan.cost.rescore(self.c());
        plan
    }

    /// The write calls a plan makes: its steps other than finds, less a
    /// step that runs only instead of another (one or the other, never both).
    fn writes(plan: &OpPlan) -> usize {
        plan.steps
            .iter()
            .filter(|s| s.action != Action::Find && !s.instead_of_another())
            .count()
    }

    fn plan_alone(&self, op_id: OperationId) -> OpPlan {
        let mut plan = self.plan_kind(op_id);
        // After every route, the early returns of reads included.
        self.tenant_leads_buckets(&mut plan, op_id);
        self.tenant_leads_embedded(&mut plan, op_id);
        self.tenant_leads_outlier(&mut plan, op_id);
        plan
    }

    /// `plan_alone` before the buckets' tenant test.
    fn plan_kind(&self, op_id: OperationId) -> OpPlan {
        let mut plan = OpPlan::default();
        let op = self.facts.model.operation(op_id);
        match &op.kind {
            OperationKind::Read {
                entity,
                filter,
                sort,
                limit,
                fields,
                include,
                aggregates,
                family,
            } => {
                // A count is one `countDocuments` on the filter, whatever
                // route would fetch the documents.
                if !op.counts && self.timeline_read(&mut plan, op_id) {
                    return plan;
                }
                // A child embedded in an array, read on its own: its
                // elements, not the documents that hold them.
                let alone = include.is_empty() && aggregates.is_empty() && op.paging.is_none();
                // A count of children kept in buckets reads the buckets as
                // the list of them does, and counts what it unwinds.
                let in_buckets = |inc: &Include| {
                    self.p.home[entity.index()]
                        == (Home::Bucketed {
                            rel: inc.relationship,
                        })
                };
                // Children in buckets that hold their tenant's id may be
                // read by their parent beside the tenant (`tenant_leads_buckets`
                // tests it on the buckets).
                let tenant_buckets = matches!(self.p.home[entity.index()], Home::Bucketed { rel }
                    if self.facts.model.bucket_tenant(rel).is_some());
                // An outlier's children under their tenant: the tenant is
                // tested on the parent's find and the rest's query
                // (`tenant_leads_outlier`).
                let tenant_outlier =
                    self.p.home[entity.index()] == Home::Own && self.outlier_of(*entity).is_some();
                let as_include = if tenant_buckets {
                    op.as_bucket_parent_include(self.facts.model)
                } else if tenant_outlier {
                    op.as_tenant_parent_include(self.facts.model)
                } else {
                    op.as_parent_include(self.facts.model)
                };
                // And a count of an outlier's children by their parent:
                // the array's and the rest's, added (`count_outlier`).
                let outlier = |inc: &Include| {
                    matches!(self.layout(inc.relationship), Layout::Outlier { .. })
                        && self.p.home[entity.index()] == Home::Own
                };
                if let Some((parent, inc)) =
                    as_include.filter(|(_, inc)| !op.counts || in_buckets(inc) || outlier(inc))
                {
                    // The children of the document that holds them, by its
                    // id, are that document's array, as the include of
                    // them reads it: one design for both phrasings.
                    let by_host = matches!(
                        self.p.home[entity.index()],
                        Home::Embedded { rel, .. } if rel == inc.relationship
                    );
                    let rel = inc.relationship;
                    self.read_down(&mut plan, op_id, parent, inc);
                    if alone && !by_host {
                        self.read_elements(&mut plan, *entity, sort, *limit);
                    }
                    // Children kept in buckets, read on their own by
                    // their own fields (paged or not): the matching
                    // children, not their buckets. By their parent alone
                    // they read as the include of them does, its buckets
                    // (one design for both phrasings).
                    if include.is_empty()
                        && aggregates.is_empty()
                        && (op.counts || filter.iter().any(|c| c.related.is_none()))
                    {
                        self.read_bucket_elements(
                            &mut plan,
                            *entity,
                            rel,
                            (sort, *limit, op.paging),
                        );
                    }
                    if op.counts && !self.count_outlier(&mut plan, *entity) {
                        self.count_elements(&mut plan, *entity, filter);
                    }
                    return plan;
                }
                if !family.is_empty() {
                    let kinds: Vec<EntityId> = std::iter::once(*entity)
                        .chain(family.iter().copied())
                        .collect();
                    let read = Read {
                        filter,
                        sort,
                        limit: *limit,
                        fields,
                        paging: op.paging,
                        count: false,
                        most: None,
                    };
                    self.find_family(&mut plan, op_id, &kinds, &read);
                    return plan;
                }
                let entity_name = self.name(*entity).to_string();
                let purpose = if op.counts {
                    Purpose::Count {
                        entity: entity_name,
                    }
                } else {
                    Purpose::Find {
                        entity: entity_name,
                    }
                };
                if aggregates.is_empty() && self.read_unwound(&mut plan, op_id, op, include) {
                    return plan;
                }
                let before = plan.cost;
                let read = Read {
                    filter,
                    sort,
                    limit: *limit,
                    fields,
                    paging: op.paging,
                    count: op.counts,
                    most: None,
                };
                let (m, step) = self.find(&mut plan, op_id, *entity, &read, purpose);
                let mut first = plan.cost;
                first.add_scaled(&before, -1.0);
                self.includes(&mut plan, op_id, *entity, m, step, include);
                for agg in aggregates.iter().filter(|a| a.window.is_none()) {
                    // Over a window the read fetches anyway: computed from it.
                    let windowed = include.iter().any(|i| i.fetches_aggregated(agg));
                    if !windowed {
                        self.aggregate(&mut plan, op_id, *entity, m, step, agg);
                    }
                }
                // Per time unit (candles): one step per relationship grouped.
                let mut grouped: Vec<Vec<&crate::model::Aggregate>> = Vec::new();
                for agg in aggregates.iter().filter(|a| a.window.is_some()) {
                    match grouped
                        .iter_mut()
                        .find(|g| g[0].relationship == agg.relationship)
                    {
                        Some(g) => g.push(agg),
                        None => grouped.push(vec![agg]),
                    }
                }
                for g in &grouped {
                    self.windowed(&mut plan, op_id, m, step, g);
                }
                // After the aggregates too: they take the parents' ids from
                // the read's step, as the includes do.
                drop_given_id_step(&mut plan, &first);
                if alone {
                    self.read_elements(&mut plan, *entity, sort, *limit);
                }
                // Children kept in buckets read by their own fields, not by
                // their parent (ticks of every symbol in a window): the
                // buckets `$match`ed, each child unwound and tested again,
                // as the read by the parent does (review47 item 5). Whole
                // buckets came back, and a count was the list of them.
                if let Home::Bucketed { rel } = self.p.home[entity.index()]
                    && (alone || op.counts)
                    && include.is_empty()
                    && aggregates.is_empty()
                {
                    self.read_bucket_elements(&mut plan, *entity, rel, (sort, *limit, op.paging));
                }
                if op.counts {
                    self.count_elements(&mut plan, *entity, filter);
                }
            }
            OperationKind::Insert {
                entity,
                links,
                count,
            } => self.insert(&mut plan, op_id, *entity, links, (*count).max(1) as f64),
            OperationKind::Update {
                entity,
                filter,
                changes,
                relinks,
                multi,
            } => {
                // Fields an increment adds to change too: their copies
                // follow, and `apply_terms` makes their `$set` an `$inc`.
                let mut changes = changes.clone();
                for inc in &op.terms.increments {
                    if !changes.contains(&inc.field) {
                        changes.push(inc.field.clone());
                    }
                }
                let change = update::Change {
                    entity: *entity,
                    filter,
                    changes: &changes,
                    relinks,
                    multi: *multi,
                };
                self.update(&mut plan, op_id, &change)
            }
            OperationKind::Delete { entity, filter } => {
                self.delete(&mut plan, op_id, *entity, filter);
            }
            OperationKind::Link {
                relationship,
                unlink,
            } => self.link_guarded(&mut plan, op_id, &|p: &mut OpPlan| {
                self.link(p, op_id, *relationship, *unlink)
            }),
            OperationKind::UpdateLink {
                relationship,
                changes,
            } => self.change_link(&mut plan, op_id, *relationship, changes),
        }
        self.unique_without_insert(&mut plan, op_id);
        self.apply_terms(&mut plan, op_id);
        self.upsert(&mut plan, op_id);
        self.price_place_walk(&mut plan, op_id);
        self.timeline_upkeep(&mut plan, op_id);
        self.scope_writes_to_tenant(&mut plan, op_id);
        plan
    }

    /// A read of one parent's children (`inc`), by the parent's id.
    fn read_down(&self, plan: &mut OpPlan, op: OperationId, parent: EntityId, inc: Include) {
        let model = self.facts.model;
        let by_id = [Filter::new(
            model,
            parent,
            vec!["_id".to_string()],
            FilterOp::Eq,
        )];
        let purpose = Purpose::Find {
            entity: self.name(parent).to_string(),
        };
        let before = plan.cost;
        let id = ["_id".to_string()];
        let read = Read::by(&by_id, &id);
        let (m, step) = self.find(plan, op, parent, &read, purpose);
        let mut first = plan.cost;
        first.add_scaled(&before, -1.0);
        self.includes(plan, op, parent, m, step, &[inc]);
        drop_given_id_step(plan, &first);
    }

    fn push(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        mut step: Step,
        cost: StepCost,
        index: Option<IndexUse>,
    ) -> usize {
        // A batched step runs in one execution out of `every`.
        let share = step.every.map_or(1.0, |n| 1.0 / n.max(1) as f64);
        plan.cost.round_trips += share * (1.0 + cost.more_trips);
        plan.cost.index_keys_examined += share * cost.keys;
        plan.cost.documents_examined += share * cost.docs;
        plan.cost.bytes_read += share * cost.bytes_read;
        plan.cost.documents_written += share * cost.docs_written;
        plan.cost.bytes_written += share * cost.bytes_written;
        plan.cost.sync_writes += share * cost.sync;
        if let Some((keys, entity, entries)) = index {
            if keys.len() == 1 && keys[0].0 == "_id" {
                step.index = Some("_id_".to_string());
            } else if !keys.is_empty() {
                let writes = self.writes_of(entity)
                    + keys
                        .iter()
                        .map(|(k, _)| {
                            let leaf = k.rsplit('.').next().unwrap_or(k);
                            self.facts.field_update_rate(entity, leaf)
                        })
                        .sum::<f64>();
                // An index is worth its upkeep only if scanning instead costs more.
                let acc = self.access(entity);
                let rate = self.facts.model.operation(op).rate(self.facts.mix);
                let c = self.c();
                let scan_extra = (acc.docs - cost.docs).max(0.0) * c.document_examined
                    + (acc.docs * acc.root_bytes - cost.bytes_read).max(0.0) * c.byte_read;
                let held = entries * self.facts.held_share(entity);
                let (writes, keys_per_write) = self.writes_and_keys(entity, &keys, writes);
                let upkeep = crate::costs::index_score(held, writes, keys_per_write, c);
                // (Writes that find their documents through another field always get one.)
                // A step run once in `every` scans as rarely as it would
                // have used the index: both sides scaled by its share (an
                // unscaled swap once priced an outlier's rare rest below
                // zero).
                // The rest of an outlier's full parent is read inside the
                // read of that parent: however rare, a scan of the whole
                // collection there is one read that takes as long as the
                // scan (review48 A7), so it keeps its index.
                if step.action == Action::Find
                    && step.if_full.is_none()
                    && rate * share * scan_extra < upkeep
                {
                    plan.cost.documents_examined += share * (acc.docs - cost.docs);
                    plan.cost.bytes_read += share * (acc.docs * acc.root_bytes - cost.bytes_read);
                    plan.cost.index_keys_examined -= share * cost.keys;
                    step.index = None;
                } else {
                    // Named by `OpPlan::name_indexes` for reports: the search
                    // compares keys, and formatting a name per step costs it 4%.
                    let sort = if step.paging.is_some() {
                        paging::sort_with_id(&keys, &step.sort)
                    } else {
                        step.sort.clone()
                    };
                    let keys = canonical_keys(keys, &sort);
                    plan.indexes.push(IndexNeed {
                        collection: step.collection.clone(),
                        keys,
                        entries,
                        held,
                        writes,
                        keys_per_write,
                        operation: op,
                        step: plan.steps.len(),
                        unique: false,
                        partial: Vec::new(),
                        equalities: 0,
                        by_data: false,
                    });
                }
            }
        }
        plan.steps.push(step);
        plan.steps.len()
    }

    fn target(plan: &mut OpPlan, root: EntityId, many: bool) {
        let t = Target { root, many };
        plan.targets.push(t);
    }

    fn step(collection: &str, action: Action, purpose: impl Into<Vec<Purpose>>) -> Step {
        Step {
            collection: collection.to_string(),
            action,
            filter: Vec::new(),
            sort: Vec::new(),
            limit: None,
            projection: Vec::new(),
            updates: Vec::new(),
            index: None,
            documents: 0.0,
            purpose: purpose.into(),
            copy_of: None,
            every: None,
            fallback: false,
            if_matched: None,
            if_changed: false,
            if_deleted_all: None,
            group_first: None,
            count: None,
            group_sums: Vec::new(),
            graph: None,
            conditions: Vec::new(),
            otherwise: None,
            paging: None,
            each: None,
            densest: None,
            largest: None,
            batch: false,
            before: false,
            figures: None,
            elements: None,
            elements_within: Vec::new(),
            bucket_order: None,
            if_full: None,
            slices: Vec::new(),
            backlog: None,
        }
    }

    /// Estimated instances of `e` a filter matches.
    /// The share of `e`'s instances a filter keeps (1 without one).
    fn selectivity(&self, e: EntityId, filter: &[Filter]) -> f64 {
        if filter.is_empty() {
            return 1.0;
        }
        (self.matched(e, filter, None) / self.facts.count(e).max(1.0)).min(1.0)
    }

    /// Adds the tests of `filter` on the step's own fields (an include's
    /// filter: the comments of the last 30 days); the values are parameters.
    /// The tests `filter` of `e`'s own fields, added to `step`: each with
    /// the caller's value, but the life of an expiring `e` (`Age::expiry`,
    /// added by `model::expiry`), which is now less that life
    /// (`find::own_value`), not a range the caller gives.
    fn own_filters(&self, step: &mut Step, e: EntityId, acc: &Access, filter: &[Filter]) {
        for c in filter {
            let path = acc.path(&c.path.join("."));
            if !step.filter.iter().any(|f| f.path == path) {
                let from = find::own_value(self.facts.model, e, c);
                step.filter.push(filter_keys::test_of(path, c, from));
            }
        }
    }

    fn matched(&self, e: EntityId, filter: &[Filter], limit: Option<u64>) -> f64 {
        self.matched_at(e, filter, limit, false)
    }

    /// Whether a write's filter names at most one instance of `e` by what
    /// the model states: none (the caller's id), an `_id: eq`, or every
    /// key of a unique combination tested for equality. Any other filter
    /// selects every instance it matches, and a delete (or an update of
    /// many) by it writes them all: the choice of `deleteMany` over
    /// `deleteOne` is the operation's meaning, which an estimate of how
    /// many match (below one under a tenant, review41 D4) must not change.
    fn pins_one(&self, e: EntityId, filter: &[Filter]) -> bool {
        filter.is_empty() || crate::model::identity(self.facts.model, e, filter).is_some()
    }

    /// What `matched` finds where the places are densest, when `filter`
    /// searches an area of points whose `density.max` is above its
    /// typical and that finds more there (a limit reached at both finds
    /// as many): the worst case a search priced at the typical density
    /// hides. `None` otherwise.
    fn matched_densest(&self, e: EntityId, filter: &[Filter], limit: Option<u64>) -> Option<f64> {
        let d = self.facts.model.entity(e).density?;
        let searches_points = crate::model::searches_places(self.facts.model, e, filter);
        if !searches_points || d.max <= d.typical {
            return None;
        }
        let typical = self.matched_at(e, filter, limit, false);
        let densest = self.matched_at(e, filter, limit, true);
        (densest > typical).then_some(densest)
    }

    /// What `matched` finds on average over the searches: with a
    /// `densest_share` `s` of the searches where the places are densest,
    /// `(1 − s)` times what it finds at the typical density plus `s` times
    /// what it finds there (the expected value over the two places the
    /// model describes; every cost the step derives from it is linear in
    /// the documents found). Without a share, the typical alone.
    pub(super) fn matched_expected(
        &self,
        e: EntityId,
        filter: &[Filter],
        limit: Option<u64>,
    ) -> f64 {
        let typical = self.matched(e, filter, limit);
        let share = self
            .facts
            .model
            .entity(e)
            .density
            .and_then(|d| d.densest_share)
            .unwrap_or(0.0);
        if share == 0.0 {
            return typical;
        }
        self.matched_densest(e, filter, limit)
            .map_or(typical, |d| (1.0 - share) * typical + share * d)
    }

    /// `matched`, with the geo conditions at the densest place's density
    /// when `densest`.
    fn matched_at(&self, e: EntityId, filter: &[Filter], limit: Option<u64>, densest: bool) -> f64 {
        let f = self.facts;
        let entity = f.model.entity(e);
        let mut est = f.count(e);
        // A condition another implies keeps no share of its own (the
        // tenant beside a customer of that tenant); a unique combination
        // tested whole finds one instance (`model::implied`).
        let identity = crate::model::identity(f.model, e, filter);
        if matches!(identity, Some(crate::model::Identity::Unique { .. })) {
            return 1.0;
        }
        let implied = crate::model::implied(f.model, e, filter, identity.as_ref());
        // The tenant a place search names keeps no share (`implied`), but
        // the search finds no more than the tenant holds.
        let tenant_holds = f.model.tenant_relationship(e).and_then(|tr| {
            let named = filter
                .iter()
                .zip(&implied)
                .any(|(c, &x)| x && c.related.as_ref().is_some_and(|r| r.relationship == tr));
            (named && crate::model::searches_places(f.model, e, filter))
                .then(|| (f.typical(tr) / f.count(e).max(1.0)).min(1.0))
        });
        for (c, _) in filter.iter().zip(&implied).filter(|(_, x)| !**x) {
            let sel = if c.op == FilterOp::Under {
                self.subtree_share(e, c)
            } else if c.op.is_geo() {
                let share = geo_share(entity, c, f.count(e), densest);
                tenant_holds.map_or(share, |t| share.min(t))
            } else if c.path.len() == 1 && c.path[0] == "_id" {
                match c.op {
                    // The share the list names where the model knows it
                    // (the archiving job's batch of ids), else a few ids.
                    FilterOp::In => c
                        .selectivity
                        .unwrap_or_else(|| in_list(f.count(e)) / f.count(e)),
                    _ => 1.0 / f.count(e),
                }
            } else if let Some(Related {
                relationship: r,
                field,
                further,
            }) = c.related.clone()
            {
                let rel = f.model.relationship(r);
                let other = if rel.child == e {
                    rel.parent
                } else {
                    rel.child
                };
                // How many of `e` one instance of the other side has, as the
                // model states it (children per parent, or parents per child).
                let per = if rel.child == e {
                    f.typical(r)
                } else {
                    f.typical_parents(r)
                };
                if !further.is_empty() {
                    // More hops (the stories whose author a user follows):
                    // the other side's instances the hops beyond find, each
                    // with its `per` of `e` (200 followees with 2 stories
                    // each: 400), not one value of `further[0]` as if it
                    // were a field of the other side (audit48 A8).
                    let beyond = Filter {
                        related: f.model.related(other, &further),
                        path: further,
                        ..c.clone()
                    };
                    let found = self.matched(other, std::slice::from_ref(&beyond), None);
                    (found * per / f.count(e)).min(1.0)
                } else if c.op == FilterOp::Range {
                    // A range on the other side's field (sellers rated
                    // above 4): the share it keeps, as for an own field.
                    c.selectivity.unwrap_or(0.25)
                } else if field == "_id" {
                    let parents = match c.op {
                        FilterOp::In => in_list(f.count(other)),
                        _ => 1.0,
                    };
                    (parents * per / f.count(e)).min(1.0)
                } else if rel.parent == e
                    && let Some(o) = f.rels_to[other.index()].iter().copied().find(|&o| {
                        let x = f.model.relationship(o);
                        x.child_field == field && x.one_parent()
                    })
                {
                    // The children's reference to a parent of theirs (the
                    // links of a tag, from the books): that parent's
                    // children, each one of `e`.
                    let links = f.typical(o) * self.parent_ids_per_child(r);
                    (links / f.count(e)).min(1.0)
                } else {
                    let d = f
                        .model
                        .entity(other)
                        .field(&field)
                        .and_then(crate::model::Field::distinct_values)
                        .map_or(f.count(other), |d| d.max(1) as f64);
                    match c.op {
                        FilterOp::In => in_list(d) / d,
                        _ => 1.0 / d,
                    }
                }
            } else {
                let field = c.path.first().and_then(|p| entity.field(p));
                let d = field
                    .and_then(crate::model::Field::distinct_values)
                    .map_or(f.count(e), |d| d.max(1) as f64);
                // One name of an `attributes` field, and one of its values:
                // the instances that have the name, then the value's share.
                let has = field
                    .and_then(crate::model::Field::attribute_names)
                    .map_or(1.0, |(per, keys)| {
                        (per as f64 / keys.max(1) as f64).min(1.0)
                    });
                has * match c.op {
                    FilterOp::Eq => 1.0 / d,
                    FilterOp::In => in_list(d) / d,
                    FilterOp::Range => c.selectivity.unwrap_or(0.25),
                    FilterOp::Under | FilterOp::Near | FilterOp::Within | FilterOp::Intersects => {
                        1.0
                    }
                }
            };
            est *= sel;
        }
        est = est.max(1.0);
        if let Some(l) = limit {
            est = est.min(l as f64);
        }
        est
    }

    /// An update of one root document (or `docs` of them) that holds `e`.
    fn write_root(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        write: RootWrite<impl Into<Vec<Purpose>>>,
    ) -> usize {
        let (step, cost, index) = self.root_write(plan, write);
        self.push(plan, op, step, cost, index)
    }

    /// The step of `write_root`, its cost and its index, not yet pushed.
    fn root_write(
        &self,
        plan: &mut OpPlan,
        write: RootWrite<impl Into<Vec<Purpose>>>,
    ) -> (Step, StepCost, Option<IndexUse>) {
        let RootWrite {
            entity: e,
            action,
            filter,
            updates,
            docs,
            sync,
            purpose,
        } = write;
        let acc = self.access(e);
        let mut step = Self::step(&acc.collection, action, purpose);
        let found = !filter.is_empty();
        step.filter = filter;
        step.updates = updates;
        step.documents = docs;
        let written = match action {
            Action::InsertOne | Action::InsertMany => {
                docs * self.p.typical[acc.root.index()].min(acc.root_bytes)
            }
            Action::DeleteOne | Action::DeleteMany => docs * expiry::DELETE_BYTES,
            _ => docs * acc.root_bytes,
        };
        let reads = !matches!(action, Action::InsertOne | Action::InsertMany);
        let cost = StepCost {
            keys: if reads { docs } else { 0.0 },
            docs: if reads { docs } else { 0.0 },
            bytes_read: 0.0,
            docs_written: docs,
            bytes_written: written,
            sync,
            more_trips: 0.0,
        };
        Self::target(plan, acc.root, docs > 1.0 || action == Action::UpdateMany);
        let index = found.then(|| {
            let keys = self.write_keys(e, &step.filter);
            let per_doc = keys
                .iter()
                .map(|(k, _)| self.values_per_document(e, k))
                .fold(1.0, f64::max);
            (keys, acc.root, acc.docs * per_doc)
        });
        (step, cost, index)
    }

    /// The keys of the index a write finds its documents by: the
    /// document's id it names, else the keys of a unique combination
    /// whose every key it tests for equality, else an id inside the
    /// document (an element's), else every equality of its filter, then
    /// its ranges, as a read's. Only an id held once (`id_of_one_held`)
    /// finds one document. A delete by both ends of a link uses the
    /// unique pair index, rather than one end's index that walks every
    /// link of a celebrity while the plan counted one key. The unique
    /// combination comes before any `._id`: an end kept as an extended
    /// reference (`fan._id`) ends in `._id` as an element's id does, and
    /// once took its own index (audit46 D7).
    fn write_keys(&self, e: EntityId, filter: &[StepFilter]) -> Vec<(String, i32)> {
        let ids = filter
            .iter()
            .filter(|f| matches!(f.op, FilterOp::Eq | FilterOp::In))
            .map(|f| f.path.as_str());
        if ids.clone().any(|p| p == "_id") {
            return vec![("_id".to_string(), 1)];
        }
        let is_equal = |f: &StepFilter| matches!(f.op, FilterOp::Eq | FilterOp::In);
        let mut equal: Vec<String> = Vec::new();
        for f in filter.iter().filter(|f| is_equal(f)) {
            if !equal.contains(&f.path) {
                equal.push(f.path.clone());
            }
        }
        let tests: Vec<StepFilter> = filter.to_vec();
        // Every key of a unique combination tested for equality: the one
        // document, found by that combination's index alone; the other
        // conditions test it (a season's entry by its player and season,
        // under a tenant whose test the player implies: not a
        // `{game, player, season}` index beside the unique one).
        if equal.len() > 1
            && let Some(order) = self
                .unique_paths(e)
                .into_iter()
                .find(|u| !u.is_empty() && u.iter().all(|p| equal.contains(p)))
        {
            return order.into_iter().map(|p| (p, 1)).collect();
        }
        if let Some(id) = ids.clone().find(|p| self.id_of_one_held(e, p)) {
            return vec![(id.to_string(), 1)];
        }
        filter_keys::keys_of(&tests, &[], &[], is_equal)
    }

    /// Whether `path` of `e`'s documents is the `_id` of an instance that
    /// lives in one document only: one embedded under the root, through
    /// embeds all the way (an order's line). An id copied as a reference
    /// (an extended reference's `follower._id`, a folded parent's
    /// `author._id`) is in every document that names it: 200 follows of
    /// one follower, not one (audit48 A7).
    fn id_of_one_held(&self, e: EntityId, path: &str) -> bool {
        let f = self.facts;
        let root = self.p.root(e);
        let Some(prefix) = path.strip_suffix("._id") else {
            return false;
        };
        f.model
            .entity_ids()
            .any(|x| self.p.root(x) == root && self.held_once(x) && self.p.path(f, x) == prefix)
    }

    /// Whether every hop from `x` up to its root embeds a child in its
    /// parent, so that each instance of `x` is in one root document.
    fn held_once(&self, x: EntityId) -> bool {
        match self.p.home[x.index()] {
            Home::Own | Home::Bucketed { .. } => true,
            Home::Embedded { rel, host, .. } => {
                matches!(self.layout(rel), Layout::Embed) && self.held_once(host)
            }
        }
    }

    /// How many entries one root document holds under `path` in an index
    /// (`e` names the documents): one per element of each array on the
    /// way, the embedded instances of `e` itself, and the ids (or copies)
    /// of the other side that `e` keeps in an array. A multikey index has
    /// one entry per value: the same index counts the same entries, the
    /// values in each parent times the parents, whichever step needs it
    /// (a write by `parts._id` once counted the products alone, the read
    /// through the same index each part id).
    fn values_per_document(&self, e: EntityId, path: &str) -> f64 {
        let f = self.facts;
        let acc = self.access(e);
        let under = |field: &str| path == field || path.starts_with(&format!("{field}."));
        let mut per = if !acc.prefix.is_empty() && under(&acc.prefix) {
            acc.per_root.max(1.0)
        } else if path == "_id" {
            return 1.0;
        } else {
            1.0
        };
        per *= self.own_field_entries(e, path);
        // Embedded children of `e` in an array: an entry per child. (The
        // ids of the other side `e` keeps in an array are counted above,
        // with `e`'s own arrays.)
        for &r in &f.rels_from[e.index()] {
            let rel = f.model.relationship(r);
            if let Home::Embedded { rel: x, array, .. } = self.p.home[rel.child.index()]
                && x == r
                && array
                && under(&acc.path(&rel.parent_field))
            {
                per *= f.typical(r).max(1.0);
            }
        }
        per
    }

    /// The entries one instance of `e` gives an index keyed on the
    /// collection path `path`, when the path lies in `e`'s own part of
    /// the document: one per element of an array field of its own
    /// (multikey), one per id of an array of a relationship's ids the
    /// layout keeps there (`ids_held`), else one.
    pub(super) fn own_field_entries(&self, e: EntityId, path: &str) -> f64 {
        self.own_path(e, path).map_or(1.0, |p| {
            self.facts
                .model
                .entity(e)
                .index_entries_at(p, |name| self.ids_held(e, name))
        })
    }

    /// `path` (a collection path) relative to `e`'s own part of the
    /// document, or `None` when it lies outside it.
    fn own_path<'p>(&self, e: EntityId, path: &'p str) -> Option<&'p str> {
        let acc = self.access(e);
        if acc.prefix.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(acc.prefix.as_str())
                .and_then(|p| p.strip_prefix('.'))
        }
    }

    /// The ids one instance of `e` holds in its field `name` when the
    /// layout keeps there an array of a relationship's ids: its children's
    /// (the relationship's typical children per parent) or its parents'
    /// (typical parents per child, in a many-to-many or for shared
    /// children). `None` when `name` holds no such array (a single id, a
    /// field of the entity's own, embedded children).
    fn ids_held(&self, e: EntityId, name: &str) -> Option<f64> {
        let f = self.facts;
        for &r in &f.rels_from[e.index()] {
            let rel = f.model.relationship(r);
            if rel.parent_field == name
                && !matches!(self.p.home[rel.child.index()], Home::Embedded { rel: x, .. } if x == r)
                && self.child_ids_path(r).is_some()
                && !single_id(rel, self.layout(r))
            {
                return Some(f.typical(r));
            }
        }
        for &r in &f.rels_to[e.index()] {
            let rel = f.model.relationship(r);
            if rel.child_field == name && self.parent_ref_path(r).is_some() {
                return Some(self.parent_ids_per_child(r));
            }
        }
        None
    }

    /// Keys one write of an `e` document writes in an index on `keys`:
    /// one per key, times the elements of an array key of `e`'s own
    /// (its own array, an array of ids, its embedded children's array:
    /// an insert or delete of an order writes a key per line in an index
    /// on `lines.sku`).
    pub(super) fn keys_per_write(&self, e: EntityId, keys: &[(String, i32)]) -> f64 {
        keys.len() as f64 * self.array_entries(e, keys)
    }

    /// The writes per second that reach an index on `keys` needed through
    /// `e` (`own`: `e`'s inserts and deletes and its key fields' updates)
    /// and the keys each writes, on average. When the key runs into an
    /// array of embedded children (a line in its order's `lines`, index
    /// on `lines.sku`), two kinds of write reach it, whichever of the two
    /// entities the step needs it through: the host's inserts and deletes
    /// write the whole array, a key per element (the host's
    /// `keys_per_write`), and the child's `$push`es, `$pull`s and key
    /// updates one element's keys (the child's). Both enter the one
    /// figure `writes × keys` the index's upkeep is priced at. (Once the
    /// host's writes were priced at one key through the host and not at
    /// all through the child.)
    fn writes_and_keys(&self, e: EntityId, keys: &[(String, i32)], own: f64) -> (f64, f64) {
        let f = self.facts;
        let chain = self.key_chain(self.access(e).root, keys);
        if chain.len() < 2 || !chain.iter().any(|&(x, _)| x == e) {
            return (own, self.keys_per_write(e, keys));
        }
        let (leaf, _) = chain[chain.len() - 1];
        let leaf_keys = self.keys_per_write(leaf, keys);
        // From the innermost entity up: each level's inserts and deletes,
        // and the changes of its own key fields (an item's `end_date` in
        // `{bids.user, end_date}`), write the keys of every leaf element
        // below it.
        let (mut writes, mut total, mut below) = (0.0, 0.0, 1.0);
        for &(x, per) in chain.iter().rev() {
            let prefix = &self.access(x).prefix;
            let updates = keys
                .iter()
                .filter(|(k, _)| k.rsplit_once('.').map_or("", |(head, _)| head) == prefix)
                .map(|(k, _)| f.field_update_rate(x, k.rsplit('.').next().unwrap_or(k)))
                .sum::<f64>();
            let w = self.writes_of(x) + updates;
            writes += w;
            total += w * leaf_keys * below;
            below *= per;
        }
        if writes <= 0.0 {
            return (own, self.keys_per_write(e, keys));
        }
        (writes, total / writes)
    }

    /// The entities an index key's path runs through in `root`'s
    /// documents, from `root` down to the one whose field the key is, each
    /// with its elements per document it sits in (1 for an embedded
    /// object, the typical children for an array): `[(order, 1), (line,
    /// 5)]` for `lines.sku`, `[(customer, 1), (order, 10), (line, 5)]` for
    /// `orders.lines.sku`, `[(customer, 1), (address, 1)]` for
    /// `address.city`. The key that runs deepest decides.
    fn key_chain(&self, root: EntityId, keys: &[(String, i32)]) -> Vec<(EntityId, f64)> {
        let f = self.facts;
        let mut best = vec![(root, 1.0)];
        for (k, _) in keys {
            let mut chain = vec![(root, 1.0)];
            let (mut at, mut rest) = (root, k.as_str());
            while let Some((name, tail)) = rest.split_once('.') {
                let next = f.rels_from[at.index()].iter().find_map(|&r| {
                    let rel = f.model.relationship(r);
                    match self.p.home[rel.child.index()] {
                        Home::Embedded { rel: x, array, .. }
                            if x == r && rel.parent_field == name =>
                        {
                            Some((rel.child, if array { f.typical(r).max(1.0) } else { 1.0 }))
                        }
                        _ => None,
                    }
                });
                let Some((c, per)) = next else { break };
                chain.push((c, per));
                (at, rest) = (c, tail);
            }
            if chain.len() > best.len() {
                best = chain;
            }
        }
        best
    }

    /// Entries one `e` document gives an index on `keys` through `e`'s own
    /// part of it: the elements of its array key (one array per index: a
    /// compound multikey index may not hold two), else one.
    pub(super) fn array_entries(&self, e: EntityId, keys: &[(String, i32)]) -> f64 {
        keys.iter()
            .map(|(k, _)| self.own_field_keys(e, k))
            .fold(1.0, f64::max)
    }

    /// As `own_field_entries`, and one per embedded child when the path
    /// runs into an array of `e`'s embedded children (`values_per_document`
    /// counts those apart, for the entries a read finds).
    fn own_field_keys(&self, e: EntityId, path: &str) -> f64 {
        self.own_path(e, path).map_or(1.0, |p| {
            self.facts.model.entity(e).index_entries_at(p, |name| {
                self.ids_held(e, name)
                    .or_else(|| self.embedded_held(e, name))
            })
        })
    }

    /// The children one instance of `e` holds embedded in an array under
    /// its field `name` (the relationship's typical children per parent).
    fn embedded_held(&self, e: EntityId, name: &str) -> Option<f64> {
        let f = self.facts;
        f.rels_from[e.index()].iter().find_map(|&r| {
            let rel = f.model.relationship(r);
            matches!(self.p.home[rel.child.index()], Home::Embedded { rel: x, array: true, .. } if x == r)
                .then_some(())
                .filter(|_| rel.parent_field == name)
                .map(|_| f.typical(r))
        })
    }

    /// The paths of each unique combination of `e` where its documents
    /// hold every key (as `insert::unique_indexes` indexes them).
    pub(super) fn unique_paths(&self, e: EntityId) -> Vec<Vec<String>> {
        let f = self.facts;
        let acc = self.access(e);
        f.model
            .entity(e)
            .unique
            .iter()
            .filter_map(|combination| {
                combination
                    .iter()
                    .map(|k| match k {
                        KeyPart::Field(name) => Some(acc.path(name)),
                        KeyPart::Parent(r) => self.parent_ref_path(*r).map(|p| acc.path(&p)),
                    })
                    .collect()
            })
            .collect()
    }

    /// Filter that picks the one root document holding instance `e` (by its id).
    fn id_filter(&self, e: EntityId, from: ValueSource) -> Vec<StepFilter> {
        let acc = self.access(e);
        vec![filt(acc.path("_id"), FilterOp::Eq, from)]
    }
}
