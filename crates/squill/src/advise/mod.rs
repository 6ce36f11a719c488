//! `advise`: the orchestrator. Model → facts → candidates judged by the rules
//! → the cheapest combination on the workload (`optimize`) → the `Design` with
//! its documents, plans, reasons and findings (`build`).

#[allow(clippy::module_inception)]
mod advise;
mod archive;
mod build;
mod current;
mod document;
mod error;
mod example;
mod findings;
pub mod optimize;
mod priced;
mod reasons;

#[cfg(test)]
pub(crate) mod tests;

pub use advise::{advise, advise_with_model};
pub use current::{through_design, through_reference_design, today_design};
pub use error::AdviseError;
