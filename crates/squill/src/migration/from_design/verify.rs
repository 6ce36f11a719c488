//! The verification: figures measured on the source before the first step
//! (kept in the progress collection, so a re-run compares with the source as
//! it was, not with its own output) against the same figures after the
//! migration: documents per collection, and each step's fan-out (the
//! children a parent's array now holds against the children there were).

use super::action::{Action, Check};
use super::aggregation::{OTHER, TMP};
use super::figure::{Figure, count, depths, matching, node_at, per_parent, set, sizes};
use super::layout_steps::Children;
use super::step_parts::{ChildrenAt, ItemField, LookupBy, ParentField};
use crate::design::Design;
use crate::model::AggregateFn;
use serde_json::json;

/// The documents of `coll` whose path `field` ends with the node at `start`
/// and starts with a root: for a node's own path (`items`, from the node's
/// own fields), its parent's path and then itself, which holds down from
/// the roots only when every path is the walk up the parent ids.
fn sound_paths(
    coll: &str,
    field: &str,
    start: &str,
    nodes: &str,
    parent: &str,
    items: Option<&[ItemField]>,
) -> String {
    let path = format!("${field}");
    let last = json!({"$arrayElemAt": [path, -1]});
    let stages = if start == "_id" && nodes == coll {
        let mut same: Vec<serde_json::Value> = match items {
            Some(items) => items
                .iter()
                .map(|i| json!({"$eq": [format!("$$l.{}", i.target), format!("${}", i.source)]}))
                .collect(),
            None => vec![json!({"$eq": ["$$l", "$_id"]})],
        };
        same.push(json!({"$cond": [
            {"$eq": ["$$n", 1]},
            {"$eq": [{"$ifNull": [format!("${parent}"), null]}, null]},
            {"$eq": [{"$slice": [path, {"$subtract": ["$$n", 1]}]}, format!("$$p.{field}")]},
        ]}));
        json!([
            {"$lookup": {"from": nodes, "localField": parent, "foreignField": "_id", "as": TMP}},
            {"$match": {"$expr": {"$let": {
                "vars": {"l": last, "n": {"$size": {"$ifNull": [path, []]}}, "p": {"$arrayElemAt": [format!("${TMP}"), 0]}},
                "in": {"$and": same},
            }}}},
        ])
    } else {
        json!([
            {"$match": {"$expr": {"$eq": [last, format!("${start}")]}}},
            {"$project": {TMP: {"$arrayElemAt": [path, 0]}}},
            {"$lookup": {"from": nodes, "localField": TMP, "foreignField": "_id", "as": OTHER}},
            {"$match": {"$expr": {"$and": [
                {"$eq": [{"$size": format!("${OTHER}")}, 1]},
                {"$eq": [{"$let": {
                    "vars": {"r": {"$arrayElemAt": [format!("${OTHER}"), 0]}},
                    "in": {"$ifNull": [format!("$$r.{parent}"), null]},
                }}, null]},
            ]}}},
        ])
    };
    matching(coll, stages)
}

pub(super) fn figures(
    actions: &[Action],
    checks: &[Check],
    today: &Design,
    recommended: &Design,
) -> Vec<Figure> {
    let mut out = Vec::new();
    // An outlier's child collection gains (or, in the final step, loses)
    // the embedded children: its figure is the step's.
    let outlier = |name: &str| {
        actions.iter().any(|a| match a {
            Action::Unwind {
                child, rest: true, ..
            }
            | Action::BuildParent {
                child,
                what: ParentField::First { .. },
                ..
            } => child == name,
            // The live collection of an archive: its figures are the step's.
            Action::Archive(a) => a.live == name,
            // A collection re-keyed in place holds both until the final step.
            Action::Rekey { child, .. } => child == name,
            _ => false,
        })
    };
    for coll in &recommended.collections {
        if today.collections.iter().any(|c| c.name == coll.name) && !outlier(&coll.name) {
            out.push(Figure {
                label: format!("{}: documents", coll.name),
                before: count(&coll.name, &json!({})),
                after: count(&coll.name, &json!({})),
            });
        }
    }
    out.extend(step_figures(actions));
    for a in actions {
        if let Some(f) = orphans(a, recommended) {
            out.push(f);
        }
    }
    for c in checks {
        out.push(match c {
            Check::EachParentsChildren {
                parent,
                field,
                child,
                ref_path,
            } => Figure {
                label: format!(
                    "{parent}: the documents whose {field} holds other than their {child} documents"
                ),
                before: "0".into(),
                after: matching(parent, each_parents_children(child, ref_path, field)),
            },
            Check::PathKept {
                collection,
                field,
                start,
                nodes,
                parent,
            } => Figure {
                label: format!(
                    "{collection}.{field}: as long as the walk up {nodes}.{parent} from {}",
                    node_at(start)
                ),
                before: sizes(collection, field),
                after: depths(collection, start, nodes, parent),
            },
            Check::ParentsHeld {
                parent,
                child,
                id_path,
            } => Figure {
                label: format!(
                    "{parent}: each held in {child}.{id_path} (the final step drops {parent})"
                ),
                before: count(parent, &json!({})),
                after: format!(
                    "squillHeld({}, {}, {})",
                    json!(child),
                    json!(id_path),
                    json!(parent)
                ),
            },
        });
    }
    out
}

/// The figures of the steps alone (no count of a collection's documents:
/// the final step's, measured while the application writes).
pub(super) fn step_figures(actions: &[Action]) -> Vec<Figure> {
    let mut out = Vec::new();
    for a in actions {
        if let Some(f) = moved_attributes(a) {
            out.push(f);
        }
        if let Some(f) = copied(a) {
            out.push(f);
        }
        looked_up(&mut out, a);
        let figure = match a {
            Action::BuildParent {
                parent,
                field,
                child,
                ref_path,
                what,
                ..
            } => {
                if let ParentField::FromBuckets { array, .. } = what {
                    out.push(Figure {
                        label: format!(
                            "{parent}: the parents whose {field} holds other than the children of their {child} buckets"
                        ),
                        before: "0".into(),
                        after: matching(parent, per_parent(child, ref_path, array, field)),
                    });
                }
                Figure {
                    label: match what {
                        ParentField::FromBuckets { .. } => {
                            format!("{parent}.{field}: each child in the {child} buckets once")
                        }
                        _ => format!("{parent}.{field}: the {child} documents it holds"),
                    },
                    before: match what {
                        // Each link once: the items of the other side's arrays.
                        ParentField::Holders { .. } => {
                            sizes(child, ref_path.split('.').next().unwrap_or(ref_path))
                        }
                        // Every item of the buckets once.
                        ParentField::FromBuckets { array, .. } => sizes(child, array),
                        ParentField::First { k, .. } => {
                            format!("squillCapped({}, {}, {k})", json!(child), json!(ref_path))
                        }
                        ParentField::Copies {
                            latest: Some(l), ..
                        } => format!(
                            "squillCapped({}, {}, {})",
                            json!(child),
                            json!(ref_path),
                            l.k
                        ),
                        _ => count(child, &set(ref_path)),
                    },
                    after: match what {
                        // A plain id: neither an array nor a sub-document.
                        ParentField::Id => count(parent, &set(field)),
                        _ => sizes(parent, field),
                    },
                }
            }
            Action::Unwind {
                parent,
                field,
                child,
                ref_field,
                rest,
                ..
            } => Figure {
                label: format!("{child}: one document per child embedded in {parent}.{field}"),
                before: if *rest {
                    // And those past the array, there already.
                    format!(
                        "{} + {}",
                        sizes(parent, field),
                        count(child, &set(ref_field))
                    )
                } else {
                    sizes(parent, field)
                },
                after: count(child, &set(ref_field)),
            },
            Action::RefFromIds {
                parent,
                field,
                child,
                ref_field,
                one,
                ..
            } => Figure {
                label: format!("{child}.{ref_field}: set for each id in {parent}.{field}"),
                before: if *one {
                    count(parent, &set(field))
                } else {
                    sizes(parent, field)
                },
                after: count(child, &set(ref_field)),
            },
            Action::IdFromCopy {
                child,
                ref_path,
                target,
                id_type,
                ..
            } => Figure {
                label: format!("{child}.{target}: an id for each reference in {child}.{ref_path}"),
                before: count(child, &set(ref_path)),
                after: count(child, &json!({ target: {"$type": id_type} })),
            },
            Action::IdsFromCopies {
                parent,
                field,
                target,
                ..
            } => Figure {
                label: format!("{parent}.{target}: an id for each item of {parent}.{field}"),
                before: sizes(parent, field),
                after: format!("squillIds({}, {})", json!(parent), json!(target)),
            },
            Action::Edge {
                holder,
                field,
                edge,
                holder_ref,
                ..
            } => Figure {
                label: format!("{edge}: one document per item of {holder}.{field}"),
                before: sizes(holder, field),
                after: count(edge, &set(&holder_ref.id_path())),
            },
            Action::LinkItems {
                collection,
                field,
                target,
                ..
            } => Figure {
                label: format!(
                    "{collection}.{target}: an item for each item of {collection}.{field}"
                ),
                before: sizes(collection, field),
                after: sizes(collection, target),
            },
            Action::CopyIntoChild {
                child,
                ref_field,
                target,
                ..
            } => Figure {
                label: format!(
                    "{child}.{target}: a copy for each reference in {child}.{ref_field}"
                ),
                before: count(child, &set(ref_field)),
                after: count(child, &set(&format!("{target}._id"))),
            },
            Action::RefFromOwnId {
                child, ref_field, ..
            } => Figure {
                label: format!("{child}.{ref_field}: its own _id in each document"),
                before: count(child, &json!({})),
                after: matching(
                    child,
                    json!([{"$match": {"$expr": {"$eq": [format!("${ref_field}"), "$_id"]}}}]),
                ),
            },
            Action::Rekey {
                child,
                parent,
                ref_field,
                ..
            } => {
                // Each document of today once under its parent's id (a
                // parent with two children, or a reference to no parent,
                // falls short), and every document of today still there.
                let lacking = json!({ ref_field.as_str(): {"$exists": false} });
                let holding = json!({ ref_field.as_str(): {"$exists": true} });
                out.push(Figure {
                    label: format!(
                        "{child}: a document for each {child} of today, without {ref_field}"
                    ),
                    before: count(child, &json!({})),
                    after: count(child, &lacking),
                });
                out.push(Figure {
                    label: format!("{child}: the documents of today, kept until the final step"),
                    before: count(child, &json!({})),
                    after: count(child, &holding),
                });
                Figure {
                    label: format!(
                        "{child}: documents whose _id is a {parent}'s, one per {child} of today"
                    ),
                    before: count(child, &json!({})),
                    after: format!("squillHeld({}, \"_id\", {})", json!(child), json!(parent)),
                }
            }
            Action::ParentsFromChildren {
                child,
                field,
                parent,
                ..
            } => {
                let id = format!("{field}._id");
                Figure {
                    label: format!("{parent}: one document per parent embedded in {child}.{field}"),
                    before: matching(
                        child,
                        json!([{"$match": set(&id)}, {"$group": {"_id": format!("${id}")}}]),
                    ),
                    after: count(parent, &json!({})),
                }
            }
            Action::Computed {
                parent,
                field,
                function: AggregateFn::Count,
                children,
                ..
            } => Figure {
                label: format!("{parent}.{field}: the counts add up to the children"),
                before: match children {
                    ChildrenAt::Collection { child, ref_path } => count(child, &set(ref_path)),
                    ChildrenAt::Ids { field: f, .. } | ChildrenAt::Embedded { field: f, .. } => {
                        sizes(parent, f)
                    }
                },
                after: format!("squillTotal({}, {})", json!(parent), json!(field)),
            },
            Action::Bucket(b) => {
                super::bucket::figures(&mut out, b);
                continue;
            }
            Action::Unbucket(u) => {
                super::bucket::figures_back(&mut out, u);
                continue;
            }
            Action::Overflow(o) => {
                super::overflow::figures(&mut out, o);
                continue;
            }
            Action::Gather(g) => {
                super::overflow::figures_back(&mut out, g);
                continue;
            }
            Action::Timeline(t) => {
                super::timeline::figures(&mut out, t);
                continue;
            }
            Action::Archive(a) => {
                a.figures(&mut out);
                continue;
            }
            Action::Kind(k) => {
                k.figures(&mut out);
                continue;
            }
            // A figure of values: no parent whose value differs from the
            // figure recomputed over its children as they are today.
            Action::Computed {
                parent,
                field,
                function,
                of: Some(of),
                bson_type,
                children,
                ..
            } => Figure {
                label: format!(
                    "{parent}.{field}: the documents whose {} differs from the children's",
                    function.name()
                ),
                before: "0".into(),
                after: matching(
                    parent,
                    super::recompute::differing(field, *function, of, bson_type, children),
                ),
            },
            Action::Computed { parent, field, .. } => Figure {
                label: format!("{parent}.{field}: in every document"),
                before: count(parent, &json!({})),
                after: count(parent, &json!({ field: {"$exists": true} })),
            },
            Action::Path {
                collection,
                field,
                start,
                nodes,
                parent,
                items,
                ..
            } => {
                let to = node_at(start);
                out.push(Figure {
                    label: format!("{collection}.{field}: one item per node from the root to {to}"),
                    before: depths(collection, start, nodes, parent),
                    after: sizes(collection, field),
                });
                Figure {
                    label: format!("{collection}.{field}: from a root, {to} last"),
                    before: count(collection, &set(start)),
                    after: sound_paths(collection, field, start, nodes, parent, items.as_deref()),
                }
            }
        };
        out.push(figure);
    }
    out
}

/// The link's attributes a side's items take from the other side's array:
/// as many items carrying them as the other side's items carry today (each
/// link is in both arrays). An item whose link the lookup did not find in
/// the other array is left without them and fails the check.
fn moved_attributes(a: &Action) -> Option<Figure> {
    let Action::LinkItems {
        collection,
        target,
        other,
        theirs: Some(t),
        ..
    } = a
    else {
        return None;
    };
    let names = |f: fn(&ItemField) -> &str| -> Vec<&str> { t.attributes.iter().map(f).collect() };
    Some(Figure {
        label: format!(
            "{collection}.{target}: items with the link's {} from {other}.{}",
            names(|i| &i.target).join(", "),
            t.back
        ),
        before: format!(
            "squillFilled({}, {}, {})",
            json!(other),
            json!(t.back),
            json!(names(|i| &i.source))
        ),
        after: format!(
            "squillFilled({}, {}, {})",
            json!(collection),
            json!(target),
            json!(names(|i| &i.target))
        ),
    })
}

/// A step's items that must carry copies of the other side's fields (or
/// be bare ids): as many as the links it was built from. A copy the lookup
/// did not find (a dangling id) leaves its item short and fails the check.
fn copied(a: &Action) -> Option<Figure> {
    let (coll, field, names, links) = match a {
        Action::BuildParent {
            parent,
            field,
            child,
            ref_path,
            what: ParentField::Holders { copies, .. },
            ..
        } if !copies.is_empty() => (
            parent,
            field,
            copies,
            sizes(child, ref_path.split('.').next().unwrap_or(ref_path)),
        ),
        Action::BuildParent {
            parent,
            field,
            child,
            ref_path,
            what: ParentField::FromEdges { copies, .. },
            ..
        } if !copies.is_empty() => (parent, field, copies, count(child, &set(ref_path))),
        Action::LinkItems {
            collection,
            field,
            target,
            copies,
            attributes,
            ..
        } => {
            let before = sizes(collection, field);
            if copies.is_empty() && attributes.is_empty() {
                return Some(Figure {
                    label: format!("{collection}.{target}: bare ids, without the copies"),
                    before,
                    after: format!("squillIds({}, {})", json!(collection), json!(target)),
                });
            }
            (collection, target, copies, before)
        }
        _ => return None,
    };
    let names: Vec<&str> = names.iter().map(|c| c.target.as_str()).collect();
    Some(Figure {
        label: format!(
            "{coll}.{field}: items with their copies ({})",
            names.join(", ")
        ),
        before: links,
        after: format!(
            "squillFilled({}, {}, {})",
            json!(coll),
            json!(field),
            json!(names)
        ),
    })
}

/// An embedding whose child collection goes in the final step: a child
/// that names no parent would go with it, so the check wants none.
fn orphans(a: &Action, recommended: &Design) -> Option<Figure> {
    let Action::BuildParent {
        parent,
        child,
        ref_path,
        what: ParentField::Embedded { .. },
        ..
    } = a
    else {
        return None;
    };
    let dropped = !recommended.collections.iter().any(|c| &c.name == child);
    (dropped && ref_path != "_id").then(|| Figure {
        label: format!("{child}: documents with no {parent} to embed them in"),
        before: "0".into(),
        after: count(child, &json!({ ref_path.as_str(): null })),
    })
}

/// Per reference an embedded item keeps to other documents (`lookups.rs`):
/// the items whose reference carries every copy against today's children
/// whose referenced document has every field copied (an id naming no
/// document, or a document without a field, counts on neither side); or
/// the item's own children against today's children of held items.
fn looked_up(out: &mut Vec<Figure>, a: &Action) {
    // The collection whose array holds the items, the array, and where
    // the children are today.
    let (parent, field, child, ref_path, lookups, items) = match a {
        Action::BuildParent {
            parent,
            field,
            child,
            ref_path,
            lookups,
            what:
                ParentField::Embedded { items, .. }
                | ParentField::First { items, .. }
                | ParentField::Copies { items, .. },
            ..
        } => (parent, field, child, ref_path, lookups, items),
        Action::Bucket(b) => match &b.children {
            Children::Collection { child, ref_path } => (
                &b.bucket,
                &b.items_field,
                child,
                ref_path,
                &b.lookups,
                &b.items,
            ),
            Children::Embedded { .. } => return,
        },
        _ => return,
    };
    for l in lookups {
        let Some(item) = items.iter().find(|i| i.source == l.at).map(|i| &i.target) else {
            continue;
        };
        let at = format!("{field}.{item}");
        let names: Vec<&str> = l.copies.iter().map(|c| c.target.as_str()).collect();
        let mut has = serde_json::Map::new();
        let mut had = serde_json::Map::new();
        match &l.by {
            LookupBy::Parent(id) => {
                for c in &l.copies {
                    has.insert(format!("{at}.{}", c.target), json!({"$exists": true}));
                    had.insert(format!("{TMP}.{}", c.source), json!({"$exists": true}));
                }
                out.push(Figure {
                    label: format!(
                        "{parent}.{at}: items with the {} they name, with its copies ({})",
                        l.from,
                        names.join(", ")
                    ),
                    before: matching(
                        child,
                        json!([
                            {"$match": {ref_path.as_str(): {"$ne": null}, id.as_str(): {"$ne": null}}},
                            {"$lookup": {"from": l.from, "localField": id, "foreignField": "_id", "as": TMP}},
                            {"$match": had},
                        ]),
                    ),
                    after: matching(
                        parent,
                        json!([{"$unwind": format!("${field}")}, {"$match": has}]),
                    ),
                });
            }
            LookupBy::Children(back) => {
                for c in &l.copies {
                    has.insert(format!("{at}.{}", c.target), json!({"$exists": true}));
                    had.insert(c.source.clone(), json!({"$exists": true}));
                }
                had.insert(format!("{TMP}.{ref_path}"), json!({"$ne": null}));
                out.push(Figure {
                    label: format!("{parent}.{at}: the {} documents of each item", l.from),
                    before: matching(
                        &l.from,
                        json!([
                            {"$match": {back.as_str(): {"$ne": null}}},
                            {"$lookup": {"from": child, "localField": back, "foreignField": "_id", "as": TMP}},
                            {"$match": had},
                        ]),
                    ),
                    after: matching(
                        parent,
                        json!([
                            {"$unwind": format!("${field}")},
                            {"$unwind": format!("${at}")},
                            {"$match": has},
                        ]),
                    ),
                });
            }
        }
    }
}

/// The stages that keep the parents whose array `field` holds not as many
/// items as they have children in `child` (by their id at `ref_path`).
fn each_parents_children(child: &str, ref_path: &str, field: &str) -> serde_json::Value {
    json!([
        {"$lookup": {"from": child, "localField": "_id", "foreignField": ref_path, "pipeline": [{"$project": {"_id": 1}}], "as": TMP}},
        {"$match": {"$expr": {"$ne": [{"$size": {"$ifNull": [format!("${field}"), []]}}, {"$size": format!("${TMP}")}]}}},
    ])
}
