//! A count of children kept inside other documents (REVIEW46 4 and 10):
//! sales embedded in their product and ticks kept in minute buckets. The
//! count is one aggregation that `$match`es the holders through the
//! index, `$unwind`s them, tests each child again and ends in `$count`.
//! It returns a number in each language. It once returned the products
//! (a list) or the whole buckets. The ticks expire, and a count does not
//! count one past its life.

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

/// Each language's pipeline ends in `$count` and its function takes the
/// number out of the one document, 0 when there is none.
#[test]
fn a_count_of_embedded_or_bucketed_children_ends_in_count() {
    let (_, d) = crate::fixtures::load("child-counts");
    let pipeline = r#"[{"$match": {"sales": {"$elemMatch": {"state": state}}}}, {"$unwind": "$sales"}, {"$match": {"sales.state": state}}, {"$count": "count"}]"#;
    let [sh, node, py] = code(&d, "live_count");
    for text in [&sh, &node, &py] {
        assert!(text.contains(pipeline), "{text}");
        assert!(!text.contains("$project"), "{text}");
    }
    assert!(
        sh.contains(r#".toArray()[0] || {"count": 0})["count"]"#),
        "{sh}"
    );
    assert!(
        node.contains(r#".toArray().then((r) => (r[0] || {"count": 0})["count"])"#),
        "{node}"
    );
    assert!(py.contains(r#"]), {"count": 0})["count"]"#), "{py}");
    // The ticks: their window on each tick, and their life beside it.
    for text in code(&d, "tick_count") {
        assert!(text.contains(r#"{"$unwind": "$ticks"}"#), "{text}");
        assert!(text.contains(r#"{"$count": "count"}"#), "{text}");
        assert!(!text.contains(".find("), "{text}");
        assert!(text.contains("ticks.time"), "{text}");
        assert!(
            text.contains("2592000") || text.contains("2592000 * 1000"),
            "{text}"
        );
    }
}

/// Ticks of every symbol in a window, not filtered by one (review47 item
/// 5): the count `$unwind`s the buckets and ends in `$count`, and the list
/// returns the ticks one by one. Both were a find of whole buckets, the
/// count priced as their list.
#[test]
fn children_of_every_parent_in_buckets_are_unwound() {
    let (_, d) = crate::fixtures::load("child-counts");
    for name in ["window_count", "window_ticks"] {
        for text in code(&d, name) {
            assert!(text.contains(r#"{"$unwind": "$ticks"}"#), "{name}: {text}");
            assert!(text.contains(r#""ticks": {"$elemMatch""#), "{name}: {text}");
            assert!(!text.contains(".find("), "{name}: {text}");
            assert_eq!(
                text.contains(r#"{"$count": "count"}"#),
                name == "window_count",
                "{name}: {text}"
            );
        }
    }
}

/// Against the server, in each language
/// (scripts/testenv/check_child_counts.py): 3 live sales in 2 products,
/// 2 of them in product 1; 3 ticks of a window over 2 buckets; 5 ticks
/// of a symbol whose 2 others are past their life; 8 ticks of every
/// symbol in a window, 9 over their life (review47 item 5).
#[test]
fn children_counted_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("child-counts");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("child-counts", "squill_child_counts", false),
        ("check_child_counts.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} live_count(live): 3 counted",
            "ok: {lang} product_live_count(1, live): 2 counted",
            "ok: {lang} live_count(gone): 0 counted",
            "ok: {lang} tick_count(1, a window over 2 buckets): 3 counted",
            "ok: {lang} tick_count(1, a window reaching past the life): 5 counted",
            "ok: {lang} symbol_ticks(1): 5 counted",
            "ok: {lang} window_count(every symbol, 3 buckets): 8 counted",
            "ok: {lang} window_count(every symbol, past the life): 9 counted",
            "ok: {lang} window_ticks(every symbol): 8 ticks, each on its own",
        ],
    );
}
