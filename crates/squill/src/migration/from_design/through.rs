//! A relationship whose layout of today no step turns into the recommended
//! one directly goes through a parent reference: the normalized form every
//! layout is built from and unwound to. The migration then runs in two
//! stages, in one script: from today to an intermediate design (today's,
//! advised again with those relationships as parent references, so no
//! shape is made by hand), then from it to the recommended design.
//!
//! The second stage reads what the first wrote, before the final step: the
//! first stage's figures are checked once, when its steps are done, before
//! the second measures its own source; so the result is checked against
//! the intermediate data, and that against the data of today. The final
//! step holds both stages' removals, the rollback both stages' undoing,
//! the second's first.

use super::action::{Action, Cleanup, Undo};
use super::layout_steps::Children;
use super::plan_value::{Plan, Through, Via};
use super::step_parts::ChildrenAt;
use crate::design::{Design, Layout};

impl Through {
    /// Whether the first stage's step `a` writes past today's validator: a
    /// kind's collection reshaped in place (on the layouts recommended),
    /// whose documents the second stage moves into a recommended
    /// collection; the collection of today goes in the final step.
    pub(super) fn bypass(&self, a: &Action, recommended: &Design) -> bool {
        let coll = super::action::collection(a);
        self.via == Via::Layouts
            && a.runs_last()
            && !recommended.collections.iter().any(|c| c.name == coll)
    }

    /// The collections the first stage writes that today's design has not:
    /// the second stage reads them before any index of theirs is built.
    pub(super) fn created<'a>(&'a self, today: &Design) -> Vec<&'a str> {
        self.design
            .collections
            .iter()
            .filter(|c| !today.collections.iter().any(|t| t.name == c.name))
            .map(|c| c.name.as_str())
            .collect()
    }
}

/// The index a second-stage step needs on the children it matches by their
/// parent's id, when they are in a collection the first stage `created`, or
/// in one of today without an index on that path (a tree-path's nodes: the
/// parent ids it keeps have none, the intermediate parent reference's index
/// is never built): `(collection, path)`, built for the step and dropped
/// once it is done, as `Action::lookup_indexes`; without it, each batch
/// scans them all.
pub(super) fn children_index<'a>(
    a: &'a Action,
    created: &[&str],
    today: &Design,
) -> Option<(&'a str, &'a str)> {
    let (child, path) = match a {
        Action::BuildParent {
            child, ref_path, ..
        }
        | Action::Computed {
            children: ChildrenAt::Collection { child, ref_path },
            ..
        } => (child, ref_path),
        Action::Bucket(b) => match &b.children {
            Children::Collection { child, ref_path } => (child, ref_path),
            Children::Embedded { .. } => return None,
        },
        _ => return None,
    };
    let index = (child.as_str(), path.as_str());
    let indexed = today
        .collections
        .iter()
        .find(|c| c.name == index.0)
        .is_some_and(|c| {
            c.indexes
                .iter()
                .any(|i| i.keys.first().is_some_and(|(k, _)| k == index.1))
        });
    // (One the step makes for itself already is not made twice.)
    ((created.contains(&index.0) || !indexed) && !a.lookup_indexes().contains(&index))
        .then_some(index)
}

/// The relationships of `direct` (the plan from today straight to the
/// recommended design) worth taking through a parent reference: those no
/// step covers, with a parent reference at neither end (there is no stage
/// to add then).
pub(super) fn candidates(direct: &Plan, today: &Design, recommended: &Design) -> Vec<String> {
    let layout = |d: &Design, rel: &str| {
        d.relationships
            .iter()
            .find(|r| r.relationship == rel)
            .map(|r| r.chosen.clone())
    };
    let mut out: Vec<String> = Vec::new();
    for (rel, _) in &direct.blocked {
        let ends = [layout(today, rel), layout(recommended, rel)];
        if ends
            .iter()
            .all(|l| l.as_ref().is_some_and(|l| *l != Layout::ParentReference))
            && !out.contains(rel)
        {
            out.push(rel.clone());
        }
    }
    out
}

/// The first stage's steps that read `coll.field` of today: run again by
/// the final step, for the children added since (none but these can).
fn readers<'a>(first: &'a Plan, coll: &str, f: &str) -> Vec<&'a Action> {
    first
        .actions
        .iter()
        .filter(|a| match a {
            Action::RefFromIds { parent, field, .. } | Action::Unwind { parent, field, .. } => {
                parent == coll && field == f
            }
            _ => false,
        })
        .collect()
}

/// Moves into the final step the second stage's builds of a field of today
/// the first stage's final step removes (see `Through::rebuilt`): out of
/// the second's steps and undoing (it never runs before the final step),
/// the removal out of the first's; the parent's validator, and that of the
/// children the steps run again give their reference, wait for the final
/// step (today's application writes them until then). Returns the steps
/// run again and the builds.
fn rebuild(first: &mut Plan, second: &mut Plan) -> (Vec<Action>, Vec<Action>) {
    let (mut again, mut rebuilt) = (Vec::new(), Vec::new());
    let mut kept = Vec::new();
    for c in std::mem::take(&mut first.cleanup) {
        let Cleanup::Unset { collection, field } = &c else {
            kept.push(c);
            continue;
        };
        let builds = |a: &Action| matches!(a, Action::BuildParent { parent, field: f, .. } if parent == collection && f == field);
        let reads = readers(first, collection, field);
        if reads.is_empty() || !second.actions.iter().any(builds) {
            kept.push(c);
            continue;
        }
        for a in reads {
            if let Action::RefFromIds { child, .. } = a
                && !second.deferred.contains(child)
            {
                second.deferred.push(child.clone());
            }
            again.push(a.clone());
        }
        let (moved, stay) = std::mem::take(&mut second.actions)
            .into_iter()
            .partition(builds);
        second.actions = stay;
        rebuilt.extend::<Vec<Action>>(moved);
        second.undo.retain(|u| {
            !matches!(u, Undo::Unset { collection: c, field: f } if c == collection && f == field)
        });
        if !second.deferred.contains(collection) {
            second.deferred.push(collection.clone());
        }
    }
    first.cleanup = kept;
    (again, rebuilt)
}

/// Why the two stages cannot be one script, when they cannot.
fn clash(first: &Plan, via: Via, recommended: &Design) -> Option<String> {
    let has = |coll: &str, field: &str| {
        recommended
            .collections
            .iter()
            .find(|c| c.name == coll)
            .is_some_and(|c| c.shape.fields.iter().any(|f| f.name == field))
    };
    if let Some(c) = first.early.first() {
        // Its recommended validator, set before both stages, could reject
        // what the first stage writes.
        return Some(format!(
            "the first stage needs the validator of `{c}` before its steps"
        ));
    }
    for a in &first.actions {
        // A field of today reshaped in place, in a collection the
        // recommended design has not: its validator of today would reject
        // its documents, and no validator of the recommended design
        // replaces it (nor may one of the intermediate design).
        let in_place = match a {
            Action::Overflow(_) | Action::Gather(_) => true,
            Action::Archive(_) => false,
            a => a.runs_last(),
        };
        let coll = super::action::collection(a);
        // (Kinds reshaped in their collections of today move on, in the
        // second stage, into the recommended collection that checks them;
        // the steps write past today's validator, `bypass`.)
        if in_place
            && via == Via::ParentReference
            && !recommended.collections.iter().any(|c| c.name == coll)
        {
            return Some(format!(
                "the first stage reshapes `{coll}` in place, which the recommended design has not"
            ));
        }
    }
    for c in &first.cleanup {
        let (coll, field) = match c {
            Cleanup::Unset { collection, field } | Cleanup::DeleteHolding { collection, field } => {
                (collection, field)
            }
            Cleanup::RemoveEmbedded { parent, field, .. } => (parent, field),
            Cleanup::DropCollection { collection } => {
                if recommended
                    .collections
                    .iter()
                    .any(|r| &r.name == collection)
                {
                    return Some(format!(
                        "the first stage drops `{collection}`, which the recommended design has"
                    ));
                }
                continue;
            }
            Cleanup::Overflow(_) | Cleanup::Gather(_) => {
                return Some("the first stage reshapes an outlier's array".into());
            }
            // Rebuilt in place by the final step, after the second stage
            // has read it in today's shape.
            Cleanup::Timeline(t) => {
                return Some(format!(
                    "the first stage rebuilds the timeline `{}`",
                    t.collection
                ));
            }
            Cleanup::DropIndex { .. } | Cleanup::Archived(_) => continue,
        };
        // The second stage would write the field of today in place, and
        // the final step then remove it.
        if has(coll, field.split('.').next().unwrap_or(field)) {
            return Some(format!(
                "`{coll}.{field}` is today's and the recommended design's, in another shape"
            ));
        }
    }
    None
}

/// Takes out of the second stage's final step the indexes it finds stale
/// in the intermediate design that today's design has not: the
/// intermediate design's indexes are never built, so there is nothing to
/// drop, nor to rebuild after a rollback.
pub(super) fn unbuilt_indexes(second: &mut Plan, today: &Design) {
    second.cleanup.retain(|c| match c {
        Cleanup::DropIndex { collection, index } => today
            .collections
            .iter()
            .any(|t| &t.name == collection && t.indexes.iter().any(|i| i.name == index.name)),
        _ => true,
    });
}

/// The two stages as one plan: the second's steps, with the first in
/// `through`; both stages' removals in the final step (the first's first);
/// the second's undoing before the first's; each relationship's change from
/// today's layout to the recommended one.
pub(super) fn compose(
    mut first: Plan,
    mut second: Plan,
    design: Design,
    relationships: Vec<String>,
    via: Via,
    recommended: &Design,
) -> Result<Plan, String> {
    let (again, rebuilt) = rebuild(&mut first, &mut second);
    if let Some(why) = clash(&first, via, recommended) {
        return Err(why);
    }
    let mut changes = Vec::new();
    for (rel, from, to) in &first.changes {
        let to = second
            .changes
            .iter()
            .find(|(r, _, _)| r == rel)
            .map_or(to, |(_, _, t)| t);
        changes.push((rel.clone(), from.clone(), to.clone()));
    }
    for c in &second.changes {
        if !first.changes.iter().any(|(r, _, _)| *r == c.0) {
            changes.push(c.clone());
        }
    }
    // An index of today the first stage finds stale, but the recommended
    // design has again (on the field the second stage rebuilds), stays.
    let kept = |c: &Cleanup| match c {
        Cleanup::DropIndex { collection, index } => !recommended
            .collections
            .iter()
            .any(|r| &r.name == collection && r.indexes.iter().any(|i| i.name == index.name)),
        _ => true,
    };
    // Nothing to take out of a collection the second stage drops whole
    // (its validator of today would reject the documents left short).
    let dropped = |coll: &str| {
        second
            .cleanup
            .iter()
            .any(|c| matches!(c, Cleanup::DropCollection { collection } if collection == coll))
    };
    let gone = |c: &Cleanup| match c {
        Cleanup::Unset { collection, .. }
        | Cleanup::DeleteHolding { collection, .. }
        | Cleanup::DropIndex { collection, .. }
        | Cleanup::RemoveEmbedded {
            child: collection, ..
        } => dropped(collection),
        _ => false,
    };
    let mut cleanup: Vec<Cleanup> = first
        .cleanup
        .into_iter()
        .filter(|c| kept(c) && !gone(c))
        .collect();
    for c in second.cleanup {
        if !cleanup.contains(&c) {
            cleanup.push(c);
        }
    }
    let mut deferred = first.deferred;
    for d in second.deferred {
        if !deferred.contains(&d) {
            deferred.push(d);
        }
    }
    Ok(Plan {
        actions: second.actions,
        cleanup,
        undo: second.undo.into_iter().chain(first.undo).collect(),
        checks: second.checks,
        changes,
        refused: Vec::new(),
        deferred,
        early: second.early,
        last: second.last,
        blocked: Vec::new(),
        through: Some(Box::new(Through {
            design,
            relationships,
            via,
            actions: first.actions,
            checks: first.checks,
            again,
            rebuilt,
        })),
        with_kinds: Vec::new(),
    })
}

/// The reason a relationship stays refused: no direct step (`direct`), and
/// the halves through a parent reference, each written or not.
pub(super) fn refusal(rel: &str, direct: &str, halves: [(&Plan, String); 2]) -> String {
    let half = |(p, name): &(&Plan, String)| {
        let why: Vec<&str> = p
            .blocked
            .iter()
            .filter(|(r, _)| r == rel)
            .map(|(_, w)| w.as_str())
            .collect();
        if why.is_empty() && p.refused.is_empty() {
            format!("{name}: written")
        } else if why.is_empty() {
            format!("{name}: {}", p.refused.join(", "))
        } else {
            why.join(", ")
        }
    };
    format!(
        "{direct}; nor through a parent reference ({}; {})",
        half(&halves[0]),
        half(&halves[1])
    )
}
