//! `advise --shard` and `generate --shard` from the command line (issue
//! 42): a shop shared by stores, the largest holding 40 % of the orders,
//! on the 8 shards its model states. advise keys the orders by store and
//! number (every read names both), rejects `{store: 1}` for the largest
//! store's jumbo chunk, and gives that store a zone; generate's setup
//! script shards each collection on its key and writes the zone's
//! commands. Without `--shard` neither says anything of shards: each
//! check below fails with the flag switched off.

use crate::support::{TempDir, Test, repo_root};
use serde_json::{Value, json};

fn model() -> String {
    repo_root()
        .join("crates/squill-cli/tests/fixtures/models/sharded-tenants.yaml")
        .display()
        .to_string()
}

fn advise_json(shard: bool) -> Value {
    let mut args = vec![
        "advise".to_string(),
        model(),
        "--format".into(),
        "json".into(),
    ];
    if shard {
        args.push("--shard".into());
    }
    let run = Test::new().args(args).stdout_any().check();
    serde_json::from_str(&run.stdout).expect("valid JSON")
}

fn collection<'v>(design: &'v Value, name: &str) -> &'v Value {
    design["collections"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("collection {name}"))
}

#[test]
fn advise_shard_keys_each_collection_in_json() {
    let design = advise_json(true);
    let orders = &collection(&design, "order")["sharding"];
    assert_eq!(orders["because"]["cause"], "asked", "{orders}");
    assert_eq!(orders["chosen"], json!({"store": 1, "number": 1}));
    let store_alone = orders["candidates"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["key"] == json!({"store": 1})))
        .expect("{store: 1} among the candidates");
    assert_eq!(
        store_alone["verdict"]["verdict"], "rejected",
        "{store_alone}"
    );
    assert_eq!(
        store_alone["verdict"]["because"]["warning"], "jumbo_value",
        "{store_alone}"
    );
    // 40 % of 50,000,000 orders under the largest store's value.
    assert_eq!(store_alone["most_common_frequency"], 20_000_000);
    let zone = &orders["zones"][0];
    assert_eq!(zone["field"], "store");
    assert_eq!(zone["documents"], 20_000_000);
    assert!(zone["shards"].as_u64() > Some(1), "{zone}");
    assert_eq!(
        collection(&design, "store")["sharding"]["chosen"],
        json!({"_id": 1})
    );
}

#[test]
fn advise_without_shard_writes_no_sharding() {
    let design = advise_json(false);
    for c in design["collections"].as_array().expect("collections") {
        assert!(c["sharding"].is_null(), "{c}");
    }
}

/// The text report's Sharding section.
#[test]
fn advise_shard_text_has_a_sharding_section() {
    let run = Test::new()
        .args(["advise", &model(), "--shard"])
        .stdout_any()
        .check();
    let section = run
        .stdout
        .split("Sharding\n────────\n")
        .nth(1)
        .and_then(|s| s.split("\nFindings\n").next())
        .expect("a Sharding section");
    insta::assert_snapshot!(section);
}

fn setup_script(shard: bool) -> String {
    let tmp = TempDir::new("gen-shard");
    let out = tmp.path().join("out");
    let mut args = vec!["generate".to_string(), model(), "--out".into()];
    args.push(out.display().to_string());
    if shard {
        args.push("--shard".into());
    }
    Test::new().args(args).stdout_any().check();
    std::fs::read_to_string(out.join("setup.js")).expect("setup.js")
}

#[test]
fn generate_shard_writes_shard_collection_and_the_zone() {
    let setup = setup_script(true);
    let sharding = setup
        .split_once("\n// ---- store: shard key")
        .map(|(_, rest)| format!("// ---- store: shard key{rest}"))
        .expect("the sharding part of setup.js");
    insta::assert_snapshot!(sharding);
    assert!(setup.contains(
        "sh.shardCollection(db.getName() + \".\" + \"order\", {\"store\":1,\"number\":1});\n"
    ));
    assert!(setup.contains("// sh.addShardToZone(\"<shard>\", \"order-orders\");\n"));
}

#[test]
fn generate_without_shard_writes_no_sh_command() {
    let setup = setup_script(false);
    assert!(!setup.contains("sh."), "{setup}");
}
