//! The search space: every candidate of every relationship (with the rules
//! that forbid or support it) and every entity-level candidate; a `State`
//! picks one of each.

use super::RuleHit;
use super::facts::Facts;
use super::judge::{Judgement, RelCheck};
use crate::candidates::{EntityCandidate, Layout, entity_candidates, enumerate};
use crate::rules::design as r;

#[derive(Debug, Clone)]
pub struct Candidate {
    pub layout: Layout,
    /// The first rule that forbids it.
    pub forbidden: Option<RuleHit>,
    /// Rules that support it, with their reasons.
    pub support: Vec<RuleHit>,
}

#[derive(Debug, Clone)]
pub struct Space {
    pub rels: Vec<Vec<Candidate>>,
    pub entity: Vec<EntityCandidate>,
    /// Rules that support each entity-level candidate (an empty list means no
    /// rule applies and the candidate is never enabled).
    pub entity_support: Vec<Vec<RuleHit>>,
}

/// One choice per relationship (an index into `Space::rels[r]`) and per
/// entity-level candidate (on or off).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub rel: Vec<usize>,
    pub entity: Vec<bool>,
}

type Check = fn(&RelCheck<'_>) -> Option<Judgement>;

/// Relationship rules in the order they are asked: limits first.
pub const REL_RULES: &[(&str, Check)] = &[
    (
        r::document_size_limit::RULE.id,
        r::document_size_limit::check,
    ),
    (
        r::nesting_depth_limit::RULE.id,
        r::nesting_depth_limit::check,
    ),
    (r::unbounded_array::RULE.id, r::unbounded_array::check),
    (
        r::denormalize_read_mostly::RULE.id,
        r::denormalize_read_mostly::check,
    ),
    (r::one_to_one_embed::RULE.id, r::one_to_one_embed::check),
    (r::embed_one_to_few::RULE.id, r::embed_one_to_few::check),
    (r::child_references::RULE.id, r::child_references::check),
    (r::parent_reference::RULE.id, r::parent_reference::check),
    (r::two_way_references::RULE.id, r::two_way_references::check),
    (
        r::many_to_many_two_way::RULE.id,
        r::many_to_many_two_way::check,
    ),
    (
        r::many_to_many_one_way::RULE.id,
        r::many_to_many_one_way::check,
    ),
    (
        r::denormalize_into_squillions::RULE.id,
        r::denormalize_into_squillions::check,
    ),
    (r::extended_reference::RULE.id, r::extended_reference::check),
    (r::subset::RULE.id, r::subset::check),
    (r::bucket::RULE.id, r::bucket::check),
    (
        r::embed_read_together::RULE.id,
        r::embed_read_together::check,
    ),
    (r::standalone_child::RULE.id, r::standalone_child::check),
    (
        r::reference_independent::RULE.id,
        r::reference_independent::check,
    ),
    (
        r::embedded_array_pagination::RULE.id,
        r::embedded_array_pagination::check,
    ),
    (r::growing_document::RULE.id, r::growing_document::check),
    (r::read_write_ratio::RULE.id, r::read_write_ratio::check),
    (
        r::avoid_application_joins::RULE.id,
        r::avoid_application_joins::check,
    ),
    (r::favor_embedding::RULE.id, r::favor_embedding::check),
];

/// Judges one layout of one relationship with every relationship rule.
pub fn judge(facts: &Facts<'_>, rel: crate::model::RelationshipId, layout: Layout) -> Candidate {
    let cx = RelCheck {
        facts,
        r: rel,
        layout: &layout,
    };
    let names: Vec<&str> = facts
        .model
        .entities
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    let mend = |s: String| super::words::mend_plurals(&s, &names);
    let mut forbidden = None;
    let mut support = Vec::new();
    for (id, check) in REL_RULES {
        match check(&cx) {
            Some(Judgement::Forbid(reason)) if forbidden.is_none() => {
                forbidden = Some(RuleHit {
                    rule: id,
                    reason: mend(reason),
                });
            }
            Some(Judgement::Support(reason)) => support.push(RuleHit {
                rule: id,
                reason: mend(reason),
            }),
            _ => {}
        }
    }
    Candidate {
        layout,
        forbidden,
        support,
    }
}

impl Space {
    pub fn new(facts: &Facts<'_>) -> Space {
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
        let names: Vec<&str> = model.entities.iter().map(|e| e.name.as_str()).collect();
        let mend = |s: String| super::words::mend_plurals(&s, &names);
        let entity_support = entity
            .iter()
            .map(|c| match c {
                EntityCandidate::Polymorphic { .. } => r::polymorphic_collection::check(facts, c)
                    .map(|reason| RuleHit {
                        rule: r::polymorphic_collection::RULE.id,
                        reason: mend(reason),
                    })
                    .into_iter()
                    .collect(),
                EntityCandidate::Computed { .. } => r::computed_field::check(facts, c)
                    .map(|reason| RuleHit {
                        rule: r::computed_field::RULE.id,
                        reason: mend(reason),
                    })
                    .into_iter()
                    .collect(),
            })
            .collect();
        Space {
            rels,
            entity,
            entity_support,
        }
    }

    /// Allowed options of each relationship (indexes of candidates no rule forbids).
    /// When every candidate breaks a rule, all of them stay in play (the
    /// decision then shows the rule each one breaks, and findings say so).
    pub fn allowed(&self, rel: usize) -> Vec<usize> {
        let ok: Vec<usize> = self.rels[rel]
            .iter()
            .enumerate()
            .filter(|(_, c)| c.forbidden.is_none())
            .map(|(i, _)| i)
            .collect();
        if ok.is_empty() {
            (0..self.rels[rel].len()).collect()
        } else {
            ok
        }
    }
}
