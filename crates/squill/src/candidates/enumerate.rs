//! Enumeration: every layout that applies to a relationship, with the details
//! (fields to copy, K, bucket size, aggregates) taken from the workload.

use crate::candidates::facts::Facts;
use crate::design::{Aggregation, BucketBy, Layout, Side};
use crate::model::{
    AggregateFn, FieldType, RelationshipId, RelationshipKind, TIME_UNITS, units_a_day,
};

/// The candidate layouts of one relationship, in a stable order; the
/// layout it has today, with its copies, among them (advise prices it even
/// when the reads would not suggest those copies).
pub fn for_relationship(facts: &Facts<'_>, r: RelationshipId) -> Vec<Layout> {
    let mut out = enumerate(facts, r);
    // Under a tenant, every scoped document carries its tenant's id: the
    // operations filter on it, its indexes lead with it, and a read that
    // finds the tenant (`finds_tenant`) returns it. Ids kept only in the
    // tenant's document leave the child without one (audit48 A2: an API
    // key that could not say its workspace). A model that pins such a
    // layout keeps it: an insert then finds the parent in the tenant's
    // array (tenant48).
    let rel = facts.model.relationship(r);
    if rel.layout.is_none() && facts.model.tenant_relationship(rel.child) == Some(r) {
        out.retain(|l| !child_lacks_parent_id(l));
    }
    if let Some(today) = current_layout(facts.model, r)
        && !out.contains(&today)
    {
        out.push(today);
    }
    out
}

/// Whether the children of a layout hold no id of their parent: the
/// parent keeps theirs (with copies of their fields or not).
fn child_lacks_parent_id(layout: &Layout) -> bool {
    matches!(
        layout,
        Layout::ChildReferences
            | Layout::ExtendedReference {
                copies_into: Side::Parent,
                ..
            }
    )
}

/// The exact layout of a relationship's `current:` entry with copies: an
/// extended reference copying each field from the side that owns it.
pub fn current_layout(model: &crate::model::Model, r: RelationshipId) -> Option<Layout> {
    use crate::model::LayoutKind;
    let cur = model.current_of(r)?;
    if cur.copies.is_empty() {
        return None;
    }
    let rel = model.relationship(r);
    let owns =
        |e: crate::model::EntityId, f: &str| model.entity(e).fields.iter().any(|x| x.name == f);
    let of_parent: Vec<String> = cur
        .copies
        .iter()
        .filter(|f| owns(rel.parent, f))
        .cloned()
        .collect();
    let of_child: Vec<String> = cur
        .copies
        .iter()
        .filter(|f| !owns(rel.parent, f) && owns(rel.child, f))
        .cloned()
        .collect();
    match cur.layout {
        LayoutKind::ExtendedReference if of_child.is_empty() => Some(Layout::ExtendedReference {
            copies_into: Side::Child,
            fields: of_parent,
        }),
        LayoutKind::ExtendedReference if of_parent.is_empty() => Some(Layout::ExtendedReference {
            copies_into: Side::Parent,
            fields: of_child,
        }),
        LayoutKind::TwoWayExtendedReference => Some(Layout::TwoWayExtendedReference {
            copies_in_parent: of_child,
            copies_in_child: of_parent,
        }),
        _ => None,
    }
}

fn enumerate(facts: &Facts<'_>, r: RelationshipId) -> Vec<Layout> {
    let model = facts.model;
    let rel = model.relationship(r);
    let rf = facts.rel(r);
    let mut out = Vec::new();
    let one_parent = rel.one_parent();
    // A link of an edge collection keeps its own documents: its parent's
    // id, with copies of a few of its fields if the reads want them.
    if rel.edge {
        out.push(Layout::ParentReference);
        for fields in copy_sets(facts, r, Side::Child) {
            out.push(Layout::ExtendedReference {
                copies_into: Side::Child,
                fields,
            });
        }
        return out;
    }
    if rel.kind == RelationshipKind::ManyToMany {
        out.push(Layout::ManyToManyOneWay {
            ids_in: Side::Parent,
        });
        out.push(Layout::ManyToManyOneWay {
            ids_in: Side::Child,
        });
        out.push(Layout::ManyToManyTwoWay);
        // The parent's array of ids can carry copies of the child's fields
        // the parent's reads show (a playlist's tracks with their titles),
        // as for shared children below.
        // Either side's array of ids can carry copies of the other side's
        // fields its reads show (a playlist's tracks with their titles, a
        // user's teams with their names), and both can at once.
        let in_parent = copy_sets(facts, r, Side::Parent);
        let in_child = copy_sets(facts, r, Side::Child);
        for fields in &in_parent {
            out.push(Layout::ExtendedReference {
                copies_into: Side::Parent,
                fields: fields.clone(),
            });
        }
        for fields in &in_child {
            out.push(Layout::ExtendedReference {
                copies_into: Side::Child,
                fields: fields.clone(),
            });
        }
        let bare = || std::iter::once(Vec::new());
        for p in bare().chain(in_parent.iter().cloned()) {
            for c in bare().chain(in_child.iter().cloned()) {
                if !p.is_empty() || !c.is_empty() {
                    out.push(Layout::TwoWayExtendedReference {
                        copies_in_parent: p.clone(),
                        copies_in_child: c,
                    });
                }
            }
        }
        return out;
    }
    // A shared child (a part used by several products) could still be copied
    // into every parent; the rules say why that loses (it stands alone, it is
    // shared, arrays bound), and the answer should show it.
    if one_parent || rel.shared {
        out.push(Layout::Embed);
    }
    if one_parent {
        let parent_alone = model.relationships_from(rel.parent).count()
            + model.relationships_to(rel.parent).count()
            == 1;
        if rel.kind == RelationshipKind::OneToOne || parent_alone {
            out.push(Layout::EmbedParentInChild);
        }
    }
    out.push(Layout::ChildReferences);
    if one_parent {
        out.push(Layout::ParentReference);
        out.push(Layout::TwoWayReferences);
        if rel.kind == RelationshipKind::OneToOne && rel.parent != rel.child {
            out.push(Layout::SharedId);
        }
    } else {
        // Shared children have several parents: the parent side becomes an id
        // array in the child, as in a many-to-many.
        out.push(Layout::ManyToManyOneWay {
            ids_in: Side::Child,
        });
        out.push(Layout::ManyToManyTwoWay);
    }
    for fields in copy_sets(facts, r, Side::Parent) {
        out.push(Layout::ExtendedReference {
            copies_into: Side::Parent,
            fields,
        });
    }
    if one_parent {
        // Snapshot fields are copied into the child whatever the reads ask:
        // every copy set carries them, and they make one of their own.
        let mut sets = copy_sets(facts, r, Side::Child);
        if !rel.snapshot.is_empty() {
            for set in &mut sets {
                for f in &rel.snapshot {
                    if !set.contains(f) {
                        set.push(f.clone());
                    }
                }
            }
            sets.push(rel.snapshot.clone());
            sets.dedup();
        }
        for fields in sets {
            out.push(Layout::ExtendedReference {
                copies_into: Side::Child,
                fields,
            });
        }
    }
    // Outliers: when the percentiles say the usual parent fits within what
    // may be embedded but the maximum does not, embed up to that bound and
    // keep the rest of an outlier's children apart.
    if one_parent && rel.kind == RelationshipKind::OneToMany && !rel.child_standalone {
        let bound = facts.embed_bound(r);
        let usual = rel.children.highest_percentile().map(|(_, p)| p);
        if usual.is_some_and(|p| p <= bound) && rel.children.max.finite().is_none_or(|m| m > bound)
        {
            out.push(Layout::Outlier { threshold: bound });
        }
    }
    // A tree walked recursively or read by subtree: each node can keep its
    // path from the root, bare or with the fields the walks up show
    // (breadcrumbs' names); what references its nodes, the path of its node.
    if one_parent && (rf.walks > 0.0 || rf.subtree_reads > 0.0) {
        if model.tree_of(rel.parent) == Some(r) {
            out.push(Layout::TreePath { fields: Vec::new() });
            let fields = walked_fields(facts, r);
            if !fields.is_empty() {
                out.push(Layout::TreePath { fields });
            }
        } else if rel.parent != rel.child
            && rf.subtree_reads > 0.0
            && model.tree_of(rel.parent).is_some()
        {
            out.push(Layout::PathReference);
        }
    }
    if !one_parent || rel.kind == RelationshipKind::OneToOne {
        return out;
    }
    let mut aggregates = read_aggregates(facts, r);
    // Children that expire go with their bucket, by its newest date
    // (`advise::build`, `expiry_indexes`): every bucket keeps it (audit44 D).
    if let Some(x) = &model.entity(rel.child).expires {
        let newest = Aggregation {
            function: AggregateFn::Last,
            field: Some(x.field.clone()),
        };
        if !aggregates.contains(&newest) {
            aggregates.push(newest);
        }
    }
    let mut limits: Vec<(u64, Option<(String, bool)>)> = Vec::new();
    for (k, sort, _) in &rf.limits {
        if *k >= 1 && !limits.iter().any(|(x, s)| x == k && s == sort) {
            limits.push((*k, sort.clone()));
        }
    }
    limits.sort();
    // The latest K (newest first, or no order): a subset in the parent.
    for (k, sort) in &limits {
        let latest = sort.as_ref().is_none_or(|(_, desc)| *desc);
        let below_max = rel.children.max.finite().is_none_or(|m| *k < m);
        if latest && below_max {
            let fields = rf
                .child_fields_read
                .iter()
                .find(|(f, _)| !f.is_empty())
                .map(|(f, _)| f.clone())
                .unwrap_or_default();
            out.push(Layout::Subset {
                k: *k,
                sort_field: sort.as_ref().map(|(f, _)| f.clone()),
                fields,
            });
        }
    }
    // Pages in order (oldest first, or no order): a bucket per page. One
    // a time window reads (figures per hour) keeps the first and last
    // date of its children, by which the window picks it (audit44 C).
    let mut paged = aggregates.clone();
    for (w, _) in &rf.windows {
        for function in [AggregateFn::First, AggregateFn::Last] {
            let span = Aggregation {
                function,
                field: Some(w.field.clone()),
            };
            if !paged.contains(&span) {
                paged.push(span);
            }
        }
    }
    // A bucket is a page of arrivals: a read of a parent's children in no
    // order, or oldest first by a date they arrive with, takes one bucket
    // per page, and a window on that date picks buckets by the first and
    // last date each keeps. One sorted on anything else (devices by
    // serial) wants another page than the first 50 to arrive (audit49
    // A1), and one that tests the children otherwise (devices of one
    // model) pages through some of them only (C2).
    for (k, sort) in &limits {
        let arrivals = rf.pages.iter().any(|(pk, ps, ranges)| {
            pk == k && ps == sort && ranges.iter().all(|f| arrival_date(facts, rel.child, f))
        });
        if !arrivals {
            continue;
        }
        let in_order = match sort {
            None => true,
            Some((field, desc)) => !*desc && arrival_date(facts, rel.child, field),
        };
        if *k >= 2 && in_order {
            out.push(Layout::Bucket {
                by: BucketBy::Count,
                per_bucket: *k,
                aggregates: paged.clone(),
            });
        }
    }
    out.extend(time_buckets(facts, r, &aggregates));
    out.dedup();
    out
}

/// Whether `field` of entity `e` grows with the order its instances
/// arrive in: a date that no operation changes, set once when the
/// instance is inserted (a post's `created_at`, a reading's `ts`). A date
/// an update moves (a device's `last_seen`) or a field of any other type
/// (a serial, a name) orders the instances otherwise.
fn arrival_date(facts: &Facts<'_>, e: crate::model::EntityId, field: &str) -> bool {
    let is_date = facts
        .model
        .entity(e)
        .field(field)
        .is_some_and(|f| f.ty == FieldType::Date);
    let changed = facts.field_updates[e.index()]
        .get(field)
        .is_some_and(|rate| *rate > 0.0);
    is_date && !changed
}

/// The fields of a tree's nodes that its walks up read (the names on a
/// breadcrumb): copies a node's path can carry. None when a walk reads
/// every field (a copy of everything is the node itself).
fn walked_fields(facts: &Facts<'_>, r: RelationshipId) -> Vec<String> {
    let entity = facts.model.entity(facts.model.relationship(r).parent);
    let mut out: Vec<String> = Vec::new();
    for (fields, _) in &facts.rel(r).walk_fields_up {
        if fields.is_empty() {
            return Vec::new();
        }
        for f in fields {
            if f != "_id" && entity.field(f).is_some() && !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
    out
}

/// The aggregates reads ask of a relationship's children (deduplicated).
fn read_aggregates(facts: &Facts<'_>, r: RelationshipId) -> Vec<Aggregation> {
    let mut out: Vec<Aggregation> = Vec::new();
    for (function, field, _) in &facts.rel(r).aggregates {
        let a = Aggregation {
            function: *function,
            field: field.clone(),
        };
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// Children that arrive over time with a date field: one bucket per time
/// unit, the largest unit that keeps the busiest parent's bucket under the
/// embedding bound (a unit sized for the typical parent leaves the busiest
/// one's bucket unbounded), and the unit of each window the reads group
/// figures by (one bucket per candle), which the cost model weighs against
/// it. When the growth has a spread, also buckets bounded by count in time
/// order (`filled_buckets`).
fn time_buckets(facts: &Facts<'_>, r: RelationshipId, aggregates: &[Aggregation]) -> Vec<Layout> {
    let model = facts.model;
    let rel = model.relationship(r);
    let Some(growth) = facts.growth(r).filter(|g| g.typical > 0.0) else {
        return Vec::new();
    };
    let per_day = growth.typical;
    let busiest = growth.busiest().1;
    let child = model.entity(rel.child);
    let rf = facts.rel(r);
    // Only for reads that take a time window of the children.
    let Some(date) = child
        .fields
        .iter()
        .find(|f| f.ty == FieldType::Date && rf.child_ranges.iter().any(|(x, _)| *x == f.name))
    else {
        return Vec::new();
    };
    let bucket = |unit: &str, field: &str, per_unit: f64| {
        let per_bucket = per_unit.ceil().max(1.0) as u64;
        (per_bucket >= 2).then(|| Layout::Bucket {
            by: BucketBy::Time {
                field: field.to_string(),
                unit: unit.to_string(),
            },
            per_bucket,
            aggregates: aggregates.to_vec(),
        })
    };
    let cap = facts.settings.cardinality.embed_max as f64;
    // The unit that bounds the busiest parent's bucket and, when the growth
    // has a spread, the one sized for the typical parent: rule
    // `unbounded-bucket` says why that one is no design.
    let mut out: Vec<Layout> = Vec::new();
    for figure in [busiest, per_day] {
        if let Some(l) = TIME_UNITS
            .iter()
            .find(|(_, n)| figure / n <= cap)
            .and_then(|(unit, n)| bucket(unit, &date.name, per_day / n))
            && !out.contains(&l)
        {
            out.push(l);
        }
    }
    for (w, _) in &rf.windows {
        if let Some(n) = units_a_day(&w.unit)
            && let Some(l) = bucket(&w.unit, &w.field, per_day / n)
            && !out.contains(&l)
        {
            out.push(l);
        }
    }
    if growth.has_spread() {
        out.push(filled_buckets(facts, r, &date.name, aggregates));
    }
    out
}

/// Buckets bounded by count, in time order: a parent's children go into
/// its open bucket until it holds as many as an embedded array may (the
/// embedding bound), and the next child opens a new one. Each bucket keeps
/// the first and the last of the children's `date`, so a time window finds
/// the buckets it needs by them. However skewed the growth, no bucket
/// passes the bound: the busiest parent opens more buckets, not larger ones.
fn filled_buckets(
    facts: &Facts<'_>,
    r: RelationshipId,
    date: &str,
    aggregates: &[Aggregation],
) -> Layout {
    let mut kept = aggregates.to_vec();
    for function in [AggregateFn::First, AggregateFn::Last] {
        let span = Aggregation {
            function,
            field: Some(date.to_string()),
        };
        if !kept.contains(&span) {
            kept.push(span);
        }
    }
    Layout::Bucket {
        by: BucketBy::Count,
        per_bucket: facts.embed_bound(r),
        aggregates: kept,
    }
}

/// Field sets worth copying next to a reference: the fields reads take through
/// the relationship (`into` = `Parent`: child fields copied into the parent;
/// `Child`: parent fields copied into each child), and the same set limited to
/// its rarely-updated fields.
pub fn copy_sets(facts: &Facts<'_>, r: RelationshipId, into: Side) -> Vec<Vec<String>> {
    let model = facts.model;
    let rel = model.relationship(r);
    let rf = facts.rel(r);
    let (source, reads) = match into {
        Side::Parent => (rel.child, &rf.child_fields_read),
        Side::Child => (rel.parent, &rf.parent_fields_read),
    };
    let entity = model.entity(source);
    // A field of the source, or the reference it holds to a parent of its
    // own (an item's seller's region: the users' `region` id).
    let copyable = |f: &str| {
        entity.field(f).is_some()
            || model.relationships_to(source).any(|o| {
                o != r
                    && model.relationship(o).child_field == f
                    && model.relationship(o).one_parent()
            })
    };
    let mut union: Vec<String> = Vec::new();
    for (fields, _) in reads {
        for f in fields {
            if f != "_id" && copyable(f) && !union.contains(f) {
                union.push(f.clone());
            }
        }
    }
    if union.is_empty() {
        return Vec::new();
    }
    // Every field of a child copied into its one parent is the child
    // embedded (or a subset of it): those layouts say it. Every field of a
    // parent copied into its children (a user's name and reputation in each
    // answer), or of either side of a many-to-many (a label's name and
    // color), is said by no other layout while that entity keeps a
    // collection of its own: it is a copy like any other.
    let whole = union.len() >= entity.fields.len().max(2);
    let embeds = whole && into == Side::Parent && rel.kind != RelationshipKind::ManyToMany;
    let read_rate: f64 = reads.iter().map(|(_, rate)| rate).sum();
    let ratio = facts.settings.design.read_mostly_ratio;
    let mostly: Vec<String> = union
        .iter()
        .filter(|f| facts.field_update_rate(source, f) * ratio <= read_rate)
        .cloned()
        .collect();
    let mut out = Vec::new();
    if !embeds {
        out.push(union.clone());
    }
    // The fields read far more often than they change (the name, not the
    // reputation), whatever the whole set is.
    if !mostly.is_empty() && mostly.len() < union.len() {
        out.push(mostly);
    }
    out
}
