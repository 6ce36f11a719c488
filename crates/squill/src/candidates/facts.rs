//! Facts about a model in one mix, computed once before the search: sizes of
//! entities' own fields, how often each field is updated, what the workload
//! reads through each relationship, and which operations touch each entity
//! (for incremental re-costing).

use crate::design::{Layout, Side};
use crate::model::{
    AggregateFn, CardinalityClass, EntityId, Filter, Include, Model, OperationId, OperationKind,
    Related, RelationshipId,
};
use crate::settings::Settings;
use rustc_hash::{FxHashMap, FxHashSet};

/// Bytes an embedded sub-document adds to its array beyond its own fields:
/// the element's type byte, its index as a key ("123" and a NUL), and the
/// sub-document's length prefix and terminator.
pub const EMBEDDED_ELEMENT_OVERHEAD: f64 = 10.0;

/// A sort key: field and whether it is descending.
pub type SortBy = (String, bool);

/// What the workload does through one relationship, per second in the mix.
#[derive(Debug, Clone, Default)]
pub struct RelFacts {
    pub class: Option<CardinalityClass>,
    /// Reads that walk from the parent to its children.
    pub reads_down: f64,
    /// Reads that walk from a child to its parent(s).
    pub reads_up: f64,
    /// Field sets of the child read through the relationship (from the parent), with their rate.
    pub child_fields_read: Vec<(Vec<String>, f64)>,
    /// Field sets of the parent read through the relationship (from the child), with their rate.
    pub parent_fields_read: Vec<(Vec<String>, f64)>,
    /// Fields of the parent that reads of the child filter on (`seller.region`).
    pub parent_fields_filtered: Vec<String>,
    /// Limits of reads of the children: K, the first sort key (field,
    /// descending) and the rate. Descending on a field = "the latest K".
    pub limits: Vec<(u64, Option<SortBy>, f64)>,
    /// The limits of those reads that test the children by nothing but
    /// ranges (a time window): K, the first sort key and the fields the
    /// ranges test. Only such a page can be a bucket of arrivals (a window
    /// picks buckets by the first and last date each keeps); a page of the
    /// children of one model, or of one state, holds other children than
    /// a bucket does (audit49 C2).
    pub pages: Vec<(u64, Option<SortBy>, Vec<String>)>,
    /// Range conditions reads put on the children's fields through the
    /// relationship (a time window), with their rate.
    pub child_ranges: Vec<(String, f64)>,
    /// Aggregates of the children that reads ask for, with their rate.
    pub aggregates: Vec<(AggregateFn, Option<String>, f64)>,
    /// The time windows aggregates are read over (one figure per minute of
    /// the last day), with their rate.
    pub windows: Vec<(crate::model::Window, f64)>,
    /// Children inserted per second (linked through this relationship).
    pub child_inserts: f64,
    /// Of those, the ones inserted in batches: each insert operation's
    /// children per call (its `count`, more than 1) and calls per second.
    pub child_insert_batches: Vec<(u64, f64)>,
    /// Children re-pointed to another parent per second.
    pub relinks: f64,
    /// Links made between an existing parent and child per second (a star,
    /// a track added to a playlist), and links removed.
    pub links: f64,
    pub unlinks: f64,
    /// Rate of operations that start from the child entity.
    pub child_own_ops: f64,
    /// Of those, the reads: the children read without going through the
    /// parent.
    pub child_own_reads: f64,
    /// Reads from the parent that take only some of its children (a limit,
    /// a condition on them, a time window): the array is not read whole.
    pub partial_reads_down: f64,
    /// A many-to-many's attributes that reads test or order by, from the
    /// parent's side and from the child's (a team's admins, a user's
    /// newest memberships).
    pub attributes_tested: [Vec<String>; 2],
    /// Recursive reads of a tree (its ancestors, a subtree) per second,
    /// and the fields the walks up read of each ancestor (breadcrumbs).
    pub walks: f64,
    pub walk_fields_up: Vec<(Vec<String>, f64)>,
    /// Reads per second of everything under a node (`under`): of a tree's
    /// nodes, or of what references them (the products of a category and
    /// its subcategories), counted on both relationships.
    pub subtree_reads: f64,
}

/// Facts about a model in one mix.
#[derive(Debug, Clone)]
pub struct Facts<'m> {
    pub model: &'m Model,
    pub settings: &'m Settings,
    pub mix: usize,
    /// BSON bytes of an entity's own fields with `_id` (no header).
    pub own_bytes: Vec<f64>,
    /// Whether an entity has a field of type object (one more nesting level);
    /// kept here because every placement the search builds asks.
    pub object_fields: Vec<bool>,
    /// Updates per second of each entity's fields.
    pub field_updates: Vec<FxHashMap<String, f64>>,
    pub rels: Vec<RelFacts>,
    pub read_rate: f64,
    pub write_rate: f64,
    /// Inserts and deletes per second of each entity.
    pub entity_writes: Vec<f64>,
    /// Inserts per second of each entity (instances, a batch counted
    /// whole): the rate an expiring entity's TTL monitor deletes at in
    /// the steady state.
    pub entity_inserts: Vec<f64>,
    /// Relationships where each entity is the parent / the child.
    pub rels_from: Vec<Vec<RelationshipId>>,
    pub rels_to: Vec<Vec<RelationshipId>>,
    /// Operations that read or write each entity (or a relationship next to it).
    pub ops_touching: Vec<Vec<OperationId>>,
    /// The share of each entity's index entries held in memory (`held_share`).
    pub held: Vec<f64>,
    /// The model's feed reads (`feed::feeds`), found once: rule `fan-out`
    /// asks for each relationship (issue 45).
    pub feeds: Vec<super::feed::Feed>,
}

impl<'m> Facts<'m> {
    /// The share of the index entries on `entity`'s documents held in
    /// memory: all of them, but for the archive of an entity split by age
    /// the share its reads make of the live entity's (old orders read
    /// 0.1 times/s against 5,000 for recent ones: 0.002%), a cache keeping
    /// pages in proportion to their use.
    pub fn held_share(&self, entity: EntityId) -> f64 {
        self.held[entity.index()]
    }

    pub fn new(model: &'m Model, settings: &'m Settings, mix: usize) -> Self {
        let n_ent = model.entities.len();
        let n_rel = model.relationships.len();
        let own_bytes = model
            .entities
            .iter()
            .map(|e| {
                let fields: u64 = e
                    .fields
                    .iter()
                    .filter(|f| f.name != "_id")
                    .map(crate::model::Field::element_bytes)
                    .sum();
                (fields + 1 + 4 + 12) as f64
            })
            .collect();
        let mut facts = Facts {
            model,
            settings,
            mix,
            own_bytes,
            object_fields: model
                .entities
                .iter()
                .map(|e| {
                    e.fields
                        .iter()
                        .any(|f| matches!(f.ty, crate::model::FieldType::Object))
                })
                .collect(),
            field_updates: vec![FxHashMap::default(); n_ent],
            rels: vec![RelFacts::default(); n_rel],
            read_rate: 0.0,
            write_rate: 0.0,
            entity_writes: vec![0.0; n_ent],
            entity_inserts: vec![0.0; n_ent],
            rels_from: vec![Vec::new(); n_ent],
            rels_to: vec![Vec::new(); n_ent],
            ops_touching: vec![Vec::new(); n_ent],
            held: vec![1.0; n_ent],
            feeds: super::feed::feeds(model),
        };
        for r in model.relationship_ids() {
            let rel = model.relationship(r);
            facts.rels_from[rel.parent.index()].push(r);
            facts.rels_to[rel.child.index()].push(r);
        }
        for (i, rel) in model.relationships.iter().enumerate() {
            facts.rels[i].class = Some(settings.cardinality.classify(rel.kind, &rel.children));
        }
        for op_id in model.operation_ids() {
            let op = model.operation(op_id);
            let rate = op.rate(mix);
            if op.is_write() {
                facts.write_rate += rate;
            } else {
                facts.read_rate += rate;
            }
            facts.entity_rates(op_id, rate);
            let touched = facts.touched(op_id);
            for e in &touched {
                facts.ops_touching[e.index()].push(op_id);
            }
        }
        facts.held = model
            .entity_ids()
            .map(|e| match model.entity(e).archive_of {
                None => 1.0,
                Some(live) => {
                    (facts.reads_of(e) / facts.reads_of(live).max(f64::MIN_POSITIVE)).min(1.0)
                }
            })
            .collect();
        facts
    }

    /// Reads per second that touch `entity`.
    fn reads_of(&self, entity: EntityId) -> f64 {
        self.ops_touching[entity.index()]
            .iter()
            .map(|o| self.model.operation(*o))
            .filter(|op| !op.is_write())
            .map(|op| op.rate(self.mix))
            .sum()
    }

    fn entity_rates(&mut self, op_id: OperationId, rate: f64) {
        let model = self.model;
        let op = model.operation(op_id);
        match &op.kind {
            OperationKind::Read {
                entity,
                include,
                aggregates,
                filter,
                family,
                ..
            } => {
                // A family's other kinds are found by the same filter, on their own.
                for e in family {
                    self.filter_fields(*e, filter, rate);
                    for r in model.relationships_to(*e) {
                        self.rels[r.index()].child_own_ops += rate;
                        self.rels[r.index()].child_own_reads += rate;
                    }
                }
                // The children of one parent asked on the child read down
                // that relationship, as the parent's include does; beside
                // the tenant a bucket would hold for them too, so that the
                // buckets are a candidate under a tenant as without one
                // (the planner reads them so only when they are buckets).
                let as_include = op.as_bucket_parent_include(model);
                match &as_include {
                    Some((parent, inc)) => {
                        self.rels_of_includes(*parent, std::slice::from_ref(inc), rate)
                    }
                    None => self.rels_of_includes(*entity, include, rate),
                }
                self.filter_fields(*entity, filter, rate);
                let through = as_include.map(|(_, inc)| inc.relationship);
                // A read goes down a relationship once, however many of its
                // parts use it (the latest reviews and their count).
                let mut read_down: Vec<RelationshipId> = include
                    .iter()
                    .filter(|i| i.to_children)
                    .map(|i| i.relationship)
                    .chain(through)
                    .collect();
                for agg in aggregates {
                    self.rels[agg.relationship.index()].aggregates.push((
                        agg.function,
                        agg.field.clone(),
                        rate,
                    ));
                    // Figures per time unit read a window of the children.
                    if let Some(w) = &agg.window {
                        let rf = &mut self.rels[agg.relationship.index()];
                        if !rf.windows.iter().any(|(x, _)| x == w) {
                            rf.windows.push((w.clone(), rate));
                            rf.child_ranges.push((w.field.clone(), rate));
                        }
                        rf.partial_reads_down += rate;
                    }
                    if !read_down.contains(&agg.relationship) {
                        read_down.push(agg.relationship);
                        self.rels[agg.relationship.index()].reads_down += rate;
                    }
                }
                for r in model.relationships_to(*entity) {
                    if Some(r) != through {
                        self.rels[r.index()].child_own_ops += rate;
                        self.rels[r.index()].child_own_reads += rate;
                    }
                }
            }
            OperationKind::Insert {
                entity,
                links,
                count,
            } => {
                let n = rate * (*count).max(1) as f64;
                self.entity_writes[entity.index()] += n;
                self.entity_inserts[entity.index()] += n;
                for r in links {
                    self.rels[r.index()].child_inserts += n;
                    if *count > 1 {
                        self.rels[r.index()]
                            .child_insert_batches
                            .push((*count, rate));
                    }
                }
            }
            OperationKind::Update {
                entity, relinks, ..
            } => {
                // `$inc`s write their field as `$set`s do (ttl45).
                for c in op.written_fields() {
                    *self.field_updates[entity.index()]
                        .entry(c.to_string())
                        .or_insert(0.0) += rate;
                }
                for r in relinks {
                    self.rels[r.index()].relinks += rate;
                }
                for r in model.relationships_to(*entity) {
                    self.rels[r.index()].child_own_ops += rate;
                }
                // An upsert adds the instance on its share of the calls:
                // an insert of it, for the indexes' upkeep and the growth.
                if op.terms.upserts() {
                    let n = rate * op.terms.insert_share();
                    self.entity_writes[entity.index()] += n;
                    self.entity_inserts[entity.index()] += n;
                    for r in model.relationships_to(*entity) {
                        self.rels[r.index()].child_inserts += n;
                    }
                }
            }
            OperationKind::Link {
                relationship,
                unlink,
            } => {
                let rf = &mut self.rels[relationship.index()];
                if *unlink {
                    rf.unlinks += rate;
                } else {
                    rf.links += rate;
                }
            }
            // No copy and no counter follows a link's own fields: the plan
            // prices the change where the layout keeps them.
            OperationKind::UpdateLink { .. } => {}
            OperationKind::Delete { entity, .. } => {
                self.entity_writes[entity.index()] += rate;
                for r in model.relationships_to(*entity) {
                    self.rels[r.index()].child_own_ops += rate;
                }
            }
        }
    }

    /// A filter on a parent's field from the child (`seller.region`) reads that
    /// field through the relationship: an extended reference could copy it.
    fn filter_fields(&mut self, entity: EntityId, filter: &[Filter], rate: f64) {
        for f in filter
            .iter()
            .filter(|f| f.op == crate::model::FilterOp::Under)
        {
            let node = match &f.related {
                Some(x) => {
                    self.rels[x.relationship.index()].subtree_reads += rate;
                    self.model.relationship(x.relationship).parent
                }
                None => entity,
            };
            if let Some(t) = self.model.tree_of(node) {
                self.rels[t.index()].subtree_reads += rate;
            }
        }
        for f in filter {
            if let Some(Related {
                relationship: r,
                field,
                ..
            }) = &f.related
            {
                let r = *r;
                let rel = self.model.relationship(r);
                if rel.child == entity && field != "_id" {
                    let rf = &mut self.rels[r.index()];
                    if !rf.parent_fields_filtered.contains(field) {
                        rf.parent_fields_filtered.push(field.clone());
                    }
                    self.rels[r.index()]
                        .parent_fields_read
                        .push((vec![field.clone()], rate));
                    self.rels[r.index()].reads_up += rate;
                }
            }
        }
    }

    fn rels_of_includes(&mut self, _from: EntityId, includes: &[Include], rate: f64) {
        for inc in includes {
            let rel = self.model.relationship(inc.relationship);
            let tested: Vec<String> = inc
                .filter
                .iter()
                .filter_map(|f| f.path.first())
                .chain(inc.sort.iter().map(|k| &k.field))
                .filter(|name| rel.attribute(name).is_some())
                .cloned()
                .collect();
            let rf = &mut self.rels[inc.relationship.index()];
            if inc.recursive.is_some() {
                rf.walks += rate;
                if !inc.to_children {
                    rf.walk_fields_up.push((inc.fields.clone(), rate));
                }
            }
            let side = &mut rf.attributes_tested[usize::from(!inc.to_children)];
            for name in tested {
                if !side.contains(&name) {
                    side.push(name);
                }
            }
            if inc.to_children {
                rf.reads_down += rate;
                if inc.limit.is_some() || !inc.filter.is_empty() {
                    rf.partial_reads_down += rate;
                }
                rf.child_fields_read.push((inc.fields.clone(), rate));
                if let Some(limit) = inc.limit {
                    let sort = inc.sort.first().map(|s| (s.field.clone(), s.descending));
                    let ranges: Option<Vec<String>> = inc
                        .filter
                        .iter()
                        .map(|f| match (f.op, &f.path[..]) {
                            (crate::model::FilterOp::Range, [field]) => Some(field.clone()),
                            _ => None,
                        })
                        .collect();
                    if let Some(ranges) = ranges {
                        rf.pages.push((limit, sort.clone(), ranges));
                    }
                    rf.limits.push((limit, sort, rate));
                }
                for f in &inc.filter {
                    if f.op == crate::model::FilterOp::Range
                        && let Some(field) = f.path.last()
                    {
                        rf.child_ranges.push((field.clone(), rate));
                    }
                }
            } else {
                rf.reads_up += rate;
                rf.parent_fields_read.push((inc.fields.clone(), rate));
            }
            let rel = self.model.relationship(inc.relationship);
            let next = if inc.to_children {
                rel.child
            } else {
                rel.parent
            };
            // A condition of the include on another entity's field (items
            // whose seller is in a region) reads it as a query's filter does.
            self.filter_fields(next, &inc.filter, rate);
            self.rels_of_includes(next, &inc.include, rate);
        }
    }

    /// Entities an operation reads or writes.
    pub fn touched(&self, op_id: OperationId) -> FxHashSet<EntityId> {
        let model = self.model;
        let op = model.operation(op_id);
        let mut set = FxHashSet::default();
        set.insert(op.entity_in(model));
        let mut add_rel = |r: RelationshipId, set: &mut FxHashSet<EntityId>| {
            let rel = model.relationship(r);
            set.insert(rel.parent);
            set.insert(rel.child);
        };
        match &op.kind {
            OperationKind::Read {
                include,
                aggregates,
                filter,
                family,
                ..
            } => {
                set.extend(family.iter().copied());
                fn walk(
                    incs: &[Include],
                    set: &mut FxHashSet<EntityId>,
                    add: &mut dyn FnMut(RelationshipId, &mut FxHashSet<EntityId>),
                ) {
                    for i in incs {
                        add(i.relationship, set);
                        walk(&i.include, set, add);
                    }
                }
                walk(include, &mut set, &mut add_rel);
                for a in aggregates {
                    add_rel(a.relationship, &mut set);
                }
                self.filter_rels(filter, &mut set);
            }
            OperationKind::Link { relationship, .. }
            | OperationKind::UpdateLink { relationship, .. } => add_rel(*relationship, &mut set),
            OperationKind::Insert { .. }
            | OperationKind::Delete { .. }
            | OperationKind::Update { .. } => {}
        }
        // A write also refreshes copies and counters kept next to its entity.
        if op.is_write() {
            let e = op.entity_in(model);
            for r in model.relationships_from(e).chain(model.relationships_to(e)) {
                add_rel(r, &mut set);
            }
        }
        match &op.kind {
            OperationKind::Read { .. }
            | OperationKind::Insert { .. }
            | OperationKind::Link { .. }
            | OperationKind::UpdateLink { .. } => {}
            OperationKind::Update {
                relinks, filter, ..
            } => {
                for r in relinks {
                    add_rel(*r, &mut set);
                }
                self.filter_rels(filter, &mut set);
            }
            OperationKind::Delete { filter, .. } => self.filter_rels(filter, &mut set),
        }
        set
    }

    fn filter_rels(&self, filter: &[Filter], set: &mut FxHashSet<EntityId>) {
        for f in filter {
            if let Some(related) = &f.related {
                let rel = self.model.relationship(related.relationship);
                set.insert(rel.parent);
                set.insert(rel.child);
            }
        }
    }

    /// The entities within `depth` relationships of `start`.
    pub fn neighbourhood(&self, start: &FxHashSet<EntityId>, depth: usize) -> FxHashSet<EntityId> {
        let mut set = start.clone();
        let mut frontier: Vec<EntityId> = start.iter().copied().collect();
        for _ in 0..depth {
            let mut next = Vec::new();
            for e in frontier {
                for r in self
                    .model
                    .relationships_from(e)
                    .chain(self.model.relationships_to(e))
                {
                    let rel = self.model.relationship(r);
                    for x in [rel.parent, rel.child] {
                        if set.insert(x) {
                            next.push(x);
                        }
                    }
                }
            }
            frontier = next;
        }
        set
    }

    /// Updates per second of `field` of `entity`.
    pub fn field_update_rate(&self, entity: EntityId, field: &str) -> f64 {
        self.field_updates[entity.index()]
            .get(field)
            .copied()
            .unwrap_or(0.0)
    }

    pub fn rel(&self, r: RelationshipId) -> &RelFacts {
        &self.rels[r.index()]
    }

    /// Entity count as a float, at least one.
    pub fn count(&self, e: EntityId) -> f64 {
        (self.model.entity(e).count as f64).max(1.0)
    }

    /// How many children of `r` may be embedded in one parent. The seed's
    /// two limits — a couple of hundred sub-documents, a few thousand ids —
    /// are one budget of bytes: 5,000 ids take about 85 KB, as do 200
    /// sub-documents of about 400 bytes. Small children (an invoice line)
    /// fit more than 200 in that budget; never fewer than `embed-max` fit,
    /// whatever their size.
    ///
    /// Those counts guard against growth nobody stated. When the model
    /// states a maximum, every read takes the array whole with its parent
    /// (`read_whole`), and the parent at that maximum stays within
    /// `cardinality.embed-document-bytes`, the bytes decide instead: the
    /// bound is as many children as keep the parent within that size.
    pub fn embed_bound(&self, r: RelationshipId) -> u64 {
        /// Bytes of one ObjectId as an array element: type, index key, 12 bytes.
        const ID_ELEMENT_BYTES: f64 = 17.0;
        let s = &self.settings.cardinality;
        let budget = s.reference_array_max as f64 * ID_ELEMENT_BYTES;
        let rel = self.model.relationship(r);
        let element = self.own_bytes[rel.child.index()].max(1.0);
        // max then min, not clamp: settings made in code skip the file's order check.
        let by_count = ((budget / element) as u64)
            .max(s.embed_max)
            .min(s.reference_array_max);
        if !self.read_whole(r) {
            return by_count;
        }
        // The stated maximum must fit the budget: past it, the count
        // decides as before (an outlier's threshold is not moved).
        let room = s.embed_document_bytes as f64 - self.own_bytes[rel.parent.index()];
        let by_bytes = (room / (element + EMBEDDED_ELEMENT_OVERHEAD)).max(0.0) as u64;
        match rel.children.max.finite() {
            Some(max) if max <= by_bytes => by_count.max(by_bytes),
            _ => by_count,
        }
    }

    /// Whether `r`'s children are only ever read whole with their parent:
    /// the model states their maximum, some read takes them from the
    /// parent, none takes only some of them (a limit, a condition, a
    /// window), none reads a child without its parent, and no other
    /// relationship leads to the child (a comment that is also its
    /// author's is reached from there too). The child's link to the
    /// model's tenant is not another parent when `r`'s parent lies within
    /// the same tenant and nothing reads the children from the tenant: the
    /// embedding parent holds the tenant's id, and so every line of a
    /// warehouse's wave is that warehouse's (audit48 B1).
    pub fn read_whole(&self, r: RelationshipId) -> bool {
        let rf = self.rel(r);
        let rel = self.model.relationship(r);
        let child = rel.child;
        let tenant = self.model.tenant_relationship(child);
        let within = self.model.tenant_relationship(rel.parent).is_some();
        let another_parent = |&o: &RelationshipId| {
            o != r && !(within && Some(o) == tenant && self.rel(o).reads_down == 0.0)
        };
        !self.rels_to[child.index()].iter().any(another_parent)
            && rel.children.max.finite().is_some()
            && rf.reads_down > 0.0
            && rf.partial_reads_down == 0.0
            && rf.child_own_reads == 0.0
    }

    /// Typical children per parent, at least one.
    pub fn typical(&self, r: RelationshipId) -> f64 {
        self.model
            .relationship(r)
            .children
            .mean_or_typical()
            .max(1.0)
    }

    /// Children per parent on average as the model states it, a fraction
    /// where it gave one (0.2 deals per contact): what a parent's
    /// document holds on average (audit48 C7). A whole figure is
    /// `typical` (at least one, as it always was).
    pub fn mean_children(&self, r: RelationshipId) -> f64 {
        let c = &self.model.relationship(r).children;
        c.mean.unwrap_or_else(|| self.typical(r))
    }

    /// Typical parents per child (M of an N:M, sharing of a shared 1:N), at least one.
    pub fn typical_parents(&self, r: RelationshipId) -> f64 {
        (self.model.relationship(r).parents.typical as f64).max(1.0)
    }

    /// The attributes of many-to-many `r` (a member's role) that the array
    /// on `side` keeps next to each id under `layout`. With one array, all
    /// of them. With an array on each side, each keeps what the reads
    /// through it take or test (every attribute for a read that names no
    /// fields),
    /// and both keep an attribute no read takes, so none is lost.
    pub fn attributes_on<'a>(
        &'a self,
        r: RelationshipId,
        side: Side,
        layout: &Layout,
    ) -> impl Iterator<Item = &'m crate::model::Field> + 'a {
        let rel = self.model.relationship(r);
        let sides = layout.many_sides().unwrap_or((None, None));
        let here = match side {
            Side::Parent => sides.0.is_some(),
            Side::Child => sides.1.is_some(),
        };
        let both = sides.0.is_some() && sides.1.is_some();
        let rf = self.rel(r);
        let reads = |s: Side| match s {
            Side::Parent => &rf.child_fields_read,
            Side::Child => &rf.parent_fields_read,
        };
        let takes = move |s: Side, name: &str| {
            let tested = &rf.attributes_tested[usize::from(s == Side::Child)];
            tested.iter().any(|t| t == name)
                || reads(s)
                    .iter()
                    .any(|(fields, _)| fields.is_empty() || fields.iter().any(|f| f == name))
        };
        let other = match side {
            Side::Parent => Side::Child,
            Side::Child => Side::Parent,
        };
        rel.attributes
            .iter()
            .filter(move |a| here && (!both || takes(side, &a.name) || !takes(other, &a.name)))
    }
}

/// The runs an approximate counter waits between writes: it adds up `every`
/// children, and each run brings `per_run` of them to a parent, so a batch
/// of 1,000 children is one write a run however large `every` is (it
/// cannot be split), and single children are one write every `every` runs.
pub fn runs_per_write(every: u64, per_run: f64) -> u64 {
    ((every as f64) / per_run.max(1.0)).ceil().max(1.0) as u64
}

/// An approximate counter's writes per second, and an exact counter's, for
/// the children of one relationship: single children are one write every
/// `every` runs; a batch is one write a run when it brings `every` or more
/// (`runs_per_write`). With the most children it lets pass unwritten. A
/// batch goes to one parent here; an archive's batch spread over its
/// parents is priced by the plan.
pub struct CounterWrites {
    pub exact: f64,
    pub approximate: f64,
    pub lag: f64,
}

impl RelFacts {
    pub fn counter_writes(&self, every: u64) -> CounterWrites {
        let batched: f64 = self
            .child_insert_batches
            .iter()
            .map(|(n, r)| *n as f64 * r)
            .sum();
        let single = (self.child_inserts - batched).max(0.0);
        let mut out = CounterWrites {
            exact: single,
            approximate: single / every as f64,
            lag: if single > 0.0 {
                every as f64 - 1.0
            } else {
                0.0
            },
        };
        for &(n, calls) in &self.child_insert_batches {
            let runs = runs_per_write(every, n as f64);
            out.exact += calls;
            out.approximate += calls / runs as f64;
            out.lag = out.lag.max((runs - 1) as f64 * n as f64);
        }
        out
    }
}
