//! `generate --migration`: the mongosh script that turns the collections of
//! the design of today (the model's `current:`) into those of the recommended
//! design. Both designs come in as values (the caller advises; `generate`
//! sits below `advise`); the steps are derived from their shapes, so field
//! and collection names are the designs' own.
//!
//! A change no step covers directly goes through a parent reference when
//! both halves are written (`through`: two stages in one script); any other
//! refuses the whole script: a script that migrated half a design would
//! leave the application's queries failing on the rest.

mod action;
mod aggregation;
mod archive;
mod bucket;
mod computed;
mod figure;
mod kinds;
mod layout_steps;
mod links;
mod lookups;
mod overflow;
mod parent_field;
mod parents;
mod pipeline;
mod plan;
mod plan_value;
mod recompute;
mod render;
mod rollback;
mod runtime;
mod script_text;
mod shared;
mod source;
mod stale;
mod step_heading;
mod step_parts;
mod through;
mod timeline;
mod tree;
mod verify;

#[cfg(test)]
mod tests;

pub use render::SUPPORTED;

use crate::design::{Design, Layout};
use crate::model::Model;

/// The design of today with some relationships on the layouts given (a
/// stage a migration passes through: `advise::through_design`), or why it
/// cannot be made.
pub type ThroughDesign<'a> = dyn Fn(&[(String, Layout)]) -> Result<Design, String> + 'a;

/// Parents (or children) a step reads per batch, unless told otherwise.
pub const DEFAULT_BATCH: u64 = 1000;

/// Why no migration script is written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum MigrationError {
    #[error("no migration script: {}", reasons.join("; "))]
    #[diagnostic(
        code(squill::generate::migration::unsupported),
        help(
            "the script covers: {}. Migrate the rest by hand, or pin those relationships to their layout of today (`layout:`) to leave them as they are",
            SUPPORTED.join("; ")
        )
    )]
    Unsupported { reasons: Vec<String> },
}

/// The script, and what changes (for the caller's summary).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    pub script: String,
    /// `(relationship, layout of today, recommended layout)`, or for an
    /// archive added or dropped `(entity, collections of today,
    /// recommended collections)`.
    pub changes: Vec<(String, String, String)>,
    /// Steps that move data.
    pub steps: usize,
}

/// The migration from `today` to `recommended` (the two designs of
/// `model`, as `advise::today_design` and `advise::advise_with_model` give
/// them); `batch` documents per batch. When the design of today costs no
/// more, the script does nothing, unless the model pins (`layout:`) a
/// relationship to a layout it does not have today: the team asked for it.
/// `through` gives the design of today with the relationships named on
/// the layouts given (`advise::through_design`): as parent references, for
/// changes no step covers directly, or on their recommended layouts, for
/// kinds that merge into a polymorphic collection (or why it cannot be
/// made).
pub fn migration(
    model: &Model,
    today: &Design,
    recommended: &Design,
    batch: u64,
    through: &ThroughDesign<'_>,
) -> Result<Migration, MigrationError> {
    let unfilled = tenant_ids_unfilled(model);
    if !unfilled.is_empty() {
        return Err(MigrationError::Unsupported { reasons: unfilled });
    }
    let plan = plan::plan(model, today, recommended);
    let pinned = |rel: &str| {
        model
            .relationships
            .iter()
            .any(|r| r.name == rel && r.layout.is_some())
    };
    let already_best = recommended.current.as_ref().is_some_and(|c| c.already_best)
        && !plan.changes.iter().any(|(rel, _, _)| pinned(rel));
    let nothing = plan.actions.is_empty()
        && plan.last.is_empty()
        && plan.cleanup.is_empty()
        && plan.refused.is_empty();
    if already_best || nothing {
        return Ok(Migration {
            script: render::render(
                today,
                recommended,
                &plan_value::Plan::default(),
                batch.max(1),
            ),
            changes: Vec::new(),
            steps: 0,
        });
    }
    let plan = if plan.refused.is_empty() {
        plan
    } else if !plan.with_kinds.is_empty() {
        layouts_first(model, today, recommended, plan, through)
            .map_err(|reasons| MigrationError::Unsupported { reasons })?
    } else {
        two_stages(model, today, recommended, plan, through)
            .map_err(|reasons| MigrationError::Unsupported { reasons })?
    };
    Ok(Migration {
        script: render::render(today, recommended, &plan, batch.max(1)),
        changes: plan.changes.clone(),
        steps: plan.actions.len()
            + plan.last.len()
            + plan.through.as_ref().map_or(0, |t| t.actions.len()),
    })
}

/// The plan through a parent reference for the relationships `direct`
/// (the plan straight from today) cannot migrate, or the reasons: each
/// such relationship's with what stops each half.
fn two_stages(
    model: &Model,
    today: &Design,
    recommended: &Design,
    direct: plan_value::Plan,
    through: &ThroughDesign<'_>,
) -> Result<plan_value::Plan, Vec<String>> {
    let rels = through::candidates(&direct, today, recommended);
    if rels.is_empty() {
        return Err(direct.refused);
    }
    let layouts: Vec<(String, Layout)> = rels
        .iter()
        .map(|r| (r.clone(), Layout::ParentReference))
        .collect();
    let design = match through(&layouts) {
        Ok(d) => d,
        Err(e) => {
            let mut reasons = direct.refused;
            reasons.push(format!(
                "the design of today with {} as parent references cannot be made: {e}",
                listed(&rels)
            ));
            return Err(reasons);
        }
    };
    let first = plan::plan(model, today, &design);
    let mut second = plan::plan(model, &design, recommended);
    through::unbuilt_indexes(&mut second, today);
    let stopped = if first.refused.is_empty() && second.refused.is_empty() {
        match through::compose(
            first,
            second,
            design,
            rels.clone(),
            plan_value::Via::ParentReference,
            recommended,
        ) {
            Ok(p) => return Ok(p),
            Err(why) => Err(why),
        }
    } else {
        Ok((first, second))
    };
    let layout = |d: &Design, rel: &str| {
        d.relationships
            .iter()
            .find(|r| r.relationship == rel)
            .map_or("?", |r| r.chosen.kind())
    };
    Err(direct
        .refused
        .iter()
        .map(|reason| {
            let Some((rel, _)) = direct
                .blocked
                .iter()
                .find(|(r, w)| w == reason && rels.contains(r))
            else {
                return reason.clone();
            };
            match &stopped {
                Err(why) => format!("{reason}; nor through a parent reference: {why}"),
                Ok((first, second)) => through::refusal(
                    rel,
                    reason,
                    [
                        (
                            first,
                            format!("`{rel}`: {} → parent-reference", layout(today, rel)),
                        ),
                        (
                            second,
                            format!("parent-reference → {}", layout(recommended, rel)),
                        ),
                    ],
                ),
            }
        })
        .collect())
}

/// The relationships of kinds that move into or out of a polymorphic
/// collection whose layout changes in the same migration (`direct`'s
/// `with_kinds`): first their layouts change in the collections of today
/// (the design of today advised with their recommended layouts), then the
/// kinds move, their documents in the recommended shape already. Or the
/// reasons, `direct`'s and what stops the two stages.
fn layouts_first(
    model: &Model,
    today: &Design,
    recommended: &Design,
    direct: plan_value::Plan,
    through: &ThroughDesign<'_>,
) -> Result<plan_value::Plan, Vec<String>> {
    let layouts: Vec<(String, Layout)> = direct
        .with_kinds
        .iter()
        .filter_map(|rel| {
            let r = recommended
                .relationships
                .iter()
                .find(|r| &r.relationship == rel)?;
            Some((rel.clone(), r.chosen.clone()))
        })
        .collect();
    let rels: Vec<String> = layouts.iter().map(|(r, _)| r.clone()).collect();
    let stopped = |why: String| {
        let mut reasons = direct.refused.clone();
        reasons.push(format!(
            "nor with {} changed first in the collections of today: {why}",
            listed(&rels)
        ));
        reasons
    };
    let design = through(&layouts).map_err(&stopped)?;
    let first = plan::plan(model, today, &design);
    let mut second = plan::plan(model, &design, recommended);
    through::unbuilt_indexes(&mut second, today);
    if let Some(why) = first.refused.first().or(second.refused.first()) {
        return Err(stopped(why.clone()));
    }
    through::compose(
        first,
        second,
        design,
        rels.clone(),
        plan_value::Via::Layouts,
        recommended,
    )
    .map_err(stopped)
}

/// `` `a`, `b` `` for the relationships' names in a reason.
fn listed(rels: &[String]) -> String {
    rels.iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tenant's ids squill carries down (model/tenant_carry.rs: a visit's
/// clinic, the one of its patient) that the documents of today may lack:
/// each carried relationship the `current:` section does not list. No step
/// fills them yet, and the recommended design's reads filter on them, so a
/// migration that left them out would find none of today's documents
/// (audit45 gap 1): it is refused, with what to do.
fn tenant_ids_unfilled(model: &Model) -> Vec<String> {
    model
        .relationship_ids()
        .filter(|&r| !model.relationship(r).tenant_chain.is_empty() && model.current_of(r).is_none())
        .map(|r| {
            let rel = model.relationship(r);
            let child = &model.entity(rel.child).name;
            let via = model.entity(model.relationship(rel.tenant_chain[0]).parent).name.as_str();
            format!(
                "`{}`: each {child} of the recommended design holds its tenant's id in `{}`, copied from its {via}, which no step of the migration fills yet; set it in the documents of today from each {child}'s {via}, then list `{}: parent-reference` under `current:`",
                rel.name, rel.child_field, rel.name
            )
        })
        .collect()
}
