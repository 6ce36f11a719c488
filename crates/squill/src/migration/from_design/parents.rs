//! embed-parent-in-child → parent-reference: the parent embedded whole in
//! each child becomes a document of the parent's own collection (one per
//! distinct parent), and the child keeps only its id. The children are the
//! only source: a parent no child holds is not in today's data either.
//!
//! embed-parent-in-child → embed: the same parents' collection, then each
//! parent's children (their own fields) into its array, found by the id of
//! the parent they embed; the children's collection goes in the final step.
//! Through a parent reference instead, the children would first be made to
//! hold a bare id in place, against their validator of today, in a
//! collection the final step drops anyway.

use super::action::{Action, Check, Cleanup, Undo};
use super::links;
use super::parent_field::parent_field;
use super::plan_value::Plan;
use super::source::{collection_of, item_fields, link_field};
use super::step_parts::{ItemField, ParentField};
use crate::design::{Collection, Design, FieldOrigin, Layout, RelationshipDecision, ShapeType};

/// The steps of `rel`, embedded in its children today.
pub(super) fn plan(p: &mut Plan, today: &Design, recommended: &Design, rel: &RelationshipDecision) {
    if !matches!(rel.chosen, Layout::ParentReference | Layout::Embed) {
        p.refused.push(
            "an embedded parent only becomes a parent reference or embeds its children".into(),
        );
        return;
    }
    let name = &rel.relationship;
    if collection_of(today, &rel.parent).is_some() {
        p.refused.push(format!(
            "`{}` has a collection of its own today besides its copies",
            rel.parent
        ));
        return;
    }
    let (Some(old), Some(parent)) = (
        collection_of(today, &rel.child),
        collection_of(recommended, &rel.parent),
    ) else {
        p.refused.push(format!(
            "`{}` and `{}` without collections of their own",
            rel.child, rel.parent
        ));
        return;
    };
    let held = link_field(old, name).and_then(|f| Some((f, item_fields(f)?)));
    let Some((held, (copies, true))) = held else {
        p.refused
            .push(format!("no parent embedded in `{}` today", old.name));
        return;
    };
    if rel.chosen == Layout::Embed {
        embed(
            p,
            (today, recommended),
            rel,
            old,
            parent,
            &held.name,
            copies,
        );
        return;
    }
    let Some(new) = collection_of(recommended, &rel.child) else {
        p.refused.push(format!(
            "`{}` and `{}` without collections of their own",
            rel.child, rel.parent
        ));
        return;
    };
    let reference = link_field(new, name).filter(|_| old.name == new.name);
    let Some((reference, ShapeType::Scalar { bson_type, .. })) = reference.map(|f| (f, &f.ty))
    else {
        p.refused.push(format!(
            "no parent id in `{}` after the migration",
            new.name
        ));
        return;
    };
    let Some(items) = parent_items(p, parent, copies, old, &held.name, None) else {
        return;
    };
    // The child's copy becomes the id (in place under the same name, after
    // the parents are built from it); its rollback, before the parents'
    // collection goes, puts the copies back from it.
    links::id_from_copy(
        p,
        today,
        recommended,
        name,
        &old.name,
        &format!("{}._id", held.name),
        &reference.name,
        bson_type,
    );
    p.actions.push(Action::ParentsFromChildren {
        relationship: name.clone(),
        child: old.name.clone(),
        field: held.name.clone(),
        parent: parent.name.clone(),
        items,
    });
    p.undo.push(Undo::Drop {
        collection: parent.name.clone(),
    });
}

/// Each field of the parent's collection from the same field of the
/// embedded parent (`copies`, at `held` in `old`), but the array `skip`
/// and the computed fields, which steps of their own build (from the
/// children, wherever they are today); `None` (refused) when one has no
/// copy.
fn parent_items(
    p: &mut Plan,
    parent: &Collection,
    copies: &[crate::design::ShapeField],
    old: &Collection,
    held: &str,
    skip: Option<&str>,
) -> Option<Vec<ItemField>> {
    let mut items = Vec::new();
    for f in &parent.shape.fields {
        if skip == Some(f.name.as_str()) || matches!(f.origin, FieldOrigin::Computed { .. }) {
            continue;
        }
        let from = copies.iter().find(|c| match (&c.origin, &f.origin) {
            (FieldOrigin::Id, FieldOrigin::Id) => true,
            (
                FieldOrigin::Own { entity, field } | FieldOrigin::Copy { entity, field, .. },
                FieldOrigin::Own {
                    entity: e,
                    field: n,
                },
            ) => entity == e && field == n,
            _ => false,
        });
        let Some(from) = from else {
            p.refused.push(format!(
                "no copy of `{}.{}` in `{}.{held}`",
                parent.name, f.name, old.name
            ));
            return None;
        };
        items.push(ItemField {
            target: f.name.clone(),
            source: from.name.clone(),
        });
    }
    Some(items)
}

/// embed-parent-in-child → embed: the parents' collection from the
/// children's copies (as for a parent reference), then each parent's
/// children into its array, looked up by the embedded parent's id, as
/// parent-reference → embed reads a child collection. Checked: a parent
/// per distinct embedded id, every child in an array, and per parent its
/// array as long as its children.
fn embed(
    p: &mut Plan,
    (today, recommended): (&Design, &Design),
    rel: &RelationshipDecision,
    old: &Collection,
    parent: &Collection,
    held: &str,
    copies: &[crate::design::ShapeField],
) {
    let name = &rel.relationship;
    if collection_of(recommended, &rel.child).is_some() {
        p.refused.push(format!(
            "`{}` keeps a collection of its own beside its parent's array",
            rel.child
        ));
        return;
    }
    let ref_path = format!("{held}._id");
    let array = link_field(parent, name);
    let mut lookups = Vec::new();
    let from = super::lookups::Sources {
        child_coll: old,
        today,
        recommended,
    };
    let what = array.and_then(|a| {
        parent_field(
            a,
            (&from, &mut lookups),
            &rel.child,
            (name, &ref_path),
            &rel.chosen,
        )
    });
    let (Some(array), Some(what @ ParentField::Embedded { .. })) = (array, what) else {
        p.refused.push(format!(
            "no step builds `{}`'s children (their own fields) from `{}`",
            parent.name, old.name
        ));
        return;
    };
    let Some(items) = parent_items(p, parent, copies, old, held, Some(&array.name)) else {
        return;
    };
    // The parents first: the array is merged into the documents they make.
    p.actions.push(Action::ParentsFromChildren {
        relationship: name.clone(),
        child: old.name.clone(),
        field: held.into(),
        parent: parent.name.clone(),
        items,
    });
    p.actions.push(Action::BuildParent {
        relationship: name.clone(),
        parent: parent.name.clone(),
        field: array.name.clone(),
        child: old.name.clone(),
        ref_path: ref_path.clone(),
        what,
        lookups,
    });
    p.checks.push(Check::EachParentsChildren {
        parent: parent.name.clone(),
        field: array.name.clone(),
        child: old.name.clone(),
        ref_path,
    });
    p.cleanup.push(Cleanup::DropCollection {
        collection: old.name.clone(),
    });
    p.undo.push(Undo::Drop {
        collection: parent.name.clone(),
    });
}
