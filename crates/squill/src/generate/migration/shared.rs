//! shared-id → parent-reference: a one-to-one child kept under its parent's
//! `_id` gets the reference field the recommended design names, set to that
//! id; its `_id` stays (still unique, and what the application holds). The
//! other way would re-key every child: refused.

use super::action::{Action, Undo};
use super::plan::Plan;
use super::source::{collection_of, link_field};
use crate::design::{Design, FieldOrigin, Layout, RelationshipDecision, ShapeType};

/// The steps of `rel`, keyed by its parent's `_id` today.
pub fn plan(p: &mut Plan, today: &Design, recommended: &Design, rel: &RelationshipDecision) {
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
