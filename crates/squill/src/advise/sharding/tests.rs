//! Shard keys from a model: scenarios C2 and C3 as golden tests of the
//! structure (the key chosen, the rejected keys and the figures that rule
//! them out), and near misses that move one figure across its threshold.
//! Expected figures come from the models' own numbers.

use crate::advise::advise;
use crate::advise::tests::golden::example;
use crate::design::shard_key::ShardKey;
use crate::design::sharding::{KeyCandidate, KeyVerdict, KeyWarning, Sharding, Target};
use crate::design::{Collection, Design};
use crate::model::{Horizon, Model};
use crate::scan::shard_keys::reason::CHUNK_BYTES;
use crate::settings::Settings;

fn advised(model: &Model, horizon: Option<u32>, shard: bool) -> Design {
    let mut settings = Settings::default();
    settings.capacity.horizon = horizon.map(|months| Horizon { months });
    settings.capacity.shard = shard;
    advise(model, &settings, None).unwrap_or_else(|e| panic!("{e}"))
}

fn collection<'d>(d: &'d Design, entity: &str) -> &'d Collection {
    d.collections
        .iter()
        .find(|c| c.entities.iter().any(|e| e == entity))
        .unwrap_or_else(|| panic!("a collection of {entity}"))
}

fn sharding<'d>(d: &'d Design, entity: &str) -> &'d Sharding {
    collection(d, entity)
        .sharding
        .as_ref()
        .unwrap_or_else(|| panic!("{entity} sharded"))
}

fn key(s: &str) -> ShardKey {
    ShardKey::parse(s).unwrap_or_else(|e| panic!("{e}"))
}

fn candidate<'s>(s: &'s Sharding, k: &str) -> &'s KeyCandidate {
    let k = key(k);
    s.candidates
        .iter()
        .find(|c| c.key == k)
        .unwrap_or_else(|| panic!("candidate {k:?} among {:?}", keys(s)))
}

fn keys(s: &Sharding) -> Vec<String> {
    s.candidates
        .iter()
        .map(|c| serde_json::to_string(&c.key).unwrap_or_default())
        .collect()
}

fn jumbo(c: &KeyCandidate) -> Option<(u64, u64)> {
    match &c.verdict {
        KeyVerdict::Rejected {
            because: KeyWarning::JumboValue {
                frequency, bytes, ..
            },
        } => Some((*frequency, *bytes)),
        _ => None,
    }
}

/// C2 at twelve months: the readings outgrow a replica set; the key is
/// the device and the time. `{ts: 1}` takes every insert on one chunk,
/// hashed `_id` sends every read to every shard, `{device: 1}` alone
/// holds a device's year of readings under one value, past a chunk.
#[test]
fn c02_sensor_shard_key() {
    let model = example("scenarios/c02-sensor-shard-key");
    let d = advised(&model, Some(12), false);
    let s = sharding(&d, "reading");
    assert!(
        matches!(
            s.because,
            crate::design::sharding::ShardingCause::Outgrows { .. }
        ),
        "{:?}",
        s.because
    );
    assert_eq!(s.month, 12);
    let chosen = s
        .chosen
        .clone()
        .unwrap_or_else(|| panic!("a key: {:?}", keys(s)));
    assert!(
        chosen == key("device,ts") || chosen == key("device:hashed,ts"),
        "{chosen:?}"
    );
    // The device read goes to the chunk of its device's hour.
    let best = &s.candidates[0];
    assert_eq!(best.verdict, KeyVerdict::Chosen);
    let read = best
        .routes
        .iter()
        .find(|r| r.operation == "device_range")
        .unwrap_or_else(|| panic!("device_range routed"));
    assert_eq!((read.target, read.chunks), (Target::MultiShard, Some(1)));
    // {ts: 1}: all 20,000 inserts/s on the last chunk.
    let ts = candidate(s, "ts");
    assert!(
        matches!(&ts.verdict, KeyVerdict::Rejected { because: KeyWarning::MonotonicInserts { inserts_per_second, .. } }
            if (*inserts_per_second - 20_000.0).abs() < 1e-6),
        "{:?}",
        ts.verdict
    );
    // Hashed `_id`: every read to every shard, against the rollup's 1 %.
    let id = candidate(s, "_id:hashed");
    assert_eq!(
        id.verdict,
        KeyVerdict::RejectedScatterGather {
            share: 1.0,
            chosen_share: 10.0 / 1000.0
        }
    );
    // {device: 1}: a device's readings at month 12 (259,200 + 8,640 a
    // day for 360 days) past 128 MiB.
    let device = candidate(s, "device");
    let (frequency, bytes) = jumbo(device).unwrap_or_else(|| panic!("{:?}", device.verdict));
    let per_device = 259_200 + 8_640 * 360;
    let documents = s.documents as f64;
    let readings = model.entities[1].count as f64 + 1_728_000_000.0 * 360.0;
    let expected = (per_device as f64 * documents / readings).ceil() as u64;
    assert_eq!(frequency, expected);
    assert_eq!(bytes, frequency * s.avg_doc_size_bytes);
    assert!(bytes > CHUNK_BYTES);
}

/// Near miss: today, a device's 259,200 readings fit a chunk, so
/// `{device: 1}` is not ruled out by the chunk; it is by the growth.
#[test]
fn c02_a_device_fits_a_chunk_today() {
    let model = example("scenarios/c02-sensor-shard-key");
    let d = advised(&model, None, true);
    let s = sharding(&d, "reading");
    assert_eq!(s.month, 0);
    let device = candidate(s, "device");
    assert!(jumbo(device).is_none(), "{:?}", device.verdict);
    let top = device.most_common_bytes.unwrap_or(u64::MAX);
    assert!(top <= CHUNK_BYTES, "{top}");
}

/// Without `--shard` and without a projection past 3 TB, nothing is
/// sharded: the design's JSON stays as it was.
#[test]
fn no_sharding_unless_asked_or_outgrown() {
    let model = example("scenarios/c02-sensor-shard-key");
    let d = advised(&model, None, false);
    assert!(d.collections.iter().all(|c| c.sharding.is_none()));
    let d = advised(&example("scenarios/s19-stores"), Some(12), false);
    assert!(d.collections.iter().all(|c| c.sharding.is_none()));
}

/// C3: products by store and SKU, orders by store and `_id` (or
/// customer); `{store: 1}` alone puts the largest store under one value,
/// a jumbo chunk; hashed `_id` sends every store query to every shard.
#[test]
fn c03_stores_shard_keys() {
    let model = example("scenarios/c03-stores-shard-keys");
    let d = advised(&model, None, true);
    let products = sharding(&d, "product");
    assert_eq!(
        products.chosen,
        Some(key("store,sku")),
        "{:?}",
        keys(products)
    );
    let store = candidate(products, "store");
    let (frequency, bytes) = jumbo(store).unwrap_or_else(|| panic!("{:?}", store.verdict));
    assert_eq!(frequency, 3_000_000);
    assert_eq!(bytes, 3_000_000 * products.avg_doc_size_bytes);
    // About 1.5 KiB a product: 3 M of them about 4.3 GiB.
    assert!(products.avg_doc_size_bytes > 1400 && products.avg_doc_size_bytes < 1700);
    let id = candidate(products, "_id:hashed");
    assert!(
        matches!(id.verdict, KeyVerdict::RejectedScatterGather { share, chosen_share } if share > 0.99 && chosen_share == 0.0),
        "{:?}",
        id.verdict
    );

    let orders = sharding(&d, "order");
    let chosen = orders
        .chosen
        .clone()
        .unwrap_or_else(|| panic!("{:?}", keys(orders)));
    assert!(
        chosen == key("store,_id") || chosen == key("store,customer"),
        "{chosen:?}"
    );
    let best = &orders.candidates[0];
    assert_eq!(best.reads.percentage_of_scatter_gather, 0.0);
    let store = candidate(orders, "store");
    let (frequency, _) = jumbo(store).unwrap_or_else(|| panic!("{:?}", store.verdict));
    assert_eq!(frequency, 30_000_000);
    let id = candidate(orders, "_id:hashed");
    assert!(
        matches!(id.verdict, KeyVerdict::RejectedScatterGather { .. }),
        "{:?}",
        id.verdict
    );
    // Every store-scoped read of the chosen key is targeted.
    assert!(
        best.routes
            .iter()
            .all(|r| r.target != Target::ScatterGather)
    );
}
