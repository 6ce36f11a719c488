//! From the design of today and the recommended one to the steps between
//! them, per relationship whose layout changes, then a check that the steps
//! account for every field of every recommended collection: a field no step
//! builds and today's documents do not already hold refuses the whole
//! migration, so no script is written that would leave a collection short.

use super::action::{Action, Check, Cleanup, Undo};
use super::links;
use super::lookups;
use super::parent_field::parent_field;
use super::plan_value::{Plan, same_field};
use super::source::{
    Source, collection_of, is_id_array, item_fields, link_field, own_field, side_link, source,
};
use super::step_parts::{ItemField, ParentField};
use super::tree;
use crate::design::{
    Collection, Design, FieldOrigin, Layout, RelationshipDecision, ShapeField, ShapeType, Side,
};
use crate::model::Model;

pub(super) fn plan(model: &Model, today: &Design, recommended: &Design) -> Plan {
    let mut p = Plan::default();
    let parts = links::edge_parts(recommended);
    let archived = super::archive::archive_entities(recommended, today);
    let kinds: Vec<&str> = super::kinds::kinds_of(recommended, today)
        .into_iter()
        .chain(super::kinds::kinds_of(today, recommended))
        .collect();
    for rel in &recommended.relationships {
        if [&rel.parent, &rel.child]
            .iter()
            .any(|e| archived.contains(&e.as_str()))
        {
            // A relationship of an archive's entity: its documents carry it.
            continue;
        }
        if parts.contains(&rel.relationship.as_str())
            && !today
                .relationships
                .iter()
                .any(|r| r.relationship == rel.relationship)
        {
            // A link's reference in a new edge collection: its step builds it.
            continue;
        }
        let Some(now) = today
            .relationships
            .iter()
            .find(|r| r.relationship == rel.relationship)
        else {
            p.refused.push(format!(
                "`{}` is not in the design of today",
                rel.relationship
            ));
            continue;
        };
        if now.chosen == rel.chosen {
            continue;
        }
        if [&rel.parent, &rel.child]
            .iter()
            .any(|e| kinds.contains(&e.as_str()))
        {
            // Its documents move between collections in the same run.
            p.refused.push(format!(
                "`{}`: a kind that moves into or out of a polymorphic collection changes its layout too",
                rel.relationship
            ));
            p.with_kinds.push(rel.relationship.clone());
            continue;
        }
        p.changes.push((
            rel.relationship.clone(),
            now.chosen.kind().to_string(),
            rel.chosen.kind().to_string(),
        ));
        let before = p.refused.len();
        if links::is_many_to_many(&now.chosen)
            || links::is_many_to_many(&rel.chosen)
            || links::child_array(today, now)
            || links::child_array(recommended, rel)
        {
            links::plan(&mut p, today, recommended, now, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        if matches!(now.chosen, Layout::Outlier { .. }) && rel.chosen == Layout::Embed {
            super::overflow::plan_back(&mut p, today, recommended, now);
            explain(&mut p, before, now, rel);
            continue;
        }
        // An array of today rewritten under its name (embed → outlier or
        // subset): its children move out, it is cut by the final step.
        if now.chosen == Layout::Embed
            && (matches!(rel.chosen, Layout::Outlier { .. })
                || super::overflow::same_array(today, recommended, rel))
        {
            super::overflow::plan(&mut p, today, recommended, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        if matches!(now.chosen, Layout::Bucket { .. }) {
            super::bucket::plan_back(&mut p, today, recommended, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        // A child under its parent's id into the parent: read as any
        // child collection, matched on its `_id`.
        if now.chosen == Layout::SharedId && rel.chosen != Layout::Embed {
            super::shared::plan(&mut p, today, recommended, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        if rel.chosen == Layout::SharedId {
            super::shared::plan_into(&mut p, today, recommended, now, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        if now.chosen == Layout::EmbedParentInChild {
            super::parents::plan(&mut p, today, recommended, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        if tree::is_tree(&now.chosen) || tree::is_tree(&rel.chosen) {
            tree::plan(&mut p, today, recommended, now, rel);
            explain(&mut p, before, now, rel);
            continue;
        }
        let Some(src) = source(
            today,
            &rel.relationship,
            &rel.parent,
            &rel.child,
            &now.chosen,
        ) else {
            p.refused.push(format!(
                "the migration cannot read a {} layout",
                now.chosen.kind()
            ));
            explain(&mut p, before, now, rel);
            continue;
        };
        if matches!(rel.chosen, Layout::Bucket { .. }) {
            super::bucket::plan(&mut p, today, recommended, rel, &src);
        } else {
            child_side(
                &mut p,
                today,
                recommended,
                &rel.relationship,
                &rel.child,
                &src,
            );
        }
        parent_side(&mut p, today, recommended, rel, &src);
        explain(&mut p, before, now, rel);
    }
    super::computed::computed(&mut p, today, recommended);
    super::archive::plan(&mut p, today, recommended);
    super::kinds::plan(&mut p, today, recommended);
    dropped_timelines(&mut p, today, recommended);
    super::timeline::plan(&mut p, model, today, recommended);
    account(&mut p, today, recommended);
    super::stale::stale(&mut p, today, recommended);
    // In-place conversions last: they change the path other steps match
    // on; a timeline after them, from the data as they leave it.
    p.actions.sort_by_key(Action::phase);
    rebuilt_last(&mut p, today, recommended);
    p
}

/// A parent's field of today that a step would build again under its name,
/// in another shape (subset → embed: all the children over the newest
/// K's copies), is built by the final step instead: today's application
/// reads it until then. Its recommended validator waits for it.
fn rebuilt_last(p: &mut Plan, today: &Design, recommended: &Design) {
    let rewrites = |a: &Action| {
        let Action::BuildParent { parent, field, .. } = a else {
            return false;
        };
        let now = today.collections.iter().find(|c| &c.name == parent);
        let new = recommended.collections.iter().find(|c| &c.name == parent);
        let at = |c: Option<&Collection>| {
            c.is_some_and(|c| c.shape.fields.iter().any(|f| &f.name == field))
        };
        let (Some(now), Some(new)) = (now, new) else {
            return false;
        };
        at(Some(now))
            && at(Some(new))
            && !now
                .shape
                .fields
                .iter()
                .any(|f| &f.name == field && new.shape.fields.iter().any(|g| same_field(f, g)))
    };
    let (last, steps) = std::mem::take(&mut p.actions)
        .into_iter()
        .partition(rewrites);
    p.actions = steps;
    p.last = last;
    for a in &p.last {
        let coll = super::action::collection(a).to_string();
        if !p.deferred.contains(&coll) {
            p.deferred.push(coll);
        }
    }
}

/// The reasons a relationship's steps gave since `before`, as one reason
/// that names the relationship and its change.
fn explain(p: &mut Plan, before: usize, now: &RelationshipDecision, rel: &RelationshipDecision) {
    if p.refused.len() > before {
        let why = p.refused.split_off(before).join(", ");
        let reason = format!(
            "`{}`: {} → {}: {why}",
            rel.relationship,
            now.chosen.kind(),
            rel.chosen.kind()
        );
        p.blocked.push((rel.relationship.clone(), reason.clone()));
        p.refused.push(reason);
    }
}

/// A timeline of today is copies its writes keep up to date, read by the
/// application of today only: without one in the recommended design (a
/// feed read on demand), it goes in the final step.
fn dropped_timelines(p: &mut Plan, today: &Design, recommended: &Design) {
    for c in &today.collections {
        let timeline = c
            .shape
            .fields
            .iter()
            .any(|f| matches!(f.origin, FieldOrigin::Timeline { .. }));
        if timeline && !recommended.collections.iter().any(|r| r.name == c.name) {
            p.cleanup.push(Cleanup::DropCollection {
                collection: c.name.clone(),
            });
        }
    }
}

/// The child's collection and its reference to the parent.
fn child_side(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    rel: &str,
    child: &str,
    src: &Source,
) {
    let Some(target) = collection_of(recommended, child) else {
        // Embedded now: the child's collection of today goes in the final step.
        if let Some(old) = collection_of(today, child) {
            p.cleanup.push(Cleanup::DropCollection {
                collection: old.name.clone(),
            });
        }
        return;
    };
    let Some(tf) = side_link(target, rel, Side::Child) else {
        // No reference in the child any more (child references).
        if let Source::ChildCollection { child, ref_path } = src {
            let field = ref_path.split('.').next().unwrap_or(ref_path).to_string();
            p.cleanup.push(Cleanup::Unset {
                collection: child.clone(),
                field,
            });
        } else if let Source::IdArray { .. } = src {
            // No reference in the child today either.
        } else {
            p.refused
                .push("children that are not in a collection of their own".into());
        }
        return;
    };
    match (&tf.ty, src) {
        (ShapeType::Scalar { .. }, Source::ChildCollection { ref_path, .. })
            if *ref_path == tf.name => {}
        (
            ShapeType::Scalar { .. },
            Source::Embedded {
                parent,
                field,
                one,
                rest,
            },
        ) => {
            let Some(items) = unwound_items(today, parent, field, target, tf) else {
                p.refused.push(format!(
                    "the fields of `{}` are not all embedded children's own fields",
                    target.name
                ));
                return;
            };
            let keeps_id = items.iter().any(|i| i.target == "_id");
            if *rest && !keeps_id {
                // A batch could not tell the children it wrote from those
                // the child collection held already.
                p.refused
                    .push("an outlier's embedded children without an `_id`".into());
                return;
            }
            p.actions.push(Action::Unwind {
                relationship: rel.into(),
                parent: parent.clone(),
                field: field.clone(),
                one: *one,
                child: target.name.clone(),
                ref_field: tf.name.clone(),
                items,
                keeps_id,
                rest: *rest,
            });
            p.undo.push(if *rest {
                Undo::RemoveEmbedded {
                    child: target.name.clone(),
                    parent: parent.clone(),
                    field: field.clone(),
                }
            } else {
                Undo::Drop {
                    collection: target.name.clone(),
                }
            });
        }
        (ShapeType::Scalar { bson_type, .. }, Source::ChildCollection { ref_path, child })
            if ref_path
                .strip_suffix("._id")
                .is_some_and(|h| !h.contains('.')) =>
        {
            links::id_from_copy(
                p,
                today,
                recommended,
                rel,
                child,
                ref_path,
                &tf.name,
                bson_type,
            );
        }
        (
            ShapeType::Scalar { .. },
            Source::IdArray {
                parent,
                field,
                objects,
                one,
                ..
            },
        ) => {
            p.actions.push(Action::RefFromIds {
                relationship: rel.into(),
                parent: parent.clone(),
                field: field.clone(),
                child: target.name.clone(),
                ref_field: tf.name.clone(),
                objects: *objects,
                one: *one,
            });
            p.undo.push(Undo::Unset {
                collection: target.name.clone(),
                field: tf.name.clone(),
            });
        }
        (ShapeType::Object { shape }, Source::ChildCollection { ref_path, child })
            if !ref_path.contains('.') =>
        {
            let Some(parent_coll) = recommended
                .relationships
                .iter()
                .find(|r| r.relationship == rel)
                .and_then(|r| collection_of(today, &r.parent))
            else {
                p.refused
                    .push("a parent without a collection of its own".into());
                return;
            };
            let mut copies = Vec::new();
            for f in &shape.fields {
                match &f.origin {
                    // The parent embedded whole (embed-parent-in-child):
                    // its own id and fields, each from its document.
                    FieldOrigin::Reference { .. } | FieldOrigin::Id if f.name == "_id" => {}
                    FieldOrigin::Copy { entity, field, .. }
                    | FieldOrigin::Own { entity, field } => {
                        match own_field(parent_coll, entity, field) {
                            Some(s) => copies.push(ItemField {
                                target: f.name.clone(),
                                source: s.into(),
                            }),
                            None => {
                                p.refused
                                    .push(format!("no field `{field}` in `{}`", parent_coll.name));
                                return;
                            }
                        }
                    }
                    _ => {
                        p.refused.push(format!(
                            "`{}.{}` is neither the id nor a copy",
                            tf.name, f.name
                        ));
                        return;
                    }
                }
            }
            p.actions.push(Action::CopyIntoChild {
                relationship: rel.into(),
                child: child.clone(),
                ref_field: ref_path.clone(),
                target: tf.name.clone(),
                parent: parent_coll.name.clone(),
                copies,
            });
            if *ref_path == tf.name {
                p.undo.push(Undo::BackToId {
                    collection: child.clone(),
                    field: tf.name.clone(),
                });
            } else {
                p.undo.push(Undo::Unset {
                    collection: child.clone(),
                    field: tf.name.clone(),
                });
                p.cleanup.push(Cleanup::Unset {
                    collection: child.clone(),
                    field: ref_path.clone(),
                });
            }
        }
        _ => p.refused.push(format!(
            "no step builds the child's `{}.{}` from {}",
            target.name,
            tf.name,
            describe(src)
        )),
    }
}

fn describe(src: &Source) -> String {
    match src {
        Source::ChildCollection { child, ref_path } => format!("`{child}.{ref_path}`"),
        Source::Embedded { parent, field, .. } => format!("the embedded `{parent}.{field}`"),
        Source::IdArray { parent, field, .. } => format!("the ids in `{parent}.{field}`"),
    }
}

/// The fields of the new child collection, each from a field of the
/// embedded children of today (and the `_id` when they carry one).
fn unwound_items(
    today: &Design,
    parent: &str,
    field: &str,
    target: &Collection,
    ref_field: &ShapeField,
) -> Option<Vec<ItemField>> {
    let old = today.collections.iter().find(|c| c.name == parent)?;
    let (old_items, _) = item_fields(old.shape.fields.iter().find(|f| f.name == field)?)?;
    let mut out = Vec::new();
    for f in &target.shape.fields {
        if f.name == ref_field.name {
            continue;
        }
        let from = old_items.iter().find(|o| match (&o.origin, &f.origin) {
            (FieldOrigin::Id, FieldOrigin::Id) => true,
            (
                FieldOrigin::Own { entity, field },
                FieldOrigin::Own {
                    entity: e,
                    field: n,
                },
            ) => entity == e && field == n,
            _ => false,
        });
        match (from, &f.origin) {
            (Some(o), _) => out.push(ItemField {
                target: f.name.clone(),
                source: o.name.clone(),
            }),
            // No id in the embedded children: the server gives each one.
            (None, FieldOrigin::Id) => {}
            (None, _) => return None,
        }
    }
    Some(out)
}

/// The parent's field for the relationship: built from the children's
/// collection when it changes; the old one goes in the final step.
fn parent_side(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    rel: &RelationshipDecision,
    src: &Source,
) {
    let name = &rel.relationship;
    if rel.chosen == Layout::EmbedParentInChild
        && collection_of(recommended, &rel.parent).is_none()
        && let (Some(old), Some(child), Source::ChildCollection { child: from, .. }) = (
            collection_of(today, &rel.parent),
            collection_of(recommended, &rel.child).and_then(|c| link_field(c, name)),
            src,
        )
    {
        // The parent lives on in its children only: its collection goes in
        // the final step, and the check says whether every parent is held
        // by a child (one without children would be lost with it).
        p.cleanup.push(Cleanup::DropCollection {
            collection: old.name.clone(),
        });
        p.checks.push(Check::ParentsHeld {
            parent: old.name.clone(),
            child: from.clone(),
            id_path: format!("{}._id", child.name),
        });
        return;
    }
    let keeps_nothing = matches!(
        rel.chosen,
        Layout::ParentReference
            | Layout::ExtendedReference {
                copies_into: Side::Child,
                ..
            }
    );
    if collection_of(recommended, &rel.parent).is_none()
        && (keeps_nothing || collection_of(today, &rel.parent).is_some())
    {
        // The parent is embedded in another: that relationship's step
        // builds it from its collection of today, this relationship's
        // field in its items too (`lookups.rs`), or refuses.
        return;
    }
    let Some(target) = collection_of(recommended, &rel.parent) else {
        p.refused.push(format!(
            "`{}` has no collection of its own in the recommended design",
            rel.parent
        ));
        return;
    };
    let Some(old_coll) = collection_of(today, &rel.parent) else {
        p.refused.push(format!(
            "`{}` has no collection of its own today",
            rel.parent
        ));
        return;
    };
    let old = side_link(old_coll, name, Side::Parent);
    let new = side_link(target, name, Side::Parent);
    if old == new {
        return;
    }
    if let Some(old) = old.filter(|o| new.is_none_or(|n| n.name != o.name)) {
        p.cleanup.push(Cleanup::Unset {
            collection: old_coll.name.clone(),
            field: old.name.clone(),
        });
    }
    let Some(new) = new else { return };
    if let Source::IdArray {
        objects: true,
        field,
        child,
        ..
    } = src
        && is_id_array(new)
    {
        links::ids_from_copies(p, today, old_coll, field, child, &new.name, name);
        return;
    }
    let Source::ChildCollection { child, ref_path } = src else {
        p.refused.push(format!(
            "`{}.{}` can only be built from a child collection with the parent's id",
            target.name, new.name
        ));
        return;
    };
    let Some(child_coll) = today.collections.iter().find(|c| &c.name == child) else {
        return;
    };
    let mut lookups = Vec::new();
    let from = lookups::Sources {
        child_coll,
        today,
        recommended,
    };
    let Some(what) = parent_field(
        new,
        (&from, &mut lookups),
        &rel.child,
        (name, ref_path),
        &rel.chosen,
    ) else {
        p.refused.push(format!(
            "no step builds `{}.{}` (its items are neither the children's fields nor their ids)",
            target.name, new.name
        ));
        return;
    };
    if let ParentField::First { .. } = what {
        // An outlier's child collection keeps only the children past the
        // parent's array: the embedded ones leave it in the final step.
        p.cleanup.push(Cleanup::RemoveEmbedded {
            child: child.clone(),
            parent: target.name.clone(),
            field: new.name.clone(),
        });
    }
    p.actions.push(Action::BuildParent {
        relationship: name.clone(),
        parent: target.name.clone(),
        field: new.name.clone(),
        child: child.clone(),
        ref_path: ref_path.clone(),
        what,
        lookups,
    });
    if old.is_none_or(|o| o.name != new.name) {
        p.undo.push(Undo::Unset {
            collection: target.name.clone(),
            field: new.name.clone(),
        });
    }
}

/// Every field of every recommended collection is either in today's
/// documents already or built by a step; anything else refuses.
fn account(p: &mut Plan, today: &Design, recommended: &Design) {
    let built = |coll: &str, field: &str| {
        p.actions.iter().any(|a| match a {
            Action::BuildParent {
                parent, field: f, ..
            }
            | Action::Computed {
                parent, field: f, ..
            } => parent == coll && f == field,
            Action::Unwind { child, .. } => child == coll,
            Action::RefFromIds {
                child, ref_field, ..
            } => child == coll && ref_field == field,
            // The parent's id stays the child's own `_id`.
            Action::RefFromOwnId {
                child, ref_field, ..
            } => child == coll && (ref_field == field || field == "_id"),
            Action::Rekey { child, .. } => child == coll && field == "_id",
            Action::CopyIntoChild { child, target, .. }
            | Action::IdFromCopy { child, target, .. } => child == coll && target == field,
            Action::IdsFromCopies { parent, target, .. } => parent == coll && target == field,
            Action::LinkItems {
                collection, target, ..
            } => collection == coll && target == field,
            Action::Edge { edge, .. } => edge == coll,
            Action::Bucket(b) => b.bucket == coll,
            Action::Unbucket(u) => u.child == coll,
            Action::Overflow(o) => (o.parent == coll && o.field == field) || o.child == coll,
            Action::Gather(g) => g.parent == coll && g.field == field,
            Action::ParentsFromChildren { parent, items, .. } => {
                parent == coll && items.iter().any(|i| i.target == field)
            }
            Action::Path {
                collection,
                field: f,
                ..
            } => collection == coll && f == field,
            Action::Timeline(t) => t.collection == coll,
            Action::Archive(a) => !a.back && a.archive == coll,
            Action::Kind(k) => (if k.back { &k.own } else { &k.shared }) == coll,
        })
    };
    let mut missing = Vec::new();
    for coll in &recommended.collections {
        let old = today.collections.iter().find(|c| c.name == coll.name);
        let timeline = coll
            .shape
            .fields
            .iter()
            .any(|f| matches!(f.origin, FieldOrigin::Timeline { .. }));
        if timeline && old.is_none() && !built(&coll.name, "") {
            missing.push(format!(
                "no step builds the timeline `{}` (fan-out on write) the design of today does not have",
                coll.name
            ));
            continue;
        }
        if let Some(old) = old
            && old.entities != coll.entities
        {
            missing.push(format!(
                "collection `{}` holds {} today and {} in the recommended design",
                coll.name,
                old.entities.join(", "),
                coll.entities.join(", ")
            ));
            continue;
        }
        for f in &coll.shape.fields {
            let kept = old.is_some_and(|o| o.shape.fields.iter().any(|g| same_field(f, g)));
            if !kept && !built(&coll.name, &f.name) {
                missing.push(format!("no step builds `{}.{}`", coll.name, f.name));
            }
        }
    }
    // A reason of its own already explains a field of a refused relationship.
    if p.refused.is_empty() {
        p.refused.extend(missing);
    }
}
