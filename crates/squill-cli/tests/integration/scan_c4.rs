//! Scenario C4 (issue 42) as a golden test: a running deployment's dump and
//! logs (tests/fixtures/c4-deployment, written by its `make.py` with
//! distributions known by construction), `scan --shard-keys` over them.
//! The whole JSON is compared with the committed one, and the metrics the
//! construction fixes are checked by hand: a golden file alone would only
//! say the output did not change.

use crate::support::{Test, repo_root};
use serde_json::{Value, json};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    repo_root().join("crates/squill-cli/tests/fixtures/c4-deployment")
}

fn scan(extra: &[&str]) -> String {
    let dir = fixture();
    Test::new()
        .args(["scan"])
        .args([dir.join("dump")])
        .args(["--workload"])
        .args([dir.join("mongod.log")])
        .args(["--shard-keys", "--format", "json"])
        .args(extra)
        .stdout_any()
        .check()
        .stdout
}

fn candidate<'a>(json: &'a Value, key: &Value) -> &'a Value {
    json["shard_keys"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == *key)
        .unwrap_or_else(|| panic!("no candidate {key}"))
}

#[test]
fn c4_matches_its_golden_json() {
    let golden = std::fs::read_to_string(fixture().join("expected.json")).unwrap();
    assert_eq!(scan(&[]), golden);
    let golden = std::fs::read_to_string(fixture().join("expected-show-values.json")).unwrap();
    assert_eq!(scan(&["--show-values"]), golden);
}

#[test]
fn c4_metrics_are_those_of_the_construction() {
    let out: Value = serde_json::from_str(&scan(&["--show-values"])).unwrap();
    assert_eq!(out["shard_keys"][0]["namespace"], "shop.orders");

    // store: s1 60, s2 30, s3 15, s4 10, s5 5, in no order.
    let store = candidate(&out, &json!({"store": 1}));
    let k = &store["keyCharacteristics"];
    assert_eq!(k["numDocsTotal"], 120);
    assert_eq!(k["numDistinctValues"], 5);
    assert_eq!(k["isUnique"], false);
    let frequencies: Vec<&Value> = k["mostCommonValues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["frequency"])
        .collect();
    assert_eq!(frequencies, [60, 30, 15, 10, 5]);
    assert_eq!(k["mostCommonValues"][0]["value"], json!({"store": "s1"}));
    assert_eq!(k["monotonicity"]["type"], "not monotonic");

    // The 25 logged reads: 10 by store and customer, 2 aggregates by store
    // (both targeted under {store: 1}); 6 by customer, 4 by _id and 3
    // counts by orderNo go everywhere.
    let reads = &store["readDistribution"];
    assert_eq!(
        reads["sampleSize"],
        json!({"total": 25, "find": 20, "aggregate": 2, "count": 3, "distinct": 0})
    );
    // The 10 finds on one store value, and the 2 aggregates on one: single-shard.
    assert_eq!(reads["percentageOfSingleShardReads"], 48.0);
    assert_eq!(reads["percentageOfScatterGatherReads"], 52.0);
    // The 10 writes: 5 updates by orderNo and 2 deletes by customer (single,
    // without the key), 2 multi updates by store (targeted), and 1
    // findAndModify that changes the store (a shard-key update).
    let writes = &store["writeDistribution"];
    assert_eq!(
        writes["sampleSize"],
        json!({"total": 10, "update": 7, "delete": 2, "findAndModify": 1})
    );
    assert_eq!(writes["percentageOfShardKeyUpdates"], 10.0);

    // customer: 40 values, three documents each.
    let customer = candidate(&out, &json!({"customer": 1}));
    assert_eq!(customer["keyCharacteristics"]["numDistinctValues"], 40);
    assert_eq!(
        customer["keyCharacteristics"]["mostCommonValues"][0]["frequency"],
        3
    );

    // orderNo: unique, from its unique index; a permutation, no order.
    let order_no = candidate(&out, &json!({"orderNo": 1}));
    assert_eq!(order_no["keyCharacteristics"]["isUnique"], true);
    assert_eq!(order_no["keyCharacteristics"]["numDistinctValues"], 120);
    assert_eq!(
        order_no["keyCharacteristics"]["monotonicity"]["type"],
        "not monotonic"
    );

    // {store, customer} ranks first: the 10 finds on both fields go to one
    // shard, the 2 aggregates on its prefix to several, the rest everywhere.
    let first = &out["shard_keys"][0]["candidates"][0];
    assert_eq!(first["key"], json!({"store": 1, "customer": 1}));
    assert_eq!(
        first["readDistribution"]["percentageOfSingleShardReads"],
        40.0
    );
    assert_eq!(
        first["readDistribution"]["percentageOfMultiShardReads"],
        8.0
    );
    assert_eq!(
        first["readDistribution"]["percentageOfScatterGatherReads"],
        52.0
    );
    // 16 reads name the customer: 64 % single-shard under {customer: 1}.
    assert_eq!(customer_reads(&out), 64.0);

    // Ranks are 1, 2, … in order, each with its reason.
    let ranks: Vec<u64> = out["shard_keys"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert!(!c["reason"].as_str().unwrap().is_empty());
            c["rank"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(ranks, (1..=ranks.len() as u64).collect::<Vec<_>>());
}

fn customer_reads(out: &Value) -> f64 {
    candidate(out, &json!({"customer": 1}))["readDistribution"]["percentageOfSingleShardReads"]
        .as_f64()
        .unwrap()
}

#[test]
fn c4_named_keys_measure_the_monotonic_id() {
    let out: Value =
        serde_json::from_str(&scan(&["--shard-key", "_id", "--shard-key", "_id:hashed"])).unwrap();
    // ObjectIds in record order: monotonic, correlation 1.
    let id = candidate(&out, &json!({"_id": 1}));
    assert_eq!(
        id["keyCharacteristics"]["monotonicity"]["type"],
        "monotonic"
    );
    assert_eq!(id["keyCharacteristics"]["numDistinctValues"], 120);
    // Hashed, the same values spread: MongoDB reports no monotonicity for a hashed key.
    let hashed = candidate(&out, &json!({"_id": "hashed"}));
    assert_eq!(hashed["keyCharacteristics"]["numDistinctValues"], 120);
}
