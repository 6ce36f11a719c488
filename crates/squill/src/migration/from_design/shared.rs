//! shared-id → parent-reference: a one-to-one child kept under its parent's
//! `_id` gets the reference field the recommended design names, set to that
//! id; its `_id` stays (still unique, and what the application holds).
//!
//! parent-reference → shared-id: an `_id` cannot change in place, so each
//! child is written again under its parent's id, without the reference,
//! into the same collection (its name is the entity's in both designs):
//! the documents of today stay beside the new ones, told apart by the
//! reference only they hold, until the final step deletes them. Both
//! designs' reads work meanwhile (by the reference, by the parent's id).

use super::action::{Action, Cleanup, Undo};
use super::plan_value::Plan;
use super::source::{Source, collection_of, link_field, link_fields, source};
use crate::design::{Design, FieldOrigin, Layout, RelationshipDecision, ShapeType};

/// The steps of `rel`, keyed by its parent's `_id` today.
pub(super) fn plan(p: &mut Plan, today: &Design, recommended: &Design, rel: &RelationshipDecision) {
    if rel.chosen != Layout::ParentReference {
        p.refused
            .push("a child under its parent's id only becomes a parent reference".into());
        return;
    }
    let name = &rel.relationship;
    let (Some(old), Some(new)) = (
        collection_of(today, &rel.child),
        collection_of(recommended, &rel.child),
    ) else {
        p.refused
            .push(format!("`{}` without a collection of its own", rel.child));
        return;
    };
    let keyed = old.shape.fields.iter().any(|f| {
        f.name == "_id"
            && matches!(&f.origin, FieldOrigin::Reference { relationship, .. } if relationship == name)
    });
    let reference = link_field(new, name)
        .filter(|f| matches!(f.ty, ShapeType::Scalar { .. }) && old.name == new.name);
    let (true, Some(reference)) = (keyed, reference) else {
        p.refused.push(format!(
            "`{}` is not keyed by its parent's id today, or keeps no parent id after",
            old.name
        ));
        return;
    };
    p.actions.push(Action::RefFromOwnId {
        relationship: name.clone(),
        child: old.name.clone(),
        ref_field: reference.name.clone(),
    });
    p.undo.push(Undo::Unset {
        collection: old.name.clone(),
        field: reference.name.clone(),
    });
}

/// The steps of `rel`, a parent reference today (`now`) whose child the
/// recommended design keys by its parent's `_id`.
pub(super) fn plan_into(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    now: &RelationshipDecision,
    rel: &RelationshipDecision,
) {
    let name = &rel.relationship;
    if now.chosen != Layout::ParentReference {
        p.refused
            .push("only a parent reference becomes a child under its parent's id".into());
        return;
    }
    let (Some(old), Some(new), Some(parent)) = (
        collection_of(today, &rel.child),
        collection_of(recommended, &rel.child),
        collection_of(today, &rel.parent),
    ) else {
        p.refused.push(format!(
            "`{}` or `{}` without a collection of its own",
            rel.parent, rel.child
        ));
        return;
    };
    // The recommended child: its `_id` the parent's, and no other link.
    let links: Vec<_> = link_fields(new, name).collect();
    let keyed = matches!(links[..], [f] if f.name == "_id");
    let reference = match source(today, name, &rel.parent, &rel.child, &now.chosen) {
        Some(Source::ChildCollection { child, ref_path }) if !ref_path.contains('.') => {
            (child == old.name).then_some(ref_path)
        }
        _ => None,
    };
    let (true, Some(ref_field), true) = (keyed, reference, old.name == new.name) else {
        p.refused.push(format!(
            "`{}` keeps no plain parent id today, or more than its parent's id as its `_id` after",
            old.name
        ));
        return;
    };
    p.actions.push(Action::Rekey {
        relationship: name.clone(),
        child: old.name.clone(),
        parent: parent.name.clone(),
        ref_field: ref_field.clone(),
    });
    p.cleanup.push(Cleanup::DeleteHolding {
        collection: old.name.clone(),
        field: ref_field.clone(),
    });
    p.undo.push(Undo::DeleteLacking {
        collection: old.name.clone(),
        field: ref_field,
    });
}
