//! `squill scan DUMP --workload LOG --shard-keys` (issue 42, scenario C4):
//! the JSON has exactly the shape the issue gives (analyzeShardKey's
//! names), values stay hidden unless `--show-values`, names from data are
//! string literals in the commands, and what cannot be read twice is
//! refused before the scan.

use crate::support::{TempDir, Test};
use squill::scan::testing::{B, doc};
use std::path::{Path, PathBuf};

/// 200 orders: `tenant` skewed (150 of "big"), `r` a permutation; one
/// collection named with a quote, to see it quoted in the commands.
fn write_fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let shop = dir.join("dump/shop");
    std::fs::create_dir_all(&shop).unwrap();
    let docs: Vec<u8> = (0..200usize)
        .flat_map(|i| {
            let tenant = if i.is_multiple_of(4) {
                format!("t{i}")
            } else {
                "big".to_string()
            };
            doc(&[
                ("_id", B::I32(i as i32)),
                ("tenant", B::Owned(tenant)),
                ("r", B::I32(((i * 73) % 200) as i32)),
            ])
        })
        .collect();
    std::fs::write(shop.join("orders.bson"), &docs).unwrap();
    std::fs::write(shop.join("we\"ird.bson"), doc(&[("_id", B::I32(1))])).unwrap();
    let line = |command: &str| {
        format!(
            r#"{{"t":{{"$date":"2024-05-02T09:00:00.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{{"type":"command","ns":"shop.$cmd","command":{command},"planSummary":"COLLSCAN","durationMillis":1}}}}"#
        )
    };
    let mut log = String::new();
    for _ in 0..3 {
        log.push_str(&line(
            r#"{"find":"orders","filter":{"tenant":"big","r":5},"$db":"shop"}"#,
        ));
        log.push('\n');
    }
    log.push_str(&line(
        r#"{"update":"orders","updates":[{"q":{"tenant":"big"},"u":{"$set":{"x":1}},"multi":true}],"$db":"shop"}"#,
    ));
    log.push('\n');
    let log_path = dir.join("mongod.log");
    std::fs::write(&log_path, log).unwrap();
    (dir.join("dump"), log_path)
}

fn keys(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn json_has_the_issues_shape_and_hides_values() {
    let dir = TempDir::new("scan-shard-keys-json");
    let (dump, log) = write_fixture(dir.path());
    let run = Test::new()
        .args(["scan"])
        .args([&dump])
        .args(["--workload"])
        .args([&log])
        .args(["--shard-keys", "--format", "json"])
        .stdout_any()
        .check();
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(keys(&json), ["shard_keys"]);
    let orders = json["shard_keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["namespace"] == "shop.orders")
        .unwrap();
    assert_eq!(keys(orders), ["namespace", "candidates"]);
    let first = &orders["candidates"][0];
    assert_eq!(
        keys(first),
        [
            "key",
            "keyCharacteristics",
            "readDistribution",
            "writeDistribution",
            "rank",
            "reason"
        ]
    );
    assert_eq!(
        keys(&first["keyCharacteristics"]),
        [
            "numDocsTotal",
            "numDistinctValues",
            "isUnique",
            "avgDocSizeBytes",
            "mostCommonValues",
            "monotonicity"
        ]
    );
    assert_eq!(
        keys(&first["keyCharacteristics"]["monotonicity"]),
        ["type", "recordIdCorrelationCoefficient"]
    );
    assert_eq!(
        keys(&first["readDistribution"]),
        [
            "sampleSize",
            "percentageOfSingleShardReads",
            "percentageOfMultiShardReads",
            "percentageOfScatterGatherReads"
        ]
    );
    assert_eq!(
        keys(&first["readDistribution"]["sampleSize"]),
        ["total", "find", "aggregate", "count", "distinct"]
    );
    assert_eq!(
        keys(&first["writeDistribution"]),
        [
            "sampleSize",
            "percentageOfSingleShardWrites",
            "percentageOfMultiShardWrites",
            "percentageOfScatterGatherWrites",
            "percentageOfShardKeyUpdates",
            "percentageOfSingleWritesWithoutShardKey",
            "percentageOfMultiWritesWithoutShardKey"
        ]
    );
    assert_eq!(
        keys(&first["writeDistribution"]["sampleSize"]),
        ["total", "update", "delete", "findAndModify"]
    );
    assert_eq!(first["rank"], 1);
    // The skewed tenant: its five most common values, frequencies only.
    let tenant = orders["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == serde_json::json!({"tenant": 1}))
        .unwrap();
    assert_eq!(
        tenant["keyCharacteristics"]["mostCommonValues"],
        serde_json::json!([{"frequency": 150}, {"frequency": 1}, {"frequency": 1}, {"frequency": 1}, {"frequency": 1}])
    );
    // 3 finds by tenant and r: single-shard under {tenant: 1}; the multi
    // update by tenant too.
    assert_eq!(
        tenant["readDistribution"]["percentageOfSingleShardReads"],
        100.0
    );
    assert_eq!(
        tenant["writeDistribution"]["percentageOfSingleShardWrites"],
        100.0
    );

    let shown = Test::new()
        .args(["scan"])
        .args([&dump])
        .args(["--workload"])
        .args([&log])
        .args(["--shard-key", "tenant", "--show-values", "--format", "json"])
        .stdout_any()
        .check();
    let json: serde_json::Value = serde_json::from_str(&shown.stdout).unwrap();
    let tenant = json["shard_keys"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["candidates"].as_array().unwrap())
        .find(|c| c["key"] == serde_json::json!({"tenant": 1}))
        .unwrap();
    assert_eq!(
        tenant["keyCharacteristics"]["mostCommonValues"][0],
        serde_json::json!({"value": {"tenant": "big"}, "frequency": 150})
    );
}

#[test]
fn text_follows_the_scan_and_quotes_names_in_the_commands() {
    let dir = TempDir::new("scan-shard-keys-text");
    let (dump, log) = write_fixture(dir.path());
    let plain = Test::new()
        .args(["scan"])
        .args([&dump])
        .stdout_any()
        .check();
    let run = Test::new()
        .args(["scan"])
        .args([&dump])
        .args(["--workload"])
        .args([&log])
        .args(["--shard-keys"])
        .stdout_any()
        .check();
    assert!(run.stdout.starts_with(&plain.stdout), "{}", run.stdout);
    assert!(
        run.stdout
            .contains(r#"db.adminCommand({ configureQueryAnalyzer: "shop.we\"ird", mode: "full", samplesPerSecond: 5 });"#),
        "{}",
        run.stdout
    );
    // `{tenant: 1}` routes all four operations to one shard but has 51
    // distinct values: the compound with `r` ranks first.
    assert!(
        run.stdout
            .contains(r#"sh.shardCollection("shop.orders", {"tenant":1,"r":1});"#),
        "{}",
        run.stdout
    );
}

#[test]
fn what_cannot_be_read_twice_is_refused() {
    Test::new()
        .args(["scan", "-", "--shard-keys"])
        .status(2)
        .stderr("error: --shard-keys reads the data twice: give a dump directory or files, not standard input or a mongodb:// URI\n")
        .check();
    Test::new()
        .args(["scan", "x", "--shard-key", "a:2d"])
        .status(2)
        .stderr_any()
        .check();
}
