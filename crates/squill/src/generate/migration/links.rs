//! The steps of a many-to-many whose layout changes (ids in one side's
//! array, in both sides', or one document per link in an edge collection),
//! and of an extended reference whose copies go: each reads the links where
//! they are today and writes them where the recommended design keeps them.

use super::action::{Action, Cleanup, EdgeRef, ItemField, ParentField, Undo};
use super::plan::{Plan, same_field};
use super::source::{
    collection_of, id_path, is_id_array, is_ref_array, item_fields, link_field, own_field,
};
use crate::design::{
    Collection, Design, FieldOrigin, Layout, RelationshipDecision, ShapeField, ShapeType,
};

/// Whether the layout keeps a many-to-many's links.
pub fn is_many_to_many(layout: &Layout) -> bool {
    matches!(
        layout,
        Layout::ManyToManyOneWay { .. } | Layout::ManyToManyTwoWay | Layout::EdgeCollection { .. }
    )
}

/// The collection of an edge-collection relationship, and the entity its
/// documents are (the link written as an entity).
fn edge_collection<'d>(design: &'d Design, rel: &RelationshipDecision) -> Option<&'d Collection> {
    let Layout::EdgeCollection { collection } = &rel.chosen else {
        return None;
    };
    design
        .collections
        .iter()
        .find(|c| &c.name == collection && c.entities.len() == 1)
}

/// The relationships of a design that are an edge collection's references
/// (a link to each side): the step that builds the collection builds them.
pub fn edge_parts(design: &Design) -> Vec<&str> {
    let mut out = Vec::new();
    for rel in &design.relationships {
        if let Some(edge) = edge_collection(design, rel) {
            out.extend(
                design
                    .relationships
                    .iter()
                    .filter(|r| r.child == edge.entities[0])
                    .map(|r| r.relationship.as_str()),
            );
        }
    }
    out
}

/// Where a many-to-many's links are in one design: each side's array
/// (collection, entity, field), and the edge collection.
struct Links<'d> {
    arrays: Vec<(&'d Collection, &'d str, &'d ShapeField)>,
    edge: Option<&'d Collection>,
}

fn links<'d>(design: &'d Design, rel: &'d RelationshipDecision) -> Option<Links<'d>> {
    let mut arrays = Vec::new();
    for side in [&rel.parent, &rel.child] {
        let coll = collection_of(design, side)?;
        if let Some(f) = link_field(coll, &rel.relationship) {
            if !is_id_array(f) && !is_ref_array(f) {
                return None;
            }
            arrays.push((coll, side.as_str(), f));
        }
    }
    let edge = edge_collection(design, rel);
    if matches!(rel.chosen, Layout::EdgeCollection { .. }) && edge.is_none() {
        return None;
    }
    Some(Links { arrays, edge })
}

/// The reference of the links in `edge` to `side`, with its copies, each
/// read from `side`'s collection in `today`.
fn edge_ref(design: &Design, today: &Design, edge: &Collection, side: &str) -> Option<EdgeRef> {
    let rel = design
        .relationships
        .iter()
        .find(|r| r.child == edge.entities[0] && r.parent == side)?;
    let f = link_field(edge, &rel.relationship)?;
    let copies = match &f.ty {
        ShapeType::Scalar { .. } => None,
        ShapeType::Object { shape } => Some(copies(&shape.fields, collection_of(today, side)?)?),
        ShapeType::Array { .. } => return None,
    };
    Some(EdgeRef {
        field: f.name.clone(),
        copies,
    })
}

/// The copies among `fields` (beside the reference's `_id`), each from its
/// field in `from`.
fn copies(fields: &[ShapeField], from: &Collection) -> Option<Vec<ItemField>> {
    let mut out = Vec::new();
    for f in fields {
        match &f.origin {
            FieldOrigin::Reference { .. } | FieldOrigin::Id if f.name == "_id" => {}
            // A parent embedded whole holds its own fields, not copies.
            FieldOrigin::Copy { entity, field, .. } | FieldOrigin::Own { entity, field } => out
                .push(ItemField {
                    target: f.name.clone(),
                    source: own_field(from, entity, field)?.to_string(),
                }),
            _ => return None,
        }
    }
    Some(out)
}

/// The steps of many-to-many `rel` (`now` today).
pub fn plan(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    now: &RelationshipDecision,
    rel: &RelationshipDecision,
) {
    if rel.parent == rel.child {
        p.refused
            .push("a many-to-many of an entity with itself".into());
        return;
    }
    let (Some(t), Some(r)) = (links(today, now), links(recommended, rel)) else {
        p.refused
            .push("links that are neither arrays of ids nor an edge collection".into());
        return;
    };
    let name = &rel.relationship;
    for (coll, side, f) in &r.arrays {
        if let Some((_, _, g)) = t.arrays.iter().find(|(c, ..)| c.name == coll.name) {
            if !same_field(f, g) {
                p.refused
                    .push(format!("`{}.{}` changes its items", coll.name, f.name));
            }
            continue;
        }
        let what = if let Some((other, _, g)) = t.arrays.first() {
            if !is_id_array(f) {
                p.refused.push(format!(
                    "`{}.{}` would hold the link's attributes too",
                    coll.name, f.name
                ));
                continue;
            }
            Some((other.name.clone(), id_path(g), ParentField::Holders))
        } else if let Some(edge) = t.edge {
            from_edges(today, edge, side, f, rel)
        } else {
            None
        };
        let Some((child, ref_path, what)) = what else {
            p.refused
                .push(format!("no step builds `{}.{}`", coll.name, f.name));
            continue;
        };
        p.actions.push(Action::BuildParent {
            relationship: name.clone(),
            parent: coll.name.clone(),
            field: f.name.clone(),
            child,
            ref_path,
            what,
        });
        p.undo.push(Undo::Unset {
            collection: coll.name.clone(),
            field: f.name.clone(),
        });
    }
    for (coll, _, g) in &t.arrays {
        if !r
            .arrays
            .iter()
            .any(|(c, _, f)| c.name == coll.name && f.name == g.name)
        {
            p.cleanup.push(Cleanup::Unset {
                collection: coll.name.clone(),
                field: g.name.clone(),
            });
        }
    }
    match (t.edge, r.edge) {
        (None, Some(edge)) => to_edges(p, today, recommended, rel, &t, edge),
        (Some(edge), None) => p.cleanup.push(Cleanup::DropCollection {
            collection: edge.name.clone(),
        }),
        _ => {}
    }
}

/// A side's new array from today's edge collection: the links whose
/// reference is the side's document, each the other side's id (with the
/// link's attributes when the array's items are documents).
fn from_edges(
    today: &Design,
    edge: &Collection,
    side: &str,
    f: &ShapeField,
    rel: &RelationshipDecision,
) -> Option<(String, String, ParentField)> {
    let other = if side == rel.parent {
        &rel.child
    } else {
        &rel.parent
    };
    let mine = edge_ref(today, today, edge, side)?;
    let theirs = edge_ref(today, today, edge, other)?;
    let mut items = Vec::new();
    if !is_id_array(f) {
        let (fields, false) = item_fields(f)? else {
            return None;
        };
        for i in fields {
            match &i.origin {
                FieldOrigin::Reference { .. } if i.name == "_id" => {}
                FieldOrigin::Attribute { field, .. } => items.push(ItemField {
                    target: i.name.clone(),
                    source: own_field(edge, &edge.entities[0], field)?.to_string(),
                }),
                _ => return None,
            }
        }
    }
    Some((
        edge.name.clone(),
        mine.id_path(),
        ParentField::FromEdges {
            id: theirs.id_path(),
            items,
        },
    ))
}

/// The new edge collection from the array of one side today (the parent's
/// when both keep one).
fn to_edges(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    rel: &RelationshipDecision,
    t: &Links<'_>,
    edge: &Collection,
) {
    let Some((holder, side, g)) = t
        .arrays
        .iter()
        .find(|(_, s, _)| *s == rel.parent)
        .or(t.arrays.first())
    else {
        p.refused
            .push(format!("no links today to build `{}` from", edge.name));
        return;
    };
    let other = if *side == rel.parent {
        &rel.child
    } else {
        &rel.parent
    };
    let (Some(holder_ref), Some(other_ref), Some(other_coll)) = (
        edge_ref(recommended, today, edge, side),
        edge_ref(recommended, today, edge, other),
        collection_of(today, other),
    ) else {
        p.refused.push(format!(
            "the references of `{}` are not ids or copies of today's fields",
            edge.name
        ));
        return;
    };
    let items = item_fields(g).map(|(f, _)| f).unwrap_or_default();
    let mut attributes = Vec::new();
    for f in &edge.shape.fields {
        let FieldOrigin::Own { entity, field } = &f.origin else {
            continue;
        };
        if *entity != edge.entities[0] {
            continue;
        }
        let from = items
            .iter()
            .find(|i| matches!(&i.origin, FieldOrigin::Attribute { field: a, .. } if a == field));
        let Some(from) = from else {
            p.refused.push(format!(
                "no step builds `{}.{}` (the link's attribute is not in `{}.{}`)",
                edge.name, f.name, holder.name, g.name
            ));
            return;
        };
        attributes.push(ItemField {
            target: f.name.clone(),
            source: from.name.clone(),
        });
    }
    p.actions.push(Action::Edge {
        relationship: rel.relationship.clone(),
        holder: holder.name.clone(),
        field: g.name.clone(),
        objects: is_ref_array(g),
        edge: edge.name.clone(),
        holder_ref,
        other_ref,
        other: other_coll.name.clone(),
        attributes,
    });
    p.undo.push(Undo::Drop {
        collection: edge.name.clone(),
    });
}

/// extended reference into the child → parent reference: the child's
/// `{_id, copies…}` at `ref_path`'s head becomes the id at `target`.
#[allow(clippy::too_many_arguments)] // the two designs and the reference's parts
pub fn id_from_copy(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    rel: &str,
    child: &str,
    ref_path: &str,
    target: &str,
    id_type: &str,
) {
    let head = ref_path.strip_suffix("._id").unwrap_or(ref_path);
    p.actions.push(Action::IdFromCopy {
        relationship: rel.into(),
        child: child.into(),
        ref_path: ref_path.into(),
        target: target.into(),
        id_type: id_type.into(),
    });
    if head != target {
        p.undo.push(Undo::Unset {
            collection: child.into(),
            field: target.into(),
        });
        p.cleanup.push(Cleanup::Unset {
            collection: child.into(),
            field: head.into(),
        });
        return;
    }
    // In place: the rollback puts the copies back from the parent (its
    // collection of today, or the one the migration builds from the copies).
    let back = (|| {
        let decision = today.relationships.iter().find(|r| r.relationship == rel)?;
        let parent = collection_of(today, &decision.parent)
            .or_else(|| collection_of(recommended, &decision.parent))?;
        let old = today.collections.iter().find(|c| c.name == child)?;
        let field = old.shape.fields.iter().find(|f| f.name == head)?;
        let (fields, true) = item_fields(field)? else {
            return None;
        };
        Some(Action::CopyIntoChild {
            relationship: rel.into(),
            child: child.into(),
            ref_field: target.into(),
            target: target.into(),
            parent: parent.name.clone(),
            copies: copies(fields, parent)?,
        })
    })();
    p.undo.push(match back {
        Some(action) => Undo::CopiesBack(Box::new(action)),
        None => Undo::Unset {
            collection: child.into(),
            field: target.into(),
        },
    });
}

/// extended reference into the parent → child references: the parent's
/// `{_id, copies…}` items at `field` become the bare ids at `target`.
pub fn ids_from_copies(
    p: &mut Plan,
    today: &Design,
    parent: &Collection,
    field: &str,
    child: &str,
    target: &str,
    rel: &str,
) {
    p.actions.push(Action::IdsFromCopies {
        relationship: rel.into(),
        parent: parent.name.clone(),
        field: field.into(),
        target: target.into(),
    });
    let back = (|| {
        let child_coll = today.collections.iter().find(|c| c.name == child)?;
        let old = parent.shape.fields.iter().find(|f| f.name == field)?;
        let (fields, false) = item_fields(old)? else {
            return None;
        };
        copies(fields, child_coll)
    })();
    p.undo.push(match back {
        Some(copies) if field == target => Undo::CopiesIntoArray {
            parent: parent.name.clone(),
            field: field.into(),
            child: child.into(),
            copies,
        },
        _ => Undo::Unset {
            collection: parent.name.clone(),
            field: target.into(),
        },
    });
}
