//! The one lookup of a parent named as a key of a unique combination, for
//! `unique:` under an entity and a field's `unique_within:` alike: both
//! name the field that holds the reference, so both accept the same names
//! and refuse the same ones.

use crate::model::Relationship;

/// The relationship (its index) through which entity `child` (its index)
/// keeps the reference that `key` names: the relationship's name, or the
/// `child_field` its children hold the parent's id in, where each child
/// has one parent through it. The parent entity's name is not a key: a
/// combination is of fields, and the entity may be the parent twice (an
/// order's buyer and seller).
pub(super) fn parent_key(relationships: &[Relationship], child: usize, key: &str) -> Option<usize> {
    relationships.iter().position(|r| {
        r.child.index() == child && r.one_parent() && (r.name == key || r.child_field == key)
    })
}

/// The references a key may name for entity `child`: each one-parent
/// relationship's `child_field`, for the error's suggestion.
pub(super) fn parent_key_names(
    relationships: &[Relationship],
    child: usize,
) -> impl Iterator<Item = &str> + Clone {
    relationships
        .iter()
        .filter(move |r| r.child.index() == child && r.one_parent())
        .map(|r| r.child_field.as_str())
}
