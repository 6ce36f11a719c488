//! Design rules, one file per rule, and the judging of the search space:
//! every candidate of every relationship asked of every relationship rule.

use crate::candidates::facts::Facts;
use crate::candidates::space::{Candidate, Space};
use crate::candidates::{EntityCandidate, entity_candidates, enumerate};
use crate::design::{Layout, RuleHit};
use crate::rules::judge::{Judgement, RelCheck};

pub mod avoid_application_joins;
pub mod bucket;
pub mod child_references;
pub mod computed_field;
pub mod covered_query;
pub mod custom_id;
pub mod denormalize_into_squillions;
pub mod denormalize_read_mostly;
pub mod design_for_workload;
pub mod document_size_limit;
pub mod embed_one_to_few;
pub mod embed_read_together;
pub mod embedded_array_pagination;
pub mod extended_reference;
pub mod favor_embedding;
pub mod growing_document;
pub mod index_write_cost;
pub mod many_to_many_one_way;
pub mod many_to_many_two_way;
pub mod nesting_depth_limit;
pub mod one_to_one_embed;
pub mod parent_reference;
pub mod polymorphic_collection;
pub mod pre_allocation;
pub mod read_write_ratio;
pub mod reference_independent;
pub mod standalone_child;
pub mod subset;
pub mod two_way_references;
pub mod unbounded_array;
pub mod update_with_operators;

/// All design rules, in id order.
pub const ALL: &[&crate::rules::Rule] = &[
    &avoid_application_joins::RULE,
    &bucket::RULE,
    &child_references::RULE,
    &computed_field::RULE,
    &covered_query::RULE,
    &custom_id::RULE,
    &denormalize_into_squillions::RULE,
    &denormalize_read_mostly::RULE,
    &design_for_workload::RULE,
    &document_size_limit::RULE,
    &embed_one_to_few::RULE,
    &embed_read_together::RULE,
    &embedded_array_pagination::RULE,
    &extended_reference::RULE,
    &favor_embedding::RULE,
    &growing_document::RULE,
    &index_write_cost::RULE,
    &many_to_many_one_way::RULE,
    &many_to_many_two_way::RULE,
    &nesting_depth_limit::RULE,
    &one_to_one_embed::RULE,
    &parent_reference::RULE,
    &polymorphic_collection::RULE,
    &pre_allocation::RULE,
    &read_write_ratio::RULE,
    &reference_independent::RULE,
    &standalone_child::RULE,
    &subset::RULE,
    &two_way_references::RULE,
    &unbounded_array::RULE,
    &update_with_operators::RULE,
];

type Check = fn(&RelCheck<'_>) -> Option<Judgement>;

/// Relationship rules in the order they are asked: limits first.
pub const REL_RULES: &[(&str, Check)] = &[
    (document_size_limit::RULE.id, document_size_limit::check),
    (nesting_depth_limit::RULE.id, nesting_depth_limit::check),
    (unbounded_array::RULE.id, unbounded_array::check),
    (
        denormalize_read_mostly::RULE.id,
        denormalize_read_mostly::check,
    ),
    (one_to_one_embed::RULE.id, one_to_one_embed::check),
    (embed_one_to_few::RULE.id, embed_one_to_few::check),
    (child_references::RULE.id, child_references::check),
    (parent_reference::RULE.id, parent_reference::check),
    (two_way_references::RULE.id, two_way_references::check),
    (many_to_many_two_way::RULE.id, many_to_many_two_way::check),
    (many_to_many_one_way::RULE.id, many_to_many_one_way::check),
    (
        denormalize_into_squillions::RULE.id,
        denormalize_into_squillions::check,
    ),
    (extended_reference::RULE.id, extended_reference::check),
    (subset::RULE.id, subset::check),
    (bucket::RULE.id, bucket::check),
    (embed_read_together::RULE.id, embed_read_together::check),
    (standalone_child::RULE.id, standalone_child::check),
    (reference_independent::RULE.id, reference_independent::check),
    (
        embedded_array_pagination::RULE.id,
        embedded_array_pagination::check,
    ),
    (growing_document::RULE.id, growing_document::check),
    (read_write_ratio::RULE.id, read_write_ratio::check),
    (
        avoid_application_joins::RULE.id,
        avoid_application_joins::check,
    ),
    (favor_embedding::RULE.id, favor_embedding::check),
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
    let mend = |s: String| crate::words::mend_plurals(&s, &names);
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
    let names: Vec<&str> = model.entities.iter().map(|e| e.name.as_str()).collect();
    let mend = |s: String| crate::words::mend_plurals(&s, &names);
    let entity_support = entity
        .iter()
        .map(|c| match c {
            EntityCandidate::Polymorphic { .. } => polymorphic_collection::check(facts, c)
                .map(|reason| RuleHit {
                    rule: polymorphic_collection::RULE.id,
                    reason: mend(reason),
                })
                .into_iter()
                .collect(),
            EntityCandidate::Computed { .. } => computed_field::check(facts, c)
                .map(|reason| RuleHit {
                    rule: computed_field::RULE.id,
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
