//! A field as written (`string(40)` or its long form) → a `Field`, with its
//! size and key checks. Entities and relationships' attributes both declare
//! fields, so this sits below both.

use super::compact;
use super::context::{Ctx, MAX_DOCUMENT_BYTES};
use super::error::suggestion;
use super::names::check_name;
use super::raw::{RawField, S};
use crate::model::{Field, FieldType};

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // sizes are checked ≥ 0 and capped
pub(super) fn field(
    ctx: &mut Ctx<'_>,
    name: &S<String>,
    raw: &S<RawField>,
    entity_count: Option<u64>,
) -> Option<Field> {
    check_name(ctx, name, "field");
    let (type_text, type_pos, long) = match &raw.value {
        RawField::Short(t) => (t.as_str(), ctx.pos(raw), None),
        RawField::Long(l) => (l.ty.value.as_str(), ctx.pos(&l.ty), Some(l.as_ref())),
    };
    let short = match compact::parse_type(type_text) {
        Ok(t) => t,
        Err(e) => {
            let help = e
                .unknown_name
                .as_deref()
                .and_then(|n| suggestion(n, compact::TYPE_NAMES.iter().copied()));
            ctx.error(type_pos, e.message, "not a field type", help);
            return None;
        }
    };
    // Sizes beyond a BSON document's limit cannot be stored, and past 4 GiB
    // they would saturate silently (issue 23).
    let (size_what, size_why) = if matches!(short.ty, FieldType::Array(_)) {
        (
            "an array's element count",
            "every element takes bytes of one 16 MiB document",
        )
    } else {
        ("a field's size", "MongoDB's 16 MiB document limit")
    };
    let mut size = short.size;
    if let Some(s) = size
        && s > MAX_DOCUMENT_BYTES
    {
        ctx.error(
            type_pos,
            format!(
                "field `{}`: {size_what} is too large: {} (at most {}: {size_why})",
                name.value,
                if s >= 1e15 {
                    format!("{s:e}")
                } else {
                    format!("{s}")
                },
                crate::words::num(MAX_DOCUMENT_BYTES)
            ),
            "too large",
            None,
        );
        size = None;
    }
    let mut required = !short.optional;
    let mut distinct = None;
    let mut enum_values = Vec::new();
    let mut description = None;
    if let Some(l) = long {
        if let Some(s) = &l.size {
            if size.is_some() {
                ctx.error(
                    ctx.pos(s),
                    format!(
                        "field `{}` gives its size twice (in `type` and in `size`)",
                        name.value
                    ),
                    "second size",
                    None,
                );
            }
            size = ctx.at_most(s, size_what, MAX_DOCUMENT_BYTES, size_why);
        }
        if let Some(r) = l.required {
            if short.optional && r {
                ctx.error(
                    type_pos,
                    format!(
                        "field `{}` is marked optional (`?`) and `required: true`",
                        name.value
                    ),
                    "contradiction",
                    None,
                );
            }
            required = r;
        }
        distinct = l
            .distinct
            .as_ref()
            .and_then(|d| ctx.whole(d, "a field's distinct count", 0));
        // An array's distinct values are its elements', which may outnumber
        // the instances (5 posts, 7 tags); a scalar has one value an instance.
        if let (Some(d), Some(n), Some(raw_d)) = (distinct, entity_count, &l.distinct)
            && d > n
            && !matches!(short.ty, FieldType::Array(_))
        {
            ctx.error(
                ctx.pos(raw_d),
                format!(
                    "field `{}` has {} distinct values but its entity has only {} instances",
                    name.value,
                    crate::words::int(d),
                    crate::words::int(n)
                ),
                "more than the instances",
                Some("distinct ≤ the entity's count".into()),
            );
            distinct = None;
        }
        if l.enum_values.as_ref().is_some_and(Vec::is_empty) {
            ctx.error(
                ctx.pos(&l.ty),
                format!(
                    "field `{}` has an empty `enum`: no value would be allowed",
                    name.value
                ),
                "empty enum",
                Some("list the allowed values, or remove `enum`".into()),
            );
        }
        // A number field's values are numbers (audit50 A6): a value that is
        // none would be a string no validator of the field's type takes.
        let whole = matches!(short.ty, FieldType::Int | FieldType::Long);
        let number = whole || matches!(short.ty, FieldType::Double | FieldType::Decimal);
        for v in l.enum_values.iter().flatten() {
            let fits = if whole {
                v.value.parse::<i64>().is_ok()
            } else {
                v.value.parse::<f64>().is_ok_and(f64::is_finite)
            };
            if number && !fits {
                ctx.error(
                    ctx.pos(v),
                    format!(
                        "field `{}` is {} but its `enum` lists `{}`",
                        name.value,
                        if whole { "a whole number" } else { "a number" },
                        v.value
                    ),
                    "not a number of the field's type",
                    Some("list numbers of the field's type, or make the field a string".into()),
                );
            }
        }
        enum_values = l
            .enum_values
            .iter()
            .flatten()
            .map(|v| v.value.clone())
            .collect();
        description.clone_from(&l.description);
    }
    // A polygon's size is its corners (`polygon(12)`, or each element's in
    // `polygon(12)[3]`): a ring of fewer than 3 encloses nothing, and the
    // generated validator demands 4 positions (3 corners and the first again).
    let corners = match &short.ty {
        FieldType::Polygon => size,
        FieldType::Array(item) if **item == FieldType::Polygon => short.element_size,
        _ => None,
    };
    if let Some(c) = corners.filter(|c| *c < 3.0) {
        let at = match long.and_then(|l| l.size.as_ref()) {
            Some(s) if short.ty == FieldType::Polygon => ctx.pos(s),
            _ => type_pos,
        };
        ctx.error(
            at,
            format!(
                "field `{}`: a polygon has at least 3 corners, not {}",
                name.value,
                crate::words::num(c)
            ),
            "fewer than 3 corners",
            Some("give the corners the typical area has (`size: 12`), at least 3".into()),
        );
    }
    let avg_size = size.map(|s| s.round().min(f64::from(u32::MAX)) as u32);
    let mut ty = short.ty;
    attribute_keys(ctx, name, &mut ty, long, avg_size);
    if let Some(s) = short.element_size
        && s > MAX_DOCUMENT_BYTES
    {
        ctx.error(
            type_pos,
            format!(
                "field `{}`: an element's size is too large: {s:e} (at most {}: MongoDB's 16 MiB document limit)",
                name.value,
                crate::words::num(MAX_DOCUMENT_BYTES)
            ),
            "too large",
            None,
        );
    }
    let element_size = short
        .element_size
        .filter(|s| *s <= MAX_DOCUMENT_BYTES)
        .map(|s| s.round() as u32);
    Some(Field {
        name: name.value.clone(),
        ty,
        avg_size,
        element_size,
        distinct,
        enum_values,
        required,
        description,
    })
}

/// The names of an `attributes` field: `keys`, at least the names one
/// instance has (`size`); `keys` on another type is an error.
fn attribute_keys(
    ctx: &mut Ctx<'_>,
    name: &S<String>,
    ty: &mut FieldType,
    long: Option<&super::raw::RawFieldLong>,
    avg_size: Option<u32>,
) {
    let given = long.and_then(|l| l.keys.as_ref());
    let FieldType::Attributes { keys } = ty else {
        if let Some(k) = given {
            ctx.error(
                ctx.pos(k),
                format!(
                    "field `{}`: `keys` counts the names of an `attributes` field",
                    name.value
                ),
                "not an attributes field",
                Some("remove `keys`, or declare `type: attributes`".into()),
            );
        }
        return;
    };
    let per = avg_size
        .map_or(crate::model::ATTRIBUTES_TYPICAL, u64::from)
        .max(1);
    *keys = per;
    if let Some(k) = given
        && let Some(n) = ctx.whole(k, "an attributes field's names", 1)
    {
        if n < per {
            ctx.error(
                ctx.pos(k),
                format!(
                    "field `{}` has {} names an instance but only {} in all",
                    name.value,
                    crate::words::int(per),
                    crate::words::int(n)
                ),
                "fewer than one instance's",
                Some("`keys` is at least `size`".into()),
            );
        } else {
            *keys = n;
        }
    }
}
