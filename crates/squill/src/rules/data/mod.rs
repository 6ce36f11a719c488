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

/// Runs every data rule's check over a scan.
pub fn check_all(a: &crate::scan::Analysis<'_>, out: &mut Vec<crate::finding::Finding>) {
    bloated_document::check(a, out);
    dangling_reference::check(a, out);
    deep_nesting::check(a, out);
    document_near_size_limit::check(a, out);
    field_name_overhead::check(a, out);
    long_reference_array::check(a, out);
    massive_array::check(a, out);
    missing_id_index::check(a, out);
    mixed_field_types::check(a, out);
    redundant_index::check(a, out);
    too_many_collections::check(a, out);
    too_many_indexes::check(a, out);
}
