//! The steps of a many-to-many whose layout changes (ids in one side's
//! array, in both sides', or one document per link in an edge collection),
//! and of an extended reference whose copies go: each reads the links where
//! they are today and writes them where the recommended design keeps them.

use super::action::{Action, Cleanup, Undo};
use super::plan_value::{Plan, same_field};
use super::source::{
    collection_of, id_path, is_id_array, is_ref_array, item_fields, link_field, link_fields,
    own_field, side_of,
};
use super::step_parts::{EdgeRef, ItemField, ParentField, TheirAttributes};
use crate::design::{
    Collection, Design, FieldOrigin, Layout, RelationshipDecision, ShapeField, ShapeType, Side,
};

/// Whether the layout keeps a many-to-many's links.
pub(super) fn is_many_to_many(layout: &Layout) -> bool {
    matches!(
        layout,
        Layout::ManyToManyOneWay { .. }
            | Layout::ManyToManyTwoWay
            | Layout::TwoWayExtendedReference { .. }
            | Layout::EdgeCollection { .. }
    )
}

/// Whether `rel` keeps its links in an array in the child's documents in
/// `design` (a shared child's extended reference to its parents, `[{_id,
/// copies…}]`): its steps are a many-to-many's, whatever the layout's name.
pub(super) fn child_array(design: &Design, rel: &RelationshipDecision) -> bool {
    matches!(
        rel.chosen,
        Layout::ExtendedReference {
            copies_into: Side::Child,
            ..
        }
    ) && collection_of(design, &rel.child)
        .and_then(|c| link_field(c, &rel.relationship))
        .is_some_and(is_ref_array)
}

/// The sides whose documents keep an array of `layout`'s links: a
/// many-to-many's, or a parent's array of its children's ids.
fn array_sides(layout: &Layout) -> (bool, bool) {
    match layout {
        Layout::ChildReferences => (true, false),
        l => l
            .many_sides()
            .map_or((false, false), |(p, c)| (p.is_some(), c.is_some())),
    }
}

/// The entity at `side` of `rel`.
fn entity(rel: &RelationshipDecision, side: Side) -> &str {
    match side {
        Side::Parent => &rel.parent,
        Side::Child => &rel.child,
    }
}

fn other(side: Side) -> Side {
    match side {
        Side::Parent => Side::Child,
        Side::Child => Side::Parent,
    }
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
pub(super) fn edge_parts(design: &Design) -> Vec<&str> {
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
/// (collection, side, field), and the edge collection.
struct Links<'d> {
    arrays: Vec<(&'d Collection, Side, &'d ShapeField)>,
    edge: Option<&'d Collection>,
}

fn links<'d>(design: &'d Design, rel: &'d RelationshipDecision) -> Option<Links<'d>> {
    // The sides the layout gives an array (an edge collection gives none).
    let (p, c) = array_sides(&rel.chosen);
    let sides: Vec<Side> = [(Side::Parent, p), (Side::Child, c)]
        .into_iter()
        .filter_map(|(s, has)| has.then_some(s))
        .collect();
    let mut arrays = Vec::new();
    for side in &sides {
        let coll = collection_of(design, entity(rel, *side))?;
        let mut fields = link_fields(coll, &rel.relationship);
        // An entity's many-to-many with itself keeps both sides' arrays in
        // one document: the design says which is which (the followed and
        // the followers would swap if their order were trusted).
        let f = if rel.parent == rel.child {
            fields.find(|f| side_of(f) == Some(*side))?
        } else {
            fields.next()?
        };
        if !is_id_array(f) && !is_ref_array(f) {
            return None;
        }
        arrays.push((coll, *side, f));
    }
    let edge = edge_collection(design, rel);
    if matches!(rel.chosen, Layout::EdgeCollection { .. }) && edge.is_none() {
        return None;
    }
    Some(Links { arrays, edge })
}

/// Whether `rel` is of an entity with itself and one of its arrays in
/// `design` does not say whose side it is (a design not made by advise).
fn unmarked(design: &Design, rel: &RelationshipDecision) -> bool {
    rel.parent == rel.child
        && collection_of(design, &rel.parent)
            .is_some_and(|c| link_fields(c, &rel.relationship).any(|f| side_of(f).is_none()))
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
            // And its computed fields (a count of its children), each from
            // the same figure of its document.
            FieldOrigin::Computed { .. } => out.push(ItemField {
                target: f.name.clone(),
                source: from
                    .shape
                    .fields
                    .iter()
                    .find(|g| g.origin == f.origin)?
                    .name
                    .clone(),
            }),
            _ => return None,
        }
    }
    Some(out)
}

/// The steps of many-to-many `rel` (`now` today).
pub(super) fn plan(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    now: &RelationshipDecision,
    rel: &RelationshipDecision,
) {
    let (Some(t), Some(r)) = (links(today, now), links(recommended, rel)) else {
        p.refused.push(if unmarked(today, now) || unmarked(recommended, rel) {
            "arrays of an entity's relationship with itself whose sides the design does not mark"
                .into()
        } else {
            "links that are neither arrays of ids nor an edge collection".into()
        });
        return;
    };
    if rel.parent == rel.child && (t.edge.is_some() || r.edge.is_some()) {
        // Both references of a link point into one collection: the edge's
        // shape does not tell which is the parent's.
        p.refused
            .push("an edge collection of an entity with itself".into());
        return;
    }
    let name = &rel.relationship;
    for (coll, side, f) in &r.arrays {
        if let Some((_, _, g)) = t.arrays.iter().find(|(_, s, _)| s == side) {
            if !same_field(f, g) {
                // The other side's array of today, which may hold the
                // link's attributes this side's items gain.
                let theirs = t
                    .arrays
                    .iter()
                    .find(|(_, s, _)| s != side)
                    .map(|(_, _, h)| *h);
                // And the other side's array the migration builds, which
                // may keep attributes this side's items lose: the rollback
                // takes them back from it.
                let after = r
                    .arrays
                    .iter()
                    .find(|(_, s, _)| s != side)
                    .map(|(_, _, h)| *h);
                relink(p, today, rel, coll, *side, (g, f), (theirs, after));
            }
            continue;
        }
        let what = if let Some((other, _, g)) = t.arrays.first() {
            let Some((copies, attributes)) = holder_items(f, other, g) else {
                p.refused.push(format!(
                    "`{}.{}` would hold fields that are neither copies of `{}` nor the link's attributes in `{}.{}`",
                    coll.name, f.name, other.name, other.name, g.name
                ));
                continue;
            };
            Some((
                other.name.clone(),
                id_path(g),
                ParentField::Holders { copies, attributes },
            ))
        } else if let Some(edge) = t.edge {
            from_edges(today, edge, *side, f, rel)
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
            lookups: Vec::new(),
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

/// What a side's new array keeps of the documents that list it today in
/// their array `g`: copies of `holder`'s own fields, and the link's
/// attributes from the item of `g` that names the side's document; none
/// for bare ids, and `None` for items the holders cannot give.
#[allow(clippy::type_complexity)] // the copies and the attributes, by position
fn holder_items(
    f: &ShapeField,
    holder: &Collection,
    g: &ShapeField,
) -> Option<(Vec<ItemField>, Vec<ItemField>)> {
    if is_id_array(f) {
        return Some((Vec::new(), Vec::new()));
    }
    let (fields, false) = item_fields(f)? else {
        return None;
    };
    let had = item_fields(g).map(|(f, _)| f).unwrap_or_default();
    let mut copies = Vec::new();
    let mut attributes = Vec::new();
    for i in fields {
        match &i.origin {
            FieldOrigin::Reference { .. } if i.name == "_id" => {}
            FieldOrigin::Copy { entity, field, .. } => copies.push(ItemField {
                target: i.name.clone(),
                source: own_field(holder, entity, field)?.to_string(),
            }),
            FieldOrigin::Attribute { field, .. } => attributes.push(ItemField {
                target: i.name.clone(),
                source: attribute_in(had, field)?.to_string(),
            }),
            _ => return None,
        }
    }
    Some((copies, attributes))
}

/// The name of the link's attribute `field` among an array's item fields.
fn attribute_in<'f>(items: &'f [ShapeField], field: &str) -> Option<&'f str> {
    items.iter().find_map(|h| match &h.origin {
        FieldOrigin::Attribute { field: a, .. } if a == field => Some(h.name.as_str()),
        _ => None,
    })
}

/// A side's array whose items change (ids gain or lose the copies of the
/// other side's fields): the step, and its reverse as the rollback when it
/// works in place.
fn relink(
    p: &mut Plan,
    today: &Design,
    rel: &RelationshipDecision,
    coll: &Collection,
    side: Side,
    (g, f): (&ShapeField, &ShapeField),
    (theirs, after): (Option<&ShapeField>, Option<&ShapeField>),
) {
    let step = collection_of(today, entity(rel, other(side))).and_then(|o| {
        Some((
            link_items(rel, &coll.name, g, f, o, theirs)?,
            link_items(rel, &coll.name, f, g, o, after)?,
        ))
    });
    let Some((step, back)) = step else {
        p.refused.push(format!(
            "`{}.{}` changes its items to fields that are neither copies of the other side's nor the link's attributes of today",
            coll.name, f.name
        ));
        return;
    };
    if matches!(
        &step,
        Action::LinkItems {
            theirs: Some(_),
            ..
        }
    ) {
        // Before the other side's array loses them in place (its step, run
        // last too, keeps this order).
        p.actions.insert(0, step);
    } else {
        p.actions.push(step);
    }
    // A rollback that takes attributes back from the other side's new
    // array runs before that array is undone.
    let first = matches!(
        &back,
        Action::LinkItems {
            theirs: Some(_),
            ..
        }
    );
    let undo = if g.name == f.name {
        Undo::ItemsBack(Box::new(back))
    } else {
        Undo::Unset {
            collection: coll.name.clone(),
            field: f.name.clone(),
        }
    };
    if first {
        p.undo.insert(0, undo);
    } else {
        p.undo.push(undo);
    }
}

/// The step that turns the items of `from` into those of `to` in `coll`:
/// copies from `other` (the other side's collection of today), the link's
/// attributes from the item, or from the other side's array `theirs` when
/// the item has them not.
fn link_items(
    rel: &RelationshipDecision,
    coll: &str,
    from: &ShapeField,
    to: &ShapeField,
    other: &Collection,
    theirs: Option<&ShapeField>,
) -> Option<Action> {
    let mut copies = Vec::new();
    let mut attributes = Vec::new();
    let mut moved = Vec::new();
    if !is_id_array(to) {
        let (fields, false) = item_fields(to)? else {
            return None;
        };
        let had = item_fields(from).map(|(f, _)| f).unwrap_or_default();
        let back = theirs
            .and_then(item_fields)
            .map(|(f, _)| f)
            .unwrap_or_default();
        for i in fields {
            match &i.origin {
                FieldOrigin::Reference { .. } if i.name == "_id" => {}
                FieldOrigin::Copy { entity, field, .. } => copies.push(ItemField {
                    target: i.name.clone(),
                    source: own_field(other, entity, field)?.to_string(),
                }),
                FieldOrigin::Attribute { field, .. } => {
                    if let Some(source) = attribute_in(had, field) {
                        attributes.push(ItemField {
                            target: i.name.clone(),
                            source: source.to_string(),
                        });
                    } else {
                        moved.push(ItemField {
                            target: i.name.clone(),
                            source: attribute_in(back, field)?.to_string(),
                        });
                    }
                }
                _ => return None,
            }
        }
    }
    let theirs = theirs.filter(|_| !moved.is_empty()).map(|h| {
        Box::new(TheirAttributes {
            back: h.name.clone(),
            attributes: moved,
        })
    });
    Some(Action::LinkItems {
        relationship: rel.relationship.clone(),
        collection: coll.into(),
        field: from.name.clone(),
        target: to.name.clone(),
        other: other.name.clone(),
        copies,
        attributes,
        theirs,
    })
}

/// A side's new array from today's edge collection: the links whose
/// reference is the side's document, each the other side's id (with the
/// link's attributes when the array's items are documents).
fn from_edges(
    today: &Design,
    edge: &Collection,
    side: Side,
    f: &ShapeField,
    rel: &RelationshipDecision,
) -> Option<(String, String, ParentField)> {
    let mine = edge_ref(today, today, edge, entity(rel, side))?;
    let theirs = edge_ref(today, today, edge, entity(rel, other(side)))?;
    let other_coll = collection_of(today, entity(rel, other(side)))?;
    let mut items = Vec::new();
    let mut copies = Vec::new();
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
                FieldOrigin::Copy { entity, field, .. } => copies.push(ItemField {
                    target: i.name.clone(),
                    source: own_field(other_coll, entity, field)?.to_string(),
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
            other: other_coll.name.clone(),
            copies,
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
        .find(|(_, s, _)| *s == Side::Parent)
        .or(t.arrays.first())
    else {
        p.refused
            .push(format!("no links today to build `{}` from", edge.name));
        return;
    };
    let theirs = entity(rel, other(*side));
    let (Some(holder_ref), Some(other_ref), Some(other_coll)) = (
        edge_ref(recommended, today, edge, entity(rel, *side)),
        edge_ref(recommended, today, edge, theirs),
        collection_of(today, theirs),
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
pub(super) fn id_from_copy(
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
pub(super) fn ids_from_copies(
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
