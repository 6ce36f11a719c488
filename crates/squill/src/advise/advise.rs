//! `advise`: model → facts → candidates judged by the rules → the cheapest
//! design on the workload → the `Design` with its reasons.

use super::error::AdviseError;
use super::{build, optimize};
use crate::candidates::facts::Facts;
use crate::design::Design;
use crate::finding::{Evidence, Finding, Location, Severity};
use crate::model::{Model, OperationKind};
use crate::settings::Settings;
use crate::words::edit_distance;

/// Recommends a design for `model` under the workload mix `mix` (`None`: the first).
pub fn advise(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
) -> Result<Design, AdviseError> {
    check_model(model)?;
    let mix_index = resolve_mix(model, mix)?;
    let facts = Facts::new(model, settings, mix_index);
    let space = crate::rules::design::space(&facts);
    check_pins(model, &space)?;
    let searched = optimize::local_search_within(&facts, &space, optimize::PLAN_BUDGET)
        .ok_or_else(|| AdviseError::NoDesign {
            model: model.name.clone(),
            problem: "every combination embeds some entity twice or in a cycle".to_string(),
        })?;
    let mut design =
        build::design(&facts, &space, &searched.state).ok_or_else(|| AdviseError::NoDesign {
            model: model.name.clone(),
            problem: "the chosen combination could not be laid out".to_string(),
        })?;
    if searched.stopped {
        design.findings.insert(0, budget_note(searched.planned));
    }
    Ok(design)
}

/// Every pinned relationship has a candidate of its layout.
fn check_pins(model: &Model, space: &crate::candidates::space::Space) -> Result<(), AdviseError> {
    for (r, pin) in space.pinned.iter().enumerate() {
        if let Some(kind) = pin
            && space.allowed(r).is_empty()
        {
            let mut candidates: Vec<&'static str> =
                space.rels[r].iter().map(|c| c.layout.kind()).collect();
            candidates.dedup();
            return Err(AdviseError::PinnedLayout {
                model: model.name.clone(),
                relationship: model.relationships[r].name.clone(),
                layout: kind.name(),
                candidates,
                needs: super::error::needs(*kind),
            });
        }
    }
    Ok(())
}

/// The note on a design the search budget stopped: the best found, not
/// proven the best a longer search would find.
pub(super) fn budget_note(planned: u64) -> Finding {
    Finding {
        rule: crate::rules::design::design_for_workload::RULE.id,
        severity: Severity::Warning,
        message: format!(
            "the search stopped at its budget of {} operation plans: this is the best design found, and a longer search might find a cheaper one",
            crate::words::int(planned)
        ),
        location: Location::Model {
            path: "workload".to_string(),
        },
        evidence: vec![Evidence::new("operation plans priced", planned.to_string())],
        help: Some(
            "advise the parts of a large model that do not share operations separately".to_string(),
        ),
    }
}

fn resolve_mix(model: &Model, mix: Option<&str>) -> Result<usize, AdviseError> {
    let Some(wanted) = mix else { return Ok(0) };
    if let Some(i) = model.workload.mix(wanted) {
        return Ok(i);
    }
    let available: Vec<String> = model
        .workload
        .mixes
        .iter()
        .map(|m| m.name.clone())
        .collect();
    let closest = available
        .iter()
        .map(|m| (edit_distance(wanted, m), m))
        .filter(|(d, m)| *d <= m.len().max(wanted.len()).max(3) / 2)
        .min()
        .map(|(_, m)| m.clone());
    Err(AdviseError::UnknownMix {
        model: model.name.clone(),
        wanted: wanted.to_string(),
        closest,
        available,
    })
}

/// The invariants `advise` relies on (a `Model` from the parser has them; one
/// built by hand may not): every index in range, finite non-negative rates.
fn check_model(model: &Model) -> Result<(), AdviseError> {
    let bad = |problem: String| {
        Err(AdviseError::Inconsistent {
            model: model.name.clone(),
            problem,
        })
    };
    if model.entities.is_empty() {
        return Err(AdviseError::EmptyModel {
            model: model.name.clone(),
        });
    }
    let n_ent = model.entities.len();
    let n_rel = model.relationships.len();
    for rel in &model.relationships {
        if rel.parent.index() >= n_ent || rel.child.index() >= n_ent {
            return bad(format!(
                "relationship `{}` names an entity that does not exist",
                rel.name
            ));
        }
        for (side, c) in [("children", &rel.children), ("parents", &rel.parents)] {
            if c.min > c.typical || c.max.finite().is_some_and(|m| m < c.typical) {
                return bad(format!(
                    "relationship `{}`: {side} min <= typical <= max does not hold",
                    rel.name
                ));
            }
            if c.growth_per_day.is_some_and(|g| !g.is_finite() || g < 0.0) {
                return bad(format!(
                    "relationship `{}`: growth must be a non-negative number",
                    rel.name
                ));
            }
        }
    }
    for op in &model.workload.operations {
        if op.rates.iter().any(|r| !r.is_finite() || *r < 0.0) {
            return bad(format!(
                "operation `{}` has a negative or non-finite rate",
                op.name
            ));
        }
        if let OperationKind::Link { relationship, .. } = &op.kind
            && relationship.index() >= n_rel
        {
            return bad(format!(
                "operation `{}` names a relationship that does not exist",
                op.name
            ));
        }
        if op.entity_in(model).index() >= n_ent {
            return bad(format!(
                "operation `{}` names an entity that does not exist",
                op.name
            ));
        }
        let rels: Vec<usize> = match &op.kind {
            OperationKind::Read {
                include,
                aggregates,
                ..
            } => {
                fn walk(incs: &[crate::model::Include], out: &mut Vec<usize>) {
                    for i in incs {
                        out.push(i.relationship.index());
                        walk(&i.include, out);
                    }
                }
                let mut v = Vec::new();
                walk(include, &mut v);
                v.extend(aggregates.iter().map(|a| a.relationship.index()));
                v
            }
            OperationKind::Insert { links, .. } => links.iter().map(|r| r.index()).collect(),
            OperationKind::Update { relinks, .. } => relinks.iter().map(|r| r.index()).collect(),
            OperationKind::Delete { .. } => Vec::new(),
            OperationKind::Link { relationship, .. } => vec![relationship.index()],
        };
        if rels.iter().any(|r| *r >= n_rel) {
            return bad(format!(
                "operation `{}` names a relationship that does not exist",
                op.name
            ));
        }
        // Filters carry their path resolved (`Filter::new`); a hand-built
        // one that does not would silently test a field that is not there.
        let (entity, filter) = match &op.kind {
            OperationKind::Read { entity, filter, .. }
            | OperationKind::Update { entity, filter, .. }
            | OperationKind::Delete { entity, filter } => (*entity, filter.as_slice()),
            OperationKind::Insert { .. } | OperationKind::Link { .. } => continue,
        };
        if let Some(f) = filter
            .iter()
            .find(|f| f.related != model.related(entity, &f.path))
        {
            return bad(format!(
                "operation `{}`: filter `{}` is not resolved against the model (make it with Filter::new)",
                op.name,
                f.path.join(".")
            ));
        }
    }
    let n_ops = model.workload.operations.len();
    for g in &model.workload.atomic_groups {
        if g.operations.iter().any(|o| o.index() >= n_ops) {
            return bad(format!(
                "atomic group `{}` names an operation that does not exist",
                g.name
            ));
        }
    }
    Ok(())
}
