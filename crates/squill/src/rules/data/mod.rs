//! Data rules, one file per rule.

pub mod bloated_document;
pub mod dangling_reference;
pub mod deep_nesting;
pub mod document_near_size_limit;
pub mod field_name_overhead;
pub mod long_reference_array;
pub mod massive_array;
pub mod missing_id_index;
pub mod mixed_field_types;
pub mod redundant_index;
pub mod too_many_collections;
pub mod too_many_indexes;

/// All data rules, in id order.
pub const ALL: &[&crate::rules::Rule] = &[
    &bloated_document::RULE,
    &dangling_reference::RULE,
    &deep_nesting::RULE,
    &document_near_size_limit::RULE,
    &field_name_overhead::RULE,
    &long_reference_array::RULE,
    &massive_array::RULE,
    &missing_id_index::RULE,
    &mixed_field_types::RULE,
    &redundant_index::RULE,
    &too_many_collections::RULE,
    &too_many_indexes::RULE,
];
