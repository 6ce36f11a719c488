//! An entity split by age (MongoDB's archive pattern): the instances younger
//! than a horizon stay in the entity's collection, older ones move to
//! `{entity}_archive` by a scheduled job. advise prices the model rewritten
//! this way against the model as written and keeps the cheaper: the
//! archive's indexes leave the working set (the `index-entry` cost), at the
//! price of the moves and of the reads that must look in both collections.

use super::{
    Age, Cardinality, Entity, EntityId, Filter, FilterOp, Include, Model, Operation, OperationKind,
    Relationship, RelationshipId,
};

/// Instances the archiving job moves per run: one batch found, inserted
/// into the archive and deleted from the live collection.
pub const ARCHIVE_BATCH: u64 = 1_000;

/// The name of one step's operation of the archiving job of `entity`
/// (`find`, `insert`, `delete`): `archive_order_find`.
pub fn archive_job_operation(entity: &str, step: &str) -> String {
    format!("archive_{entity}_{step}")
}

/// How `model` was split: the entity, its archive, the date field and the horizon.
#[derive(Debug, Clone, PartialEq)]
pub struct Archive {
    pub entity: EntityId,
    pub archive: EntityId,
    pub field: String,
    /// Instances younger than this many days stay live.
    pub days: f64,
    /// Instances moved to the archive a day (the entity's inserts).
    pub moved_per_day: f64,
    /// The operations that now run on both collections (none of their
    /// filters keeps to one side of the horizon).
    pub both: Vec<String>,
}

/// Which collection an operation's filter reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Live,
    Archive,
    Both,
}

/// The age horizon advise may split `entity` at: the longest `since` of
/// the reads that keep to recent instances, on one date field. `None` when
/// no read asks for recent instances, or ages test several fields.
pub fn archive_horizon(model: &Model, entity: EntityId) -> Option<(String, f64)> {
    let mut h = Horizon::default();
    read_filters(model, &mut |e, f| {
        if e == entity {
            h.note(f);
        }
    });
    h.found()
}

/// `archive_horizon` of every entity, from one pass over the reads (one
/// pass per entity was quadratic in the model, issue 45).
pub fn archive_horizons(model: &Model) -> Vec<Option<(String, f64)>> {
    let mut all = vec![Horizon::default(); model.entities.len()];
    read_filters(model, &mut |e, f| all[e.index()].note(f));
    all.into_iter().map(Horizon::found).collect()
}

/// One entity's horizon as its reads' filters are seen.
#[derive(Debug, Clone, Default)]
struct Horizon {
    found: Option<(String, f64)>,
    /// Ages on more than one field: no single horizon.
    mixed: bool,
}

impl Horizon {
    fn note(&mut self, f: &Filter) {
        // The life squill adds (`model::expiry`) is no age the reads ask.
        if let Some(age) = f.age.filter(|a| !a.older && !a.expiry) {
            match &mut self.found {
                None => self.found = Some((f.path[0].clone(), age.days)),
                Some((field, days)) if *field == f.path[0] => *days = days.max(age.days),
                Some(_) => self.mixed = true,
            }
        }
    }

    fn found(self) -> Option<(String, f64)> {
        self.found.filter(|_| !self.mixed)
    }
}

/// Every filter of every read, with the entity it tests: the read's own,
/// then its includes', depth first.
fn read_filters(model: &Model, note: &mut dyn FnMut(EntityId, &Filter)) {
    fn walk(model: &Model, list: &[Include], note: &mut dyn FnMut(EntityId, &Filter)) {
        for inc in list {
            let rel = model.relationship(inc.relationship);
            let target = if inc.to_children {
                rel.child
            } else {
                rel.parent
            };
            inc.filter.iter().for_each(|f| note(target, f));
            walk(model, &inc.include, note);
        }
    }
    for op in &model.workload.operations {
        if let OperationKind::Read {
            entity,
            filter,
            include,
            ..
        } = &op.kind
        {
            filter.iter().for_each(|f| note(*entity, f));
            walk(model, include, note);
        }
    }
}

/// `model` with `entity` split at `days` on `field`: the entity keeps its
/// young instances, `{entity}_archive` (appended, with a copy of each
/// relationship to a parent) the others; operations go to the side their
/// age filter keeps to, or to both; three operations of the archiving job
/// are appended. Every id of `model` stays valid. `None` when the split
/// cannot be said: the entity is a parent (its children would need
/// archives of their own), a figure or a filter reaches it from another
/// entity, nothing inserts it, or nothing would be old enough to move.
/// An entity that expires (`expires`) is split only when it expires
/// past the horizon, and then only the archive expires: the job moves
/// every instance out before its time, so a TTL index on the young ones
/// would delete nothing, and its deletes would be counted twice.
pub fn as_archive(
    model: &Model,
    entity: EntityId,
    field: &str,
    days: f64,
) -> Option<(Model, Archive)> {
    let e = model.entity(entity);
    let per_day = model.inserts_per_day(entity);
    let live = (days * per_day).round();
    if model.relationships_from(entity).next().is_some()
        || per_day <= 0.0
        || live >= e.count as f64
        || e.archive_of.is_some()
        || model
            .entity_by_name(&format!("{}_archive", e.name))
            .is_some()
        || e.expires
            .as_ref()
            .is_some_and(|x| x.seconds as f64 <= days * 86_400.0)
    {
        return None;
    }
    let ups: Vec<RelationshipId> = model.relationships_to(entity).collect();
    for op in &model.workload.operations {
        let reaches = |f: &Filter| {
            f.related
                .as_ref()
                .is_some_and(|r| ups.contains(&r.relationship) && op.entity_in(model) != entity)
        };
        match &op.kind {
            // A read over a family with the entity in it: the family's
            // query would need the archive as one more kind.
            OperationKind::Read {
                filter,
                aggregates,
                family,
                entity: first,
                ..
            } if filter.iter().any(reaches)
                || aggregates.iter().any(|a| ups.contains(&a.relationship))
                || (!family.is_empty() && (*first == entity || family.contains(&entity))) =>
            {
                return None;
            }
            OperationKind::Update { filter, .. } | OperationKind::Delete { filter, .. }
                if filter.iter().any(reaches) =>
            {
                return None;
            }
            OperationKind::Link { relationship, .. }
            | OperationKind::UpdateLink { relationship, .. }
                if ups.contains(relationship) =>
            {
                return None;
            }
            _ => {}
        }
    }
    let count = e.count as f64;
    let (live_share, old_share) = (live / count, 1.0 - live / count);
    let archive = EntityId::from_index(model.entities.len());
    let mut out = model.clone();
    out.entities[entity.index()].count = live.max(1.0) as u64;
    out.entities[entity.index()].expires = None;
    out.entities.push(Entity {
        name: format!("{}_archive", e.name),
        count: (count - live).max(1.0) as u64,
        description: Some(format!(
            "the {} older than {days} days, moved out of {} by a scheduled job",
            e.name, e.name
        )),
        archive_of: Some(entity),
        // The old instances lie where the young ones do, fewer of them.
        density: e.density.map(|d| crate::model::Density {
            typical: d.typical * old_share,
            max: d.max * old_share,
            densest_share: d.densest_share,
        }),
        ..e.clone()
    });
    // The archive's copy of each relationship to a parent.
    let mut twin: Vec<(RelationshipId, RelationshipId)> = Vec::new();
    for &r in &ups {
        let rel = model.relationship(r);
        let t = RelationshipId::from_index(out.relationships.len());
        twin.push((r, t));
        out.relationships[r.index()].children = scaled(rel.children, live_share);
        out.relationships.push(Relationship {
            name: format!("{}_archive", rel.name),
            child: archive,
            children: scaled(rel.children, old_share),
            parent_field: format!("{}_archive", rel.parent_field),
            description: Some(format!("{} older than the horizon", rel.name)),
            // The original's warning is the one to give (`model::agree_sides`).
            stated_parents: None,
            ..rel.clone()
        });
    }
    let split = Split {
        model,
        entity,
        archive,
        field,
        days,
        counts: (count, live, per_day),
        twin: &twin,
    };
    // A unique combination through a parent holds in the archive through
    // the parent's twin.
    for combination in &mut out.entities[archive.index()].unique {
        for part in combination.iter_mut() {
            if let super::KeyPart::Parent(r) = part {
                *r = split.twin_of(*r);
            }
        }
    }
    let mut both = Vec::new();
    let mut extra: Vec<Operation> = Vec::new();
    let live_states = live_states(model, entity, field, days);
    for (i, op) in model.workload.operations.iter().enumerate() {
        let mut kind = op.kind.clone();
        let mut clone: Option<OperationKind> = None;
        let on_entity = match &mut kind {
            OperationKind::Read {
                entity: en, filter, ..
            }
            | OperationKind::Update {
                entity: en, filter, ..
            }
            | OperationKind::Delete {
                entity: en, filter, ..
            } if *en == entity => Some(if tests_live_state(op, &live_states) {
                Side::Live
            } else {
                split.side(filter)
            }),
            _ => None,
        };
        match on_entity {
            Some(Side::Archive) => split.to_archive(&mut kind),
            Some(side) => {
                if side == Side::Both {
                    let mut c = kind.clone();
                    split.to_archive(&mut c);
                    clone = Some(c);
                }
                if let OperationKind::Read { filter, .. }
                | OperationKind::Update { filter, .. }
                | OperationKind::Delete { filter, .. } = &mut kind
                {
                    split.rescale(filter, Side::Live);
                }
            }
            None => {
                if let OperationKind::Read { include, .. } = &mut kind {
                    *include = split.includes(include);
                }
            }
        }
        out.workload.operations[i].kind = kind;
        if let Some(c) = clone {
            let paging = across_split(op);
            out.workload.operations[i].paging = paging;
            both.push(op.name.clone());
            extra.push(Operation {
                terms: op.terms.clone(),
                name: format!("{}_in_archive", op.name),
                kind: c,
                rates: op.rates.clone(),
                description: Some(format!("{} on the archived {}", op.name, e.name)),
                paging,
                finds_tenant: op.finds_tenant,
                all_tenants: op.all_tenants,
                counts: op.counts,
            });
        }
    }
    out.workload.operations.extend(extra);
    out.workload.operations.extend(split.job(&out));
    Some((
        out,
        Archive {
            entity,
            archive,
            field: field.to_string(),
            days,
            moved_per_day: per_day,
            both,
        },
    ))
}

/// The paging of a read that runs on both collections (audit49 A4): by
/// keyset, whatever the model says. Page N by `skip` is no page of either
/// half: the archive's half would have to skip what the live collection
/// holds before it, a count the caller does not have, and two halves each
/// skipped `(N − 1) · limit` and merged lose entries (100 of 300 on the
/// server). A cursor (the last item's sort key, then its `_id`) is valid
/// in both collections: each half's page after it, merged by the sort and
/// cut to the limit, is the whole history's next page. A read with no
/// sort has no cursor and keeps its paging (its pages have no order).
fn across_split(op: &Operation) -> Option<super::Paging> {
    let sorted = matches!(&op.kind, OperationKind::Read { sort, .. } if !sort.is_empty());
    op.paging.map(|p| match p.by {
        super::PagingBy::Skip if sorted => super::Paging {
            by: super::PagingBy::Keyset,
            ..p
        },
        _ => p,
    })
}

/// The states (a field and its constant: `status = requested`) that no
/// instance past the horizon holds: a sweep of the entity clears them
/// from every instance older than its `before` age plus one interval
/// between its runs (`model::states_cleared_after`), and that is within
/// the horizon. Only the live collection holds them, once the first run
/// of the sweep is over.
fn live_states(
    model: &Model,
    entity: EntityId,
    field: &str,
    days: f64,
) -> Vec<(String, super::Literal)> {
    model
        .workload
        .operations
        .iter()
        .filter(|op| matches!(op.kind, OperationKind::Update { entity: e, .. } if e == entity))
        .filter_map(|op| super::states_cleared_after(model, op, field))
        .filter(|(_, age)| *age < days)
        .flat_map(|(states, _)| states)
        .collect()
}

/// Whether a write selects only instances in one of `states` (its
/// `when:` tests the field for equality with that constant): it finds
/// nothing in the archive, so it runs on the live collection alone (the
/// claim of a requested ride, its acceptance by id, the sweep itself).
fn tests_live_state(op: &Operation, states: &[(String, super::Literal)]) -> bool {
    op.is_write()
        && op.terms.conditions.iter().any(|c| {
            c.test == super::Test::Eq
                && c.plus.is_none()
                && states.iter().any(|(f, v)| *f == c.field && *v == c.value)
        })
}

/// The share of an entity's whole history its collection holds: 1 but
/// where an archive split divides it, the live side's count (or the
/// archive's) over both. A parent's children there are that share of
/// the relationship's stated ones (`scaled`): a figure compared with
/// what the model states (a paged read's deepest page) is compared over
/// the whole history.
pub fn history_share(model: &Model, e: EntityId) -> f64 {
    // Archives are appended after the model's own entities
    // (`as_archive`): a model with none is told by its last entity.
    let any = model
        .entities
        .last()
        .is_some_and(|x| x.archive_of.is_some());
    let other = model.entity(e).archive_of.or_else(|| {
        any.then(|| {
            model
                .entities
                .iter()
                .position(|x| x.archive_of == Some(e))
                .map(EntityId::from_index)
        })
        .flatten()
    });
    other.map_or(1.0, |o| {
        let here = model.entity(e).count as f64;
        (here / (here + model.entity(o).count as f64)).clamp(1e-9, 1.0)
    })
}

/// A cardinality scaled to a share of the children (the young ones, or
/// the old), the children of each parent spread over time as all are.
fn scaled(c: Cardinality, share: f64) -> Cardinality {
    let s = |n: u64| ((n as f64 * share).round() as u64).max(1);
    Cardinality {
        mean: c.mean.map(|m| m * share),
        min: 0,
        typical: s(c.typical),
        max: match c.max {
            super::Count::Finite(n) => super::Count::Finite(s(n)),
            unbounded => unbounded,
        },
        p95: c.p95.map(s),
        p99: c.p99.map(s),
        ..c
    }
}

struct Split<'m> {
    model: &'m Model,
    entity: EntityId,
    archive: EntityId,
    field: &'m str,
    days: f64,
    /// Instances in all, live ones, inserted a day.
    counts: (f64, f64, f64),
    twin: &'m [(RelationshipId, RelationshipId)],
}

impl Split<'_> {
    /// The side a filter on the entity keeps to: recent instances within
    /// the horizon, old ones past it, or both when its age (if any) crosses it.
    fn side(&self, filter: &[Filter]) -> Side {
        for f in filter {
            if let Some(age) = f.age.filter(|_| f.path[0] == self.field) {
                if !age.older && age.days <= self.days {
                    return Side::Live;
                }
                if age.older && age.days >= self.days {
                    return Side::Archive;
                }
            }
        }
        Side::Both
    }

    /// The share each age filter keeps of the side it now runs on.
    fn rescale(&self, filter: &mut [Filter], side: Side) {
        let (count, live, per_day) = self.counts;
        for f in filter.iter_mut() {
            if let Some(age) = f.age {
                let kept = age.share(count as u64, per_day) * count;
                let of = if side == Side::Archive {
                    count - live
                } else {
                    live
                };
                // Within the side: everything it holds past the horizon,
                // or the part of the range it holds.
                let within = match (side, age.older) {
                    (Side::Archive, false) => (kept - live).max(0.0),
                    (Side::Live, true) => (kept - (count - live)).max(0.0),
                    _ => kept,
                };
                f.selectivity = Some((within / of.max(1.0)).clamp(1e-9, 1.0));
            }
        }
    }

    /// An operation on the entity made to run on its archive.
    fn to_archive(&self, kind: &mut OperationKind) {
        match kind {
            OperationKind::Read {
                entity,
                filter,
                include,
                ..
            } => {
                *entity = self.archive;
                self.refilter(filter);
                self.rescale(filter, Side::Archive);
                for inc in include.iter_mut() {
                    self.retarget(inc);
                }
            }
            OperationKind::Update {
                entity,
                filter,
                relinks,
                ..
            } => {
                *entity = self.archive;
                self.refilter(filter);
                self.rescale(filter, Side::Archive);
                for r in relinks.iter_mut() {
                    *r = self.twin_of(*r);
                }
            }
            OperationKind::Delete { entity, filter } => {
                *entity = self.archive;
                self.refilter(filter);
                self.rescale(filter, Side::Archive);
            }
            _ => {}
        }
    }

    fn twin_of(&self, r: RelationshipId) -> RelationshipId {
        self.twin
            .iter()
            .find(|(a, _)| *a == r)
            .map_or(r, |(_, t)| *t)
    }

    /// Filters through a relationship to a parent go through its twin
    /// (named after it: `orders_archive`).
    fn refilter(&self, filter: &mut [Filter]) {
        for f in filter.iter_mut() {
            if let Some(rel) = &mut f.related {
                let t = self.twin_of(rel.relationship);
                if t != rel.relationship {
                    f.path[0] =
                        format!("{}_archive", self.model.relationship(rel.relationship).name);
                    rel.relationship = t;
                }
            }
        }
    }

    /// An include from the archived entity to a parent: through the twin.
    fn retarget(&self, inc: &mut Include) {
        inc.relationship = self.twin_of(inc.relationship);
    }

    /// Includes of the entity from its parents go to the side their age
    /// filter keeps to, or to both.
    fn includes(&self, list: &[Include]) -> Vec<Include> {
        let mut out = Vec::new();
        for inc in list {
            let rel = self.model.relationship(inc.relationship);
            let mut inc = Include {
                include: self.includes(&inc.include),
                ..inc.clone()
            };
            if !(inc.to_children && rel.child == self.entity) {
                out.push(inc);
                continue;
            }
            let side = self.side(&inc.filter);
            if side != Side::Live {
                let mut old = inc.clone();
                old.relationship = self.twin_of(inc.relationship);
                self.rescale(&mut old.filter, Side::Archive);
                if side == Side::Archive {
                    out.push(old);
                    continue;
                }
                self.rescale(&mut inc.filter, Side::Live);
                out.push(inc);
                out.push(old);
                continue;
            }
            self.rescale(&mut inc.filter, Side::Live);
            out.push(inc);
        }
        out
    }

    /// The archiving job, per batch: find the instances past the horizon,
    /// insert them into the archive (with their references), delete them
    /// from the live collection by the ids the find returned. Not by the
    /// date range again: the find takes at most a batch, and a range that
    /// holds more would lose the rest, deleted and never archived
    /// (audit43 H). It runs as often as the entity's inserts
    /// fill a batch, in each mix. Under a tenant it spans every tenant
    /// (`all_tenants`): the batch is the oldest of them all.
    fn job(&self, out: &Model) -> Vec<Operation> {
        let name = &self.model.entity(self.entity).name;
        let (_, live, _) = self.counts;
        let rates: Vec<f64> = (0..self.model.workload.mixes.len().max(1))
            .map(|m| self.model.inserts_per_second(self.entity, m) / ARCHIVE_BATCH as f64)
            .collect();
        let batch = Filter {
            selectivity: Some((ARCHIVE_BATCH as f64 / live.max(1.0)).min(1.0)),
            age: Some(Age {
                days: self.days,
                older: true,
                expiry: false,
            }),
            ..Filter::new(
                out,
                self.entity,
                vec![self.field.to_string()],
                FilterOp::Range,
            )
        };
        let ids = Filter {
            selectivity: batch.selectivity,
            ..Filter::new(out, self.entity, vec!["_id".to_string()], FilterOp::In)
        };
        let op = |step: &str, kind: OperationKind, what: String| Operation {
            terms: Default::default(),
            name: archive_job_operation(name, step),
            kind,
            rates: rates.clone(),
            description: Some(what),
            paging: None,
            finds_tenant: false,
            // One job for every tenant (audit49 A3): its find takes a batch
            // by age alone, across the tenants, so its copy and its delete
            // must take that whole batch too. Scoped, the delete named one
            // tenant and left the rest of the batch in both collections.
            all_tenants: true,
            counts: false,
        };
        vec![
            op(
                "find",
                OperationKind::Read {
                    entity: self.entity,
                    filter: vec![batch.clone()],
                    sort: Vec::new(),
                    limit: Some(ARCHIVE_BATCH),
                    fields: Vec::new(),
                    include: Vec::new(),
                    aggregates: Vec::new(),
                    family: Vec::new(),
                },
                format!(
                    "the archiving job finds {} {name} past the horizon",
                    ARCHIVE_BATCH
                ),
            ),
            op(
                "insert",
                OperationKind::Insert {
                    entity: self.archive,
                    links: self.twin.iter().map(|(_, t)| *t).collect(),
                    count: ARCHIVE_BATCH,
                },
                format!("and inserts them into {name}_archive"),
            ),
            op(
                "delete",
                OperationKind::Delete {
                    entity: self.entity,
                    filter: vec![ids],
                },
                format!("then deletes them from {name} by the ids it found"),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDERS: &str = r"
name: orders
entities:
  customer: {count: 1000000, fields: {name: string(20)}}
  order:
    count: 100000000
    fields: {placed_at: date, number: int}
    unique: [[customer, number]]
relationships:
  orders: {parent: customer, child: order, children: {typical: 100, max: 5000}, standalone: true}
operations:
  page:
    read: customer
    rate: 100
    filter: {_id: eq}
    include: {orders: {filter: {placed_at: since(30 days)}, limit: 10}}
  history:
    read: customer
    rate: 1
    filter: {_id: eq}
    include: {orders: {limit: 10}}
  place: {insert: order, links: [orders], rate: 10}
";

    /// The page's include keeps to the live orders, the history's looks in
    /// both; the archive's unique pair goes through its own relationship.
    #[test]
    fn includes_go_where_their_age_keeps_them() {
        let model = crate::inputs::model_file::parse("orders.yaml", ORDERS).unwrap();
        let order = model.entity_by_name("order").unwrap();
        let (field, days) = archive_horizon(&model, order).unwrap();
        assert_eq!((field.as_str(), days), ("placed_at", 30.0));
        let (out, split) = as_archive(&model, order, &field, days).unwrap();
        let rels = |op: &str| -> Vec<String> {
            let id = out.operation_by_name(op).unwrap();
            let OperationKind::Read { include, .. } = &out.operation(id).kind else {
                panic!()
            };
            include
                .iter()
                .map(|i| out.relationship(i.relationship).name.clone())
                .collect()
        };
        assert_eq!(rels("page"), ["orders"]);
        assert_eq!(rels("history"), ["orders", "orders_archive"]);
        // 10 a second for 30 days stay live.
        assert_eq!(out.entity(order).count, 25_920_000);
        assert_eq!(out.entity(split.archive).count, 100_000_000 - 25_920_000);
        let twin = out.relationship_by_name("orders_archive").unwrap();
        assert_eq!(
            out.entity(split.archive).unique,
            vec![vec![
                crate::model::KeyPart::Parent(twin),
                crate::model::KeyPart::Field("number".into())
            ]]
        );
        // The page's share is now of the live orders: all of them.
        let id = out.operation_by_name("page").unwrap();
        let OperationKind::Read { include, .. } = &out.operation(id).kind else {
            panic!()
        };
        assert_eq!(include[0].filter[0].selectivity, Some(1.0));
    }

    /// Nothing to move when the inserts of the horizon cover the count.
    #[test]
    fn a_short_history_is_not_split() {
        let model = crate::inputs::model_file::parse(
            "orders.yaml",
            &ORDERS.replace("count: 100000000", "count: 20000000"),
        )
        .unwrap();
        let order = model.entity_by_name("order").unwrap();
        assert!(as_archive(&model, order, "placed_at", 30.0).is_none());
    }

    /// audit43 E: an entity that expires past the horizon expires in the
    /// archive only (the job moves each instance out first); one that
    /// expires within it is not split (nothing would reach the archive).
    #[test]
    fn an_expiring_entity_expires_in_its_archive_only() {
        let expiring = |days: u32| {
            let text = ORDERS.replace(
                "    unique: [[customer, number]]",
                &format!("    unique: [[customer, number]]\n    expires: {{from: placed_at, after: {days} days}}"),
            );
            crate::inputs::model_file::parse("orders.yaml", &text).unwrap()
        };
        let model = expiring(365);
        let order = model.entity_by_name("order").unwrap();
        let (out, split) = as_archive(&model, order, "placed_at", 30.0).unwrap();
        assert_eq!(
            out.entity(order).expires,
            None,
            "the live orders never reach a year"
        );
        assert_eq!(
            out.entity(split.archive)
                .expires
                .as_ref()
                .map(|x| x.seconds),
            Some(365 * 86_400)
        );
        let model = expiring(20);
        assert!(as_archive(&model, order, "placed_at", 30.0).is_none());
    }
}
