//! Lines embedded in their orders under the tenant `shop` (review47 item
//! 4): a read of lines by their own field and its count test the order's
//! shop first, at the top level beside the `$elemMatch`, on an index that
//! leads with it, as a write of the lines does. They once named no shop,
//! and read and counted every shop's lines.

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

fn code(d: &crate::design::Design, name: &str) -> [String; 3] {
    let ops = cookbook::op_codes(d);
    let op = ops.iter().find(|o| o.name == name).expect("the op");
    [
        cookbook::mongosh_function(op),
        cookbook::node_function(op),
        cookbook::python_function(op),
    ]
}

/// The plan: the shop first in the read's filter, and the index it uses
/// leads with the shop. A line's order found by its `_id` keeps its index
/// (the id finds the one document, the shop only tests it).
#[test]
fn reads_of_embedded_lines_test_the_shop_first() {
    let (_, d) = crate::fixtures::load("tenant-lines");
    for name in ["sku_count", "sku_lines"] {
        let p = d
            .operations
            .iter()
            .find(|p| p.operation == name)
            .expect("the plan");
        let s = &p.steps[0];
        assert_eq!(s.filter[0].path, "shop", "{name}: {:?}", s.filter);
        let index = s.index.as_deref().expect("an index");
        let keys = &d
            .collections
            .iter()
            .flat_map(|c| c.indexes.iter())
            .find(|i| i.name == index)
            .unwrap_or_else(|| panic!("{name}: no index {index}"))
            .keys;
        assert_eq!(keys[0].0, "shop", "{name}: {keys:?}");
        for text in code(&d, name) {
            assert!(
                text.contains(
                    r#"{"$match": {"shop": shop_id, "lines": {"$elemMatch": {"sku": sku}}}}"#
                ),
                "{name}: {text}"
            );
        }
    }
    let drop = d
        .operations
        .iter()
        .find(|p| p.operation == "drop_sku")
        .expect("the plan");
    let find = &drop.steps[0];
    assert!(find.filter.iter().any(|f| f.path == "_id"), "{find:?}");
    assert!(
        !find.index.as_deref().unwrap_or("").starts_with("shop_1"),
        "{find:?}"
    );
}

/// Against the server, in each language (scripts/testenv/check_tenant_lines.py):
/// shop A's order holds 2 lines of sku x, shop B's 3; with shop A the count
/// is 2 and the list 2 lines of A's order.
#[test]
fn reads_of_embedded_lines_stay_in_the_shop_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("tenant-lines");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("tenant-lines", "squill_tenant_lines", false),
        ("check_tenant_lines.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} sku_count(shop A, x): 2 counted",
            "ok: {lang} sku_lines(shop A, x): 2 lines, all of shop A's order",
        ],
    );
}
