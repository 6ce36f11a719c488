//! `analyzeShardKey`'s metrics on a dump and a log built with known
//! distributions: `_id` grows with insertion order (monotonic), `tenant` is
//! skewed (one tenant holds three documents in four), `r` is a permutation
//! that follows no order (random), and `{tenant, r}` is their compound.
//! Every count below is worked out by hand from the fixture in the comments.

use super::report::{MonotonicityType, NamespaceKeys};
use super::*;
use crate::inputs::dump::{InputFormat, open};
use crate::scan::driver;
use crate::scan::testing::{B, doc};
use crate::settings::Settings;

const N: usize = 200;

fn tenant(i: usize) -> String {
    if i.is_multiple_of(4) {
        format!("t{i}")
    } else {
        "big".to_string()
    }
}

fn r(i: usize) -> i32 {
    ((i * 73) % N) as i32
}

/// Writes the dump; returns its directory and the documents' total bytes.
fn dump(name: &str) -> (std::path::PathBuf, u64) {
    let dir = std::env::temp_dir().join(format!("squill-shardkeys-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("shop")).unwrap();
    let mut bytes = Vec::new();
    for i in 0..N {
        let t = tenant(i);
        bytes.extend(doc(&[
            ("_id", B::I32(i as i32)),
            ("tenant", B::Owned(t)),
            ("r", B::I32(r(i))),
            ("tags", B::Arr(vec![B::I32(1)])),
        ]));
    }
    std::fs::write(dir.join("shop/orders.bson"), &bytes).unwrap();
    std::fs::write(
        dir.join("shop/orders.metadata.json"),
        br#"{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"r":1},"name":"r_1","unique":true}],"collectionName":"orders"}"#,
    )
    .unwrap();
    (dir, bytes.len() as u64)
}

fn line(command: &str) -> String {
    format!(
        r#"{{"t":{{"$date":"2024-05-02T09:00:00.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{{"type":"command","ns":"shop.$cmd","command":{command},"planSummary":"COLLSCAN","durationMillis":1}}}}"#
    )
}

/// The log: (executions, command).
fn log() -> String {
    let ops: &[(usize, &str)] = &[
        (
            10,
            r#"{"find":"orders","filter":{"tenant":"big","r":5},"$db":"shop"}"#,
        ),
        (6, r#"{"find":"orders","filter":{"_id":3},"$db":"shop"}"#),
        (
            4,
            r#"{"find":"orders","filter":{"_id":{"$gte":1}},"$db":"shop"}"#,
        ),
        (
            2,
            r#"{"aggregate":"orders","pipeline":[{"$match":{"tenant":"x"}},{"$group":{"_id":"$r"}}],"cursor":{},"$db":"shop"}"#,
        ),
        (3, r#"{"count":"orders","query":{"r":1},"$db":"shop"}"#),
        (
            5,
            r#"{"update":"orders","updates":[{"q":{"_id":1},"u":{"$set":{"r":2}},"multi":false}],"$db":"shop"}"#,
        ),
        (
            3,
            r#"{"update":"orders","updates":[{"q":{"tenant":"big"},"u":{"$set":{"x":1}},"multi":true}],"$db":"shop"}"#,
        ),
        (
            2,
            r#"{"delete":"orders","deletes":[{"q":{"r":9},"limit":1}],"$db":"shop"}"#,
        ),
        (
            1,
            r#"{"findAndModify":"orders","query":{"tenant":"big"},"update":{"$set":{"tenant":"t"}},"$db":"shop"}"#,
        ),
        (
            4,
            r#"{"insert":"orders","documents":[{"_id":1}],"$db":"shop"}"#,
        ),
    ];
    let mut out = String::new();
    for (n, command) in ops {
        for _ in 0..*n {
            out.push_str(&line(command));
            out.push('\n');
        }
    }
    out
}

fn analyse(name: &str, options: &Options) -> (NamespaceKeys, u64) {
    let (dir, bytes) = dump(name);
    let paths = [dir.clone()];
    let settings = Settings::default();
    let report = driver::scan(
        open(&paths, InputFormat::Auto),
        &settings,
        driver::Options::default(),
        &driver::Progress::default(),
    );
    let workload = crate::workload::read_bytes("test.log", log().as_bytes(), Default::default());
    let (keys, errors) = analyze(
        &report,
        &workload,
        &open(&paths, InputFormat::Auto),
        options,
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(keys.shard_keys.len(), 1);
    let ns = keys.shard_keys.into_iter().next().unwrap();
    assert_eq!(ns.namespace, "shop.orders");
    (ns, bytes)
}

fn candidate<'a>(ns: &'a NamespaceKeys, key: &str) -> &'a report::Candidate {
    let key = ShardKey::parse(key).unwrap();
    ns.candidates
        .iter()
        .find(|c| c.key == key)
        .unwrap_or_else(|| {
            panic!(
                "no candidate {key:?} among {:?}",
                ns.candidates.iter().map(|c| &c.key).collect::<Vec<_>>()
            )
        })
}

/// Pearson's coefficient computed the plain way, over the records sorted
/// by `value` then record: independent of `characteristics::correlation`.
fn pearson<T: Ord>(value: impl Fn(usize) -> T) -> f64 {
    let mut order: Vec<usize> = (0..N).collect();
    order.sort_by(|&a, &b| value(a).cmp(&value(b)).then(a.cmp(&b)));
    let x: Vec<f64> = (1..=N).map(|v| v as f64).collect();
    let y: Vec<f64> = order.iter().map(|&o| o as f64 + 1.0).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mx, my) = (mean(&x), mean(&y));
    let cov: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    characteristics::round(cov / (vx * vy).sqrt())
}

#[test]
fn key_characteristics_of_known_distributions() {
    let (ns, bytes) = analyse("characteristics", &Options::default());
    let avg = bytes / N as u64;

    let id = candidate(&ns, "_id").key_characteristics.clone().unwrap();
    assert_eq!(id.num_docs_total, 200);
    assert_eq!(id.num_distinct_values, 200);
    assert!(id.is_unique);
    assert_eq!(id.avg_doc_size_bytes, avg);
    assert_eq!(
        id.most_common_values
            .iter()
            .map(|v| v.frequency)
            .collect::<Vec<_>>(),
        [1; 5]
    );
    assert!(
        id.most_common_values.iter().all(|v| v.value.is_none()),
        "values hidden by default"
    );
    assert_eq!(id.monotonicity.kind, MonotonicityType::Monotonic);
    assert_eq!(id.monotonicity.record_id_correlation_coefficient, Some(1.0));

    // The skewed tenant: 150 documents of "big", and 50 tenants of one.
    let t = candidate(&ns, "tenant")
        .key_characteristics
        .clone()
        .unwrap();
    assert_eq!(t.num_distinct_values, 51);
    assert!(!t.is_unique);
    assert_eq!(
        t.most_common_values
            .iter()
            .map(|v| v.frequency)
            .collect::<Vec<_>>(),
        [150, 1, 1, 1, 1]
    );
    assert_eq!(
        t.monotonicity.record_id_correlation_coefficient,
        Some(pearson(tenant))
    );

    // The random key: unique by its index, not monotonic.
    let rk = candidate(&ns, "r").key_characteristics.clone().unwrap();
    assert_eq!(rk.num_distinct_values, 200);
    assert!(rk.is_unique, "r_1 is a unique index");
    let coefficient = pearson(r);
    assert!(coefficient.abs() < characteristics::MONOTONICITY_THRESHOLD);
    assert_eq!(
        rk.monotonicity.record_id_correlation_coefficient,
        Some(coefficient)
    );
    assert_eq!(rk.monotonicity.kind, MonotonicityType::NotMonotonic);

    // The compound: every (tenant, r) pair is distinct (r is).
    let c = candidate(&ns, "tenant,r")
        .key_characteristics
        .clone()
        .unwrap();
    assert_eq!(c.num_distinct_values, 200);
    assert!(!c.is_unique, "no unique index on {{tenant, r}}");
    assert_eq!(
        c.monotonicity.record_id_correlation_coefficient,
        Some(pearson(|i| (tenant(i), r(i))))
    );

    // The hashed form of the monotonic `_id` is analysed beside it.
    let h = candidate(&ns, "_id:hashed")
        .key_characteristics
        .clone()
        .unwrap();
    assert_eq!(h.monotonicity.kind, MonotonicityType::NotMonotonic);
    assert_eq!(h.monotonicity.record_id_correlation_coefficient, Some(0.0));
}

#[test]
fn read_and_write_distribution_of_known_shapes() {
    let (ns, _) = analyse("distribution", &Options::default());
    // (single, multi, scatter) reads of 25: 20 finds, 2 aggregates, 3 counts.
    let reads = |k: &str| {
        let d = candidate(&ns, k).read_distribution;
        assert_eq!(
            (
                d.sample_size.total,
                d.sample_size.find,
                d.sample_size.aggregate,
                d.sample_size.count,
                d.sample_size.distinct
            ),
            (25, 20, 2, 3, 0)
        );
        (
            d.counts.single_shard,
            d.counts.multi_shard,
            d.counts.scatter_gather,
        )
    };
    assert_eq!(reads("_id"), (6, 4, 15));
    assert_eq!(reads("tenant"), (12, 0, 13));
    assert_eq!(reads("r"), (13, 0, 12));
    assert_eq!(reads("tenant,r"), (10, 2, 13));
    assert_eq!(
        reads("_id:hashed"),
        (6, 0, 19),
        "a range on a hashed key goes everywhere"
    );
    let d = candidate(&ns, "_id").read_distribution;
    assert_eq!(
        (
            d.percentage_of_single_shard_reads,
            d.percentage_of_multi_shard_reads,
            d.percentage_of_scatter_gather_reads
        ),
        (24.0, 16.0, 60.0)
    );

    // Writes of 11 (inserts are not sampled): 8 updates, 2 deletes, 1 findAndModify.
    // (single, multi, scatter, key updates, single without key, multi without key)
    let writes = |k: &str| {
        let w = candidate(&ns, k).write_distribution;
        assert_eq!(
            (
                w.sample_size.total,
                w.sample_size.update,
                w.sample_size.delete,
                w.sample_size.find_and_modify
            ),
            (11, 8, 2, 1)
        );
        (
            w.counts.single_shard,
            w.counts.multi_shard,
            w.counts.scatter_gather,
            w.shard_key_updates,
            w.single_writes_without_shard_key,
            w.multi_writes_without_shard_key,
        )
    };
    assert_eq!(writes("_id"), (5, 0, 6, 0, 3, 3));
    assert_eq!(writes("tenant"), (4, 0, 7, 1, 7, 0));
    assert_eq!(writes("r"), (2, 0, 9, 5, 6, 3));
    assert_eq!(writes("tenant,r"), (0, 4, 7, 6, 8, 3));
    let w = candidate(&ns, "_id").write_distribution;
    assert_eq!(
        (
            w.percentage_of_single_shard_writes,
            w.percentage_of_scatter_gather_writes,
            w.percentage_of_shard_key_updates,
            w.percentage_of_single_writes_without_shard_key,
            w.percentage_of_multi_writes_without_shard_key
        ),
        (
            45.4545454545,
            54.5454545455,
            0.0,
            27.2727272727,
            27.2727272727
        )
    );
}

#[test]
fn candidates_come_from_logs_indexes_and_cardinality_and_are_ranked() {
    let named = vec![ShardKey::parse("tags").unwrap()];
    let (ns, _) = analyse(
        "candidates",
        &Options {
            named,
            show_values: true,
        },
    );
    let keys: Vec<String> = ns
        .candidates
        .iter()
        .map(|c| serde_json::to_string(&c.key).unwrap())
        .collect();
    // Single-shard operations of 36: `r` 15; `_id` and its hashed form 11
    // each, the hashed one with one warning (3 single writes without the
    // key) against two (monotonic too); `{tenant, r}` 10; `tenant` cannot
    // spread the data (51 distinct values); the array field named by hand
    // cannot be a key at all.
    assert_eq!(
        keys,
        [
            r#"{"r":1}"#,
            r#"{"_id":"hashed"}"#,
            r#"{"_id":1}"#,
            r#"{"tenant":1,"r":1}"#,
            r#"{"tenant":1}"#,
            r#"{"tags":1}"#,
        ]
    );
    assert_eq!(
        ns.candidates.iter().map(|c| c.rank).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    let tags = candidate(&ns, "tags");
    assert_eq!(tags.reason.origins, [candidates::Origin::Named]);
    assert_eq!(
        tags.reason.warnings.first(),
        Some(&reason::Warning::ArrayValues { documents: 200 })
    );
    let t = candidate(&ns, "tenant");
    assert_eq!(
        t.key_characteristics.as_ref().unwrap().most_common_values[0].value,
        Some(serde_json::json!({"tenant": "big"}))
    );
}
