//! Integration tests of `squill scan`: every format on a small generated dump
//! (snapshots), exit codes, stdin, profiles, SARIF against its schema, the
//! emitted model, and the shared datasets end to end. Each run states its
//! exit status and standard error exactly (`Test::check`); the reports are
//! snapshots.

use crate::support::{TempDir, Test, shared_data};
use squill::scan::testing::{B, doc, oid};
use std::path::Path;

/// A tiny dump: `shop.products` (a 201-element `tags` array, a redundant
/// index), `shop.reviews` (a parent reference to products with one dangling
/// value), `shop.parts` (a field of two types, metadata without an `_id` index).
fn write_fixture(dir: &Path) {
    let shop = dir.join("dump/shop");
    std::fs::create_dir_all(&shop).unwrap();
    let tags: Vec<B> = (0..201).map(|_| B::Str("t")).collect();
    let products: Vec<Vec<u8>> = (0..3u64)
        .map(|i| {
            doc(&[
                ("_id", B::Oid(oid(i))),
                ("name", B::Str("lamp")),
                (
                    "tags",
                    if i == 2 {
                        B::Arr(tags.clone())
                    } else {
                        B::Arr(vec![B::Str("a"), B::Str("b")])
                    },
                ),
            ])
        })
        .collect();
    let reviews: Vec<Vec<u8>> = (0..5u64)
        .map(|i| {
            doc(&[
                ("_id", B::I32(i as i32)),
                ("product_id", B::Oid(oid(if i == 4 { 99 } else { i % 2 }))),
                ("stars", B::I32(4)),
            ])
        })
        .collect();
    let parts: Vec<Vec<u8>> = (0..2u64)
        .map(|i| {
            doc(&[
                ("_id", B::Oid(oid(50 + i))),
                ("price", if i == 0 { B::I32(5) } else { B::Str("5") }),
            ])
        })
        .collect();
    for (name, docs) in [
        ("products", &products),
        ("reviews", &reviews),
        ("parts", &parts),
    ] {
        std::fs::write(shop.join(format!("{name}.bson")), docs.concat()).unwrap();
    }
    let meta = |indexes: &str, name: &str| {
        format!(r#"{{"indexes":[{indexes}],"uuid":"00","collectionName":"{name}"}}"#)
    };
    let id = r#"{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"}"#;
    let name1 = r#"{"v":2,"key":{"name":1},"name":"name_1"}"#;
    let name_tags = r#"{"v":2,"key":{"name":1,"tags":1},"name":"name_1_tags_1"}"#;
    std::fs::write(
        shop.join("products.metadata.json"),
        meta(&format!("{id},{name1},{name_tags}"), "products"),
    )
    .unwrap();
    std::fs::write(shop.join("reviews.metadata.json"), meta(id, "reviews")).unwrap();
    std::fs::write(
        shop.join("parts.metadata.json"),
        meta(r#"{"v":2,"key":{"price":1},"name":"price_1"}"#, "parts"),
    )
    .unwrap();
}

pub fn fixture(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    write_fixture(dir.path());
    dir
}

#[test]
fn text_report() {
    let dir = fixture("scan-text");
    let run = Test::new()
        .args(["scan", "dump"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn json_report() {
    let dir = fixture("scan-json");
    let run = Test::new()
        .args(["scan", "dump", "--format", "json"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["format"], "squill-scan/1");
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn markdown_report() {
    let dir = fixture("scan-md");
    let run = Test::new()
        .args(["scan", "dump", "--format", "markdown"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn sarif_report() {
    let dir = fixture("scan-sarif");
    let run = Test::new()
        .args(["scan", "dump", "--format", "sarif"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The rules' docs are long and tested elsewhere; snapshot the results.
    insta::assert_json_snapshot!(v["runs"][0]["results"]);
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), squill::rules::data::ALL.len());
    assert!(
        rules[0]["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Why")
    );
}

/// Valid against the SARIF 2.1.0 schema (`support::sarif_validator`).
#[test]
fn sarif_is_valid_against_the_2_1_0_schema() {
    let Some(validator) = crate::support::sarif_validator() else {
        return;
    };
    let dir = fixture("scan-sarif-valid");
    // With findings and with an input error (a truncated file).
    std::fs::write(dir.path().join("dump/shop/broken.bson"), [40u8, 0, 0, 0, 2]).unwrap();
    let run = Test::new()
        .args(["scan", "dump", "--format", "sarif"])
        .current_dir(dir.path())
        .stdout_any()
        .status(2)
        .stderr("error: 1 input error(s); the rest was scanned (see the report)\n")
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let errors = crate::support::sarif_errors(&validator, &v);
    assert!(errors.is_empty(), "{errors:#?}");
    // And a broken document is caught by the schema (the test can fail).
    let mut bad = v.clone();
    bad["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn fail_on_sets_the_exit_code() {
    let dir = fixture("scan-fail-on");
    for (fail_on, code) in [("never", 0), ("error", 0), ("warning", 1), ("info", 1)] {
        Test::new()
            .args(["scan", "dump", "--fail-on", fail_on])
            .current_dir(dir.path())
            .stdout_any()
            .status(code)
            .check();
    }
}

#[test]
fn a_partly_unreadable_input_is_reported_scanned_and_exits_2() {
    let dir = fixture("scan-broken");
    let shop = dir.path().join("dump/shop");
    // A document whose length lies (claims 200 bytes, has 8).
    std::fs::write(shop.join("broken.bson"), [200u8, 0, 0, 0, 0x0A, b'a', 0, 0]).unwrap();
    let run = Test::new()
        .args(["scan", "dump", "--fail-on", "never"])
        .current_dir(dir.path())
        .stdout_any()
        .status(2)
        .stderr("error: 1 input error(s); the rest was scanned (see the report)\n")
        .check();
    assert!(
        run.stdout.contains("shop.products: 3 documents"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("input errors: 1"), "{}", run.stdout);
    assert!(run.stdout.contains("broken.bson: byte 0"), "{}", run.stdout);
    assert!(run.stderr.contains("input error"), "{}", run.stderr);
}

#[test]
fn reads_standard_input() {
    let bytes = [
        doc(&[("_id", B::I32(1)), ("a", B::Str("x"))]),
        doc(&[("_id", B::I32(2)), ("a", B::Str("y"))]),
    ]
    .concat();
    let run = Test::new()
        .args(["scan", "-", "--format", "json"])
        .stdin(bytes)
        .stdout_any()
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["totals"]["documents"], 2);
}

#[test]
fn profile_changes_the_thresholds() {
    let dir = fixture("scan-profile");
    let run = Test::new()
        .args(["scan", "dump", "--profile", "atlas", "--format", "json"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["profile"], "atlas");
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"massive-array"), "{rules:?}");
}

#[test]
fn squill_toml_overrides_a_rule() {
    let dir = fixture("scan-config");
    std::fs::write(
        dir.path().join("squill.toml"),
        "[scan.massive-array]\nmax-elements = 1000\n[scan.mixed-field-types]\nseverity = \"info\"\n",
    )
    .unwrap();
    let run = Test::new()
        .args(["scan", "dump", "--format", "json"])
        .current_dir(dir.path())
        .stdout_any()
        .status(1)
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["rule"] != "massive-array"));
    let mixed = findings
        .iter()
        .find(|f| f["rule"] == "mixed-field-types")
        .unwrap();
    assert_eq!(mixed["severity"], "info");
}

#[test]
fn emitted_model_is_accepted_by_check() {
    let dir = fixture("scan-model");
    Test::new()
        .args([
            "scan",
            "dump",
            "--fail-on",
            "never",
            "--emit-model",
            "model.yaml",
        ])
        .current_dir(dir.path())
        .stdout_any()
        .check();
    let yaml = std::fs::read_to_string(dir.path().join("model.yaml")).unwrap();
    let model = squill::inputs::model_file::parse("model.yaml", &yaml).unwrap();
    let r = &model.relationships[0];
    assert_eq!(model.entity(r.parent).name, "products");
    assert_eq!(model.entity(r.child).name, "reviews");
    Test::new()
        .args(["check", "model.yaml"])
        .current_dir(dir.path())
        .stdout_any()
        .check();
}

#[test]
fn atlas_sample_dump_end_to_end() {
    let Some(data) = shared_data() else { return };
    let dir = TempDir::new("scan-atlas");
    let model = dir.path().join("atlas.yaml");
    let run = Test::new()
        .args(["scan", "--format", "json", "--emit-model"])
        .args([&model])
        .args([data.join("mongo/atlas-sample-dump")])
        // Its findings include warnings: exit 1 under the default --fail-on.
        .status(1)
        .stdout_any()
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v["totals"]["documents"].as_u64().unwrap() > 40_000);
    let rels = v["relationships"].as_array().unwrap();
    let accounts = rels
        .iter()
        .find(|r| r["from"]["collection"] == "customers" && r["field"] == "accounts")
        .expect("customers.accounts -> accounts.account_id");
    assert_eq!(accounts["to"]["collection"], "accounts");
    assert_eq!(accounts["key"], "account_id");
    assert_eq!(accounts["direction"], "child-reference-array");
    assert_eq!(accounts["match_share"], 1.0);
    // email is unique in users but not a reference by name.
    assert!(rels.iter().all(|r| r["field"] != "email"));
    let yaml = std::fs::read_to_string(&model).unwrap();
    squill::inputs::model_file::parse("atlas.yaml", &yaml).unwrap();
}

#[test]
fn other_shared_datasets_end_to_end() {
    let Some(data) = shared_data() else { return };
    // Documents and collections each dataset holds; the JSON ones are one
    // document a line (`wc -l` gives 3,996, 431 and 21,640). A reader that
    // drops or duplicates documents fails here.
    for (path, documents, collections) in [
        ("mongo/atlas-sample-ejson", 3_996, 5),
        ("mongo/json-datasets/datasets/books.json", 431, 1),
        ("mongo/json-datasets/datasets/countries-big.json", 21_640, 1),
        (
            "mongo/mongo-tools-testdata/bsondump/testdata/sample.bson",
            4,
            1,
        ),
        (
            "mongo/mongo-tools-testdata/mongodump/testdata/importCollection.bson",
            1,
            1,
        ),
    ] {
        let run = Test::new()
            .args(["scan", "--format", "json", "--fail-on", "never"])
            .args([data.join(path)])
            .stdout_any()
            .check();
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(v["totals"]["documents"], documents, "{path}");
        assert_eq!(v["totals"]["collections"], collections, "{path}");
        assert_eq!(v["errors"], serde_json::json!([]), "{path}");
    }
    // Extended JSON export and BSON dump of the same data find the same relationship.
    let run = Test::new()
        .args(["scan", "--format", "json", "--fail-on", "never"])
        .args([data.join("mongo/atlas-sample-ejson/sample_analytics")])
        .stdout_any()
        .check();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["relationships"][0]["field"], "accounts");
    assert_eq!(v["relationships"][0]["key"], "account_id");
    // Malformed BSON: reported with the byte offset, exit 2, no panic.
    let run = Test::new()
        .args(["scan", "--fail-on", "never"])
        .args([data.join("mongo/mongo-tools-testdata/bsondump/testdata/bad_type.bson")])
        .stdout_any()
        .status(2)
        .stderr("error: 1 input error(s); the rest was scanned (see the report)\n")
        .check();
    assert!(run.stdout.contains("byte"), "{}", run.stdout);
}

/// Issue 46: orders keeping `customerId` as a double (`3.0`) against int
/// customer `_id`s (as mongoimport or JavaScript load them). The server
/// matches them by value; so does the scan: the relationship, its fan-out
/// of 5 orders per customer, and the type mismatch as its own finding.
#[test]
fn issue_46_references_kept_as_doubles_match_int_ids_by_value() {
    let dir = TempDir::new("scan-double-refs");
    let shop = dir.path().join("dump/shop");
    std::fs::create_dir_all(&shop).unwrap();
    let customers: Vec<Vec<u8>> = (0..20).map(|i| doc(&[("_id", B::I32(i))])).collect();
    let orders: Vec<Vec<u8>> = (0..100)
        .map(|i| {
            doc(&[
                ("_id", B::Oid(oid(i))),
                ("customerId", B::F64(f64::from((i % 20) as i32))),
            ])
        })
        .collect();
    std::fs::write(shop.join("customers.bson"), customers.concat()).unwrap();
    std::fs::write(shop.join("orders.bson"), orders.concat()).unwrap();
    let model = dir.path().join("model.yaml");
    let run = Test::new()
        .args(["scan", "--format", "json", "--fail-on", "never"])
        .args([dir.path().join("dump")])
        .args(["--emit-model"])
        .args([&model])
        .stdout_any()
        .check();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rels = report["relationships"].as_array().unwrap();
    assert_eq!(rels.len(), 1, "{rels:#?}");
    let rel = &rels[0];
    assert_eq!(rel["field"], "customerId");
    assert_eq!(rel["to"]["collection"], "customers");
    assert_eq!(rel["match_share"], 1.0);
    assert_eq!(rel["fan_out"]["p50"], 5);
    assert_eq!(rel["fan_out"]["max"], 5);
    assert_eq!(rel["reference_number_types"], serde_json::json!(["double"]));
    assert_eq!(rel["key_number_types"], serde_json::json!(["int"]));
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(rules.contains(&"reference-type-mismatch"), "{rules:?}");
    assert!(!rules.contains(&"dangling-reference"), "{rules:?}");
    let yaml = std::fs::read_to_string(&model).unwrap();
    assert!(yaml.contains("typical: 5"), "{yaml}");
}
