//! The search for one model: model → facts → candidates judged by the rules
//! → the cheapest design on the workload → the `Design` with its reasons,
//! without the design of today beside it (`current` prices that with this
//! same search, so the search sits below it).

use super::error::AdviseError;
use super::verdicts::{ChoiceBreaksRule, ChosenDespite};
use super::{build, optimize};
use crate::candidates::facts::Facts;
use crate::candidates::space::{Space, State};
use crate::design::{
    Alternative, Design, Figure, Layout, Reason, RelationshipDecision, RuleHit, Verdict,
};
use crate::finding::{Evidence, Finding, Location, Severity};
use crate::model::{
    LayoutKind, Model, OperationKind, RelationshipId, RelationshipKind, Without, as_junction,
};
use crate::rules::design::edge_collection::{Chosen, Links, MoreRulesBroken};
use crate::rules::design::many_to_many_sides_disagree as sides_disagree;
use crate::settings::Settings;
use crate::words::edit_distance;

/// `advise_with_model` without pricing the design of today, leaving out
/// the entity-level patterns of `without` (the design of today's: the
/// recommended design is chosen with every pattern).
pub(super) fn advise_plain(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    without: &Without,
) -> Result<(Model, Design), AdviseError> {
    advise_chosen(model, settings, mix, without).map(|c| (c.model, c.design))
}

/// A design with the search's choice behind it: the model it was made for
/// (with its edge collections and archives written in), the candidates and
/// the state chosen among them, and the mix, so that the same design can
/// be planned again under other figures (the largest tenant's, `tenancy`).
pub(super) struct Advised {
    pub model: Model,
    pub design: Design,
    pub space: Space,
    pub state: State,
    pub mix: usize,
}

/// `advise_plain`, with the choice behind the design.
pub(super) fn advise_chosen(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    without: &Without,
) -> Result<Advised, AdviseError> {
    check_model(model)?;
    let mix_index = resolve_mix(model, mix)?;
    let mut current = model.clone();
    let many: Vec<RelationshipId> = model
        .relationship_ids()
        .filter(|r| model.relationship(*r).kind == RelationshipKind::ManyToMany)
        .collect();
    // A pin to an edge collection is the rewrite, before anything else;
    // so is a count of a child's parents (a user's teams), which each side
    // keeps over its own links.
    let mut edges: Vec<(RelationshipId, Option<Alternative>)> = Vec::new();
    for &r in &many {
        if counted_from_child(model, r) {
            if let Some(pinned) = model
                .relationship(r)
                .layout
                .filter(|l| *l != LayoutKind::EdgeCollection)
            {
                return Err(AdviseError::PinnedLayout {
                    model: model.name.clone(),
                    relationship: model.relationship(r).name.clone(),
                    layout: pinned.name(),
                    candidates: vec![LayoutKind::EdgeCollection.name()],
                    needs: Some("no read that counts a child's parents"),
                });
            }
            current = as_junction(&current, r).ok_or_else(|| AdviseError::ChildSideCount {
                model: model.name.clone(),
                relationship: model.relationship(r).name.clone(),
            })?;
            edges.push((r, None));
            continue;
        }
        if model.relationship(r).layout == Some(LayoutKind::EdgeCollection) {
            current = as_junction(&current, r).ok_or_else(|| AdviseError::PinnedLayout {
                model: model.name.clone(),
                relationship: model.relationship(r).name.clone(),
                layout: LayoutKind::EdgeCollection.name(),
                candidates: Vec::new(),
                needs: super::error::needs(LayoutKind::EdgeCollection),
            })?;
            edges.push((r, None));
        }
    }
    let mut best = design_of(
        &current,
        settings,
        mix_index,
        None,
        optimize::PLAN_BUDGET,
        without,
    )?;
    // Each other many-to-many as an edge collection, kept when the whole
    // design breaks fewer rules, then costs less, that way: those with a
    // finding (a rule their arrays break) first, then the largest arrays, while the
    // budget lasts (each is a search of the whole model again).
    let main_planned = best.planned;
    let budget = edge_budget(main_planned);
    let mut extra = 0u64;
    let mut unpriced = 0usize;
    let mut order: Vec<RelationshipId> = many
        .iter()
        .copied()
        .filter(|&r| model.relationship(r).layout.is_none() && !counted_from_child(model, r))
        .collect();
    let largest = |r: RelationshipId| {
        let rel = model.relationship(r);
        let max = |c: crate::model::Count| c.finite().unwrap_or(u64::MAX);
        max(rel.children.max).max(max(rel.parents.max))
    };
    order.sort_by_key(|&r| {
        let noted = findings_on(&best.design, &model.relationship(r).name)
            .next()
            .is_some();
        (!noted, std::cmp::Reverse(largest(r)))
    });
    for r in order {
        let rel = model.relationship(r);
        let Some(rewritten) = as_junction(&current, r) else {
            continue;
        };
        if extra >= budget {
            unpriced += 1;
            continue;
        }
        let near = Some((&best.space, &best.state));
        let Ok(mut alternative) = design_of(
            &rewritten,
            settings,
            mix_index,
            near,
            budget - extra,
            without,
        ) else {
            continue;
        };
        extra = extra.saturating_add(alternative.planned);
        if alternative.rank() < best.rank() {
            // Adopted: a full search of the rewritten model, which may do
            // better than the one descent from the design at hand.
            if extra < budget
                && let Ok(full) = design_of(
                    &rewritten,
                    settings,
                    mix_index,
                    None,
                    budget - extra,
                    without,
                )
            {
                extra = extra.saturating_add(full.planned);
                if full.rank() < alternative.rank() {
                    alternative = full;
                }
            }
            let beaten = beaten_by_edge(&best, &alternative, &rel.name);
            current = rewritten;
            best = alternative;
            edges.push((r, beaten));
        } else {
            keep_arrays(&mut best, &alternative, &rel.name);
        }
    }
    // Each entity whose reads keep to recent instances, split by age when
    // the whole design breaks fewer rules, then costs less, that way.
    let mut archived: Vec<crate::design::EntityDecision> = Vec::new();
    let mut kept_whole: Vec<Finding> = Vec::new();
    let mut horizons = crate::model::archive_horizons(&current);
    for e in model.entity_ids().filter(|&e| !without.archive.covers(e)) {
        let Some((field, days)) = horizons[e.index()].clone() else {
            continue;
        };
        let Some((rewritten, split)) = crate::model::as_archive(&current, e, &field, days) else {
            continue;
        };
        let near = Some((&best.space, &best.state));
        let Ok(alternative) = design_of(&rewritten, settings, mix_index, near, budget, without)
        else {
            continue;
        };
        let archive_name = &rewritten.entity(split.archive).name;
        let apart = alternative
            .design
            .collections
            .iter()
            .any(|c| c.entities.first() == Some(archive_name));
        if apart && alternative.rank() < best.rank() {
            archived.push(super::archive::decision(
                (&current, &best.design),
                (&rewritten, &alternative.design),
                &split,
            ));
            current = rewritten;
            horizons = crate::model::archive_horizons(&current);
            best = alternative;
        } else if apart {
            kept_whole.push(super::archive::not_split(
                &model.entity(e).name,
                &split,
                &best.design,
                &alternative.design,
            ));
        }
    }
    let Outcome {
        mut design,
        space,
        state,
        ..
    } = best;
    design.entities.extend(archived);
    // A many-to-many now an edge collection is two one-to-manys in the
    // design's model: what the model stated of its sides is told from the
    // model as written (REVIEW47 item 8).
    let stated: Vec<Finding> = edges
        .iter()
        .filter_map(|&(r, _)| sides_disagree::finding(model, r))
        .collect();
    if !stated.is_empty() {
        design.findings.extend(stated);
        crate::finding::sort_findings(&mut design.findings);
    }
    design.findings.extend(kept_whole);
    for (r, beaten) in edges {
        design.relationships.push(edge_decision(model, r, beaten));
    }
    if unpriced > 0 {
        design
            .findings
            .push(edges_unpriced_note(unpriced, main_planned + extra));
    }
    Ok(Advised {
        model: current,
        design,
        space,
        state,
        mix: mix_index,
    })
}

/// Turns off the entity-level candidates of `without` (a candidate no
/// rule supports is never enabled).
fn leave_out(model: &Model, space: &mut Space, without: &Without) {
    use crate::candidates::EntityCandidate;
    for (c, support) in space.entity.iter().zip(&mut space.entity_support) {
        let out = match c {
            EntityCandidate::Polymorphic { entities, .. } => {
                entities.iter().any(|&e| without.polymorphic.covers(e))
            }
            EntityCandidate::Timeline { feed, .. } => [
                model.relationship(feed.following).parent,
                model.relationship(feed.items).child,
            ]
            .into_iter()
            .any(|e| without.timeline.covers(e)),
            EntityCandidate::Computed { .. } => false,
        };
        if out {
            support.clear();
        }
    }
}

/// Whether a read counts the parents of `r`'s children (a user's teams).
fn counted_from_child(model: &Model, r: RelationshipId) -> bool {
    model.workload.operations.iter().any(|op| match &op.kind {
        OperationKind::Read { aggregates, .. } => aggregates
            .iter()
            .any(|a| a.relationship == r && a.from_child),
        _ => false,
    })
}

/// The findings on relationship `name`.
fn findings_on<'d>(design: &'d Design, name: &str) -> impl Iterator<Item = &'d Finding> {
    let path = format!("relationships.{name}");
    design
        .findings
        .iter()
        .filter(move |f| matches!(&f.location, Location::Model { path: p } if *p == path))
}

/// The rule the chosen layout of relationship `name` in `arrays` breaks
/// (every candidate of it does, or the model pins it), as the reason its
/// arrays lose: worded as the design's finding on it.
fn broken_by_arrays(arrays: &Outcome, name: &str) -> Option<(&'static str, Reason)> {
    let d = arrays
        .design
        .relationships
        .iter()
        .find(|d| d.relationship == name)?;
    d.rules.iter().find_map(|hit| {
        let despite = hit.reason.get::<ChosenDespite>()?;
        Some((
            hit.rule,
            Reason::new(ChoiceBreaksRule {
                relationship: name.to_string(),
                layout: d.chosen.kind(),
                pinned: despite.pinned,
                broken: despite.broken.clone(),
            }),
        ))
    })
}

/// What the array layout of relationship `name` in `arrays` lost to the
/// edge collection of `edge` on: a rule it breaks, or its cost.
fn beaten_by_edge(arrays: &Outcome, edge: &Outcome, name: &str) -> Option<Alternative> {
    let d = arrays
        .design
        .relationships
        .iter()
        .find(|d| d.relationship == name)?;
    let verdict = match broken_by_arrays(arrays, name) {
        Some((rule, reason)) if arrays.breaks > edge.breaks => Verdict::Rejected { rule, reason },
        // More rules broken, without a finding of its own here.
        _ if arrays.breaks > edge.breaks => Verdict::Rejected {
            rule: crate::rules::design::edge_collection::RULE.id,
            reason: Reason::new(MoreRulesBroken {
                relationship: name.to_string(),
                rejected: Links::Arrays,
                with_arrays: Figure::count(arrays.breaks as f64),
                with_edge_collection: Figure::count(edge.breaks as f64),
            }),
        },
        _ => {
            let (a, e) = (&arrays.design.totals, &edge.design.totals);
            Verdict::Costlier {
                delta: a.minus(e),
                explanation: edge_words(&d.chosen, a, e),
                by_operation: crate::design::OperationDelta::between(
                    &edge.design.operations,
                    &arrays.design.operations,
                ),
            }
        }
    };
    Some(Alternative {
        layout: d.chosen.clone(),
        verdict,
    })
}

/// The edge collection of relationship `name`, priced in `edge`, as an
/// alternative the arrays of `arrays` beat: it breaks more rules, or costs
/// more.
fn keep_arrays(arrays: &mut Outcome, edge: &Outcome, name: &str) {
    let layout = Layout::EdgeCollection {
        collection: name.to_string(),
    };
    let verdict = if edge.breaks > arrays.breaks {
        Verdict::Rejected {
            rule: crate::rules::design::edge_collection::RULE.id,
            reason: Reason::new(MoreRulesBroken {
                relationship: name.to_string(),
                rejected: Links::EdgeCollection,
                with_arrays: Figure::count(arrays.breaks as f64),
                with_edge_collection: Figure::count(edge.breaks as f64),
            }),
        }
    } else {
        let (e, a) = (&edge.design.totals, &arrays.design.totals);
        Verdict::Costlier {
            delta: e.minus(a),
            explanation: edge_words(&layout, e, a),
            by_operation: crate::design::OperationDelta::between(
                &arrays.design.operations,
                &edge.design.operations,
            ),
        }
    };
    if let Some(d) = arrays
        .design
        .relationships
        .iter_mut()
        .find(|d| d.relationship == name)
    {
        d.alternatives.push(Alternative { layout, verdict });
    }
}

/// A design with what the search knows of it.
struct Outcome {
    design: Design,
    /// Layouts a rule forbids, chosen because every candidate of their
    /// relationship breaks one.
    breaks: usize,
    /// Operation plans the search priced.
    planned: u64,
    space: Space,
    state: State,
}

impl Outcome {
    /// Designs compare by the rules they break, then by their score.
    fn rank(&self) -> (usize, f64) {
        (self.breaks, self.design.totals.score)
    }
}

/// The design of `model` as it stands: facts, candidates judged by the
/// rules, the search (from the layouts of `near`, a design of a model that
/// differs in one relationship, when given), the report's values.
fn design_of(
    model: &Model,
    settings: &Settings,
    mix_index: usize,
    near: Option<(&Space, &State)>,
    budget: u64,
    without: &Without,
) -> Result<Outcome, AdviseError> {
    let facts = Facts::new(model, settings, mix_index);
    let mut space = crate::rules::design::space(&facts);
    leave_out(model, &mut space, without);
    check_pins(model, &space)?;
    let no_design = || AdviseError::NoDesign {
        model: model.name.clone(),
        problem: "every combination embeds some entity twice or in a cycle".to_string(),
    };
    let searched = match near {
        Some(near) => {
            let start = carried_over(&space, near);
            optimize::local_search_from(&facts, &space, start, budget)
        }
        None => optimize::local_search_within(&facts, &space, budget),
    }
    .ok_or_else(no_design)?;
    let mut design =
        build::design(&facts, &space, &searched.state).ok_or_else(|| AdviseError::NoDesign {
            model: model.name.clone(),
            problem: "the chosen combination could not be laid out".to_string(),
        })?;
    if searched.stopped {
        super::watch::stopped();
        design.findings.insert(0, budget_note(searched.planned));
    }
    let breaks = searched
        .state
        .rel
        .iter()
        .enumerate()
        .filter(|(r, c)| space.rels[*r][**c].forbidden.is_some())
        .count();
    Ok(Outcome {
        design,
        breaks,
        planned: searched.planned,
        space,
        state: searched.state,
    })
}

/// A state of `space` with the choices of `old` wherever the same layout
/// (or entity candidate) is on offer, the first allowed candidate elsewhere.
fn carried_over(space: &Space, (old, state): (&Space, &State)) -> State {
    State {
        rel: space
            .rels
            .iter()
            .enumerate()
            .map(|(r, candidates)| {
                old.rels
                    .get(r)
                    .and_then(|o| o.get(state.rel[r]))
                    .and_then(|chosen| candidates.iter().position(|c| c.layout == chosen.layout))
                    .or_else(|| space.allowed(r).first().copied())
                    .unwrap_or(0)
            })
            .collect(),
        entity: space
            .entity
            .iter()
            .zip(&space.entity_support)
            .map(|(e, support)| {
                // A candidate left out (no support) stays off.
                !support.is_empty()
                    && old
                        .entity
                        .iter()
                        .position(|x| x == e)
                        .is_some_and(|j| state.entity[j])
            })
            .collect(),
    }
}

/// Operation plans the edge collections of a model's many-to-many
/// relationships may cost on top of the main search (`planned`): as much
/// again, and at least 20,000 plans, which prices every many-to-many of the
/// examples and scenarios (a search from the design at hand takes tens to
/// hundreds of plans there) and keeps the scale bench's models within
/// about three times their time without (BENCHMARKS.md).
fn edge_budget(planned: u64) -> u64 {
    const FLOOR: u64 = 20_000;
    planned.clamp(FLOOR, optimize::PLAN_BUDGET)
}

/// The note on a design whose many-to-many relationships were not all
/// priced as edge collections: each is a search of the whole model, and
/// the budget ran out.
fn edges_unpriced_note(unpriced: usize, planned: u64) -> Finding {
    Finding {
        rule: crate::rules::design::edge_collection::RULE.id,
        severity: Severity::Info,
        message: format!(
            "{} many-to-many relationships were not priced as edge collections: their budget was spent ({} operation plans priced in all)",
            crate::words::int(unpriced as u64),
            crate::words::int(planned)
        ),
        location: Location::Model {
            path: "relationships".to_string(),
        },
        evidence: vec![Evidence::new("unpriced", unpriced.to_string())],
        help: Some(
            "pin `layout: edge-collection` on a relationship to price it, or advise the parts of a large model separately".to_string(),
        ),
    }
}

/// "two-way-extended-reference costs 1,234 more per second (a score of
/// 5,678 against 4,444)".
fn edge_words(
    layout: &Layout,
    worse: &crate::design::Cost,
    better: &crate::design::Cost,
) -> String {
    format!(
        "{} costs {} more per second (a score of {} against {})",
        layout.kind(),
        crate::words::num(worse.score - better.score),
        crate::words::num(worse.score),
        crate::words::num(better.score)
    )
}

/// The decision for a many-to-many kept as an edge collection: the link
/// entity's two relationships carry the layouts; this says why.
fn edge_decision(
    model: &Model,
    r: RelationshipId,
    beaten: Option<Alternative>,
) -> RelationshipDecision {
    let rel = model.relationship(r);
    let (parent, child) = (
        &model.entity(rel.parent).name,
        &model.entity(rel.child).name,
    );
    let reason = match &beaten {
        Some(Alternative {
            verdict: Verdict::Costlier { delta, .. },
            ..
        }) => Chosen::Cheaper {
            relationship: rel.name.clone(),
            margin: Figure::per_second(delta.score),
        },
        Some(Alternative {
            verdict: Verdict::Rejected { rule, .. },
            ..
        }) => Chosen::ArraysBreakARule {
            relationship: rel.name.clone(),
            rule,
        },
        _ if counted_from_child(model, r) => Chosen::CountedFromChild {
            child: child.clone(),
            field: rel.child_field.clone(),
        },
        _ => Chosen::Pinned {
            relationship: rel.name.clone(),
        },
    };
    RelationshipDecision {
        relationship: rel.name.clone(),
        parent: parent.clone(),
        child: child.clone(),
        class: "many-to-many".to_string(),
        chosen: Layout::EdgeCollection {
            collection: rel.name.clone(),
        },
        rules: vec![RuleHit {
            rule: crate::rules::design::edge_collection::RULE.id,
            reason: Reason::new(reason),
        }],
        alternatives: beaten.into_iter().collect(),
        tradeoffs: vec![if rel.parent == rel.child {
            format!(
                "{}'s {} (and their {}) take a query of the links first",
                crate::words::a(parent),
                rel.parent_field,
                rel.child_field
            )
        } else {
            format!(
                "{}'s {} (and {}'s {}) take a query of the links first",
                crate::words::a(parent),
                crate::words::plural(child),
                crate::words::a(child),
                crate::words::plural(parent)
            )
        }],
        // A many-to-many keeps no snapshot (the model refuses one).
        snapshot: Vec::new(),
    }
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
            if c.growth.is_some_and(|g| {
                let figures = g.figures();
                figures.iter().any(|(_, v)| !v.is_finite() || *v < 0.0)
                    || figures.windows(2).any(|w| w[1].1 < w[0].1)
            }) {
                return bad(format!(
                    "relationship `{}`: growth must be non-negative numbers, typical <= p95 <= p99 <= max",
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
            OperationKind::Link { relationship, .. }
            | OperationKind::UpdateLink { relationship, .. } => vec![relationship.index()],
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
            OperationKind::Insert { .. }
            | OperationKind::Link { .. }
            | OperationKind::UpdateLink { .. } => continue,
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
