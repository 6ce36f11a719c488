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
pub mod parts;
mod priced;
mod reasons;
mod search;
mod sharding;
mod tenancy;
pub mod verdicts;
mod walk;
mod watch;

#[cfg(test)]
pub(crate) mod tests;

pub use current::{through_design, through_reference_design, today_design};
pub use error::AdviseError;
pub use watch::{Watch, watched};

use crate::design::Design;
use crate::model::{Model, Without};
use crate::settings::{Cluster, Settings};

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
    let c = &settings.capacity;
    let deployment = c.command_line.or(model.deployment).or(c.deployment);
    // `--shard`: every collection is sharded, so the search prices the
    // cluster from the start (`costs::plan::sharded`).
    let mut on = settings.clone();
    if c.shard && on.cluster.is_none() {
        on.cluster = Some(Cluster {
            shards: deployment.shards.unwrap_or(2).max(2),
            only: None,
        });
    }
    let (mut chosen, mut capacity) = search_and_project(model, &on, mix, deployment)?;
    // A projection whose collections outgrow one replica set: searched
    // again with those collections sharded on the shards it asks for, so
    // a join or a transaction the shards make dearer can change the
    // layout; then projected again on the design chosen so.
    if let Some(cluster) = capacity
        .as_ref()
        .filter(|_| on.cluster.is_none())
        .and_then(outgrown)
    {
        on.cluster = Some(cluster);
        (chosen, capacity) = search_and_project(model, &on, mix, deployment)?;
    }
    let tenancy = tenancy::report(&chosen, &on);
    let (advised, mut design) = (chosen.model, chosen.design);
    design.capacity = capacity;
    let shards = on.cluster.as_ref().map(|c| c.shards);
    sharding::choose(&advised, &mut design, settings.capacity.shard, shards);
    if !model.current.is_empty() || !model.without.is_empty() {
        match current::compare(model, &on, mix, &design) {
            Ok(c) => design.current = Some(c),
            Err(e) => design.findings.push(current::unpriced(&e)),
        }
    }
    design.tenancy = tenancy;
    Ok((advised, design))
}

/// The search, and the projection of its design when a horizon is asked.
fn search_and_project(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    deployment: crate::model::Deployment,
) -> Result<(search::Advised, Option<crate::design::capacity::Capacity>), AdviseError> {
    let chosen = search::advise_chosen(model, settings, mix, &Without::default())?;
    let capacity = settings.capacity.horizon.map(|horizon| {
        let grown = capacity::Chosen {
            model: &chosen.model,
            design: &chosen.design,
            space: &chosen.space,
            state: &chosen.state,
            mix: chosen.mix,
        };
        capacity::project(&grown, settings, horizon, deployment)
    });
    Ok((chosen, capacity))
}

/// The cluster a projection asks for: the collections whose data passes
/// the size at which a replica set is usually sharded, on the shards the
/// projection needs (`None` when no collection does).
fn outgrown(capacity: &crate::design::capacity::Capacity) -> Option<Cluster> {
    use crate::design::capacity::LimitKind;
    let mut names: Vec<String> = capacity
        .limits
        .iter()
        .filter(|l| l.limit == LimitKind::ShardingSize)
        .filter_map(|l| l.collection.clone())
        .collect();
    names.sort();
    names.dedup();
    (!names.is_empty()).then(|| Cluster {
        shards: sharding::shards_needed(capacity),
        only: Some(names),
    })
}
