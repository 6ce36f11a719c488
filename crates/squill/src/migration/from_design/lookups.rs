//! An embedded child's references to other documents.
//!
//! A child embedded into one parent keeps its references to the others (an
//! order line embedded in its order still names its product), in the
//! recommended design often with copies of that parent's fields (the
//! product's name and price at the time of the sale); and it may keep its
//! own children's ids, with copies (an order embedded in its customer
//! listing its tickets). Today, in its own collection, the child holds the
//! bare id of the other parent, and its children their reference to it:
//! the step that builds the parent's array reads the id as any field, and
//! looks the copies (or the children) up by the id.

use super::source::{collection_of, item_fields, own_field, plain_reference};
use super::step_parts::{ItemField, ItemLookup, LookupBy};
use crate::design::{Collection, Design, FieldOrigin, Layout, ShapeField, ShapeType, Side};

/// The designs and the child's collection of today an item is read from.
pub(super) struct Sources<'d> {
    pub child_coll: &'d Collection,
    pub today: &'d Design,
    pub recommended: &'d Design,
}

/// Where an item's field `f` referencing other documents comes from in the
/// child's collection of today: the child's field itself, or a lookup.
/// `None` when today's documents cannot give it.
pub(super) fn reference_item(
    f: &ShapeField,
    from: &Sources,
    lookups: &mut Vec<ItemLookup>,
) -> Option<ItemField> {
    let FieldOrigin::Reference { relationship, .. } = &f.origin else {
        return None;
    };
    let kept = |g: &&ShapeField| super::plan_value::same_field(f, g);
    if let Some(same) = from.child_coll.shape.fields.iter().find(kept) {
        return Some(ItemField {
            target: f.name.clone(),
            source: same.name.clone(),
        });
    }
    let rel = from
        .recommended
        .relationships
        .iter()
        .find(|r| &r.relationship == relationship)?;
    let lookup = match (&f.ty, &rel.chosen) {
        (ShapeType::Array { .. }, Layout::ChildReferences | Layout::TwoWayReferences)
        | (
            ShapeType::Array { .. },
            Layout::ExtendedReference {
                copies_into: Side::Parent,
                ..
            },
        ) => children(f, relationship, from)?,
        (ShapeType::Array { .. }, _) => return None,
        (_, _) => {
            // The child's bare id of the other parent, today.
            let id = plain_reference(from.child_coll, relationship)?;
            let ShapeType::Object { shape } = &f.ty else {
                return Some(ItemField {
                    target: f.name.clone(),
                    source: id.name.clone(),
                });
            };
            let (coll, copies) = copies(&shape.fields, relationship, from.today)?;
            ItemLookup {
                from: coll.name.clone(),
                at: String::new(),
                by: LookupBy::Parent(id.name.clone()),
                copies,
            }
        }
    };
    let at = format!("{}_ref{}", super::aggregation::TMP, lookups.len());
    lookups.push(ItemLookup {
        at: at.clone(),
        ..lookup
    });
    Some(ItemField {
        target: f.name.clone(),
        source: at,
    })
}

/// The item's own children through `relationship`, from their collection
/// of today, where each holds the item's id.
fn children(f: &ShapeField, relationship: &str, from: &Sources) -> Option<ItemLookup> {
    let (coll, ref_field) = from
        .today
        .collections
        .iter()
        .find_map(|c| plain_reference(c, relationship).map(|g| (c, g.name.clone())))?;
    let copies = match item_fields(f) {
        None => Vec::new(),
        Some((fields, false)) => {
            let (with, copies) = copies(fields, relationship, from.today)?;
            if with.name != coll.name {
                return None;
            }
            copies
        }
        Some((_, true)) => return None,
    };
    Some(ItemLookup {
        from: coll.name.clone(),
        at: String::new(),
        by: LookupBy::Children(ref_field),
        copies,
    })
}

/// The collection of today an `{_id, copies…}` is copied from, and each
/// copy's field there; `None` unless every field is the id or such a copy
/// of one entity's collection.
fn copies<'d>(
    fields: &[ShapeField],
    relationship: &str,
    today: &'d Design,
) -> Option<(&'d Collection, Vec<ItemField>)> {
    let mut from: Option<&Collection> = None;
    let mut out = Vec::new();
    for s in fields {
        match &s.origin {
            FieldOrigin::Reference {
                relationship: r, ..
            } if s.name == "_id" && r == relationship => {}
            FieldOrigin::Copy {
                relationship: r,
                entity,
                field,
                ..
            } if r == relationship => {
                let coll = collection_of(today, entity)?;
                if from.is_some_and(|c| c.name != coll.name) {
                    return None;
                }
                from = Some(coll);
                out.push(ItemField {
                    target: s.name.clone(),
                    source: own_field(coll, entity, field)?.to_string(),
                });
            }
            _ => return None,
        }
    }
    Some((from?, out))
}
