//! `otherwise: insert` (an element upsert: "add this item to the cart, or
//! add to its quantity when it is there"), checked and then refused.
//!
//! The plan for it is not built: it needs a first `updateOne` with `$inc`
//! through the positional `$`, and, only when that matched nothing, a
//! `$push` guarded by `{array.key: {$ne: key}}` so that two racing callers
//! cannot push the same element twice, then the first write once more
//! (NOTES-writes46.md, "Item 2"). Until then the word is refused with a
//! clear error, after the misuses it will keep refusing, so that a model
//! never reads as if squill planned it.

use super::context::Ctx;
use super::raw::{RawOperation, S};
use crate::model::{
    EntityId, Filter, Identity, KeyPart, LayoutKind, Model, OperationKind, RelationshipId,
    RelationshipKind, identity,
};

/// The word `otherwise:` takes for an upsert.
pub(super) const INSERT: &str = "insert";

/// Checks `inserts:` and `otherwise: insert` on operation `name`, and
/// refuses the word: every problem is an error at its line:column.
pub(super) fn check(
    ctx: &mut Ctx<'_>,
    model: &Model,
    name: &S<String>,
    kind_word: &str,
    kind: &OperationKind,
    op: &RawOperation,
) {
    let insert = op.otherwise.as_ref().filter(|o| o.value.trim() == INSERT);
    if let Some(share) = &op.inserts {
        if insert.is_none() {
            ctx.error(
                ctx.pos(share),
                format!(
                    "operation `{}` gives `inserts`, the share of calls that add an element, but not `otherwise: insert`",
                    name.value
                ),
                "without otherwise: insert",
                Some("add `otherwise: insert`, or drop `inserts`".into()),
            );
        } else if !(share.value > 0.0 && share.value <= 1.0) {
            ctx.error(
                ctx.pos(share),
                format!(
                    "`inserts: {}` is not a share of calls: it must be above 0 and at most 1",
                    share.value
                ),
                "not a share",
                Some("`inserts: 0.2` says one call in five adds the element".into()),
            );
        }
    }
    let Some(o) = insert else { return };
    let at = ctx.pos(o);
    let refuse = |ctx: &mut Ctx<'_>, message: String, label: &str, help: &str| {
        ctx.error(at, message, label, Some(help.into()));
    };
    let OperationKind::Update { entity, filter, .. } = kind else {
        return refuse(
            ctx,
            format!(
                "`otherwise: insert` applies to an `update` (add to an element, or add the element), not to a {kind_word}"
            ),
            "not an update",
            "state the write as `update:` with `increments`",
        );
    };
    if kind_word != "update" {
        return refuse(
            ctx,
            format!("`otherwise: insert` applies to an `update`, not to a {kind_word}"),
            "not an update",
            "a claim takes an instance that exists; drop `otherwise: insert`",
        );
    }
    if op.increments.is_none() {
        return refuse(
            ctx,
            format!(
                "operation `{}` inserts when it matches nothing, but adds to no field: without `increments` there is nothing to add when the element exists",
                name.value
            ),
            "no increments",
            "add `increments: {qty: amount}`",
        );
    }
    if op.when.is_some() {
        return refuse(
            ctx,
            format!(
                "operation `{}` has `when:` and `otherwise: insert`: an element it adds could not meet the conditions, and a failed condition would read as a missing element",
                name.value
            ),
            "with when",
            "drop `when:`, or use `otherwise: fail`",
        );
    }
    let e = model.entity(*entity);
    let Some(r) = array_of(model, *entity) else {
        return refuse(
            ctx,
            format!(
                "entity `{}` is the child of no one-to-many relationship, so it is never an element of an array: `otherwise: insert` adds an element to its parent's array",
                e.name
            ),
            "not embedded as an array",
            "an upsert of a document of its own is not planned either; drop `otherwise: insert`",
        );
    };
    let rel = model.relationship(r);
    if let Some(layout) = rel.layout
        && layout != LayoutKind::Embed
    {
        return refuse(
            ctx,
            format!(
                "relationship `{}` is pinned to `{}`: `{}` is not embedded as an array, where `otherwise: insert` adds it",
                rel.name,
                serde_json::to_value(layout)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                e.name
            ),
            "not embedded as an array",
            "pin the relationship to `layout: embed`, or drop `otherwise: insert`",
        );
    }
    if !keys_element(model, *entity, r, filter) {
        return refuse(
            ctx,
            format!(
                "operation `{}` has no key condition: to add to one element or add it, its filter must test the parent (`{}: eq`) and every other key of a `unique:` combination of `{}` that holds the parent, each for equality",
                name.value, rel.child_field, e.name
            ),
            "no key condition",
            &format!(
                "give `{}` a `unique: [[{}, …]]` and filter on those keys with `eq`",
                e.name, rel.child_field
            ),
        );
    }
    refuse(
        ctx,
        format!(
            "squill does not plan `otherwise: insert` yet (operation `{}`): the plan of an element upsert ($inc through `$`, then a `$push` guarded by `$ne`) is not built",
            name.value
        ),
        "not planned yet",
        "drop `otherwise: insert`: the write then tells the caller when the element is missing",
    );
}

/// The one-to-many relationship that could hold `e` as an element of
/// its parent's array.
fn array_of(model: &Model, e: EntityId) -> Option<RelationshipId> {
    model
        .relationships_to(e)
        .find(|r| model.relationship(*r).kind == RelationshipKind::OneToMany)
}

/// Whether `filter` picks one element of its parent's array by its key:
/// every part of a `unique:` combination of `e` that holds the parent of
/// `r`, each for equality.
fn keys_element(model: &Model, e: EntityId, r: RelationshipId, filter: &[Filter]) -> bool {
    match identity(model, e, filter) {
        Some(Identity::Unique { combination, .. }) => {
            model.entity(e).unique[combination].contains(&KeyPart::Parent(r))
        }
        _ => false,
    }
}
