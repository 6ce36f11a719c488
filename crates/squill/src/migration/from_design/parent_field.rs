//! What a parent's new field holds (its children embedded, their ids, a
//! subset's copies, an outlier's first ones), with each item field's
//! source in the child's collection of today: read by the orchestration
//! (`plan`) and by the embedded parent's layout (`parents`) alike.

use super::lookups;
use super::source::{is_id_array, item_fields, own_field};
use super::step_parts::{ItemField, ItemLookup, Latest, ParentField};
use crate::design::{FieldOrigin, Layout, ShapeField, ShapeType};

/// What the parent's new field holds, with each item field's source in the
/// child's collection of today (`reference`: the relationship, and the path
/// of the parent's id in the child, for items that keep it); an item's
/// references to other parents with copies add to `lookups`.
pub(super) fn parent_field(
    new: &ShapeField,
    (from, lookups): (&lookups::Sources, &mut Vec<ItemLookup>),
    child: &str,
    reference: (&str, &str),
    layout: &Layout,
) -> Option<ParentField> {
    if is_id_array(new) {
        return Some(ParentField::Ids);
    }
    if matches!(new.ty, ShapeType::Scalar { .. })
        && matches!(new.origin, FieldOrigin::Reference { .. })
    {
        return Some(ParentField::Id);
    }
    let child_coll = from.child_coll;
    let (fields, one) = item_fields(new)?;
    let mut items = Vec::new();
    let mut copies = false;
    for f in fields {
        let source = match &f.origin {
            FieldOrigin::Id | FieldOrigin::Reference { .. } if f.name == "_id" => "_id",
            FieldOrigin::Own { entity, field } if entity == child => {
                own_field(child_coll, entity, field)?
            }
            FieldOrigin::Copy { entity, field, .. } if entity == child => {
                copies = true;
                own_field(child_coll, entity, field)?
            }
            FieldOrigin::Reference { relationship, .. } if relationship == reference.0 => {
                reference.1
            }
            FieldOrigin::Reference { .. } => {
                items.push(lookups::reference_item(f, from, lookups)?);
                continue;
            }
            _ => return None,
        };
        items.push(ItemField {
            target: f.name.clone(),
            source: source.into(),
        });
    }
    if let Layout::Outlier { threshold } = layout {
        // The final step finds the embedded children by their `_id`s.
        let ids = items.iter().any(|i| i.target == "_id");
        return (!copies && !one && ids).then_some(ParentField::First {
            items,
            k: *threshold,
        });
    }
    if !copies {
        return Some(ParentField::Embedded { items, one });
    }
    let latest = match layout {
        Layout::Subset { k, sort_field, .. } => Some(Latest {
            k: *k,
            sort: sort_field
                .as_ref()
                .and_then(|s| own_field(child_coll, child, s))
                .map(str::to_string),
        }),
        _ => None,
    };
    (!one).then_some(ParentField::Copies { items, latest })
}
