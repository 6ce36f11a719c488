//! The indexes of today that the final step drops: each on a field the final
//! step removes (or inside a reference a step turned into a bare id in
//! place: `customer._id` once `customer` is the id), which the recommended
//! design does not keep. Left behind, an
//! index on a field no document holds any more still costs every write of its
//! collection (and, unique, would refuse a second document without the field).
//! A dropped collection takes its indexes with it; the `_id` index is never
//! dropped.

use super::action::{Action, Cleanup};
use super::plan_value::Plan;
use crate::catalog::indexes::is_id_index;
use crate::design::{Design, Index, PartialCondition};

/// Adds the drop of each stale index before the removal of its field, so the
/// `$unset` does not update an index that is about to go.
pub(super) fn stale(p: &mut Plan, today: &Design, recommended: &Design) {
    // (collection, field, only what is inside the field)
    let unset = p.cleanup.iter().filter_map(|c| match c {
        Cleanup::Unset { collection, field } | Cleanup::DeleteHolding { collection, field } => {
            Some((collection, field, false))
        }
        _ => None,
    });
    let bare = p.actions.iter().filter_map(|a| match a {
        Action::IdFromCopy { child, target, .. } if a.runs_last() => Some((child, target, true)),
        _ => None,
    });
    let mut drops = Vec::new();
    for (collection, field, inside) in unset.chain(bare) {
        let Some(old) = today.collections.iter().find(|o| &o.name == collection) else {
            continue;
        };
        let kept = recommended
            .collections
            .iter()
            .find(|n| &n.name == collection);
        for index in &old.indexes {
            let drop = Cleanup::DropIndex {
                collection: collection.clone(),
                index: index.clone(),
            };
            if is_id_index(index)
                || !touches(index, field, inside)
                || kept.is_some_and(|k| k.indexes.iter().any(|i| same(i, index)))
                || drops.contains(&drop)
            {
                continue;
            }
            drops.push(drop);
        }
    }
    p.cleanup.splice(0..0, drops);
}

/// Whether a key or a condition of the index is inside `field` (or, unless
/// `inside`, the field itself).
fn touches(index: &Index, field: &str, inside: bool) -> bool {
    let within = |path: &str| {
        (path == field && !inside)
            || path
                .strip_prefix(field)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    index.keys.iter().any(|(k, _)| within(k))
        || index.partial.iter().any(|c| match c {
            PartialCondition::Exists { path }
            | PartialCondition::Equals { path, .. }
            | PartialCondition::Positive { path } => within(path),
        })
}

/// The recommended design keeps the index: same name (the server knows it
/// by its name), or the same keys over the same documents.
fn same(a: &Index, b: &Index) -> bool {
    a.name == b.name || (a.keys == b.keys && a.partial == b.partial && a.unique == b.unique)
}
