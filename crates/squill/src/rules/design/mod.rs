//! Design rules, one file per rule.

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
