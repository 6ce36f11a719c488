//! Where one relationship's links live in a design, read from the shapes
//! (never from example names): the child's collection and the path of its
//! parent's id, the parent's array of embedded children, or the parent's
//! array of child ids.

use crate::design::{Collection, Design, FieldOrigin, Layout, ShapeField, ShapeType, Side};

/// The collection that keeps `entity`'s documents alone at the top level
/// (none for an embedded entity or one that shares a polymorphic collection:
/// the migration does not move those).
pub(super) fn collection_of<'d>(design: &'d Design, entity: &str) -> Option<&'d Collection> {
    design
        .collections
        .iter()
        .find(|c| c.entities.len() == 1 && c.entities[0] == entity && c.discriminator.is_none())
}

/// The top-level field of `coll` that holds `relationship`'s link (an
/// embedded child or children, ids, a subset's or extended reference's copies).
pub(super) fn link_field<'c>(coll: &'c Collection, relationship: &str) -> Option<&'c ShapeField> {
    link_fields(coll, relationship).next()
}

/// Every top-level field of `coll` that holds `relationship`'s links (two
/// for an entity's many-to-many with itself that keeps both sides' arrays:
/// `side_of` tells them apart, never their order).
pub(super) fn link_fields<'c>(
    coll: &'c Collection,
    relationship: &str,
) -> impl Iterator<Item = &'c ShapeField> {
    coll.shape.fields.iter().filter(move |f| match &f.origin {
        FieldOrigin::Embedded { relationship: r }
        | FieldOrigin::Reference {
            relationship: r, ..
        } => r == relationship,
        _ => false,
    })
}

/// The field of `coll` that holds `relationship`'s link on `side`: the
/// child's reference to its parent (`Side::Child`) or the parent's field
/// for its children (`Side::Parent`). A tree's nodes keep both in one
/// document, told apart by the design's mark (never by their order); any
/// other relationship's one field serves either side.
pub(super) fn side_link<'c>(
    coll: &'c Collection,
    relationship: &str,
    side: Side,
) -> Option<&'c ShapeField> {
    link_fields(coll, relationship).find(|f| side_of(f).is_none_or(|s| s == side))
}

/// The plain id `coll` keeps of `relationship`'s other document (a
/// child's parent id), not an array or a sub-document.
pub(super) fn plain_reference<'c>(
    coll: &'c Collection,
    relationship: &str,
) -> Option<&'c ShapeField> {
    coll.shape.fields.iter().find(|f| {
        matches!(&f.origin, FieldOrigin::Reference { relationship: r, .. } if r == relationship)
            && matches!(f.ty, ShapeType::Scalar { .. })
    })
}

/// Whose links `field` holds, as the design writes it for a relationship
/// of an entity with itself (`None` elsewhere: the collection says it).
pub(super) fn side_of(field: &ShapeField) -> Option<Side> {
    match &field.origin {
        FieldOrigin::Reference { side, .. } => *side,
        _ => None,
    }
}

/// The name of the field of `coll` that holds `entity`'s own `field` (the
/// shapes name it; today it is the model's field name, but nothing here
/// assumes so). A copy may name the entity's reference to its own parent
/// (a reservation's copy of its room's hotel): the model calls that field
/// by its `child_field`, the name the shape gives the plain id.
pub(super) fn own_field<'c>(coll: &'c Collection, entity: &str, field: &str) -> Option<&'c str> {
    let own = coll.shape.fields.iter().find_map(|f| match &f.origin {
        FieldOrigin::Own {
            entity: e,
            field: n,
        } if e == entity && n == field => Some(f.name.as_str()),
        _ => None,
    });
    own.or_else(|| {
        let holds = coll.entities.len() == 1 && coll.entities[0] == entity;
        coll.shape
            .fields
            .iter()
            .find(|f| {
                holds
                    && f.name == field
                    && matches!(f.origin, FieldOrigin::Reference { .. })
                    && matches!(f.ty, ShapeType::Scalar { .. })
            })
            .map(|f| f.name.as_str())
    })
}

/// The fields of the items of an array (or of a sub-document).
pub(super) fn item_fields(field: &ShapeField) -> Option<(&[ShapeField], bool)> {
    match &field.ty {
        ShapeType::Object { shape } => Some((&shape.fields, true)),
        ShapeType::Array { items, .. } => match items.as_ref() {
            ShapeType::Object { shape } => Some((&shape.fields, false)),
            _ => None,
        },
        ShapeType::Scalar { .. } => None,
    }
}

/// Whether the field is an array of bare ids.
pub(super) fn is_id_array(field: &ShapeField) -> bool {
    matches!(&field.ty, ShapeType::Array { items, .. } if matches!(items.as_ref(), ShapeType::Scalar { .. }))
        && matches!(field.origin, FieldOrigin::Reference { .. })
}

/// Whether the field is an array of `{_id, …}` documents whose `_id` is the
/// reference (an extended reference, or ids with a link's attributes).
pub(super) fn is_ref_array(field: &ShapeField) -> bool {
    matches!(item_fields(field), Some((items, false)) if items.iter().any(|i| i.name == "_id" && matches!(i.origin, FieldOrigin::Reference { .. })))
}

/// The path of the id in an item of `field`: the item itself, or its `_id`.
pub(super) fn id_path(field: &ShapeField) -> String {
    if is_ref_array(field) {
        format!("{}._id", field.name)
    } else {
        field.name.clone()
    }
}

/// Where a relationship's links are in the design of today.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Source {
    /// Each child in its own collection with its parent's id at `ref_path`
    /// (`product_id`, or `customer._id` under an extended reference).
    ChildCollection { child: String, ref_path: String },
    /// The children inside the parent's documents, at `field` (an array, or
    /// a sub-document when `one`); with `rest`, an outlier's: the children
    /// past the array are in the child collection already.
    Embedded {
        parent: String,
        field: String,
        one: bool,
        rest: bool,
    },
    /// The parent keeps its children's ids at `field`; the children have a
    /// collection of their own without their parent's id. With `objects`,
    /// each item is `{_id, copies…}` (an extended reference into the parent).
    IdArray {
        parent: String,
        field: String,
        child: String,
        objects: bool,
        /// A one-to-one's: the one child's id, no array.
        one: bool,
    },
}

/// The source of `relationship` in `today` (its layout there is `layout`);
/// `None` for a layout the migration cannot read from.
pub(super) fn source(
    today: &Design,
    relationship: &str,
    parent: &str,
    child: &str,
    layout: &Layout,
) -> Option<Source> {
    match layout {
        // (A child under its parent's id: the reference is its `_id`; the
        // parent embedded whole in the child: its id at `field._id`.)
        Layout::ParentReference
        | Layout::EmbedParentInChild
        | Layout::SharedId
        | Layout::Subset { .. }
        | Layout::TwoWayReferences
        | Layout::TreePath { .. }
        | Layout::PathReference
        | Layout::ExtendedReference {
            copies_into: crate::design::Side::Child,
            ..
        } => {
            let coll = collection_of(today, child)?;
            // (A tree's node keeps its children's ids beside its parent's
            // id under two-way references: the child's side is the id.)
            let f = side_link(coll, relationship, Side::Child)?;
            let ref_path = match &f.ty {
                ShapeType::Scalar { .. } => f.name.clone(),
                ShapeType::Object { .. } => format!("{}._id", f.name),
                ShapeType::Array { .. } => return None,
            };
            Some(Source::ChildCollection {
                child: coll.name.clone(),
                ref_path,
            })
        }
        Layout::Embed | Layout::Outlier { .. } => {
            let coll = collection_of(today, parent)?;
            let f = link_field(coll, relationship)?;
            let (_, one) = item_fields(f)?;
            Some(Source::Embedded {
                parent: coll.name.clone(),
                field: f.name.clone(),
                one,
                rest: matches!(layout, Layout::Outlier { .. }),
            })
        }
        Layout::ChildReferences
        | Layout::ExtendedReference {
            copies_into: crate::design::Side::Parent,
            ..
        } => {
            let p = collection_of(today, parent)?;
            let c = collection_of(today, child)?;
            let f = link_field(p, relationship)?;
            if matches!(f.ty, ShapeType::Scalar { .. }) {
                // A one-to-one's: the child's id itself.
                return Some(Source::IdArray {
                    parent: p.name.clone(),
                    field: f.name.clone(),
                    child: c.name.clone(),
                    objects: false,
                    one: true,
                });
            }
            let objects = !is_id_array(f);
            if objects && !is_ref_array(f) {
                return None;
            }
            Some(Source::IdArray {
                parent: p.name.clone(),
                field: f.name.clone(),
                child: c.name.clone(),
                objects,
                one: false,
            })
        }
        _ => None,
    }
}
