//! Candidates: every way one relationship (or one entity) can be laid out in
//! documents. Enumeration lives here; judging them is the job of `rules` (which
//! forbid or weigh a candidate) and `costs` (which price it on the workload).

mod entity;
pub mod enumerate;
mod layout;

pub use entity::{EntityCandidate, enumerate as entity_candidates, fn_name};
pub use layout::{Aggregation, BucketBy, Layout, Side};
