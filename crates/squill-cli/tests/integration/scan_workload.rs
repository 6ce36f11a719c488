//! `squill scan DUMP --workload LOG… --emit-model M`: a dump made by
//! `squill generate` for a small shop, and the made-up logs of
//! tests/fixtures/logs: the logs' query shapes on the dump's collections
//! become the model's operations with their rates, the others are listed
//! with why, and advise prices the design the dump has beside its own.

use crate::support::{TempDir, Test, repo_root};

const SHOP: &str = "name: shop
entities:
  customers:
    count: 200
    fields:
      name: string(20)
      email: string(30)
  orders:
    count: 1000
    fields:
      status: {type: string, enum: [paid, shipped]}
      placedAt: date
      history: string[3]
relationships:
  orders_of_customers:
    parent: customers
    child: orders
    children: {min: 0, typical: 5, max: 40}
    child_field: customer
    standalone: true
    layout: parent-reference
";

#[test]
fn the_logs_shapes_become_the_models_operations() {
    let dir = TempDir::new("scan-workload");
    let model = dir.path().join("shop.yaml");
    std::fs::write(&model, SHOP).unwrap();
    let out = dir.path().join("gen");
    Test::new()
        .args(["generate"])
        .args([&model])
        .args(["--out"])
        .args([&out])
        .args(["--scale", "100"])
        .path_as(dir.path(), "DIR")
        // The time, the rates and the free space change from run to run.
        .stdout_matching(
            "squill generate: model `shop`, mix `default`: 10 files in DIR/gen
  validators.json        the `$jsonSchema` validator of each collection
  validators.js          mongosh: `createCollection` with the validator, or `collMod` when the collection exists
  indexes.js             mongosh: `createIndexes` for the design's indexes, each with the operations that use it
  setup.js               mongosh: collections, validators and indexes in one script, safe to run twice
  examples.json          an example document per collection at typical and at maximum cardinality (Extended JSON)
  cookbook.md            every operation explained, in mongosh, Python and Node.js
  cookbook.mongosh.js    the cookbook as mongosh functions
  cookbook.py            the cookbook as a Python (pymongo) module
  cookbook.js            the cookbook as a Node.js (official driver) module
  README.md              this index
  customers                         100 documents          11,488 bytes EJSON           9,488 bytes BSON
  orders                            553 documents         107,259 bytes EJSON          74,632 bytes BSON
  653 documents, 202,867 bytes in [..] s ([..] documents/s, [..] MB/s)
",
        )
        .stderr_matching("squill generate: about 641 documents, 194.2 KiB to write into DIR/gen[..]\n")
        .check();
    let logs = repo_root().join("crates/squill-cli/tests/fixtures/logs");
    let observed = dir.path().join("observed.yaml");
    Test::new()
        .args(["scan"])
        .args([out.join("dump")])
        .args(["--emit-model"])
        .args([&observed])
        .args(["--workload"])
        .args([logs.join("shop-json.log"), logs.join("shop-legacy.log")])
        .path_as(dir.path(), "DIR")
        .stdout(SCAN_REPORT)
        .stderr("squill scan: 6 of 11 query shapes in the logs became operations of the model\n")
        .check();
    let text = std::fs::read_to_string(&observed).unwrap();
    // A find by customer and status, newest first, limited: the reference
    // of the dump is the filter's `customer`.
    let s1 = text.split("  s1_read:\n").nth(1).expect(&text);
    let s1: String = s1
        .lines()
        .take_while(|l| l.starts_with("    "))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(s1.contains("read: orders"), "{s1}");
    assert!(s1.contains("filter: {customer: eq, status: eq}"), "{s1}");
    assert!(s1.contains("sort: [-placedAt]"), "{s1}");
    // The logs' `limit: 20`, read from them (issue 41: it was assumed).
    assert!(s1.contains("limit: 20  # the logs' limit"), "{s1}");
    assert!(s1.contains("rate: 0.0009"), "{s1}");
    assert!(text.contains("insert: customers"), "{text}");
    assert!(text.contains("changes: [history, status]"), "{text}");
    // The blog's shapes have no collection in the dump: listed, not dropped.
    assert!(
        text.contains("on blog.posts: the dump holds no such collection"),
        "{text}"
    );
    assert!(
        text.contains("current:\n  orders_customer: parent-reference"),
        "{text}"
    );
    // advise takes it, and prices the design of today beside its own.
    let advice = Test::new()
        .args(["advise"])
        .args([&observed])
        .stdout_any()
        .check()
        .stdout;
    assert!(advice.contains("Today against recommended"), "{advice}");
}

/// The scan's report of the generated dump (the generator's seed is fixed).
const SCAN_REPORT: &str = "\
squill scan (profile seeds): 1 databases, 2 collections, 653 documents, 84120 bytes

shop.customers: 100 documents, 9488 bytes (DIR/gen/dump/shop/customers.bson)
  size: min 94 mean 94.9 p50 95 p95 95 max 95 bytes
  depth max 0; 3 field paths, 3 distinct names; names 15.8 % of the bytes
  indexes: _id_ {_id: 1}
    _id     100 %  objectId
    name    100 %  string
    email   100 %  string

shop.orders: 553 documents, 74632 bytes (DIR/gen/dump/shop/orders.bson)
  size: min 130 mean 135 p50 134 p95 138 max 139 bytes
  depth max 1; 5 field paths, 5 distinct names; names 27.4 % of the bytes
  indexes: _id_ {_id: 1}
    _id        100 %  objectId
    status     100 %  string
    placedAt   100 %  date
    history    100 %  array; length p50 3 p95 3 max 3 of string
    customer   100 %  objectId

relationships
  shop.orders.customer -> shop.customers._id: parent reference, one-to-many (1:N), fan-out p50 5 p95 9 max 40, 553 of 553 values match

findings: 0

notes
  - Case-insensitive queries without a case-insensitive index and $lookup-heavy reads are anti-patterns of the workload, not of the data: they need the queries (mongod logs), which scan does not read.
  - Quantiles are sketched within 1/64 (about 1.6 %) of the true value; counts, minimums and maximums are exact.
";
