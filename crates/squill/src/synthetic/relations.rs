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

use super::value::Scalar;
use super::values::{ScalarSpec, Scratch};
use crate::model::{EntityId, FieldType, KeyPart, Literal, Model, Test};

/// One field's ceiling: the other field of the same instance, which the
/// field's value must not exceed (`strict`: must stay below).
#[derive(Debug, Clone)]
pub struct Ceiling<'m> {
    pub spec: ScalarSpec<'m>,
    pub strict: bool,
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

/// `x` folded under its ceilings for instance `key`: kept when it already
/// lies under every one, else wrapped into `[0, limit]` (the lowest
/// ceiling, less one step when strict), which spreads the values over the
/// room the ceiling leaves rather than piling them on it. `step` is the
/// value's precision (1 for a whole number, 0.01 otherwise).
pub(super) fn fold(x: f64, key: u64, ceilings: &[Ceiling<'_>], step: f64) -> f64 {
    let limit = ceilings
        .iter()
        .filter_map(|c| {
            let high = number(&c.spec.generate(key, &mut Scratch::default()))?;
            Some(if c.strict { high - step } else { high })
        })
        .fold(f64::INFINITY, f64::min);
    if !limit.is_finite() {
        return x;
    }
    let (n, m) = ((x / step).round(), (limit / step + 1e-9).floor());
    if n <= m {
        return x;
    }
    let n = if m < 0.0 { m } else { n.rem_euclid(m + 1.0) };
    // Back to the value's precision (no 12.340000000001).
    (n * step * 100.0).round() / 100.0
}

/// A drawn scalar as a number.
fn number(g: &super::values::Generated<'_>) -> Option<f64> {
    match g {
        super::values::Generated::Scalar(s) => match *s {
            Scalar::Int(i) => Some(f64::from(i)),
            Scalar::Long(i) => Some(i as f64),
            Scalar::Double(d) => Some(d),
            Scalar::Decimal {
                coefficient,
                exponent,
            } => Some(coefficient as f64 * 10f64.powi(exponent)),
            _ => None,
        },
        super::values::Generated::Value(_) => None,
    }
}
