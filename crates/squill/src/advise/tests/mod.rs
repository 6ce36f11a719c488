//! Decision tests: golden scenarios, optimizer vs exhaustive search, every rule firing.

mod alternatives;
mod atomic_groups;
mod bounded;
mod capacity;
mod correlation;
mod edges;
mod exhaustive;
pub(crate) mod golden;
mod index_pairs;
pub(crate) mod invariants;
mod link_conditions;
mod multikey;
mod parts;
mod phrasing;
mod phrasing_words;
mod pins;
mod places;
mod rules_fire;
mod scale;
mod scenarios;
mod sharded_layout;
mod tenant_unique;
mod tenants;
mod today;
mod write_plans;
mod write_plans_bucket_figures;
