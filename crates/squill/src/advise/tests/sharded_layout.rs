//! Layouts chosen on a sharded cluster (issue 42): `advise --shard`, or a
//! projection that outgrows one replica set, prices the design on the
//! cluster in the search itself, so a join or a transaction the shards
//! make dearer can change the layout (docs/cost-model.md, "On a sharded
//! cluster"). Each test fails on the code before it: that code chose the
//! layout on one replica set and priced nothing of the cluster.

use crate::advise::advise;
use crate::advise::tests::golden::example;
use crate::design::{Design, Layout, Warning};
use crate::model::{Horizon, Model};
use crate::settings::Settings;

const PARTS: &str = include_str!("sharded-parts.yaml");

fn parts() -> Model {
    crate::inputs::model_file::parse("sharded-parts.yaml", PARTS).unwrap_or_else(|e| panic!("{e}"))
}

fn advised(model: &Model, shard: bool, horizon: Option<u32>) -> Design {
    let mut settings = Settings::default();
    settings.capacity.shard = shard;
    settings.capacity.horizon = horizon.map(|months| Horizon { months });
    advise(model, &settings, None).unwrap_or_else(|e| panic!("{e}"))
}

fn layout(d: &Design) -> &Layout {
    &d.relationships[0].chosen
}

fn op<'d>(d: &'d Design, name: &str) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|o| o.operation == name)
        .unwrap_or_else(|| panic!("operation {name}"))
}

/// On one replica set the page looks its parts up by their ids; on 8
/// shards those 20 ids fall on about 7.4 shards, and the names are copied
/// into the product instead.
#[test]
fn a_lookup_across_shards_turns_ids_into_copies() {
    let model = parts();
    let one = advised(&model, false, None);
    assert!(
        matches!(layout(&one), Layout::ManyToManyOneWay { .. }),
        "one replica set: {:?}",
        layout(&one)
    );
    assert_eq!(one.totals.shard_requests, 0.0);

    let sharded = advised(&model, true, None);
    assert!(
        matches!(layout(&sharded), Layout::ExtendedReference { .. }),
        "8 shards: {:?}",
        layout(&sharded)
    );
    // The alternative it left says what the lookup would cost there.
    let ids = sharded.relationships[0]
        .alternatives
        .iter()
        .find(|a| matches!(a.layout, Layout::ManyToManyOneWay { .. }))
        .expect("the ids-only alternative");
    let delta = match &ids.verdict {
        crate::design::Verdict::Costlier { delta, .. } => delta,
        other => panic!("ids only: {other:?}"),
    };
    // 100 page views a second, each to 8 × (1 − (7/8)^20) − 1 more
    // shards, against the copies' refresh: 10 renames a second, each an
    // updateMany on `parts._id` (an array) sent to all 8 shards.
    let per_view = 8.0 * (1.0 - (7.0_f64 / 8.0).powi(20)) - 1.0;
    let expected = 100.0 * per_view - 10.0 * 7.0;
    assert!(
        (delta.shard_requests - expected).abs() < 1e-6,
        "{} against {expected}",
        delta.shard_requests
    );
}

/// The join's charge, and its warning, from the figures: 20 ids over 8
/// shards when the layout keeps the ids (pinned so).
#[test]
fn a_lookup_into_a_sharded_collection_costs_a_request_per_shard_it_reaches() {
    let text = PARTS.replace(
        "    shared: true\n",
        "    shared: true\n    layout: many-to-many-one-way\n",
    );
    let model =
        crate::inputs::model_file::parse("pinned.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    let one = advised(&model, false, None);
    let sharded = advised(&model, true, None);
    let (a, b) = (op(&one, "product_page"), op(&sharded, "product_page"));
    let shards = 8.0 * (1.0 - (7.0_f64 / 8.0).powi(20));
    assert!((b.cost.shard_requests - (shards - 1.0)).abs() < 1e-9);
    assert!(
        (b.cost.score - a.cost.score - (shards - 1.0)).abs() < 1e-6,
        "{} against {}",
        b.cost.score,
        a.cost.score
    );
    let w = b
        .warnings
        .iter()
        .find_map(|w| match w {
            Warning::ShardedJoin {
                collection,
                values,
                shards: s,
                of,
            } => Some((collection.as_str(), *values, *s, *of)),
            _ => None,
        })
        .expect("a sharded-join warning");
    assert_eq!((w.0, w.1, w.3), ("part", 20.0, 8));
    assert!((w.2 - shards).abs() < 1e-9);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
}

/// S8's edit copies the old version into the revisions and updates the
/// contract in one transaction: two collections, so on a cluster its
/// commit is a two-phase commit across shards, dearer by its requests.
#[test]
fn a_transaction_across_shards_costs_its_two_phase_commit() {
    let model = example("scenarios/s08-contracts");
    let one = advised(&model, false, None);
    let sharded = advised(&model, true, None);
    let tx = |d: &Design| {
        d.operations
            .iter()
            .filter(|o| o.transaction)
            .map(|o| {
                (
                    o.operation.clone(),
                    o.cost.shard_requests,
                    o.warnings.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (before, after) = (tx(&one), tx(&sharded));
    assert!(!before.is_empty(), "S8 runs a transaction");
    assert!(before.iter().all(|(_, r, _)| *r == 0.0));
    for (name, requests, warnings) in &after {
        // Two documents on 2 shards: v = 2, p = 2 × (1 − 1/2²) = 1.5,
        // chance 1 − 2^(1 − 2) = 0.5, 2p × chance = 1.5, over the group.
        let (participants, extra) = warnings
            .iter()
            .find_map(|w| match w {
                Warning::CrossShardTransaction {
                    participants,
                    extra,
                    of: 2,
                    ..
                } => Some((*participants, *extra)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name}: {warnings:?}"));
        assert!((participants - 1.5).abs() < 1e-9, "{participants}");
        assert!((extra - 1.5).abs() < 1e-9, "{extra}");
        assert!(*requests > 0.0 && *requests <= extra + 1e-9, "{requests}");
    }
    assert!(sharded.totals.score > one.totals.score);
}

/// A projection that outgrows one replica set searches again on the
/// cluster it asks for: with 20 billion parts of 373 B (7.5 TB, past the
/// 3 TB at which a replica set is usually sharded) the parts are sharded
/// on the shards the projection asks for, and each page view's lookup of
/// 20 part ids pays its requests to them.
#[test]
fn a_projection_that_outgrows_a_replica_set_prices_the_cluster() {
    let text = PARTS
        .replace("deployment: {shards: 8}\n", "")
        .replace("    count: 20000000\n", "    count: 20000000000\n")
        .replace(
            "      qty: int\n",
            "      qty: int\n      spec: string(300)\n",
        )
        // 20 billion parts in 5 products each are 100 billion links
        // against the products' 100 million: `many-to-many-sides-disagree`
        // follows the products (one product per part), and copying the
        // names would then win. The lookup is what this test prices, so
        // the layout is pinned to it.
        .replace(
            "    shared: true\n",
            "    shared: true\n    layout: many-to-many-one-way\n",
        );
    let model =
        crate::inputs::model_file::parse("big.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    let now = advised(&model, false, None);
    assert_eq!(now.totals.shard_requests, 0.0);
    let projected = advised(&model, false, Some(1));
    let capacity = projected.capacity.as_ref().expect("a projection");
    let shards = f64::from(crate::advise::sharding::shards_needed(capacity));
    let page = op(&projected, "product_page");
    let per_view = shards * (1.0 - (1.0 - 1.0 / shards).powi(20)) - 1.0;
    assert!(
        (page.cost.shard_requests - per_view).abs() < 1e-9,
        "{} against {per_view} on {shards} shards",
        page.cost.shard_requests
    );
    assert!(
        page.warnings
            .iter()
            .any(|w| matches!(w, Warning::ShardedJoin { collection, .. } if collection == "part")),
        "{:?}",
        page.warnings
    );
    // Only the collection that outgrows is sharded: the products are not.
    let product = projected.collections.iter().find(|c| c.name == "product");
    assert!(product.is_some_and(|c| c.sharding.is_none()));
}
