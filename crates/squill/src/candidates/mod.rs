//! Candidates: every way one relationship (or one entity) can be laid out in
//! documents. Enumeration lives here; judging them is the job of `rules` (which
//! forbid or weigh a candidate) and `costs` (which price it on the workload).

mod entity;
pub mod enumerate;
pub mod facts;
pub mod feed;
pub mod growth;
pub mod placement;
pub mod space;

pub use entity::{EntityCandidate, enumerate as entity_candidates, fn_name, read_figure_name};
