//! Relations between two number fields of one entity that the model's
//! write conditions state (`used < quota`, `available + rooms <= total`,
//! `total >= available`), honoured by the synthetic values: the smaller
//! side is drawn within the larger (audit45 gap 11: drawn independently,
//! 915 of 955 hotel nights had more rooms available than in total, so a
//! release guarded by `available < total` matched almost none).
//!
//! A condition tests a document before a write, and the write keeps it
//! (the quota is never passed, the rooms never exceed the total), so data
//! that breaks it is data production never holds. Each value stays a
//! function of its instance and field alone: the bounded field's value is
//! folded under the other field's value for the same instance, so copies
//! of it and aggregates over it read the same, whatever the thread.

use super::values::{Ceiling, ScalarSpec};
use crate::model::{EntityId, FieldType, KeyPart, Literal, Model, OperationKind, Test};

/// Whether date field `field` of `entity` is one only a later write sets:
/// an update (or a claim) of the entity changes it, and the entity's
/// other dates it does not. An update runs after the insert that made the
/// document, so a date it writes (a ride's `accepted_at`) comes after
/// the dates the insert wrote (its `requested_at`); drawn independently,
/// 179 of 363 rides were accepted before they were requested (audit48
/// C6). Two dates both set by updates keep no order between them: the
/// model does not say which write runs first.
pub(super) fn set_later(model: &Model, entity: EntityId, field: &str) -> bool {
    let e = model.entity(entity);
    let date = |name: &str| e.field(name).is_some_and(|f| f.ty == FieldType::Date);
    let updated = |name: &str| {
        model.workload.operations.iter().any(|op| {
            matches!(&op.kind, OperationKind::Update { entity: x, changes, .. }
                if *x == entity && changes.iter().any(|c| c == name))
        })
    };
    date(field)
        && updated(field)
        && e.fields
            .iter()
            .any(|f| f.name != field && f.ty == FieldType::Date && !updated(&f.name))
}

/// The ordered pairs `(low, high, strict)` of number fields of `entity`
/// the conditions of the model's writes compare. Equality and `!=` state
/// no order and are left out; so is a pair stated both ways (`a < b` in
/// one write, `a > b` in another: no draw meets both) and a field of a
/// `unique:` combination, whose value is the instance's number.
pub(super) fn relations(model: &Model, entity: EntityId) -> Vec<(&str, &str, bool)> {
    let e = model.entity(entity);
    let number = |name: &str| {
        e.field(name).is_some_and(|f| {
            matches!(
                f.ty,
                FieldType::Int | FieldType::Long | FieldType::Double | FieldType::Decimal
            ) && f.enum_values.is_empty()
        })
    };
    let unique = |name: &str| {
        e.unique
            .iter()
            .flatten()
            .any(|k| matches!(k, KeyPart::Field(x) if x == name))
    };
    let mut pairs: Vec<(&str, &str, bool)> = Vec::new();
    for op in &model.workload.operations {
        if op.entity_in(model) != entity {
            continue;
        }
        for c in &op.terms.conditions {
            let Literal::Field(other) = &c.value else {
                continue;
            };
            let (f, g) = (c.field.as_str(), other.as_str());
            let (low, high, strict) = match c.test {
                Test::Lt => (f, g, true),
                Test::Lte => (f, g, false),
                Test::Gt => (g, f, true),
                Test::Gte => (g, f, false),
                Test::Eq | Test::Ne => continue,
            };
            if !(number(low) && number(high)) || unique(low) || unique(high) {
                continue;
            }
            match pairs.iter_mut().find(|(l, h, _)| *l == low && *h == high) {
                // Strict where any write says so: it meets both.
                Some(p) => p.2 |= strict,
                None => pairs.push((low, high, strict)),
            }
        }
    }
    let both_ways = |l: &str, h: &str| pairs.iter().any(|(a, b, _)| *a == h && *b == l);
    pairs
        .iter()
        .filter(|(l, h, _)| !both_ways(l, h))
        .copied()
        .collect()
}

/// The ceilings of `field` of `entity`: each the spec of a field its
/// value must stay under, with that field's own ceilings (a chain `a <= b
/// <= c`). `seen` holds the fields above on the chain, so a cycle stops.
pub(super) fn ceilings<'m>(
    model: &'m Model,
    seed: u64,
    entity: EntityId,
    field: &str,
    seen: &mut Vec<String>,
) -> Vec<Ceiling<'m>> {
    let e = model.entity(entity);
    let mut out = Vec::new();
    for (low, high, strict) in relations(model, entity) {
        if low != field || seen.iter().any(|s| s == high) {
            continue;
        }
        let Some(hf) = e.field(high) else { continue };
        seen.push(field.to_string());
        let above = ceilings(model, seed, entity, high, seen);
        seen.pop();
        let spec =
            ScalarSpec::new(seed, &e.name, &hf.name, hf.ty.bson_type(), Some(hf), &[]).under(above);
        out.push(Ceiling { spec, strict });
    }
    out
}
