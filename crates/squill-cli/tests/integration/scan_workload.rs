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
        .run()
        .success();
    let logs = repo_root().join("crates/squill-cli/tests/fixtures/logs");
    let observed = dir.path().join("observed.yaml");
    let run = Test::new()
        .args(["scan"])
        .args([out.join("dump")])
        .args(["--emit-model"])
        .args([&observed])
        .args(["--workload"])
        .args([logs.join("shop-json.log"), logs.join("shop-legacy.log")])
        .run();
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("query shapes in the logs became operations"),
        "{}",
        run.stderr
    );
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
    assert!(s1.contains("limit: 20  # assumed"), "{s1}");
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
        .run()
        .success()
        .stdout;
    assert!(advice.contains("Today against recommended"), "{advice}");
}
