//! Decision tests: golden scenarios, optimizer vs exhaustive search, every rule firing.

mod aggregate_beside_page;
mod alternatives;
mod archive_split_words;
mod archive_tenant;
mod atomic_groups;
mod bounded;
mod bucket_pages;
mod bucket_tenant;
mod capacity;
mod cascade;
mod chained_reads48;
mod claim_walk_priced;
mod correlation;
mod counted_words;
mod counts;
mod edges;
mod exhaustive;
mod expiry_costs;
mod fractional_mean;
pub(crate) mod golden;
mod index_pairs;
mod index_rewrites;
pub(crate) mod invariants;
mod largest_parent;
mod link_conditions;
mod merge_limits;
mod multikey;
mod outlier_feeds;
mod paging_keys;
mod parts;
mod phrasing;
mod phrasing_words;
mod pins;
mod place_filters;
mod place_tenants;
mod places;
mod priced_reads;
mod rules_fire;
mod scale;
mod scenarios;
mod sharded_layout;
mod sweeps;
mod tenant_depth;
mod tenant_finders;
mod tenant_local;
mod tenant_parents;
mod tenant_spanning;
mod tenant_unique;
mod tenant_unique_carried;
mod tenant_writes;
mod tenants;
mod today;
mod tradeoff_owners;
mod write_conditions;
mod write_many;
mod write_plans;
mod write_plans46;
mod write_plans_batch;
mod write_plans_bucket_figures;

/// The design advised from a model text with the default settings. A model
/// that does not parse or advise is a broken test input: it panics and says
/// why, with the text.
pub(crate) fn design_of(text: &str) -> crate::design::Design {
    let model = crate::inputs::model_file::parse("test.yaml", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The plan of operation `name` in `d`.
pub(crate) fn plan_of<'d>(
    d: &'d crate::design::Design,
    name: &str,
) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}
