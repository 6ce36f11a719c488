//! `advise`: the orchestrator. Model → facts → candidates judged by the rules
//! → the cheapest combination on the workload (`optimize`) → the `Design` with
//! its documents, plans, reasons and findings (`build`).

mod archive;
mod build;
mod capacity;
mod current;
pub mod deployment_capacity;
mod document;
mod error;
mod example;
mod findings;
pub mod optimize;
mod priced;
mod reasons;
mod search;
mod sharding;
mod tenancy;
pub mod verdicts;
mod watch;

#[cfg(test)]
pub(crate) mod tests;

pub use current::{through_design, through_reference_design, today_design};
pub use error::AdviseError;
pub use watch::{Watch, watched};

use crate::design::Design;
use crate::model::{Model, Without};
use crate::settings::Settings;

/// Recommends a design for `model` under the workload mix `mix` (`None`: the first).
pub fn advise(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
) -> Result<Design, AdviseError> {
    advise_with_model(model, settings, mix).map(|(_, design)| design)
}

/// `advise`, with the model the design was made for: `model` itself, or
/// `model` with some many-to-many relationships written as entities of
/// their own (an edge collection each) when that costs less, or when the
/// model pins them so. `generate` builds data and queries from this model.
/// The search (`search`) and the design of today beside it (`current`)
/// meet here, above both.
pub fn advise_with_model(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
) -> Result<(Model, Design), AdviseError> {
    let chosen = search::advise_chosen(model, settings, mix, &Without::default())?;
    let tenancy = tenancy::report(&chosen, settings);
    let capacity = settings.capacity.horizon.map(|horizon| {
        let c = &settings.capacity;
        let deployment = c.command_line.or(model.deployment).or(c.deployment);
        let grown = capacity::Chosen {
            model: &chosen.model,
            design: &chosen.design,
            space: &chosen.space,
            state: &chosen.state,
            mix: chosen.mix,
        };
        capacity::project(&grown, settings, horizon, deployment)
    });
    let (advised, mut design) = (chosen.model, chosen.design);
    design.capacity = capacity;
    sharding::choose(&advised, &mut design, settings.capacity.shard);
    if !model.current.is_empty() || !model.without.is_empty() {
        match current::compare(model, settings, mix, &design) {
            Ok(c) => design.current = Some(c),
            Err(e) => design.findings.push(current::unpriced(&e)),
        }
    }
    design.tenancy = tenancy;
    Ok((advised, design))
}
