//! Design rules, one file per rule, and the judging of the search space:
//! every candidate of every relationship asked of every relationship rule.

use crate::candidates::facts::Facts;
use crate::candidates::space::{Candidate, Space};
use crate::candidates::{EntityCandidate, entity_candidates, enumerate};
use crate::design::{Layout, RuleHit};
use crate::rules::Check;
use crate::rules::judge::{Judgement, RelCheck};

include!(concat!(env!("OUT_DIR"), "/design_rules.rs"));

type RelFn = fn(&RelCheck<'_>) -> Option<Judgement>;
type EntityFn = fn(&Facts<'_>, &EntityCandidate) -> Option<crate::design::Reason>;

/// The relationship rules in the order they are asked: limits first (each
/// rule declares its `order`).
fn relationship_rules() -> Vec<(u16, &'static str, RelFn)> {
    let mut rules: Vec<(u16, &'static str, RelFn)> = ALL
        .iter()
        .filter_map(|r| match r.check {
            Check::Relationship { order, check } => Some((order, r.id, check)),
            _ => None,
        })
        .collect();
    rules.sort_by_key(|(order, id, _)| (*order, *id));
    rules
}

/// Judges one layout of one relationship with every relationship rule.
pub fn judge(facts: &Facts<'_>, rel: crate::model::RelationshipId, layout: Layout) -> Candidate {
    let cx = RelCheck {
        facts,
        r: rel,
        layout: &layout,
    };
    let mut forbidden = None;
    let mut support = Vec::new();
    for (_, id, check) in relationship_rules() {
        match check(&cx) {
            Some(Judgement::Forbid(reason)) if forbidden.is_none() => {
                forbidden = Some(RuleHit { rule: id, reason });
            }
            Some(Judgement::Support(reason)) => support.push(RuleHit { rule: id, reason }),
            _ => {}
        }
    }
    Candidate {
        layout,
        forbidden,
        support,
    }
}

/// The search space of `facts`: every candidate layout of every relationship
/// and every entity-level candidate, judged by the design rules.
pub fn space(facts: &Facts<'_>) -> Space {
    let model = facts.model;
    let rels = model
        .relationship_ids()
        .map(|rel| {
            enumerate::for_relationship(facts, rel)
                .into_iter()
                .map(|layout| judge(facts, rel, layout))
                .collect()
        })
        .collect();
    let entity = entity_candidates(facts);
    // Every entity rule is asked of every entity candidate; each answers for
    // the kind of candidate it knows.
    let entity_rules: Vec<(&'static str, EntityFn)> = ALL
        .iter()
        .filter_map(|r| match r.check {
            Check::Entity(check) => Some((r.id, check)),
            _ => None,
        })
        .collect();
    let entity_support = entity
        .iter()
        .map(|c| {
            entity_rules
                .iter()
                .filter_map(|(id, check)| {
                    check(facts, c).map(|reason| RuleHit { rule: id, reason })
                })
                .collect()
        })
        .collect();
    Space {
        rels,
        entity,
        entity_support,
        pinned: model.relationships.iter().map(|r| r.layout).collect(),
        pinned_exact: model
            .relationship_ids()
            .map(|r| {
                let today = model.current_of(r)?;
                (model.relationship(r).layout == Some(today.layout))
                    .then(|| crate::candidates::enumerate::current_layout(model, r))
                    .flatten()
            })
            .collect(),
    }
}
