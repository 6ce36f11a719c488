//! `otherwise: insert` (an upsert: "add this item to the cart, or add to
//! its quantity when it is there"), checked. The plan (`costs::plan::upsert`)
//! builds the instance from the filter's keys and the amounts, so a filter
//! that does not name one instance by its key, or a required field neither
//! gives, is refused here at line:column.

use super::context::Ctx;
use super::raw::{RawOperation, S};
use crate::model::{
    EntityId, Filter, FilterOp, Identity, KeyPart, LayoutKind, Model, OperationKind,
    RelationshipId, RelationshipKind, identity,
};

/// The word `otherwise:` takes for an upsert.
pub(super) const INSERT: &str = "insert";

/// Checks `inserts:` and `otherwise: insert` on operation `name`: every
/// problem is an error at its line:column.
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
    let one_to_many = array_of(model, *entity);
    // The relationship squill adds from the tenant (`org_of_stack`) is
    // no other place: every operation names its tenant, so the upsert's
    // filter holds the tenant's id and the added instance takes it.
    let others: Vec<RelationshipId> = model
        .relationships_to(*entity)
        .filter(|r| Some(*r) != one_to_many && !implicit_tenant(model, *r))
        .collect();
    if let Some(&r) = others.first() {
        return refuse(
            ctx,
            format!(
                "entity `{}` is also the child of `{}`: `otherwise: insert` is planned for an entity that is the child of one one-to-many relationship at most, so that the instance it adds has one place",
                e.name,
                model.relationship(r).name
            ),
            "child of another relationship",
            "drop `otherwise: insert`, and add the instance with an `insert` operation",
        );
    }
    if let Some(r) = one_to_many {
        let rel = model.relationship(r);
        if let Some(layout) = rel.layout
            && !matches!(layout, LayoutKind::Embed | LayoutKind::ParentReference)
        {
            return refuse(
                ctx,
                format!(
                    "relationship `{}` is pinned to `{}`: `otherwise: insert` adds `{}` in one write only when it is embedded in its parent's array or has its own collection with its parent's id",
                    rel.name,
                    layout.name(),
                    e.name
                ),
                "not one document",
                "pin the relationship to `layout: embed` or `layout: parent-reference`, or drop `otherwise: insert`",
            );
        }
        if !keys_element(model, *entity, r, filter) {
            return refuse(
                ctx,
                format!(
                    "operation `{}` has no key condition: to add to one instance or add it, its filter must test the parent (`{}: eq`) and every other key of a `unique:` combination of `{}` that holds the parent, each for equality",
                    name.value, rel.child_field, e.name
                ),
                "no key condition",
                &format!(
                    "give `{}` a `unique: [[{}, …]]` and filter on those keys with `eq`",
                    e.name, rel.child_field
                ),
            );
        }
    } else if !matches!(
        identity(model, *entity, filter),
        Some(Identity::Unique { .. })
    ) {
        return refuse(
            ctx,
            format!(
                "operation `{}` has no key condition: to add to one `{}` or add it, its filter must test every key of a `unique:` combination of `{}`, each for equality",
                name.value, e.name, e.name
            ),
            "no key condition",
            &format!(
                "give `{}` a `unique: [[…]]` and filter on those keys with `eq`",
                e.name
            ),
        );
    }
    // The insert builds the whole instance from the filter's keys, the
    // amounts and the changed fields' values (a `$set` applies to the
    // document an upsert inserts too; the pushed element takes them): a
    // required field none gives would be missing from it.
    let changed = super::changes::changed_fields(e, op.changes.as_deref().unwrap_or(&[]));
    let given = |f: &str| {
        f == "_id"
            || filter
                .iter()
                .any(|c| c.path.len() == 1 && c.path[0] == f && c.op == FilterOp::Eq)
            || op
                .increments
                .iter()
                .flat_map(|m| &m.0)
                .any(|(k, _)| k.value == f)
            || changed.iter().any(|c| c.value == f)
            || one_to_many.is_some_and(|r| model.relationship(r).child_field == f)
    };
    let missing: Vec<&str> = e
        .fields
        .iter()
        .filter(|f| f.required && !given(&f.name))
        .map(|f| f.name.as_str())
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        refuse(
            ctx,
            format!(
                "operation `{}` adds {} `{}` when it finds none, but neither its filter, its increments nor its changes give the required {} {list}: the added `{}` would lack {}",
                name.value,
                crate::words::article(&e.name),
                e.name,
                if missing.len() == 1 {
                    "field"
                } else {
                    "fields"
                },
                e.name,
                if missing.len() == 1 { "it" } else { "them" },
            ),
            "required field not given",
            &format!(
                "filter on the field with `eq`, add it to `increments` or `changes` (`changes: [\"{0} = :{0}\"]`), or make it optional (`required: false`)",
                missing[0]
            ),
        );
    }
}

/// The one-to-many relationship that could hold `e` as an element of
/// its parent's array.
fn array_of(model: &Model, e: EntityId) -> Option<RelationshipId> {
    model.relationships_to(e).find(|r| {
        model.relationship(*r).kind == RelationshipKind::OneToMany && !implicit_tenant(model, *r)
    })
}

/// Whether `r` is the relationship squill adds under a tenant to carry
/// its id down to an entity that belongs to it through a parent
/// (`tenant_carry`), which the model file never wrote.
fn implicit_tenant(model: &Model, r: RelationshipId) -> bool {
    !model.relationship(r).tenant_chain.is_empty()
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
