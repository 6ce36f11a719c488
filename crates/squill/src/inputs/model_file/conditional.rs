//! The words of conditional writes and expiry, resolved: a write's `when`
//! conditions, `otherwise`, `increments` and a claim's order (into
//! `WriteTerms`), and an entity's `expires` (into `Expiry`).

use super::context::Ctx;
use super::error::suggestion;
use super::paths::sort_keys;
use super::raw::{RawAmount, RawExpiry, RawOperation, S};
use crate::model::{
    AmountOf, Condition, Entity, EntityId, Expiry, Field, FieldType, Increment, Literal, Model,
    Otherwise, Plus, SetValue, Test, WriteTerms,
};

/// The kinds of operation a condition may guard.
const GUARDED: [&str; 5] = ["update", "delete", "link", "unlink", "claim"];

/// The terms of operation `name` (of kind `kind`, on `entity`): empty for
/// an operation that states none. Errors point at the key that does not
/// apply or the condition that does not read.
pub(crate) fn terms(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    name: &S<String>,
    kind: &str,
    op: &RawOperation,
) -> WriteTerms {
    let mut out = WriteTerms::default();
    let misplaced = [
        (
            "when",
            op.when.as_ref().and_then(|w| w.first()).map(|w| ctx.pos(w)),
            &GUARDED[..],
        ),
        (
            "otherwise",
            op.otherwise.as_ref().map(|o| ctx.pos(o)),
            &GUARDED[..],
        ),
        (
            "increments",
            op.increments
                .as_ref()
                .map(|m| m.0.first().and_then(|(k, _)| ctx.pos(k))),
            &["update", "claim"][..],
        ),
    ];
    for (key, at, allowed) in misplaced {
        if let Some(at) = at
            && !allowed.contains(&kind)
        {
            ctx.error(
                at.or(ctx.pos(name)),
                does_not_apply(key, kind, &name.value, allowed),
                "not for this kind",
                None,
            );
            return out;
        }
    }
    let e = model.entity(entity);
    // A write of many documents that finds none to change has done its
    // work (a periodic sweep on a quiet run): `skip` unless it says
    // otherwise. A write of one document that finds none tells the caller.
    if op.multi.as_ref().is_some_and(|m| m.value) {
        out.otherwise = Otherwise::Skip;
    }
    if let Some(o) = &op.otherwise {
        match o.value.trim() {
            "fail" => out.otherwise = Otherwise::Fail,
            "undo" => out.otherwise = Otherwise::Undo,
            "skip" => out.otherwise = Otherwise::Skip,
            // Checked with the operation's filter (`upsert`).
            super::upsert::INSERT => {
                out.otherwise = Otherwise::Insert;
                out.inserts = op.inserts.as_ref().map(|s| s.value);
            }
            other => ctx.error(
                ctx.pos(o),
                format!("`otherwise: {other}` is not something squill knows a write to do"),
                "unknown",
                suggestion(other, ["fail", "undo", "skip", "insert"])
                    .or(Some("one of fail, undo, skip, insert".into())),
            ),
        }
        if op.when.is_none() && op.claim.is_none() && o.value.trim() != super::upsert::INSERT {
            ctx.error(
                ctx.pos(o),
                format!(
                    "operation `{}` says what happens when it matches nothing, but states no condition",
                    name.value
                ),
                "no condition",
                Some("add `when: [\"field > 0\"]`, or drop `otherwise`".into()),
            );
        }
    }
    // The amounts the caller passes, each with the kind of number of the
    // first field it is added to: `increments` names them, and only
    // those the conditions may compare with.
    let mut amounts: Vec<(String, FieldType)> = Vec::new();
    for (field, by) in op.increments.iter().flat_map(|m| &m.0) {
        match e.fields.iter().find(|f| f.name == field.value) {
            Some(f) if numeric(&f.ty) => {
                if let Some(inc) = increment(ctx, model, entity, &field.value, by) {
                    if let Some(name) = &inc.amount
                        && !same_kind_of_number(ctx, by, &mut amounts, name, f)
                    {
                        continue;
                    }
                    out.increments.push(inc);
                }
            }
            Some(_) => ctx.error(
                ctx.pos(field),
                format!(
                    "`{}` of `{}` is not a number: `$inc` cannot add to it",
                    field.value, e.name
                ),
                "not a number",
                None,
            ),
            None => ctx.error(
                ctx.pos(field),
                format!("`{}` is not a field of entity `{}`", field.value, e.name),
                "unknown field",
                suggestion(&field.value, e.fields.iter().map(|f| f.name.as_str())),
            ),
        }
    }
    // A link's conditions test the parent, the document a link writes
    // first; read after `increments`, which name the caller's amounts.
    for c in op.when.iter().flatten() {
        if let Some(c) = condition(ctx, &e.fields, &e.name, &amounts, c) {
            out.conditions.push(c);
        }
    }
    if matches!(kind, "update" | "claim") {
        out.values = set_values(ctx, e, &amounts, &out, op.changes.as_deref().unwrap_or(&[]));
    }
    if kind == "claim" {
        out.claim = Some(
            op.sort
                .as_ref()
                .map(|s| sort_keys(ctx, model, entity, s))
                .unwrap_or_default(),
        );
    }
    out
}

/// The `changes:` entries that set their field to a value the caller
/// passes (`current_price = :offer`). The value is written as a
/// condition writes one (`:name`); where a condition or an increment
/// names it too, it is one value, so it must be of the field's kind.
/// An unknown field was reported by `paths::fields`.
fn set_values(
    ctx: &mut Ctx<'_>,
    e: &Entity,
    amounts: &[(String, FieldType)],
    terms: &WriteTerms,
    raw: &[S<String>],
) -> Vec<SetValue> {
    let mut out = Vec::new();
    for c in raw {
        let Some((field, value)) = super::changes::assignment(e, &c.value) else {
            continue;
        };
        let text = c.value.trim();
        let at = ctx.pos(c);
        let Some(f) = e.fields.iter().find(|f| f.name == field) else {
            continue;
        };
        let name = value.strip_prefix(':').map(str::trim);
        let Some(name) = name.filter(|n| is_name(n)) else {
            ctx.error(
                at,
                format!(
                    "`changes` entry `{text}`: a changed field is set to a value the caller passes, written with a colon and a name"
                ),
                "not a caller's value",
                Some(format!(
                    "write `{field} = :NAME` (`current_price = :offer`), or `{field}` alone for a value of its own"
                )),
            );
            continue;
        };
        if terms.increments.iter().any(|i| i.field == field) {
            ctx.error(
                at,
                format!(
                    "`changes` entry `{text}` sets `{field}`, which `increments` adds to: one write cannot both set and add to a field"
                ),
                "set and added",
                Some(format!("drop `{field}` from `changes` or from `increments`")),
            );
            continue;
        }
        // A name close to one the conditions test, but not it: a typo
        // would otherwise set the field to a value nothing tested.
        let tested_names: Vec<&str> = terms
            .conditions
            .iter()
            .filter_map(|t| match &t.value {
                Literal::Param(p) => Some(p.as_str()),
                _ => None,
            })
            .chain(amounts.iter().map(|(n, _)| n.as_str()))
            .collect();
        if !tested_names.contains(&name)
            && let Some(near) = super::error::closest(name, tested_names.iter().copied())
        {
            ctx.error(
                at,
                format!(
                    "`changes` entry `{text}`: `:{name}` is no value the write's conditions test or its increments add"
                ),
                "unknown name",
                Some(format!(
                    "did you mean `:{near}`? A value of its own needs a name no other is close to"
                )),
            );
            continue;
        }
        let mine = family(&f.ty);
        if let Some((_, ty)) = amounts.iter().find(|(n, _)| n == name)
            && !numeric(&f.ty)
        {
            ctx.error(
                at,
                format!(
                    "`changes` entry `{text}`: `{name}` is the amount the write adds, a number ({}), and `{field}` holds {}",
                    ty.bson_type(),
                    mine.unwrap_or("a value of another kind")
                ),
                "a number against another kind",
                Some(format!("give the value set to `{field}` a name of its own")),
            );
            continue;
        }
        let tested = e.fields.iter().find(|g| {
            terms
                .conditions
                .iter()
                .any(|t| t.field == g.name && t.value == Literal::Param(name.to_string()))
        });
        if let Some(g) = tested
            && family(&g.ty) != mine
        {
            ctx.error(
                at,
                format!(
                    "`changes` entry `{text}`: `:{name}` is compared with `{}` in `when:`, which holds {}, and `{field}` holds {}: one value of the caller is one kind of value",
                    g.name,
                    family(&g.ty).unwrap_or("a value of another kind"),
                    mine.unwrap_or("a value of another kind"),
                ),
                "two kinds of value",
                Some(format!(
                    "set `{field}` to a value of its own kind (`{field} = :new_{field}`)"
                )),
            );
            continue;
        }
        out.push(SetValue {
            field: field.to_string(),
            value: name.to_string(),
        });
    }
    out
}

/// The kind of value a field holds, in words; fields of one kind compare
/// (and take one caller's value).
fn family(ty: &FieldType) -> Option<&'static str> {
    match ty {
        t if numeric(t) => Some("a number"),
        FieldType::String => Some("text"),
        FieldType::Date => Some("a date"),
        FieldType::Bool => Some("true or false"),
        FieldType::ObjectId => Some("an id"),
        _ => None,
    }
}

/// The amount added to `field`: a constant other than 0, or
/// `[-]relationship.field`, a number of the instance related to each
/// written document through a relationship of `entity` (each document its
/// own amount).
fn increment(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    field: &str,
    by: &S<RawAmount>,
) -> Option<Increment> {
    let at = ctx.pos(by);
    let text = match &by.value {
        RawAmount::Number(n) if n.is_finite() && *n != 0.0 => {
            return Some(Increment {
                field: field.to_string(),
                by: *n,
                per: None,
                amount: None,
            });
        }
        RawAmount::Number(_) => {
            ctx.error(
                at,
                "an increment adds a number other than 0",
                "nothing added",
                None,
            );
            return None;
        }
        RawAmount::Path(t) => t.trim(),
    };
    let (sign, path) = match text.strip_prefix('-') {
        Some(rest) => (-1.0, rest.trim()),
        None => (1.0, text.strip_prefix('+').unwrap_or(text).trim()),
    };
    let e = model.entity(entity);
    let Some((rel_name, other_field)) = path.split_once('.') else {
        return caller_amount(ctx, model, entity, field, sign, path, at);
    };
    let mine = model
        .relationships
        .iter()
        .filter(|r| r.parent == entity || r.child == entity);
    let Some(r) = model.relationship_by_name(rel_name).filter(|&r| {
        let rel = model.relationship(r);
        rel.parent == entity || rel.child == entity
    }) else {
        ctx.error(
            at,
            format!(
                "`{rel_name}` in `{text}` is not a relationship of entity `{}`",
                e.name
            ),
            "unknown relationship",
            suggestion(rel_name, mine.map(|r| r.name.as_str())),
        );
        return None;
    };
    let rel = model.relationship(r);
    let other = model.entity(if rel.parent == entity {
        rel.child
    } else {
        rel.parent
    });
    // A many-to-many's own fields (a line's quantity) are the link's, not
    // either side's: each linked document takes its own link's amount.
    let found = other
        .fields
        .iter()
        .chain(&rel.attributes)
        .find(|f| f.name == other_field);
    match found {
        Some(f) if numeric(&f.ty) => Some(Increment {
            field: field.to_string(),
            by: sign,
            per: Some(AmountOf {
                relationship: r,
                field: other_field.to_string(),
            }),
            amount: None,
        }),
        Some(_) => {
            ctx.error(
                at,
                format!(
                    "`{other_field}` of `{}` is not a number: it cannot be added to `{field}`",
                    other.name
                ),
                "not a number",
                None,
            );
            None
        }
        None => {
            ctx.error(
                at,
                format!(
                    "`{other_field}` is not a field of entity `{}` (through `{rel_name}`)",
                    other.name
                ),
                "unknown field",
                suggestion(
                    other_field,
                    other
                        .fields
                        .iter()
                        .chain(&rel.attributes)
                        .map(|f| f.name.as_str()),
                ),
            );
            None
        }
    }
}

/// `-quantity`: an amount the caller passes, under a name of its own.
/// The name must not be a field of the written entity (the condition
/// `available >= quantity` would read as a comparison of two fields) nor
/// one of its relationships (`-ordered` lacks the related field).
fn caller_amount(
    ctx: &mut Ctx<'_>,
    model: &Model,
    entity: EntityId,
    field: &str,
    sign: f64,
    name: &str,
    at: Option<super::error::Position>,
) -> Option<Increment> {
    let e = model.entity(entity);
    let text = if sign < 0.0 {
        format!("-{name}")
    } else {
        name.to_string()
    };
    if !is_name(name) {
        ctx.error(
            at,
            format!("`{text}` is neither a number, a related field, nor the name of an amount"),
            "not an amount",
            Some(
                "write a number (`-1`), a name for the amount the caller passes (`-quantity`), or `relationship.field` for an amount each document takes from its related instance (`-ordered.quantity`)"
                    .into(),
            ),
        );
        return None;
    }
    if e.fields.iter().any(|f| f.name == name) {
        ctx.error(
            at,
            format!(
                "`{name}` in `{text}` is a field of entity `{}`, so it cannot also name the amount the caller passes",
                e.name
            ),
            "a field, not an amount",
            Some(format!(
                "give the caller's amount a name no field of `{}` has (`-amount`)",
                e.name
            )),
        );
        return None;
    }
    let rel = model
        .relationships
        .iter()
        .any(|r| r.name == name && (r.parent == entity || r.child == entity));
    if rel {
        ctx.error(
            at,
            format!(
                "`{name}` in `{text}` is a relationship of entity `{}`, so it cannot also name the amount the caller passes",
                e.name
            ),
            "a relationship, not an amount",
            Some(format!(
                "write `{}{name}.FIELD` for each document's own amount from its related instance, or give the caller's amount another name",
                if sign < 0.0 { "-" } else { "" }
            )),
        );
        return None;
    }
    Some(Increment {
        field: field.to_string(),
        by: sign,
        per: None,
        amount: Some(name.to_string()),
    })
}

/// Records that amount `name` is added to field `f`; an amount added to
/// fields of two kinds of number is an error at its line and column (a
/// decimal `$inc` turns an int field into a decimal, which its validator
/// refuses). `false` when the increment must be dropped.
fn same_kind_of_number(
    ctx: &mut Ctx<'_>,
    by: &S<RawAmount>,
    amounts: &mut Vec<(String, FieldType)>,
    name: &str,
    f: &Field,
) -> bool {
    let kind = |t: &FieldType| match t {
        FieldType::Int | FieldType::Long => "a whole number",
        FieldType::Double => "a double",
        _ => "a decimal",
    };
    match amounts.iter().find(|(n, _)| n == name) {
        Some((_, ty)) if kind(ty) != kind(&f.ty) => {
            ctx.error(
                ctx.pos(by),
                format!(
                    "amount `{name}` is added to a field that holds {} and to `{}`, which holds {}: one amount is one kind of number",
                    kind(ty),
                    f.name,
                    kind(&f.ty)
                ),
                "two kinds of number",
                Some("give each kind of field an amount of its own".into()),
            );
            false
        }
        Some(_) => true,
        None => {
            amounts.push((name.to_string(), f.ty.clone()));
            true
        }
    }
}

/// A name as the model file writes names: a letter or `_`, then letters,
/// digits and `_`.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn numeric(ty: &FieldType) -> bool {
    matches!(
        ty,
        FieldType::Int | FieldType::Long | FieldType::Double | FieldType::Decimal
    )
}

/// `remaining > 0`, `status = pending`: a field of the entity, a test, a
/// constant of the field's kind; or a value the caller passes
/// (`version = expected`, `status = :wanted`); or, on the left, the field
/// with the write's amount added (`available + rooms <= total`).
pub(super) fn condition(
    ctx: &mut Ctx<'_>,
    fields: &[Field],
    entity: &str,
    amounts: &[(String, FieldType)],
    raw: &S<String>,
) -> Option<Condition> {
    let text = raw.value.trim();
    let at = ctx.pos(raw);
    let Some(op_at) = text.find(['=', '!', '<', '>']) else {
        ctx.error(
            at,
            format!("condition `{text}` has no comparison"),
            "no test",
            Some(
                "write `field OP value`, with OP one of =, !=, <, <=, >, >= (`remaining > 0`)"
                    .into(),
            ),
        );
        return None;
    };
    let (left, rest) = text.split_at(op_at);
    let (field, added) = match left.find(['+', '-']) {
        Some(i) => (
            left[..i].trim(),
            Some((left[i..].starts_with('-'), left[i + 1..].trim())),
        ),
        None => (left.trim(), None),
    };
    let (test, value) = [
        ("!=", Test::Ne),
        ("<=", Test::Lte),
        (">=", Test::Gte),
        ("==", Test::Eq),
        ("=", Test::Eq),
        ("<", Test::Lt),
        (">", Test::Gt),
    ]
    .into_iter()
    .find_map(|(sym, t)| rest.strip_prefix(sym).map(|v| (t, v.trim())))?;
    if value.is_empty() || field.is_empty() || added.is_some_and(|(_, a)| a.is_empty()) {
        ctx.error(
            at,
            format!("condition `{text}` needs a field on the left and a value on the right"),
            "incomplete",
            Some("write `field OP value` (`remaining > 0`, `status = pending`)".into()),
        );
        return None;
    }
    let Some(f) = fields.iter().find(|f| f.name == field) else {
        ctx.error(
            at,
            format!(
                "condition `{text}` tests `{field}`, which is not a field of entity `{entity}`"
            ),
            "unknown field",
            suggestion(field, fields.iter().map(|f| f.name.as_str())),
        );
        return None;
    };
    let plus = match added {
        Some((negative, amount)) => {
            Some(added_amount(ctx, at, text, f, amounts, negative, amount)?)
        }
        None => None,
    };
    // `:name`: a value the caller passes for the test, whatever the
    // field holds (a word on its own is a constant there).
    let (value, named) = match value.strip_prefix(':') {
        Some(name) => (name.trim(), true),
        None => (value, false),
    };
    if named && !is_name(value) {
        ctx.error(
            at,
            format!("condition `{text}`: `:{value}` is not a name for a value the caller passes"),
            "not a name",
            Some("a letter or `_`, then letters, digits and `_` (`status = :wanted`)".into()),
        );
        return None;
    }
    let amount = amounts.iter().any(|(n, _)| n == value);
    // A bare name of another field of the entity (not one of the tested
    // field's own values, not the caller's amount): the two fields are
    // compared (`used < quota`). A quoted word stays a word.
    let other = (!named && !amount && !f.enum_values.iter().any(|v| v == value))
        .then(|| fields.iter().find(|g| g.name == value && g.name != f.name))
        .flatten();
    // A bare name is taken only where the write itself names it: another
    // field (above) or an amount its `increments` give. The caller's own
    // value is always `:name` (`version = :expected`), so a misspelt field
    // or amount is an error, never a new parameter of the cookbook.
    let literal = if named && !(amount && numeric(&f.ty)) {
        Literal::Param(value.to_string())
    } else if let Some(g) = other {
        compared_field(ctx, at, text, f, g)?
    } else if numeric(&f.ty) {
        match value.parse::<f64>() {
            Ok(n) if n.is_finite() => Literal::Number(n),
            _ if amount => Literal::Amount(value.to_string()),
            _ => {
                not_a_value(ctx, at, text, f, fields, entity, amounts, value);
                return None;
            }
        }
    } else if plus.is_some() {
        // `added_amount` refuses a field that is not a number first.
        return None;
    } else if amount {
        ctx.error(
            at,
            format!(
                "condition `{text}`: `{value}` is the amount the caller passes, a number, and `{field}` holds {}",
                kind_of(&f.ty)
            ),
            "a number against another kind",
            Some(format!(
                "compare `{value}` with a number field, or `{field}` with one of its own values"
            )),
        );
        return None;
    } else if f.ty == FieldType::Date && is_name(value) {
        not_a_value(ctx, at, text, f, fields, entity, amounts, value);
        return None;
    } else if !matches!(f.ty, FieldType::String | FieldType::Bool) {
        // A date, an id, a shape: the model has no constant of that kind,
        // and the text the value would become never equals (or orders
        // against) it in MongoDB, so the write would never apply.
        no_constant(ctx, at, text, f, entity, value);
        return None;
    } else if f.ty == FieldType::Bool {
        match value {
            "true" => Literal::Bool(true),
            "false" => Literal::Bool(false),
            _ => {
                ctx.error(
                    at,
                    format!(
                        "condition `{text}`: `{field}` is true or false, and `{value}` is neither"
                    ),
                    "not a boolean",
                    Some(format!(
                        "write `true` or `false`, or `:{value}` for a value the caller passes"
                    )),
                );
                return None;
            }
        }
    } else {
        let word = value.trim_matches(|c| c == '"' || c == '\'');
        let allowed = &f.enum_values;
        if !allowed.is_empty() && !allowed.iter().any(|v| v == word) {
            ctx.error(
                at,
                format!("condition `{text}`: `{word}` is not one of the values of `{field}`"),
                "not a value of the field",
                suggestion(word, allowed.iter().map(String::as_str)).or_else(|| {
                    is_name(word).then(|| {
                        format!(
                            "one of {}, or `{field} = :{word}` for a value the caller passes",
                            allowed.join(", ")
                        )
                    })
                }),
            );
            return None;
        }
        Literal::Text(word.to_string())
    };
    Some(Condition {
        field: field.to_string(),
        plus,
        test,
        value: literal,
    })
}

/// `available + rooms`: the write's amount added to a number field, so
/// the condition tests the value the write leaves (`<= total`). The
/// amount must be one the write's `increments` take from the caller.
fn added_amount(
    ctx: &mut Ctx<'_>,
    at: Option<super::error::Position>,
    text: &str,
    f: &Field,
    amounts: &[(String, FieldType)],
    negative: bool,
    amount: &str,
) -> Option<Plus> {
    let field = &f.name;
    if !numeric(&f.ty) {
        ctx.error(
            at,
            format!(
                "condition `{text}` adds `{amount}` to `{field}`, which holds {}: only a number takes an amount",
                kind_of(&f.ty)
            ),
            "not a number",
            Some(format!("compare `{field}` alone (`{field} = value`)")),
        );
        return None;
    }
    if !amounts.iter().any(|(n, _)| n == amount) {
        ctx.error(
            at,
            format!(
                "condition `{text}` adds `{amount}` to `{field}`, and `{amount}` is no amount the write takes from the caller"
            ),
            "amount never passed",
            suggestion(amount, amounts.iter().map(|(n, _)| n.as_str())).or(Some(format!(
                "the condition tests the value the write leaves: name the amount in the write's `increments` (`{field}: {amount}`)"
            ))),
        );
        return None;
    }
    Some(Plus {
        amount: amount.to_string(),
        negative,
    })
}

/// `used < quota`: two fields of one kind (two numbers, two dates, two
/// texts, two ids, two booleans); any other pair is refused at the
/// condition, naming what each holds.
fn compared_field(
    ctx: &mut Ctx<'_>,
    at: Option<super::error::Position>,
    text: &str,
    f: &Field,
    g: &Field,
) -> Option<Literal> {
    match (family(&f.ty), family(&g.ty)) {
        (Some(a), Some(b)) if a == b => Some(Literal::Field(g.name.clone())),
        (a, b) => {
            let holds = |k: Option<&str>, ty: &FieldType| {
                k.map_or_else(
                    || format!("a value of BSON type `{}`", ty.bson_type()),
                    str::to_string,
                )
            };
            ctx.error(
                at,
                format!(
                    "condition `{text}` compares `{}`, which holds {}, with field `{}`, which holds {}: two fields compared must hold the same kind of value",
                    f.name,
                    holds(a, &f.ty),
                    g.name,
                    holds(b, &g.ty)
                ),
                "two kinds of value",
                Some(if f.ty == FieldType::String {
                    format!(
                        "compare `{}` with a field of its kind, or with a word: one that is also a field's name is written in quotes (`{} = \"{}\"`)",
                        f.name, f.name, g.name
                    )
                } else {
                    format!(
                        "compare `{}` with a field of its kind, or with a constant",
                        f.name
                    )
                }),
            );
            None
        }
    }
}

/// The error for a field with no constant in the model's words (a date,
/// an id, a shape) compared with one (`at > 0`, `owner = abc`): MongoDB
/// never matches a date or an id against a number or a text, so the
/// condition would never hold and every call would take `otherwise`.
fn no_constant(
    ctx: &mut Ctx<'_>,
    at: Option<super::error::Position>,
    text: &str,
    f: &Field,
    entity: &str,
    value: &str,
) {
    let field = &f.name;
    let holds = match f.ty {
        FieldType::Date => "a date".to_string(),
        FieldType::ObjectId => "an id".to_string(),
        ref ty => format!("a value of BSON type `{}`", ty.bson_type()),
    };
    ctx.error(
        at,
        format!(
            "condition `{text}`: `{field}` holds {holds}, and `{value}` is no constant of that kind; MongoDB would never match it, so the write would never apply"
        ),
        "no constant of the field's kind",
        Some(format!(
            "compare `{field}` with another field of `{entity}` of its kind, or with a value the caller passes (`{field} > :since`)"
        )),
    );
}

/// The error for a number field compared with `value`, which is neither
/// a number nor an amount the write names in its `increments` (or a date
/// field compared with a bare name): the field itself, a related field,
/// or a name that is no field and no amount (`unknown_name`).
#[allow(clippy::too_many_arguments)]
fn not_a_value(
    ctx: &mut Ctx<'_>,
    at: Option<super::error::Position>,
    text: &str,
    f: &Field,
    fields: &[Field],
    entity: &str,
    amounts: &[(String, FieldType)],
    value: &str,
) {
    let field = &f.name;
    // Another field of the entity is compared (`compared_field`): only
    // the tested field itself reaches here.
    let (message, label, help) = if fields.iter().any(|g| g.name == value) {
        (
            format!("condition `{text}` compares `{field}` of entity `{entity}` with itself"),
            "the same field",
            Some(format!(
                "compare `{field}` with a constant, another field of `{entity}`, or an amount the caller passes (`{field} >= amount`)"
            )),
        )
    } else if value.contains('.') {
        (
            format!(
                "condition `{text}`: `{value}` is each document's own amount; a condition compares `{field}` with a number or an amount the caller passes"
            ),
            "not a number",
            None,
        )
    } else if is_name(value) {
        unknown_name(ctx, at, text, f, fields, entity, amounts, value);
        return;
    } else {
        (
            format!("condition `{text}`: `{field}` is a number, and `{value}` is not"),
            "not a number",
            None,
        )
    };
    ctx.error(at, message, label, help);
}

/// The error for a bare name compared with a number or a date field
/// that is neither another field of the entity nor an amount the write
/// takes (`version = expected`): a misspelt field or amount, or the
/// caller's own value written without its colon. The help names the
/// nearest field of the tested one's kind or amount, and the `:name`
/// spelling; the name never becomes a parameter by itself.
#[allow(clippy::too_many_arguments)]
fn unknown_name(
    ctx: &mut Ctx<'_>,
    at: Option<super::error::Position>,
    text: &str,
    f: &Field,
    fields: &[Field],
    entity: &str,
    amounts: &[(String, FieldType)],
    value: &str,
) {
    let number = numeric(&f.ty);
    let kin =
        |g: &&Field| g.name != f.name && (numeric(&g.ty) == number) && (number || g.ty == f.ty);
    let near = super::error::closest(
        value,
        fields
            .iter()
            .filter(kin)
            .map(|g| g.name.as_str())
            .chain(amounts.iter().filter(|_| number).map(|(n, _)| n.as_str())),
    );
    // The condition as the caller's value is written: the value is the
    // text's last word (`version = :expected`).
    let written = text.strip_suffix(value).unwrap_or(text);
    let colon = format!(
        "a value the caller passes for the test alone is written with a colon: `{written}:{value}`"
    );
    let help = match near {
        Some(n) if amounts.iter().any(|(a, _)| a == n) => {
            format!("did you mean `{n}`, the amount the write takes? Or {colon}")
        }
        Some(n) => format!("did you mean `{n}`, a field of `{entity}`? Or {colon}"),
        None => colon,
    };
    ctx.error(
        at,
        format!(
            "condition `{text}`: `{value}` is no field of entity `{entity}`{}",
            if number {
                " and no amount the write takes from the caller"
            } else {
                ""
            }
        ),
        "unknown name",
        Some(help),
    );
}

/// What a field holds, in words: for a type mismatch.
fn kind_of(ty: &FieldType) -> &'static str {
    match ty {
        FieldType::Bool => "true or false",
        FieldType::Date => "a date",
        FieldType::ObjectId => "an id",
        _ => "text",
    }
}

/// An entity's `expires`: a date field of it and a duration, in seconds
/// (0 when the field holds the moment of expiry).
pub(crate) fn expiry(
    ctx: &mut Ctx<'_>,
    fields: &[Field],
    entity: &str,
    raw: &RawExpiry,
) -> Option<Expiry> {
    let dates: Vec<&str> = fields
        .iter()
        .filter(|f| f.ty == FieldType::Date)
        .map(|f| f.name.as_str())
        .collect();
    if !dates.contains(&raw.from.value.as_str()) {
        ctx.error(
            ctx.pos(&raw.from),
            format!(
                "`expires` counts from `{}`, which is not a date field of entity `{entity}`",
                raw.from.value
            ),
            "not a date",
            if dates.is_empty() {
                Some(format!(
                    "give `{entity}` a field of type date (`last_used: date`)"
                ))
            } else {
                suggestion(&raw.from.value, dates.iter().copied())
                    .or(Some(format!("its dates: {}", dates.join(", "))))
            },
        );
        return None;
    }
    let Some(seconds) = seconds(&raw.after.value) else {
        ctx.error(
            ctx.pos(&raw.after),
            format!("`after: {}` is not a duration", raw.after.value),
            "not a duration",
            Some("a number and a unit: `30 minutes`, `7 days`, `0 seconds`".into()),
        );
        return None;
    };
    Some(Expiry {
        field: raw.from.value.clone(),
        seconds,
    })
}

/// `30 minutes`, `1800 s`, `7 days`, `0 seconds`: whole seconds, at most
/// the largest `expireAfterSeconds` the server takes (2^31 - 1).
pub(super) fn seconds(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: f64 = number.parse().ok()?;
    let per = match unit.trim() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hour" | "hours" => 3_600.0,
        "d" | "day" | "days" => 86_400.0,
        "w" | "week" | "weeks" => 604_800.0,
        "month" | "months" => 2_592_000.0,
        "y" | "year" | "years" => 31_536_000.0,
        _ => return None,
    };
    let s = (n * per).round();
    (s.is_finite() && (0.0..=2_147_483_647.0).contains(&s)).then_some(s as u64)
}

/// The error for a key written on an operation of a kind it does not
/// apply to, naming the kinds it does.
pub(super) fn does_not_apply(key: &str, kind: &str, operation: &str, allowed: &[&str]) -> String {
    let article = if kind.starts_with(['i', 'u']) {
        "an"
    } else {
        "a"
    };
    format!(
        "`{key}` does not apply to {article} {kind} (operation `{operation}`); it belongs to: {}",
        allowed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_read_in_seconds() {
        assert_eq!(super::seconds("30 minutes"), Some(1_800));
        assert_eq!(super::seconds("7 days"), Some(604_800));
        assert_eq!(super::seconds("0 seconds"), Some(0));
        assert_eq!(super::seconds("1 hour"), Some(3_600));
        assert_eq!(super::seconds("soon"), None);
        assert_eq!(super::seconds("100 years"), None);
    }
}
