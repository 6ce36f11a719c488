//! The verification: figures measured on the source before the first step
//! (kept in the progress collection, so a re-run compares with the source as
//! it was, not with its own output) against the same figures after the
//! migration: documents per collection, and each step's fan-out (the
//! children a parent's array now holds against the children there were).

use super::action::{Action, ChildrenAt, ParentField};
use super::bucket::Buckets;
use crate::design::Design;
use crate::model::AggregateFn;
use serde_json::json;

/// One figure: what it says, its JavaScript before the migration and after.
pub struct Figure {
    pub label: String,
    pub before: String,
    pub after: String,
}

fn count(coll: &str, filter: &serde_json::Value) -> String {
    format!("squillCount({}, {filter})", json!(coll))
}

fn sizes(coll: &str, field: &str) -> String {
    format!("squillSizes({}, {})", json!(coll), json!(field))
}

fn set(path: &str) -> serde_json::Value {
    json!({ path: {"$ne": null} })
}

pub fn figures(actions: &[Action], today: &Design, recommended: &Design) -> Vec<Figure> {
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
    for a in actions {
        if let Some(f) = copied(a) {
            out.push(f);
        }
        if let Action::Bucket(b) = a {
            buckets(&mut out, b);
            continue;
        }
        if let Action::Unbucket(u) = a {
            let label =
                |what: &str| format!("{}: one document per child {what} in {}", u.child, u.bucket);
            let after = count(&u.child, &set(&u.ref_field));
            out.push(Figure {
                label: label("held"),
                before: sizes(&u.bucket, &u.items_field),
                after: after.clone(),
            });
            if let Some(c) = &u.count {
                out.push(Figure {
                    label: label("counted"),
                    before: format!("squillTotal({}, {})", json!(u.bucket), json!(c)),
                    after,
                });
            }
            continue;
        }
        out.push(match a {
            Action::BuildParent {
                parent,
                field,
                child,
                ref_path,
                what,
                ..
            } => Figure {
                label: format!("{parent}.{field}: the {child} documents it holds"),
                before: match what {
                    // Each link once: the items of the other side's arrays.
                    ParentField::Holders { .. } => {
                        sizes(child, ref_path.split('.').next().unwrap_or(ref_path))
                    }
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
                after: sizes(parent, field),
            },
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
                ..
            } => Figure {
                label: format!("{child}.{ref_field}: set for each id in {parent}.{field}"),
                before: sizes(parent, field),
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
            Action::Bucket(_) | Action::Unbucket(_) => continue,
            Action::Archive(a) => {
                a.figures(&mut out);
                continue;
            }
            Action::Kind(k) => {
                k.figures(&mut out);
                continue;
            }
            Action::Computed { parent, field, .. } => Figure {
                label: format!("{parent}.{field}: in every document"),
                before: count(parent, &json!({})),
                after: count(parent, &json!({ field: {"$exists": true} })),
            },
        });
    }
    out
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

/// Each child of today in one bucket, the counts adding up to them, and no
/// bucket over its size.
fn buckets(out: &mut Vec<Figure>, b: &Buckets) {
    let children = count(&b.child, &set(&b.ref_path));
    out.push(Figure {
        label: format!(
            "{}.{}: each {} document of today in one bucket",
            b.bucket, b.items_field, b.child
        ),
        before: children.clone(),
        after: sizes(&b.bucket, &b.items_field),
    });
    if let Some(c) = &b.count {
        out.push(Figure {
            label: format!(
                "{}.{}: the counts add up to the children",
                b.bucket, c.field
            ),
            before: children,
            after: format!("squillTotal({}, {})", json!(b.bucket), json!(c.field)),
        });
    }
    // An item at index `per_bucket` is one too many.
    let over = format!("{}.{}", b.items_field, b.per_bucket);
    out.push(Figure {
        label: format!("{}: no bucket holds more than {}", b.bucket, b.per_bucket),
        before: "0".into(),
        after: count(&b.bucket, &json!({ over: {"$exists": true} })),
    });
}
