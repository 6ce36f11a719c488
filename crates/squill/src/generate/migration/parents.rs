//! embed-parent-in-child → parent-reference: the parent embedded whole in
//! each child becomes a document of the parent's own collection (one per
//! distinct parent), and the child keeps only its id. The children are the
//! only source: a parent no child holds is not in today's data either.

use super::action::{Action, ItemField, Undo};
use super::links;
use super::plan::Plan;
use super::source::{collection_of, item_fields, link_field};
use crate::design::{Design, FieldOrigin, Layout, RelationshipDecision, ShapeType};

/// The steps of `rel`, embedded in its children today.
pub fn plan(p: &mut Plan, today: &Design, recommended: &Design, rel: &RelationshipDecision) {
    if rel.chosen != Layout::ParentReference {
        p.refused
            .push("an embedded parent only becomes a parent reference".into());
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
    let (Some(old), Some(new), Some(parent)) = (
        collection_of(today, &rel.child),
        collection_of(recommended, &rel.child),
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
    let reference = link_field(new, name).filter(|_| old.name == new.name);
    let Some((reference, ShapeType::Scalar { bson_type, .. })) = reference.map(|f| (f, &f.ty))
    else {
        p.refused.push(format!(
            "no parent id in `{}` after the migration",
            new.name
        ));
        return;
    };
    // Each field of the parent's collection from the same field of the
    // embedded parent.
    let mut items = Vec::new();
    for f in &parent.shape.fields {
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
                "no copy of `{}.{}` in `{}.{}`",
                parent.name, f.name, old.name, held.name
            ));
            return;
        };
        items.push(ItemField {
            target: f.name.clone(),
            source: from.name.clone(),
        });
    }
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
