//! How one operation runs under a placement: its steps (collection, action,
//! filter, sort, projection, updates, index) and what each costs.

use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::placement::{Home, Placement};
use crate::candidates::space::Space;
use crate::design::{Action, Cost, Step, StepFilter, UpdateOp, ValueSource};
use crate::design::{BucketBy, Layout, Side};
use crate::model::{
    AggregateFn, EntityId, Filter, FilterOp, Include, OperationId, OperationKind, RelationshipId,
    RelationshipKind, SortKey,
};
use crate::words;

/// An index a step relies on.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexNeed {
    pub collection: String,
    pub keys: Vec<(String, i32)>,
    /// Entries the index holds (one per document, one per element for arrays).
    pub entries: f64,
    /// Writes per second of the indexed documents.
    pub writes: f64,
    pub operation: OperationId,
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
    pub warnings: Vec<String>,
    pub transaction: bool,
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
    String,
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
}

/// Where an entity's instances are and how to reach them.
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

pub struct Planner<'a> {
    pub facts: &'a Facts<'a>,
    pub space: &'a Space,
    pub p: &'a Placement<'a>,
    /// Skip the words (step purposes, warnings) while searching: only costs count.
    pub quiet: bool,
}

/// `format!` unless the planner is quiet (the search needs numbers, not words).
macro_rules! say {
    ($quiet:expr, $($arg:tt)*) => {
        if $quiet { String::new() } else { format!($($arg)*) }
    };
}

fn index_name(keys: &[(String, i32)]) -> String {
    keys.iter()
        .map(|(k, d)| format!("{k}_{d}"))
        .collect::<Vec<_>>()
        .join("_")
}

fn filt(path: impl Into<String>, op: FilterOp, from: ValueSource) -> StepFilter {
    StepFilter {
        path: path.into(),
        op,
        value_from: from,
    }
}

/// Whether the child holds its parent's id under this layout (and under which path).
fn parent_ref_path(layout: &Layout, child_field: &str) -> Option<String> {
    match layout {
        Layout::ParentReference
        | Layout::TwoWayReferences
        | Layout::Subset { .. }
        | Layout::ManyToManyTwoWay
        | Layout::ManyToManyOneWay {
            ids_in: Side::Child,
        } => Some(child_field.to_string()),
        Layout::ExtendedReference {
            copies_into: Side::Child,
            ..
        } => Some(format!("{child_field}._id")),
        _ => None,
    }
}

/// Whether the parent holds its children's ids under this layout (and under which path).
fn child_ids_path(layout: &Layout, parent_field: &str) -> Option<String> {
    match layout {
        Layout::ChildReferences
        | Layout::TwoWayReferences
        | Layout::ManyToManyTwoWay
        | Layout::ManyToManyOneWay {
            ids_in: Side::Parent,
        } => Some(parent_field.to_string()),
        Layout::ExtendedReference {
            copies_into: Side::Parent,
            ..
        } => Some(format!("{parent_field}._id")),
        _ => None,
    }
}

impl<'a> Planner<'a> {
    fn c(&self) -> &crate::settings::CostCoefficients {
        &self.facts.settings.design.costs
    }

    /// Why an `updateMany` runs: "refresh the copy of the part's name in 300
    /// products". Empty while searching (`quiet`), like every `say!`.
    fn refresh_purpose(
        &self,
        name: &str,
        copied: &[impl AsRef<str>],
        holders: f64,
        holder: EntityId,
    ) -> String {
        say!(
            self.quiet,
            "refresh the copy of the {name}'s {} in {} {}",
            copied
                .iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            words::num(holders),
            plural(self.name(holder), holders)
        )
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
            docs: p.documents(self.facts, e),
            kind,
        }
    }

    fn layout(&self, r: RelationshipId) -> &'a Layout {
        self.p.layouts[r.index()]
    }

    /// Plans an operation, with the transaction its atomic group needs.
    pub fn plan(&self, op: OperationId) -> OpPlan {
        let mut plan = self.plan_alone(op);
        let model = self.facts.model;
        let mut warned = false;
        for group in &model.workload.atomic_groups {
            if !group.operations.contains(&op) {
                continue;
            }
            let mut targets: Vec<Target> = Vec::new();
            for o in &group.operations {
                let t = if *o == op {
                    plan.targets.clone()
                } else {
                    self.plan_alone(*o).targets
                };
                for x in t {
                    if !targets.contains(&x) {
                        targets.push(x);
                    }
                }
            }
            let single = targets.len() <= 1 && targets.iter().all(|t| !t.many);
            if !single {
                plan.transaction = true;
                plan.cost.transactions += 1.0 / group.operations.len().max(1) as f64;
                plan.warnings.push(say!(self.quiet,
                    "atomic group `{}` writes {} kinds of documents: it runs in a multi-document transaction",
                    group.name,
                    targets.len()
                ));
            }
            warned = true;
        }
        if !warned {
            let distinct: Vec<&Target> = plan.targets.iter().fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
            let writes = plan
                .steps
                .iter()
                .filter(|s| s.action != Action::Find)
                .count();
            if writes > 1 && distinct.len() > 1 {
                plan.warnings.push(say!(
                    self.quiet,
                    "{} takes {} writes to different documents that are not atomic",
                    model.operation(op).name,
                    writes
                ));
            }
        }
        plan.cost.rescore(self.c());
        plan
    }

    /// `plan`, with the words of steps and warnings mended for reading.
    pub fn plan_for_report(&self, op: OperationId) -> OpPlan {
        let mut plan = self.plan(op);
        let names: Vec<&str> = self
            .facts
            .model
            .entities
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        for s in &mut plan.steps {
            s.purpose = words::mend_plurals(&s.purpose, &names);
        }
        for w in &mut plan.warnings {
            *w = words::mend_plurals(w, &names);
        }
        plan
    }

    fn plan_alone(&self, op_id: OperationId) -> OpPlan {
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
            } => {
                let purpose = say!(self.quiet, "find {}", self.name(*entity));
                let (m, step) = self.find(
                    &mut plan, op_id, *entity, filter, sort, *limit, fields, purpose,
                );
                self.includes(&mut plan, op_id, *entity, m, step, include);
                for agg in aggregates {
                    // Over a window the read fetches anyway: computed from it.
                    let windowed = include
                        .iter()
                        .any(|i| i.relationship == agg.relationship && !i.filter.is_empty());
                    if !windowed {
                        self.aggregate(&mut plan, op_id, *entity, m, agg);
                    }
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
            } => self.update(&mut plan, op_id, *entity, filter, changes, relinks, *multi),
            OperationKind::Delete { entity, filter } => {
                self.delete(&mut plan, op_id, *entity, filter)
            }
        }
        plan
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        mut step: Step,
        cost: StepCost,
        index: Option<IndexUse>,
    ) -> usize {
        plan.cost.round_trips += 1.0;
        plan.cost.index_keys_examined += cost.keys;
        plan.cost.documents_examined += cost.docs;
        plan.cost.bytes_read += cost.bytes_read;
        plan.cost.documents_written += cost.docs_written;
        plan.cost.bytes_written += cost.bytes_written;
        plan.cost.sync_writes += cost.sync;
        if let Some((keys, entity, entries)) = index {
            if keys.len() == 1 && keys[0].0 == "_id" {
                step.index = Some("_id_".to_string());
            } else if !keys.is_empty() {
                let writes = self.facts.entity_writes[entity.index()]
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
                let upkeep = crate::costs::index_score(entries, writes, keys.len() as f64, c);
                // (Writes that find their documents through another field always get one.)
                if step.action == Action::Find && rate * scan_extra < upkeep {
                    plan.cost.documents_examined += acc.docs - cost.docs;
                    plan.cost.bytes_read += acc.docs * acc.root_bytes - cost.bytes_read;
                    plan.cost.index_keys_examined -= cost.keys;
                    step.index = None;
                } else {
                    // An index and its full reversal are the same index.
                    let keys: Vec<(String, i32)> = if keys[0].1 < 0 {
                        keys.into_iter().map(|(k, d)| (k, -d)).collect()
                    } else {
                        keys
                    };
                    // The name is for reports only; the quiet search skips the formatting.
                    step.index = Some(if self.quiet {
                        String::new()
                    } else {
                        index_name(&keys)
                    });
                    plan.indexes.push(IndexNeed {
                        collection: step.collection.clone(),
                        keys,
                        entries,
                        writes,
                        operation: op,
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

    fn step(collection: &str, action: Action, purpose: String) -> Step {
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
            purpose,
            copy_of: None,
        }
    }

    /// Estimated instances of `e` a filter matches.
    fn matched(&self, e: EntityId, filter: &[Filter], limit: Option<u64>) -> f64 {
        let f = self.facts;
        let entity = f.model.entity(e);
        let mut est = f.count(e);
        for c in filter {
            let sel = if c.path.len() == 1 && c.path[0] == "_id" {
                1.0 / f.count(e)
            } else if let Some((r, field)) = f.resolve_related(e, &c.path) {
                let rel = f.model.relationship(r);
                let other = if rel.child == e {
                    rel.parent
                } else {
                    rel.child
                };
                let per = if rel.child == e {
                    f.typical_parents(r)
                } else {
                    f.typical(r)
                };
                if field == "_id" {
                    (per / f.count(other)).min(1.0)
                } else {
                    let d = f
                        .model
                        .entity(other)
                        .field(&field)
                        .and_then(|x| x.distinct)
                        .map_or(f.count(other), |d| d.max(1) as f64);
                    1.0 / d
                }
            } else {
                let d = c
                    .path
                    .first()
                    .and_then(|p| entity.field(p))
                    .and_then(|x| x.distinct)
                    .map_or(f.count(e), |d| d.max(1) as f64);
                match c.op {
                    FilterOp::Eq => 1.0 / d,
                    FilterOp::In => (5.0 / d).min(1.0),
                    FilterOp::Range => 0.25,
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

    /// Finds instances of `e`; returns how many and the step number.
    #[allow(clippy::too_many_arguments)]
    fn find(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
        sort: &[SortKey],
        limit: Option<u64>,
        fields: &[String],
        purpose: String,
    ) -> (f64, usize) {
        let acc = self.access(e);
        let mut eq: Vec<(String, FilterOp, ValueSource)> = Vec::new();
        let mut range: Vec<(String, FilterOp, ValueSource)> = Vec::new();
        for c in filter {
            let (path, from) = self.filter_path(plan, op, e, &acc, c);
            if c.op == FilterOp::Range {
                range.push((path, c.op, from));
            } else {
                eq.push((path, c.op, from));
            }
        }
        let m = self.matched(e, filter, limit);
        let by_id = eq.iter().any(|(p, _, _)| *p == acc.path("_id")) && acc.prefix.is_empty();
        let mut keys: Vec<(String, i32)> = Vec::new();
        if let Some(kind) = &acc.kind
            && !by_id
        {
            eq.insert(
                0,
                (
                    "kind".to_string(),
                    FilterOp::Eq,
                    ValueSource::Literal {
                        value: kind.clone(),
                    },
                ),
            );
        }
        if by_id {
            keys.push(("_id".to_string(), 1));
        } else {
            for (p, _, _) in &eq {
                keys.push((p.clone(), 1));
            }
            for s in sort {
                keys.push((acc.path(&s.field), if s.descending { -1 } else { 1 }));
            }
            for (p, _, _) in &range {
                if !keys.iter().any(|(k, _)| k == p) {
                    keys.push((p.clone(), 1));
                }
            }
        }
        let scan = keys.is_empty();
        // Embedded instances found by their own fields (items of a category
        // inside their sellers) lie in different parents: about one parent
        // document each. Only a filter on the holder's id groups them.
        let inside = format!("{}.", acc.prefix);
        let grouped = eq
            .iter()
            .any(|(p, _, _)| !p.starts_with(&inside) && (p == "_id" || p.ends_with("._id")));
        let roots = if acc.prefix.is_empty() {
            m
        } else if grouped {
            (m / acc.per_root.max(1.0)).ceil().max(1.0).min(acc.docs)
        } else {
            let r = acc.docs.max(1.0);
            (r * (1.0 - (1.0 - 1.0 / r).powf(m))).ceil().max(1.0)
        };
        let examined = if scan { acc.docs } else { roots };
        let mut step = Self::step(&acc.collection, Action::Find, purpose);
        step.filter = eq
            .into_iter()
            .chain(range)
            .map(|(p, o, f)| filt(p, o, f))
            .collect();
        step.sort = sort
            .iter()
            .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
            .collect();
        step.limit = limit;
        step.projection = fields.iter().map(|f| acc.path(f)).collect();
        step.documents = m;
        let entries = if acc.prefix.is_empty() {
            acc.docs
        } else {
            acc.docs * acc.per_root
        };
        let cost = StepCost {
            keys: if scan { 0.0 } else { roots },
            docs: examined,
            bytes_read: examined * acc.root_bytes,
            ..StepCost::default()
        };
        let n = self.push(plan, op, step, cost, (!scan).then_some((keys, e, entries)));
        (m, n)
    }

    /// The path a filter condition tests in `e`'s documents, adding a step
    /// first when the condition is on a related entity that is not copied here.
    fn filter_path(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        acc: &Access,
        c: &Filter,
    ) -> (String, ValueSource) {
        let f = self.facts;
        let Some((r, field)) = f.resolve_related(e, &c.path) else {
            return (acc.path(&c.path.join(".")), ValueSource::Param);
        };
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        if rel.child == e {
            // e's parent's field.
            match layout {
                Layout::Embed if self.p.root(e) == self.p.root(rel.parent) => {
                    let host = self.access(rel.parent);
                    return (host.path(&field), ValueSource::Param);
                }
                Layout::EmbedParentInChild => {
                    return (
                        acc.path(&format!("{}.{field}", rel.child_field)),
                        ValueSource::Param,
                    );
                }
                Layout::Bucket { .. } if field == "_id" => {
                    return (rel.child_field.clone(), ValueSource::Param);
                }
                Layout::ExtendedReference {
                    copies_into: Side::Child,
                    fields,
                } if field == "_id" || fields.contains(&field) => {
                    return (
                        acc.path(&format!("{}.{field}", rel.child_field)),
                        ValueSource::Param,
                    );
                }
                _ => {}
            }
            if field == "_id"
                && let Some(p) = parent_ref_path(layout, &rel.child_field)
            {
                return (acc.path(&p), ValueSource::Param);
            }
            // A step on the parent first.
            let pf = Filter {
                path: vec![field.clone()],
                op: c.op,
            };
            let purpose = say!(
                self.quiet,
                "find the {}s whose {field} matches",
                self.name(rel.parent)
            );
            let (_, n) = if field == "_id" {
                let purpose = say!(
                    self.quiet,
                    "read the {} to get its {} ids",
                    self.name(rel.parent),
                    rel.parent_field
                );
                self.find(plan, op, rel.parent, &[pf], &[], None, &[], purpose)
            } else {
                self.find(
                    plan,
                    op,
                    rel.parent,
                    &[pf],
                    &[],
                    None,
                    &["_id".to_string()],
                    purpose,
                )
            };
            let from = ValueSource::FromStep { step: n };
            match parent_ref_path(layout, &rel.child_field) {
                Some(p) => (acc.path(&p), from),
                None => (acc.path("_id"), from),
            }
        } else {
            // e's children's field.
            if field == "_id"
                && let Some(p) = child_ids_path(layout, &rel.parent_field)
            {
                return (acc.path(&p), ValueSource::Param);
            }
            match layout {
                Layout::Embed => (
                    acc.path(&format!("{}.{field}", rel.parent_field)),
                    ValueSource::Param,
                ),
                _ => {
                    let cf = Filter {
                        path: vec![field.clone()],
                        op: c.op,
                    };
                    let purpose = say!(
                        self.quiet,
                        "find the {}s whose {field} matches",
                        self.name(rel.child)
                    );
                    let (_, n) = self.find(plan, op, rel.child, &[cf], &[], None, &[], purpose);
                    let from = ValueSource::FromStep { step: n };
                    match child_ids_path(layout, &rel.parent_field) {
                        Some(p) => (acc.path(&p), from),
                        None => (acc.path("_id"), from),
                    }
                }
            }
        }
    }

    fn includes(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        from: EntityId,
        m: f64,
        from_step: usize,
        includes: &[Include],
    ) {
        // Polymorphic: includes of children kept in one collection become one query.
        let mut merged: Vec<usize> = Vec::new();
        for (i, inc) in includes.iter().enumerate() {
            if merged.contains(&i) || !inc.to_children {
                continue;
            }
            let child = self.facts.model.relationship(inc.relationship).child;
            let Some(group) = self.p.poly[child.index()] else {
                continue;
            };
            let members: Vec<usize> = includes
                .iter()
                .enumerate()
                .filter(|(_, x)| {
                    x.to_children
                        && self.p.poly[self.facts.model.relationship(x.relationship).child.index()]
                            == Some(group)
                        && parent_ref_path(self.layout(x.relationship), "").is_some()
                })
                .map(|(j, _)| j)
                .collect();
            if members.len() < 2 || !members.contains(&i) {
                continue;
            }
            let acc = self.access(child);
            let mut step = Self::step(
                &acc.collection,
                Action::Find,
                say!(
                    self.quiet,
                    "{}s of every kind in one query",
                    if let Some(EntityCandidate::Polymorphic { collection, .. }) =
                        self.space.entity.get(group)
                    {
                        collection.as_str()
                    } else {
                        ""
                    }
                ),
            );
            let mut total = 0.0;
            let mut keys = Vec::new();
            for &j in &members {
                let x = &includes[j];
                let rel = self.facts.model.relationship(x.relationship);
                let path = parent_ref_path(self.layout(x.relationship), &rel.child_field)
                    .unwrap_or_default();
                if !step.filter.iter().any(|f| f.path == path) {
                    step.filter.push(filt(
                        path.clone(),
                        FilterOp::In,
                        ValueSource::FromStep { step: from_step },
                    ));
                    keys.push((path, 1));
                }
                let n = self
                    .facts
                    .typical(x.relationship)
                    .min(x.limit.map_or(f64::MAX, |l| l as f64));
                total += m * n;
            }
            keys.truncate(1);
            // One order for every kind (a feed newest first): the index serves it.
            let first = &includes[members[0]].sort;
            let same = |a: &crate::model::SortKey, b: &crate::model::SortKey| {
                a.field == b.field && a.descending == b.descending
            };
            if !first.is_empty()
                && members.iter().all(|&j| {
                    let s = &includes[j].sort;
                    s.len() == first.len() && s.iter().zip(first).all(|(a, b)| same(a, b))
                })
            {
                for s in first {
                    let k = (acc.path(&s.field), if s.descending { -1 } else { 1 });
                    step.sort.push(k.clone());
                    keys.push(k);
                }
            }
            step.documents = total;
            let cost = StepCost {
                keys: total,
                docs: total,
                bytes_read: total * acc.root_bytes,
                ..StepCost::default()
            };
            let entries = acc.docs;
            let n = self.push(plan, op, step, cost, Some((keys, child, entries)));
            for &j in &members {
                let x = &includes[j];
                let c = self.facts.model.relationship(x.relationship).child;
                let k = m * self.facts.typical(x.relationship);
                self.includes(plan, op, c, k, n, &x.include);
            }
            merged.extend(members);
        }
        for (i, inc) in includes.iter().enumerate() {
            if merged.contains(&i) {
                continue;
            }
            self.include(plan, op, from, m, from_step, inc);
        }
    }

    fn include(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        from: EntityId,
        m: f64,
        from_step: usize,
        inc: &Include,
    ) {
        let f = self.facts;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        let target = if inc.to_children {
            rel.child
        } else {
            rel.parent
        };
        let each = if inc.to_children {
            f.typical(r)
        } else {
            f.typical_parents(r)
        };
        let wanted = inc.limit.map_or(each, |l| each.min(l as f64));
        let returned = (m * wanted).min(f.count(target).max(m));
        let covered_fields = |fields: &Vec<String>| {
            !inc.fields.is_empty() && inc.fields.iter().all(|x| x == "_id" || fields.contains(x))
        };
        // Only the other side's ids: the reference kept here answers it.
        let ids_only = !inc.fields.is_empty()
            && inc.fields.iter().all(|x| x == "_id")
            && inc.filter.is_empty()
            && inc.sort.is_empty()
            && inc.limit.is_none();
        let here = ValueSource::FromStep { step: from_step };
        let (free, by_id_path, by_ref_path): (bool, Option<String>, Option<String>) =
            if inc.to_children {
                match layout {
                    Layout::Embed => (true, None, None),
                    Layout::Subset {
                        k,
                        fields,
                        sort_field,
                    } => {
                        let order = match (inc.sort.first(), sort_field) {
                            (None, _) => true,
                            (Some(s), Some(f)) => s.descending && s.field == *f,
                            (Some(_), None) => false,
                        };
                        let fits = order
                            && inc.filter.is_empty()
                            && (inc.limit.is_some_and(|l| l <= *k) || f.typical(r) <= *k as f64);
                        let has = fields.is_empty() || covered_fields(fields);
                        (fits && has, None, Some(rel.child_field.clone()))
                    }
                    Layout::ExtendedReference {
                        copies_into: Side::Parent,
                        fields,
                    } => (covered_fields(fields), Some("_id".to_string()), None),
                    Layout::Bucket { .. } => (false, None, None),
                    Layout::EmbedParentInChild => {
                        (false, None, Some(format!("{}._id", rel.child_field)))
                    }
                    l => (
                        ids_only && child_ids_path(l, &rel.parent_field).is_some(),
                        child_ids_path(l, &rel.parent_field).map(|_| "_id".to_string()),
                        parent_ref_path(l, &rel.child_field),
                    ),
                }
            } else {
                match layout {
                    Layout::Embed | Layout::EmbedParentInChild => (true, None, None),
                    Layout::ExtendedReference {
                        copies_into: Side::Child,
                        fields,
                    } => (covered_fields(fields), Some("_id".to_string()), None),
                    Layout::Bucket { .. } => (false, Some("_id".to_string()), None),
                    l => (
                        ids_only && parent_ref_path(l, &rel.child_field).is_some(),
                        parent_ref_path(l, &rel.child_field).map(|_| "_id".to_string()),
                        child_ids_path(l, &rel.parent_field),
                    ),
                }
            };
        if free {
            self.includes(plan, op, target, returned, from_step, &inc.include);
            return;
        }
        let acc = self.access(target);
        if let (true, Layout::Bucket { per_bucket, by, .. }) = (inc.to_children, layout) {
            let per = (*per_bucket as f64).min(f.typical(r)).max(1.0);
            // Newest-first or windowed reads of count buckets straddle one more bucket.
            let straddle = matches!(by, BucketBy::Count)
                && (inc.sort.first().is_some_and(|s| s.descending) || !inc.filter.is_empty());
            let buckets = m * ((wanted / per).ceil().max(1.0) + if straddle { 1.0 } else { 0.0 });
            let mut step = Self::step(
                &acc.collection,
                Action::Find,
                say!(
                    self.quiet,
                    "read the {} buckets of each {}",
                    rel.parent_field,
                    self.name(from)
                ),
            );
            step.filter
                .push(filt(rel.child_field.clone(), FilterOp::In, here));
            let key = match by {
                BucketBy::Count => "page".to_string(),
                BucketBy::Time { unit, .. } => unit.clone(),
            };
            step.sort.push((key.clone(), -1));
            step.limit = inc.limit.map(|l| ((l as f64) / per).ceil() as u64);
            step.documents = buckets;
            let cost = StepCost {
                keys: buckets,
                docs: buckets,
                bytes_read: buckets * acc.root_bytes,
                ..StepCost::default()
            };
            let n = self.push(
                plan,
                op,
                step,
                cost,
                Some((
                    vec![(rel.child_field.clone(), 1), (key, -1)],
                    target,
                    acc.docs,
                )),
            );
            self.includes(plan, op, target, returned, n, &inc.include);
            return;
        }
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            say!(
                self.quiet,
                "application-level join: the {} of each {} through {}",
                if inc.to_children {
                    format!("{}s", self.name(target))
                } else {
                    self.name(target).to_string()
                },
                self.name(from),
                rel.name
            ),
        );
        let (path, keys, examined) = if let Some(p) = by_id_path {
            // Fetch by the ids at hand.
            let p = acc.path(&p);
            let examined = m * each;
            (
                p.clone(),
                vec![(p, 1)],
                examined.min(f.count(target).max(1.0)),
            )
        } else if let Some(p) = by_ref_path {
            let p = acc.path(&p);
            let mut keys = vec![(p.clone(), 1)];
            for s in &inc.sort {
                keys.push((acc.path(&s.field), if s.descending { -1 } else { 1 }));
            }
            (p, keys, m * wanted)
        } else {
            let p = acc.path("_id");
            (p.clone(), vec![(p, 1)], m * each)
        };
        let by_root_id = path == "_id";
        step.filter.push(filt(path, FilterOp::In, here));
        step.sort = inc
            .sort
            .iter()
            .map(|s| (acc.path(&s.field), if s.descending { -1 } else { 1 }))
            .collect();
        step.limit = inc.limit.map(|l| (l as f64 * m).ceil() as u64);
        step.projection = inc.fields.iter().map(|x| acc.path(x)).collect();
        step.documents = returned;
        let roots = if acc.prefix.is_empty() {
            examined
        } else {
            (examined / acc.per_root.max(1.0)).ceil().max(1.0)
        };
        let cost = StepCost {
            keys: examined,
            docs: roots,
            bytes_read: roots * acc.root_bytes,
            ..StepCost::default()
        };
        let entries = if acc.prefix.is_empty() && !keys[0].0.contains('.') && by_root_id {
            acc.docs
        } else {
            // A multikey or nested index: one entry per element.
            acc.docs * acc.per_root.max(1.0) * if inc.to_children { 1.0 } else { f.typical(r) }
        };
        let n = self.push(plan, op, step, cost, Some((keys, target, entries)));
        self.includes(plan, op, target, returned, n, &inc.include);
    }

    fn computed(
        &self,
        r: RelationshipId,
    ) -> impl Iterator<Item = (AggregateFn, Option<&'a String>, &'a String)> + '_ {
        self.p
            .computed
            .iter()
            .filter_map(move |&i| match &self.space.entity[i] {
                EntityCandidate::Computed {
                    relationship,
                    function,
                    field,
                    name,
                } if *relationship == r => Some((*function, field.as_ref(), name)),
                _ => None,
            })
    }

    fn aggregate(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        m: f64,
        agg: &crate::model::Aggregate,
    ) {
        let f = self.facts;
        let r = agg.relationship;
        if self
            .computed(r)
            .any(|(func, field, _)| func == agg.function && field == agg.field.as_ref())
        {
            return;
        }
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        let n = f.typical(r);
        let fname = crate::candidates::fn_name(agg.function);
        match layout {
            Layout::Embed => {}
            Layout::Subset { k, .. } if n <= *k as f64 => {}
            Layout::ChildReferences if agg.function == AggregateFn::Count => {}
            Layout::Bucket {
                per_bucket,
                aggregates,
                ..
            } => {
                let acc = self.access(rel.child);
                let buckets = m * (n / (*per_bucket as f64).max(1.0)).ceil().max(1.0);
                let stored = aggregates
                    .iter()
                    .any(|a| a.function == agg.function && a.field == agg.field);
                let mut step = Self::step(
                    &acc.collection,
                    Action::Find,
                    if stored {
                        say!(self.quiet, "add up the {fname} kept in each bucket")
                    } else {
                        say!(self.quiet, "compute the {fname} over the buckets' items")
                    },
                );
                step.filter.push(filt(
                    rel.child_field.clone(),
                    FilterOp::In,
                    ValueSource::Param,
                ));
                step.documents = buckets;
                let cost = StepCost {
                    keys: buckets + if stored { 0.0 } else { m * n },
                    docs: buckets,
                    bytes_read: buckets * acc.root_bytes,
                    ..StepCost::default()
                };
                self.push(
                    plan,
                    op,
                    step,
                    cost,
                    Some((vec![(rel.child_field.clone(), 1)], rel.child, acc.docs)),
                );
            }
            l => {
                let acc = self.access(rel.child);
                let path =
                    parent_ref_path(l, &rel.child_field).unwrap_or_else(|| "_id".to_string());
                let mut step = Self::step(
                    &acc.collection,
                    Action::Find,
                    say!(
                        self.quiet,
                        "compute the {fname} of the {}s of each {} (aggregation)",
                        self.name(rel.child),
                        self.name(e)
                    ),
                );
                step.filter
                    .push(filt(acc.path(&path), FilterOp::In, ValueSource::Param));
                if let Some(x) = &agg.field {
                    step.projection.push(acc.path(x));
                }
                let total = m * n;
                step.documents = total;
                let covered = agg.function == AggregateFn::Count;
                let roots = (total / acc.per_root.max(1.0)).ceil();
                let cost = StepCost {
                    keys: total,
                    docs: if covered { 0.0 } else { roots },
                    bytes_read: if covered { 0.0 } else { roots * acc.root_bytes },
                    ..StepCost::default()
                };
                self.push(
                    plan,
                    op,
                    step,
                    cost,
                    Some((vec![(acc.path(&path), 1)], rel.child, acc.docs)),
                );
            }
        }
    }

    /// An update of one root document (or `docs` of them) that holds `e`.
    #[allow(clippy::too_many_arguments)]
    fn write_root(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        action: Action,
        filter: Vec<StepFilter>,
        updates: Vec<UpdateOp>,
        docs: f64,
        sync: f64,
        purpose: String,
    ) -> usize {
        let acc = self.access(e);
        let mut step = Self::step(&acc.collection, action, purpose);
        let key = filter.first().map(|x| x.path.clone());
        step.filter = filter;
        step.updates = updates;
        step.documents = docs;
        let written = match action {
            Action::InsertOne | Action::InsertMany => {
                docs * self.p.typical[acc.root.index()].min(acc.root_bytes)
            }
            Action::DeleteOne | Action::DeleteMany => docs * 64.0,
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
        };
        Self::target(plan, acc.root, docs > 1.0 || action == Action::UpdateMany);
        let index = key.map(|k| {
            let entries = if k == "_id" {
                acc.docs
            } else {
                acc.docs * acc.per_root.max(1.0)
            };
            (vec![(k, 1)], acc.root, entries)
        });
        self.push(plan, op, step, cost, index)
    }

    /// Filter that picks the one root document holding instance `e` (by its id).
    fn id_filter(&self, e: EntityId, from: ValueSource) -> Vec<StepFilter> {
        let acc = self.access(e);
        vec![filt(acc.path("_id"), FilterOp::Eq, from)]
    }

    fn insert(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        links: &[RelationshipId],
        count: f64,
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let names = if self.quiet {
            String::new()
        } else {
            words::plural(&name)
        };
        let many = if count > 1.0 {
            Action::InsertMany
        } else {
            Action::InsertOne
        };
        let mut parent_updates: Vec<(EntityId, Vec<UpdateOp>, String)> = Vec::new();
        let add_update =
            |parent: EntityId,
             u: UpdateOp,
             why: String,
             list: &mut Vec<(EntityId, Vec<UpdateOp>, String)>| {
                if let Some(x) = list.iter_mut().find(|x| x.0 == parent) {
                    x.1.push(u);
                    x.2 = format!("{}; {why}", x.2);
                } else {
                    list.push((parent, vec![u], why));
                }
            };
        match f
            .model
            .entity_ids()
            .nth(e.index())
            .map(|x| self.p.home[x.index()])
        {
            Some(Home::Embedded { rel, host, array }) => {
                let r = f.model.relationship(rel);
                if r.child == e {
                    let path = acc.prefix.clone();
                    let u = if array {
                        UpdateOp::Push {
                            path,
                            sort: None,
                            slice: None,
                        }
                    } else {
                        UpdateOp::Set { path }
                    };
                    add_update(
                        host,
                        u,
                        say!(self.quiet, "add the {name} inside its {}", self.name(host)),
                        &mut parent_updates,
                    );
                } else {
                    // A parent folded into its child: written with the child.
                    let step_f = vec![filt(acc.path("_id"), FilterOp::Eq, ValueSource::Param)];
                    self.write_root(
                        plan,
                        op,
                        e,
                        Action::UpdateMany,
                        step_f,
                        vec![UpdateOp::Set {
                            path: acc.prefix.clone(),
                        }],
                        f.typical(rel),
                        f.typical(rel) - 1.0,
                        say!(
                            self.quiet,
                            "write the {name} into each of its {}s",
                            self.name(host)
                        ),
                    );
                }
            }
            Some(Home::Bucketed { rel }) => {
                let r = f.model.relationship(rel);
                let Layout::Bucket {
                    by,
                    per_bucket,
                    aggregates,
                } = self.layout(rel)
                else {
                    return;
                };
                let mut updates = vec![
                    UpdateOp::Push {
                        path: r.parent_field.clone(),
                        sort: None,
                        slice: None,
                    },
                    UpdateOp::Inc {
                        path: "count".to_string(),
                    },
                ];
                for a in aggregates {
                    let field = a.field.clone().unwrap_or_default();
                    match a.function {
                        AggregateFn::Count => {}
                        AggregateFn::Sum | AggregateFn::Avg => updates.push(UpdateOp::Inc {
                            path: format!("sum_{field}"),
                        }),
                        AggregateFn::Min => updates.push(UpdateOp::Min {
                            path: format!("min_{field}"),
                        }),
                        AggregateFn::Max => updates.push(UpdateOp::Max {
                            path: format!("max_{field}"),
                        }),
                    }
                }
                let mut filter = vec![filt(
                    r.child_field.clone(),
                    FilterOp::Eq,
                    ValueSource::Param,
                )];
                match by {
                    BucketBy::Count => filter.push(filt(
                        "count",
                        FilterOp::Range,
                        ValueSource::Below { limit: *per_bucket },
                    )),
                    BucketBy::Time { field, unit } => filter.push(filt(
                        unit.clone(),
                        FilterOp::Eq,
                        ValueSource::Truncated {
                            field: field.clone(),
                            unit: unit.clone(),
                        },
                    )),
                }
                let mut step = Self::step(
                    &acc.collection,
                    Action::Upsert,
                    say!(
                        self.quiet,
                        "add the {name} to the open bucket of its {}",
                        self.name(r.parent)
                    ),
                );
                step.filter = filter;
                step.updates = updates;
                step.documents = count;
                let half = self.p.bucket_bytes(f, rel) / 2.0;
                let cost = StepCost {
                    keys: count,
                    docs: count,
                    docs_written: count,
                    bytes_written: count * half,
                    ..StepCost::default()
                };
                Self::target(plan, e, false);
                self.push(
                    plan,
                    op,
                    step,
                    cost,
                    Some((
                        vec![
                            (r.child_field.clone(), 1),
                            (
                                match by {
                                    BucketBy::Count => "count".to_string(),
                                    BucketBy::Time { unit, .. } => unit.clone(),
                                },
                                1,
                            ),
                        ],
                        e,
                        acc.docs,
                    )),
                );
            }
            _ => {
                let mut step =
                    Self::step(&acc.collection, many, say!(self.quiet, "insert the {name}"));
                step.documents = count;
                let cost = StepCost {
                    docs_written: count,
                    bytes_written: count * self.p.typical[e.index()],
                    ..StepCost::default()
                };
                Self::target(plan, e, count > 1.0);
                self.push(plan, op, step, cost, None);
            }
        }
        for &r in links {
            let rel = f.model.relationship(r);
            if rel.child != e {
                continue;
            }
            let layout = self.layout(r);
            let parent = rel.parent;
            match layout {
                Layout::ChildReferences
                | Layout::TwoWayReferences
                | Layout::ManyToManyTwoWay
                | Layout::ManyToManyOneWay {
                    ids_in: Side::Parent,
                } => {
                    add_update(
                        parent,
                        UpdateOp::Push {
                            path: self.access(parent).path(&rel.parent_field),
                            sort: None,
                            slice: None,
                        },
                        say!(
                            self.quiet,
                            "add the {name}'s id to its {}",
                            self.name(parent)
                        ),
                        &mut parent_updates,
                    );
                }
                Layout::ExtendedReference {
                    copies_into: Side::Parent,
                    fields,
                } => {
                    add_update(
                        parent,
                        UpdateOp::Push {
                            path: self.access(parent).path(&rel.parent_field),
                            sort: None,
                            slice: None,
                        },
                        say!(
                            self.quiet,
                            "add the {name}'s id and {} to its {}",
                            fields.join(", "),
                            self.name(parent)
                        ),
                        &mut parent_updates,
                    );
                }
                Layout::Subset { k, sort_field, .. } => {
                    add_update(
                        parent,
                        UpdateOp::Push {
                            path: self.access(parent).path(&rel.parent_field),
                            sort: sort_field.clone().map(|s| (s, -1)),
                            slice: Some(-(*k as i64)),
                        },
                        say!(
                            self.quiet,
                            "keep the latest {k} {names} in the {}",
                            self.name(parent)
                        ),
                        &mut parent_updates,
                    );
                }
                _ => {}
            }
            for (func, field, cname) in self.computed(r) {
                let path = self.access(parent).path(cname);
                let u = match func {
                    AggregateFn::Min => UpdateOp::Min { path },
                    AggregateFn::Max => UpdateOp::Max { path },
                    _ => UpdateOp::Inc { path },
                };
                let what = field.map_or_else(
                    || "count".to_string(),
                    |x| format!("{} of {x}", crate::candidates::fn_name(func)),
                );
                add_update(
                    parent,
                    u,
                    say!(
                        self.quiet,
                        "keep the {what} of {}s in the {}",
                        name,
                        self.name(parent)
                    ),
                    &mut parent_updates,
                );
            }
        }
        for (parent, updates, why) in parent_updates {
            let filter = self.id_filter(parent, ValueSource::Param);
            self.write_root(
                plan,
                op,
                parent,
                Action::UpdateOne,
                filter,
                updates,
                1.0,
                0.0,
                why,
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn update(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
        changes: &[String],
        relinks: &[RelationshipId],
        multi: bool,
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let names = if self.quiet {
            String::new()
        } else {
            words::plural(&name)
        };
        let by_id = filter.is_empty()
            || filter
                .iter()
                .any(|c| c.path.len() == 1 && c.path[0] == "_id");
        let m = if multi {
            self.matched(e, filter, None)
        } else {
            1.0
        };
        let mut step_filter = if by_id {
            vec![filt(acc.path("_id"), FilterOp::Eq, ValueSource::Param)]
        } else {
            let (_, n) = self.find(
                plan,
                op,
                e,
                filter,
                &[],
                if multi { None } else { Some(1) },
                &["_id".to_string()],
                say!(self.quiet, "find the {names} to update"),
            );
            vec![filt(
                acc.path("_id"),
                FilterOp::In,
                ValueSource::FromStep { step: n },
            )]
        };
        let elem = if acc.per_root > 1.0 {
            format!("{}.$", acc.prefix)
        } else {
            acc.prefix.clone()
        };
        let at = |field: &str| {
            if elem.is_empty() {
                field.to_string()
            } else {
                format!("{elem}.{field}")
            }
        };
        let mut updates: Vec<UpdateOp> = changes
            .iter()
            .map(|c| UpdateOp::Set { path: at(c) })
            .collect();
        let mut extra: Vec<ExtraWrite> = Vec::new();
        let mut nonatomic = 0usize;
        for &r in relinks {
            let rel = f.model.relationship(r);
            if rel.child != e {
                continue;
            }
            let parent = rel.parent;
            let pacc = self.access(parent);
            let pname = self.name(parent).to_string();
            let layout = self.layout(r);
            if let Some(p) = parent_ref_path(layout, &rel.child_field) {
                updates.push(UpdateOp::Set { path: at(&p) });
            }
            let moves = matches!(layout, Layout::Embed | Layout::Bucket { .. });
            if child_ids_path(layout, &rel.parent_field).is_some()
                || matches!(layout, Layout::Subset { .. })
                || moves
            {
                let path = pacc.path(&rel.parent_field);
                extra.push((
                    parent,
                    Action::UpdateOne,
                    vec![filt(
                        pacc.path("_id"),
                        FilterOp::Eq,
                        ValueSource::Old {
                            field: rel.child_field.clone(),
                        },
                    )],
                    vec![UpdateOp::Pull { path: path.clone() }],
                    1.0,
                    0.0,
                    say!(self.quiet, "remove the {name} from its old {pname}"),
                    None,
                ));
                extra.push((
                    parent,
                    Action::UpdateOne,
                    vec![filt(
                        pacc.path("_id"),
                        FilterOp::Eq,
                        ValueSource::New {
                            field: rel.child_field.clone(),
                        },
                    )],
                    vec![UpdateOp::Push {
                        path,
                        sort: None,
                        slice: None,
                    }],
                    1.0,
                    0.0,
                    say!(self.quiet, "add the {name} to its new {pname}"),
                    None,
                ));
                nonatomic += 2;
            }
        }
        // Copies of the changed fields elsewhere, and computed fields.
        for r in f.rels_to[e.index()].iter().copied() {
            let rel = f.model.relationship(r);
            let layout = self.layout(r);
            let copied: Vec<&String> = match layout {
                Layout::ExtendedReference {
                    copies_into: Side::Parent,
                    fields,
                } => changes.iter().filter(|c| fields.contains(c)).collect(),
                Layout::Subset { fields, .. } => changes
                    .iter()
                    .filter(|c| fields.is_empty() || fields.contains(c))
                    .collect(),
                _ => Vec::new(),
            };
            if !copied.is_empty() {
                let pacc = self.access(rel.parent);
                let holders = f.typical_parents(r) * m;
                extra.push((
                    rel.parent,
                    Action::UpdateMany,
                    vec![filt(
                        pacc.path(&format!("{}._id", rel.parent_field)),
                        FilterOp::Eq,
                        ValueSource::Param,
                    )],
                    copied
                        .iter()
                        .map(|c| UpdateOp::Set {
                            path: pacc.path(&format!("{}.$.{c}", rel.parent_field)),
                        })
                        .collect(),
                    holders,
                    holders,
                    self.refresh_purpose(&name, &copied, holders, rel.parent),
                    Some(name.clone()),
                ));
            }
            for (func, field, cname) in self.computed(r) {
                if let Some(x) = field
                    && changes.contains(x)
                {
                    let pacc = self.access(rel.parent);
                    let u = match func {
                        AggregateFn::Min => UpdateOp::Min {
                            path: pacc.path(cname),
                        },
                        AggregateFn::Max => UpdateOp::Max {
                            path: pacc.path(cname),
                        },
                        _ => UpdateOp::Inc {
                            path: pacc.path(cname),
                        },
                    };
                    extra.push((
                        rel.parent,
                        Action::UpdateOne,
                        vec![filt(pacc.path("_id"), FilterOp::Eq, ValueSource::Param)],
                        vec![u],
                        m,
                        0.0,
                        say!(
                            self.quiet,
                            "keep {cname} of the {} in step",
                            self.name(rel.parent)
                        ),
                        None,
                    ));
                }
            }
        }
        for r in f.rels_from[e.index()].iter().copied() {
            let rel = f.model.relationship(r);
            if let Layout::ExtendedReference {
                copies_into: Side::Child,
                fields,
            } = self.layout(r)
            {
                let copied: Vec<&String> = changes.iter().filter(|c| fields.contains(c)).collect();
                if !copied.is_empty() {
                    let cacc = self.access(rel.child);
                    let holders = f.typical(r) * m;
                    // A copied field that identifies the parent finds the copies
                    // through the index the reads already use.
                    let parent = f.model.entity(e);
                    let key = fields
                        .iter()
                        .find(|x| {
                            parent
                                .field(x)
                                .and_then(|fd| fd.distinct)
                                .is_some_and(|d| d >= parent.count && parent.count > 0)
                        })
                        .map_or("_id", String::as_str);
                    extra.push((
                        rel.child,
                        Action::UpdateMany,
                        vec![filt(
                            cacc.path(&format!("{}.{key}", rel.child_field)),
                            FilterOp::Eq,
                            if key == "_id" {
                                ValueSource::Param
                            } else {
                                ValueSource::Old {
                                    field: key.to_string(),
                                }
                            },
                        )],
                        copied
                            .iter()
                            .map(|c| UpdateOp::Set {
                                path: cacc.path(&format!("{}.{c}", rel.child_field)),
                            })
                            .collect(),
                        holders,
                        holders,
                        self.refresh_purpose(&name, &copied, holders, rel.child),
                        Some(name.clone()),
                    ));
                }
            }
        }
        // The entity itself (every copy of it when it is folded into its children).
        let (docs, sync) = match self.p.home[e.index()] {
            Home::Embedded {
                rel, array: false, ..
            } if f.model.relationship(rel).parent == e => {
                let n = f.typical(rel) * m;
                step_filter = vec![filt(acc.path("_id"), FilterOp::Eq, ValueSource::Param)];
                (n, n - m)
            }
            _ => (m, 0.0),
        };
        let action = if docs > 1.0 {
            Action::UpdateMany
        } else {
            Action::UpdateOne
        };
        if !updates.is_empty() {
            self.write_root(
                plan,
                op,
                e,
                action,
                step_filter,
                updates,
                docs,
                sync,
                say!(self.quiet, "update the {name}"),
            );
        }
        for (ent, action, filter, ups, docs, sync, why, copy_of) in extra {
            self.write_root(plan, op, ent, action, filter, ups, docs, sync, why);
            if let Some(step) = plan.steps.last_mut() {
                step.copy_of = copy_of;
            }
        }
        if nonatomic > 0
            && f.model
                .workload
                .atomic_groups
                .iter()
                .all(|g| !g.operations.contains(&op))
        {
            plan.warnings.push(say!(
                self.quiet,
                "re-pointing a {name} takes {} updates that are not atomic",
                nonatomic
                    + usize::from(
                        !changes.is_empty()
                            || relinks
                                .iter()
                                .any(|r| parent_ref_path(self.layout(*r), "").is_some())
                    )
            ));
        }
    }

    fn delete(&self, plan: &mut OpPlan, op: OperationId, e: EntityId, filter: &[Filter]) {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let names = if self.quiet {
            String::new()
        } else {
            words::plural(&name)
        };
        let by_id = filter.is_empty()
            || filter
                .iter()
                .any(|c| c.path.len() == 1 && c.path[0] == "_id");
        let m = if by_id {
            1.0
        } else {
            self.matched(e, filter, None)
        };
        let from = if by_id {
            ValueSource::Param
        } else {
            let (_, n) = self.find(
                plan,
                op,
                e,
                filter,
                &[],
                None,
                &["_id".to_string()],
                say!(self.quiet, "find the {names} to delete"),
            );
            ValueSource::FromStep { step: n }
        };
        match self.p.home[e.index()] {
            Home::Own => {
                let action = if m > 1.0 {
                    Action::DeleteMany
                } else {
                    Action::DeleteOne
                };
                self.write_root(
                    plan,
                    op,
                    e,
                    action,
                    vec![filt(
                        "_id",
                        if m > 1.0 { FilterOp::In } else { FilterOp::Eq },
                        from.clone(),
                    )],
                    Vec::new(),
                    m,
                    0.0,
                    say!(self.quiet, "delete the {name}"),
                );
            }
            _ => {
                let host_path = acc.prefix.clone();
                self.write_root(
                    plan,
                    op,
                    e,
                    Action::UpdateOne,
                    vec![filt(acc.path("_id"), FilterOp::Eq, from.clone())],
                    vec![UpdateOp::Pull { path: host_path }],
                    m,
                    0.0,
                    say!(self.quiet, "pull the {name} out of its document"),
                );
            }
        }
        for r in f.rels_to[e.index()].iter().copied() {
            let rel = f.model.relationship(r);
            let layout = self.layout(r);
            let mut ups = Vec::new();
            let pacc = self.access(rel.parent);
            if child_ids_path(layout, &rel.parent_field).is_some()
                || matches!(layout, Layout::Subset { .. })
            {
                ups.push(UpdateOp::Pull {
                    path: pacc.path(&rel.parent_field),
                });
            }
            for (func, _, cname) in self.computed(r) {
                if matches!(
                    func,
                    AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg
                ) {
                    ups.push(UpdateOp::Inc {
                        path: pacc.path(cname),
                    });
                }
            }
            if !ups.is_empty() {
                let holders = f.typical_parents(r) * m;
                let action = if holders > 1.0 {
                    Action::UpdateMany
                } else {
                    Action::UpdateOne
                };
                self.write_root(
                    plan,
                    op,
                    rel.parent,
                    action,
                    vec![filt(
                        pacc.path(&rel.parent_field),
                        FilterOp::Eq,
                        from.clone(),
                    )],
                    ups,
                    holders,
                    0.0,
                    say!(
                        self.quiet,
                        "remove the {name} from its {}",
                        self.name(rel.parent)
                    ),
                );
            }
        }
        let _ = RelationshipKind::OneToOne;
    }
}

/// "product" → "products" when `n` is not one.
fn plural(word: &str, n: f64) -> String {
    if (n - 1.0).abs() < 1e-9 || word.ends_with('s') {
        word.to_string()
    } else {
        format!("{word}s")
    }
}
