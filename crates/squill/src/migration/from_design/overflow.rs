//! embed → outlier: the parent keeps its first `threshold` children in its
//! array, and those past it move to the child collection with the parent's
//! id. Everything is read from the two designs' shapes.
//!
//! The recommended array's items carry an `_id` (and the parent's id),
//! which today's embedded children may not have: the step gives each item
//! without one a new ObjectId, in place and in the array's order (an
//! ObjectId grows with each one made, so the `_id`s keep the order the
//! children arrived in), written back first (a retry or a rerun finds the
//! same `_id`s, so no child is written under two), then copies the items
//! past the threshold into the child collection under the same `_id`,
//! updating what a run before wrote. The array keeps all its items until the final step, so today's
//! application works on (it only sees the new fields of the items); until
//! then the new design's read of an outlier sees the children past the
//! threshold twice, in the array and in the child collection. The final
//! step does the same for every parent (children added since included),
//! then cuts each array to the threshold, its items as the recommended
//! design has them, and only then sets the parent's validator (its bound
//! and its items' `_id` would reject today's writes before).
//!
//! embed → subset is the same step with another cut: every child moves to
//! the child collection (which holds them all in a subset), and the final
//! step keeps in the array the newest `k` by the subset's sort field, as
//! copies in the subset's item shape (their `_id`s those of the child
//! documents). Either way an array of today is rewritten under the same
//! name, and only by the final step: today's application reads it until
//! then.
//!
//! The step is JavaScript per parent rather than one aggregation: a new
//! ObjectId per item cannot be made on the server before MongoDB 7.

use super::action::{Action, Cleanup, Undo};
use super::aggregation::TMP;
use super::figure::{Figure, count, ids_of, matching, set, sizes};
use super::layout_steps::{Gather, Keep, Overflow};
use super::plan_value::Plan;
use super::script_text::js;
use super::source::{collection_of, item_fields, link_field};
use super::step_parts::ItemField;
use crate::design::{
    Collection, Design, FieldOrigin, Layout, RelationshipDecision, ShapeField, ShapeType,
};
use crate::words::script::comment;
use serde_json::json;

/// The step, or a reason in `p.refused`.
pub(super) fn plan(p: &mut Plan, today: &Design, recommended: &Design, rel: &RelationshipDecision) {
    match overflow(today, recommended, rel) {
        Ok(o) => {
            p.undo.push(Undo::Drop {
                collection: o.child.clone(),
            });
            p.undo.push(Undo::Overflow(Box::new(o.clone())));
            p.cleanup.push(Cleanup::Overflow(Box::new(o.clone())));
            p.deferred.push(o.parent.clone());
            p.actions.push(Action::Overflow(Box::new(o)));
        }
        Err(why) => p.refused.push(why),
    }
}

/// A subset whose array has the name of today's embedded children: the
/// array is rewritten in place, as an outlier's (another name is built
/// beside it, through a parent reference).
pub(super) fn same_array(today: &Design, recommended: &Design, rel: &RelationshipDecision) -> bool {
    let field = |d: &Design| {
        collection_of(d, &rel.parent)
            .and_then(|c| link_field(c, &rel.relationship))
            .map(|f| f.name.clone())
    };
    matches!(rel.chosen, Layout::Subset { .. })
        && field(today).is_some()
        && field(today) == field(recommended)
}

fn overflow(
    today: &Design,
    recommended: &Design,
    rel: &RelationshipDecision,
) -> Result<Overflow, String> {
    let Sides {
        threshold,
        old_parent,
        new_parent,
        child,
        old,
        new,
        reference,
        old_items,
        new_items,
    } = Sides::of(today, recommended, rel, recommended)?;
    let name = &rel.relationship;
    // Today's item field with the same origin (an own field of the child).
    let today_name = |origin: &FieldOrigin| {
        old_items
            .iter()
            .find(|o| &o.origin == origin)
            .map(|o| o.name.clone())
    };
    // The same field of the child in the child collection.
    let child_name = |origin: &FieldOrigin| {
        child
            .shape
            .fields
            .iter()
            .find(|c| &c.origin == origin)
            .map(|c| c.name.clone())
    };
    let keep = match &rel.chosen {
        Layout::Subset {
            sort_field: Some(s),
            ..
        } => {
            let own = FieldOrigin::Own {
                entity: rel.child.clone(),
                field: s.clone(),
            };
            let (Some(sort), Some(child_sort)) = (today_name(&own), child_name(&own)) else {
                return Err(format!(
                    "the subset's sort field `{s}` is not a field of today's embedded children"
                ));
            };
            Keep::Latest {
                k: threshold,
                sort: Some(sort),
                child_sort,
            }
        }
        Layout::Subset { .. } => Keep::Latest {
            k: threshold,
            sort: None,
            child_sort: "_id".into(),
        },
        _ => Keep::First(threshold),
    };
    if old.name != new.name {
        return Err(format!(
            "the array `{}` is `{}` in the recommended design",
            old.name, new.name
        ));
    }
    let mut item_ref = None;
    let mut kept = Vec::new();
    for f in new_items {
        // A subset's copy of the child's field: today's item's own field.
        let copied = match &f.origin {
            FieldOrigin::Copy { entity, field, .. } if *entity == rel.child => {
                today_name(&FieldOrigin::Own {
                    entity: entity.clone(),
                    field: field.clone(),
                })
            }
            _ => None,
        };
        if let Some(source) = copied {
            kept.push(ItemField {
                target: f.name.clone(),
                source,
            });
            continue;
        }
        match &f.origin {
            FieldOrigin::Id if f.name == "_id" => {}
            // A subset's item is the child's id with copies.
            FieldOrigin::Reference { relationship, .. }
                if relationship == name
                    && f.name == "_id"
                    && matches!(keep, Keep::Latest { .. }) => {}
            FieldOrigin::Reference { relationship, .. } if relationship == name => {
                item_ref = Some(f.name.clone());
            }
            // Kept as it is: the same field under the same name.
            o @ FieldOrigin::Own { .. } if today_name(o).as_deref() == Some(f.name.as_str()) => {
                kept.push(ItemField {
                    target: f.name.clone(),
                    source: f.name.clone(),
                });
            }
            _ => {
                return Err(format!(
                    "`{}.{}.{}` is not a field today's embedded children have",
                    new_parent.name, new.name, f.name
                ));
            }
        }
    }
    let mut child_items = Vec::new();
    for f in &child.shape.fields {
        let source = match &f.origin {
            _ if f.name == reference.name => continue,
            FieldOrigin::Id if f.name == "_id" => Some("_id".to_string()),
            o @ FieldOrigin::Own { .. } => today_name(o),
            _ => None,
        };
        let Some(source) = source else {
            return Err(format!(
                "no step builds `{}.{}` from the embedded children",
                child.name, f.name
            ));
        };
        child_items.push(ItemField {
            target: f.name.clone(),
            source,
        });
    }
    Ok(Overflow {
        relationship: name.clone(),
        parent: old_parent.name.clone(),
        field: old.name.clone(),
        keep,
        item_ref,
        kept,
        child: child.name.clone(),
        ref_field: reference.name.clone(),
        child_items,
        today_items: old_items.iter().map(|o| o.name.clone()).collect(),
    })
}

/// What an outlier's migration either way reads of the two designs: the
/// parent's array of today and recommended (sub-documents both), and the
/// child collection (in `children_in`: the recommended design's when the
/// outliers are built, today's when they are gathered back) with its
/// reference to the parent. The threshold is `outlier`'s (a subset's `k`).
struct Sides<'d> {
    threshold: u64,
    old_parent: &'d Collection,
    new_parent: &'d Collection,
    child: &'d Collection,
    old: &'d ShapeField,
    new: &'d ShapeField,
    reference: &'d ShapeField,
    old_items: &'d [ShapeField],
    new_items: &'d [ShapeField],
}

impl<'d> Sides<'d> {
    fn of(
        today: &'d Design,
        recommended: &'d Design,
        outlier: &RelationshipDecision,
        children_in: &'d Design,
    ) -> Result<Self, String> {
        let (Layout::Outlier { threshold } | Layout::Subset { k: threshold, .. }) = outlier.chosen
        else {
            return Err("not an outlier".into());
        };
        let name = &outlier.relationship;
        let (Some(old_parent), Some(new_parent), Some(child)) = (
            collection_of(today, &outlier.parent),
            collection_of(recommended, &outlier.parent),
            collection_of(children_in, &outlier.child),
        ) else {
            return Err("no parent collection in both designs, or no child collection".into());
        };
        let (Some(old), Some(new), Some(reference)) = (
            link_field(old_parent, name),
            link_field(new_parent, name),
            link_field(child, name),
        ) else {
            return Err(format!(
                "no array in `{}` or no reference in `{}`",
                old_parent.name, child.name
            ));
        };
        let (Some((old_items, false)), Some((new_items, false)), ShapeType::Scalar { .. }) =
            (item_fields(old), item_fields(new), &reference.ty)
        else {
            return Err("the children are not an array of sub-documents in both designs".into());
        };
        Ok(Sides {
            threshold,
            old_parent,
            new_parent,
            child,
            old,
            new,
            reference,
            old_items,
            new_items,
        })
    }
}

/// The step's function on each parent `filter` finds (`range`: a batch's;
/// `{}`: every one), read with its array `field` only; `last` in the final
/// step.
fn each_parent(parent: &str, field: &str, function: &str, filter: &str, last: bool) -> String {
    format!(
        "db.getCollection({}).find({filter}, {{ {}: 1 }}).forEach((d) => {function}(d, {last}));",
        js(parent),
        js(field),
    )
}

/// `[[target, source], …]`.
fn pairs<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let v: Vec<[&str; 2]> = items.map(|(t, s)| [t, s]).collect();
    json!(v).to_string()
}

impl Overflow {
    /// The name of the script's function for one parent.
    pub(super) fn function(&self) -> String {
        format!("squillOverflow_{}", function_suffix(&self.relationship))
    }

    /// The function the step and the final step call for each parent:
    /// every item with an `_id` and the parent's id, written back first
    /// (a retry, or a run resumed, finds the same `_id`s: the children it
    /// writes are never written twice under two), then the items that move
    /// written to the child collection under their `_id`, and with `trim`
    /// the array cut to what it keeps. The array is written only if it is
    /// still as read (else read again: the application may be adding a
    /// child).
    pub(super) fn definition(&self) -> String {
        let (p, f, c) = (js(&self.parent), js(&self.field), js(&self.child));
        let with_ref = match &self.item_ref {
            Some(r) => format!(", {{ {}: d._id }}", js(r)),
            None => String::new(),
        };
        let kept = pairs(
            std::iter::once(("_id", "_id")).chain(
                self.kept
                    .iter()
                    .map(|i| (i.target.as_str(), i.source.as_str())),
            ),
        );
        // The `_id` is the filter's: an update does not set it.
        let child = pairs(
            self.child_items
                .iter()
                .filter(|i| i.target != "_id")
                .map(|i| (i.target.as_str(), i.source.as_str())),
        );
        let (moved, cut, past, keeps) = match &self.keep {
            Keep::First(k) => (
                format!("those past the first {k}"),
                format!("items.slice(0, {k})"),
                format!("items.slice({k})"),
                format!("the first {k}"),
            ),
            Keep::Latest { k, sort, .. } => (
                "every one".to_string(),
                match sort {
                    // Newest first; `sort` is stable, ties keep the array's order.
                    Some(s) => {
                        let s = js(s);
                        format!(
                            "items.slice().sort((a, b) => (a[{s}] < b[{s}] ? 1 : a[{s}] > b[{s}] ? -1 : 0)).slice(0, {k})"
                        )
                    }
                    None => format!("items.slice(-{k}).reverse()"),
                },
                "items".to_string(),
                match sort {
                    Some(s) => format!("the newest {k} by {s}"),
                    None => format!("its last {k}, newest first"),
                },
            ),
        };
        format!(
            "// {rel}: each item of {pn}.{fname} with an `_id` (a new one, in the array's order,\n\
             // when it has none) and its parent's id; {moved} written to\n\
             // {cn} under their `_id`; with `trim`, the array cut to {keeps}.\n\
             function {name}(d, trim) {{\n\
             \x20 const pick = (x, fields) => Object.fromEntries(fields.filter(([, s]) => x[s] !== undefined).map(([t, s]) => [t, x[s]]));\n\
             \x20 for (let tries = 0; ; tries++) {{\n\
             \x20   const old = d === null ? undefined : d[{f}];\n\
             \x20   if (!Array.isArray(old)) return;\n\
             \x20   const items = old.map((x) => Object.assign({{ _id: x._id === undefined ? new ObjectId() : x._id }}, x{with_ref}));\n\
             \x20   if (db.getCollection({p}).updateOne({{ _id: d._id, {f}: old }}, {{ $set: {{ {f}: items }} }}).matchedCount > 0) {{\n\
             \x20     const past = {past};\n\
             \x20     if (past.length > 0) {{\n\
             \x20       db.getCollection({c}).bulkWrite(past.map((x) => ({{ updateOne: {{ filter: {{ _id: x._id }}, update: {{ $set: Object.assign(pick(x, {child}), {{ {r}: d._id }}) }}, upsert: true }} }})));\n\
             \x20     }}\n\
             \x20     if (!trim) return;\n\
             \x20     const now = {cut}.map((x) => Object.assign(pick(x, {kept}){with_ref}));\n\
             \x20     if (db.getCollection({p}).updateOne({{ _id: d._id, {f}: items }}, {{ $set: {{ {f}: now }} }}).matchedCount > 0) return;\n\
             \x20   }}\n\
             \x20   if (tries === 5) throw new Error(`squill migration: ${{{pj}}} ${{d._id}}: its ${{{fj}}} keeps changing`);\n\
             \x20   d = db.getCollection({p}).findOne({{ _id: d._id }}, {{ {f}: 1 }});\n\
             \x20 }}\n}}",
            rel = comment(&self.relationship),
            pn = comment(&self.parent),
            fname = comment(&self.field),
            cn = comment(&self.child),
            pj = js(&self.parent),
            fj = js(&self.field),
            name = self.function(),
            r = js(&self.ref_field),
        )
    }

    /// One batch of the step: the function for each parent of the range.
    pub(super) fn batch(&self) -> String {
        format!(
            "  {}",
            each_parent(&self.parent, &self.field, &self.function(), "range", false)
        )
    }

    /// The final step: the function for every parent, the arrays cut; a
    /// subset's then checked (each parent's array its newest children by
    /// the sort field, read again from the child collection): the step
    /// fails, and is run again, rather than leave a wrong subset.
    pub(super) fn cleanup(&self) -> String {
        let each = each_parent(&self.parent, &self.field, &self.function(), "{}", true);
        let Keep::Latest { k, child_sort, .. } = &self.keep else {
            return each;
        };
        format!(
            "{each}\n  const squillWrong_{safe} = squillMatching({p}, {stages});\n  \
             if (squillWrong_{safe} > 0) throw new Error(`squill migration: final step: ${{squillWrong_{safe}}} ${{{p}}} document(s) whose ${{{f}}} is not its newest {k} ${{{c}}} documents by ${{{s}}}; the final step has not run, run it again`);",
            safe = self.function().trim_start_matches("squillOverflow_"),
            p = js(&self.parent),
            stages = not_newest(self, *k, child_sort),
            f = js(&self.field),
            c = js(&self.child),
            s = js(child_sort),
        )
    }

    /// The rollback before the final step: the items back to today's
    /// fields (without the `_id`s and parent ids the step added).
    pub(super) fn undo(&self) -> String {
        let mut item = serde_json::Map::new();
        for f in &self.today_items {
            item.insert(f.clone(), json!(format!("$$c.{f}")));
        }
        let f = &self.field;
        format!(
            "db.getCollection({}).updateMany({{ {}: {{ $type: \"array\" }} }}, [{{ $set: {{ {}: {{ $map: {{ input: {}, as: \"c\", in: {} }} }} }} }}]);  // the items of today again",
            js(&self.parent),
            js(f),
            js(f),
            js(&format!("${f}")),
            serde_json::Value::Object(item)
        )
    }

    pub(super) fn what(&self) -> String {
        let which = match &self.keep {
            Keep::First(k) => format!("the children past the first {k}"),
            Keep::Latest { .. } => "the children".into(),
        };
        format!(
            "{}: {which} of each {}.{}, with an `_id` given to each item",
            self.child, self.parent, self.field
        )
    }
}

/// The step, or a reason in `p.refused`.
pub(super) fn plan_back(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    now: &RelationshipDecision,
) {
    match gather(today, recommended, now) {
        Ok(g) => {
            p.undo.push(Undo::Gather(Box::new(g.clone())));
            p.cleanup.push(Cleanup::Gather(Box::new(g.clone())));
            // Today's bound on the array would reject the children
            // appended; the recommended validator takes today's items too.
            p.early.push(g.parent.clone());
            p.actions.push(Action::Gather(Box::new(g)));
        }
        Err(why) => p.refused.push(why),
    }
}

fn gather(
    today: &Design,
    recommended: &Design,
    now: &RelationshipDecision,
) -> Result<Gather, String> {
    let Sides {
        threshold,
        old_parent,
        new_parent,
        child,
        old,
        new,
        reference,
        old_items,
        new_items,
    } = Sides::of(today, recommended, now, today)?;
    let name = &now.relationship;
    if recommended.collections.iter().any(|c| c.name == child.name) {
        // The final step tells the children it appended by the child
        // collection being gone (a reshaped item may have no `_id`).
        return Err(format!("`{}` stays in the recommended design", child.name));
    }
    if old.name != new.name || !old_items.iter().any(|i| i.name == "_id") {
        return Err(format!(
            "the array `{}` changes its name, or its items have no `_id`",
            old.name
        ));
    }
    // Today's item fields from the child document's with the same origin
    // (the reference to the parent: the parent's id).
    let mut today_items = Vec::new();
    for i in old_items {
        let source = match &i.origin {
            FieldOrigin::Reference { relationship, .. } if relationship == name => {
                Some(reference.name.clone())
            }
            o => child
                .shape
                .fields
                .iter()
                .find(|f| &f.origin == o)
                .map(|f| f.name.clone()),
        };
        let Some(source) = source else {
            return Err(format!(
                "no field of `{}` for `{}.{}.{}`",
                child.name, old_parent.name, old.name, i.name
            ));
        };
        today_items.push(ItemField {
            target: i.name.clone(),
            source,
        });
    }
    let mut items = Vec::new();
    for f in new_items {
        let Some(o) = old_items.iter().find(|o| o.origin == f.origin) else {
            return Err(format!(
                "no step builds `{}.{}.{}` from today's items",
                new_parent.name, new.name, f.name
            ));
        };
        items.push(ItemField {
            target: f.name.clone(),
            source: o.name.clone(),
        });
    }
    Ok(Gather {
        relationship: name.clone(),
        parent: old_parent.name.clone(),
        field: old.name.clone(),
        threshold,
        child: child.name.clone(),
        ref_field: reference.name.clone(),
        today_items,
        items,
    })
}

impl Gather {
    /// The name of the script's function for one parent.
    pub(super) fn function(&self) -> String {
        format!("squillGather_{}", function_suffix(&self.relationship))
    }

    /// The function the step and the final step call for each parent: the
    /// children of the child collection not in its array yet (by `_id`)
    /// appended in today's item shape; with `last`, the items in the
    /// recommended shape. Written back only if the array is still as read.
    pub(super) fn definition(&self) -> String {
        let (p, f, c, r) = (
            js(&self.parent),
            js(&self.field),
            js(&self.child),
            js(&self.ref_field),
        );
        let pair = |items: &[ItemField]| {
            pairs(items.iter().map(|i| (i.target.as_str(), i.source.as_str())))
        };
        format!(
            "// {rel}: the {cn} documents of a {pn} not in its {fname} yet (by `_id`), appended\n\
             // in `_id` order as today's items; with `last`, the items as the recommended\n\
             // design has them.\n\
             function {name}(d, last) {{\n\
             \x20 const pick = (x, fields) => Object.fromEntries(fields.filter(([, s]) => x[s] !== undefined).map(([t, s]) => [t, x[s]]));\n\
             \x20 for (let tries = 0; ; tries++) {{\n\
             \x20   if (d === null) return;\n\
             \x20   const old = d[{f}];\n\
             \x20   const items = Array.isArray(old) ? old : [];\n\
             \x20   const held = new Set(items.map((x) => EJSON.stringify(x._id)));\n\
             \x20   const more = db.getCollection({c}).find({{ {r}: d._id }}).sort({{ _id: 1 }}).toArray().filter((x) => !held.has(EJSON.stringify(x._id)));\n\
             \x20   const all = items.concat(more.map((x) => pick(x, {today})));\n\
             \x20   const now = last ? all.map((x) => pick(x, {items})) : all;\n\
             \x20   if (db.getCollection({p}).updateOne({{ _id: d._id, {f}: old === undefined ? {{ $exists: false }} : old }}, {{ $set: {{ {f}: now }} }}).matchedCount > 0) return;\n\
             \x20   if (tries === 5) throw new Error(`squill migration: ${{{pj}}} ${{d._id}}: its ${{{fj}}} keeps changing`);\n\
             \x20   d = db.getCollection({p}).findOne({{ _id: d._id }}, {{ {f}: 1 }});\n\
             \x20 }}\n}}",
            rel = comment(&self.relationship),
            pn = comment(&self.parent),
            fname = comment(&self.field),
            cn = comment(&self.child),
            pj = js(&self.parent),
            fj = js(&self.field),
            name = self.function(),
            today = pair(&self.today_items),
            items = pair(&self.items),
        )
    }

    /// One batch of the step: the function for each parent of the range.
    pub(super) fn batch(&self) -> String {
        format!(
            "  {}",
            each_parent(&self.parent, &self.field, &self.function(), "range", false)
        )
    }

    /// The final step: the children gathered for every parent (those added
    /// since the step), the child collection dropped (the recommended
    /// design has none), and only then the items reshaped: a reshaped item
    /// may have no `_id` to tell it by, so a final step run again must find
    /// no child to append.
    pub(super) fn cleanup(&self) -> String {
        let each = |last| each_parent(&self.parent, &self.field, &self.function(), "{}", last);
        [
            each(false),
            format!("db.getCollection({}).drop();", js(&self.child)),
            each(true),
        ]
        .join("\n  ")
    }

    /// The rollback before the final step: each array cut back to today's
    /// threshold (its own children came first).
    pub(super) fn undo(&self) -> String {
        let f = &self.field;
        format!(
            "db.getCollection({}).updateMany({{ {}: {{ $type: \"array\" }} }}, [{{ $set: {{ {}: {{ $slice: [{}, {}] }} }} }}]);  // the arrays of today again",
            js(&self.parent),
            js(f),
            js(f),
            js(&format!("${f}")),
            self.threshold
        )
    }

    pub(super) fn what(&self) -> String {
        format!(
            "{}.{}: its {} documents appended, in today's item shape",
            self.parent, self.field, self.child
        )
    }
}

/// Each item of the arrays with an `_id` (and the parent's id), one child
/// document per item that moves (an outlier's past the threshold, a
/// subset's all), and per parent the `_id`s of its child documents those
/// of its items that move.
pub(super) fn figures(out: &mut Vec<Figure>, o: &Overflow) {
    let (parent, field, from) = (&o.parent, &o.field, o.keep.moved_from());
    let which = match o.keep {
        Keep::First(k) => format!("past the first {k} "),
        Keep::Latest { .. } => String::new(),
    };
    let mut names = vec!["_id"];
    names.extend(o.item_ref.as_deref());
    out.push(Figure {
        label: format!("{parent}.{field}: items with {}", names.join(" and ")),
        before: sizes(parent, field),
        after: format!(
            "squillFilled({}, {}, {})",
            json!(parent),
            json!(field),
            json!(names)
        ),
    });
    out.push(Figure {
        label: format!(
            "{}: one document per child {which}of {parent}.{field}",
            o.child
        ),
        before: format!("squillPast({}, {}, {from})", json!(parent), json!(field)),
        after: count(&o.child, &set(&o.ref_field)),
    });
    // The ids by `$map` (a path through an array is not read as one by
    // every server).
    let ids = ids_of(format!("${field}"));
    let past = json!({"$slice": [ids, from, {"$max": [1, {"$size": ids}]}]});
    let same = json!({"$and": [
        {"$eq": [{"$size": format!("${TMP}")}, {"$size": past}]},
        {"$setEquals": [ids_of(format!("${TMP}")), past]},
    ]});
    out.push(Figure {
        label: format!(
            "{parent}: the parents whose {} documents are not the items {which}of their {field}",
            o.child
        ),
        before: "0".into(),
        after: matching(parent, json!([
                {"$lookup": {"from": o.child, "localField": "_id", "foreignField": o.ref_field, "as": TMP}},
                {"$match": {"$expr": {"$not": [same]}}},
            ])),
    });
}

/// The stages that keep the parents whose subset (`o.field`, cut by the
/// final step) is not `k` of their newest children in the child collection
/// by `sort`: the sort values of the children it names, newest first,
/// against those of the first `k` (so a tie at the cut may go either way,
/// but a child missing, foreign or older than one left out is told).
fn not_newest(o: &Overflow, k: u64, sort: &str) -> serde_json::Value {
    let values = |input: serde_json::Value| json!({"$map": {"input": input, "as": "c", "in": format!("$$c.{sort}")}});
    let named = json!({"$filter": {"input": format!("${TMP}"), "as": "c", "cond": {"$in": ["$$c._id", "$$ids"]}}});
    json!([
        {"$lookup": {"from": o.child, "localField": "_id", "foreignField": o.ref_field, "pipeline": [{"$sort": {sort: -1}}], "as": TMP}},
        {"$match": {"$expr": {"$let": {
            "vars": {"ids": ids_of(format!("${}", o.field))},
            "in": {"$not": [{"$and": [
                {"$eq": [{"$size": "$$ids"}, {"$min": [k, {"$size": format!("${TMP}")}]}]},
                {"$eq": [values(named), values(json!({"$slice": [format!("${TMP}"), k]}))]},
            ]}]},
        }}}},
    ])
}

/// Each array holding its own items and the child documents of its
/// parent, and per parent every child document's `_id` among its items'.
pub(super) fn figures_back(out: &mut Vec<Figure>, g: &Gather) {
    let (parent, field, child) = (&g.parent, &g.field, &g.child);
    out.push(Figure {
        label: format!("{parent}.{field}: its items of today and the {child} documents"),
        before: format!(
            "{} + {}",
            sizes(parent, field),
            count(child, &set(&g.ref_field))
        ),
        after: sizes(parent, field),
    });
    out.push(Figure {
        label: format!("{parent}: the parents whose {field} lacks one of their {child} documents"),
        before: "0".into(),
        after: matching(parent, json!([
                {"$lookup": {"from": child, "localField": "_id", "foreignField": g.ref_field, "as": TMP}},
                {"$match": {"$expr": {"$not": [{"$setIsSubset": [ids_of(format!("${TMP}")), ids_of(format!("${field}"))]}]}}},
            ])),
    });
}

/// A relationship's name as the end of a function's name: its ASCII letters
/// and digits, the rest `_`, and when that changed the name, a hash of the
/// name itself, so two relationships whose names differ only by punctuation
/// (`a-b`, `a b`) get two functions, not one that replaces the other.
fn function_suffix(relationship: &str) -> String {
    let safe: String = relationship
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if safe == relationship {
        return safe;
    }
    // FNV-1a: stable across builds and platforms.
    let hash = relationship
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{safe}_{:08x}", hash as u32)
}
