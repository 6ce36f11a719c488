//! An update of many children embedded in an array (audit46 D1): one
//! `updateMany` of the documents that hold a matching element, writing
//! `lines.$[e]` restricted by `arrayFilters` to the elements that pass the
//! filter's tests of them (`lines.$[]` where it tests none). It once found
//! the documents first, took every element id they held, and wrote
//! `lines.$.qty` by those ids: `$` is the first element that matched, so
//! repricing tier B's lines changed a tier A line of the same purchase.

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;
use crate::design::{Action, UpdateOp};

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

/// mongosh, Node.js and Python, in that order.
fn code(d: &crate::design::Design, name: &str) -> [String; 3] {
    let ops = cookbook::op_codes(d);
    let op = ops.iter().find(|o| o.name == name).expect("the op");
    [
        cookbook::mongosh_function(op),
        cookbook::node_function(op),
        cookbook::python_function(op),
    ]
}

/// A tier's lines: one write, no find first, on the index of the lines'
/// tier; no index on the lines' ids (nothing else looks a line up by it).
/// Priced by the purchases that hold one of the tier's 800 lines: 800
/// lines among 4,000,000 purchases lie in about as many purchases
/// (`r (1 - (1 - 1/r)^m)`, rounded up).
#[test]
fn many_elements_are_written_where_found_through_their_own_tests() {
    let (_, d) = crate::fixtures::load("embedded-element-updates");
    let p = plan(&d, "reprice_tier_lines");
    assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    let s = &p.steps[0];
    assert_eq!(s.action, Action::UpdateMany);
    let paths: Vec<&str> = s.filter.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["purchase_lines.tier"]);
    assert_eq!(
        s.updates,
        vec![UpdateOp::Set {
            path: "purchase_lines.$[e].qty".into()
        }]
    );
    let (r, m) = (4_000_000.0_f64, 800.0_f64);
    let hit = (r * (1.0 - (1.0 - 1.0 / r).powf(m)) - 1e-6).ceil();
    assert!((s.documents - hit).abs() < 1e-9, "{} vs {hit}", s.documents);
    assert!(
        (p.cost.documents_written - hit).abs() < 1e-9,
        "{:?}",
        p.cost
    );
    let purchase = d.collections.iter().find(|c| c.name == "purchase").unwrap();
    let names: Vec<&str> = purchase.indexes.iter().map(|i| i.name.as_str()).collect();
    assert!(!names.contains(&"purchase_lines._id_1"), "{names:?}");
    assert!(names.contains(&"purchase_lines.tier_1"), "{names:?}");
    // A purchase's lines, by the purchase's id: every element of the one
    // document (`$[]`), which names none.
    let p = plan(&d, "reset_purchase_lines");
    assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    assert_eq!(
        p.steps[0].updates,
        vec![UpdateOp::Set {
            path: "purchase_lines.$[].qty".into()
        }]
    );
}

/// The command each language sends: the filter on the element's tier,
/// and `arrayFilters` with the same test on `e`; the reset has none.
#[test]
fn each_language_restricts_the_elements_by_array_filters() {
    let (_, d) = crate::fixtures::load("embedded-element-updates");
    let [mongosh, node, python] = code(&d, "reprice_tier_lines");
    let update = r#"{"$set": {"purchase_lines.$[e].qty": new_qty}}"#;
    for js in [&mongosh, &node] {
        assert!(
            js.contains(r#"updateMany({"purchase_lines.tier": tier_id}"#),
            "{js}"
        );
        assert!(js.contains(update), "{js}");
        assert!(
            js.contains(r#"{"arrayFilters": [{"e.tier": tier_id}]}"#),
            "{js}"
        );
    }
    assert!(
        python.contains(&format!(
            r#"update_many({{"purchase_lines.tier": tier_id}}, {update}, array_filters=[{{"e.tier": tier_id}}])"#
        )),
        "{python}"
    );
    for text in code(&d, "reset_purchase_lines") {
        assert!(text.contains(r#""purchase_lines.$[].qty""#), "{text}");
        assert!(!text.to_lowercase().contains("array"), "{text}");
    }
}

/// Against the server, in each language
/// (scripts/testenv/check_element_updates.py): repricing tier B's lines
/// changes both tier B lines and neither tier A line, one of which shares
/// a purchase with a tier B line; resetting a purchase's lines changes
/// both of its lines and no other purchase's. Conditions that compare two
/// fields of each line (`qty < cap`, `qty + amount <= cap`) change the
/// lines that pass and spare those at their cap in the same purchase: an
/// update pipeline's `$map`, `$cond` and `$mergeObjects`, which SecantusDB
/// runs (issue 41).
#[test]
fn many_elements_update_only_the_matching_ones_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("embedded-element-updates");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("embedded-element-updates", "squill_element_updates", false),
        ("check_element_updates.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} reprice_tier_lines(B, 7): both tier B lines at 7, both tier A lines unchanged",
            "ok: {lang} reset_purchase_lines(1, 0): both lines of purchase 1 at 0, no other purchase's",
            "ok: {lang} drop_line(1, 11): line 11 pulled, line 12 of the same purchase kept",
            "ok: {lang} drop_tier_lines(A): both tier A lines pulled, the tier B lines kept",
            "ok: {lang} bump_tier_lines(C): only the tier C line below its cap gained one",
            "ok: {lang} fill_tier_lines(C, 2): only the tier C line with room for 2 gained 2",
            "ok: {lang} fill_line(4, 42, 1): refused at the cap, no line changed",
            "ok: {lang} fill_line(4, 41, 1): the line with room gained 1, no other",
            "ok: {lang} restock_purchase_lines(6): the lines above 0 gained one, the empty one did not",
            "ok: {lang} bump_purchase_lines(6): the lines below their cap gained one, the one past it did not",
        ],
    );
}

/// A delete of elements (review47 item 1): one write where found, its
/// `$pull` taking the filter's own tests of the element, no find of the
/// holder's element ids first (which read every line of the purchase and
/// pulled them all).
#[test]
fn deleted_elements_are_pulled_by_their_own_tests() {
    let (_, d) = crate::fixtures::load("embedded-element-updates");
    for (name, action) in [
        ("drop_line", Action::UpdateOne),
        ("drop_tier_lines", Action::UpdateMany),
    ] {
        let p = plan(&d, name);
        assert_eq!(p.steps.len(), 1, "{name}: {:?}", p.steps);
        assert_eq!(p.steps[0].action, action, "{name}");
    }
    let pulls = [
        (
            "drop_line",
            r#"({"_id": purchase_id, "purchase_lines._id": line_id}, {"$pull": {"purchase_lines": {"_id": line_id}}})"#,
        ),
        (
            "drop_tier_lines",
            r#"({"purchase_lines.tier": tier_id}, {"$pull": {"purchase_lines": {"tier": tier_id}}})"#,
        ),
    ];
    for (name, call) in pulls {
        for text in code(&d, name) {
            assert!(text.contains(call), "{name} lacks {call}: {text}");
            assert!(!text.contains("_ids("), "{text}");
        }
    }
}

/// A tier's lines below their own cap (`when: ["qty < cap"]`, many
/// elements): one `updateMany` whose filter holds a line that passes
/// (`$anyElementTrue` over the lines of the tier's test and the
/// comparison on `$$e`), and whose update pipeline rewrites the lines,
/// each tested on its own (`$cond`), the amount added to its own value
/// (`$add`). No `arrayFilters` (they cannot compare two fields), no
/// `$expr` on the arrays (`"$purchase_lines.qty"`), no warning left.
/// On the code before, the comparison was left out and every tier line
/// gained one (issue 41).
#[test]
fn two_fields_of_many_elements_are_compared_element_by_element() {
    let (_, d) = crate::fixtures::load("embedded-element-updates");
    let p = plan(&d, "bump_tier_lines");
    assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(
        p.steps[0].updates,
        vec![UpdateOp::SetElements {
            path: "purchase_lines".into(),
            fields: Vec::new(),
            adds: vec![UpdateOp::Inc {
                path: "qty".into(),
                by: Some(1.0),
                amount: None,
            }],
        }]
    );
    let test = r#"{"$and": [{"$eq": ["$$e.tier", tier_id]}, {"$lt": ["$$e.qty", "$$e.cap"]}]}"#;
    let filter = format!(
        r#"({{"purchase_lines.tier": tier_id, "$expr": {{"$anyElementTrue": [{{"$map": {{"input": "$purchase_lines", "as": "e", "in": {test}}}}}]}}}}"#
    );
    let update = format!(
        r#"[{{"$set": {{"purchase_lines": {{"$map": {{"input": "$purchase_lines", "as": "e", "in": {{"$cond": [{test}, {{"$mergeObjects": ["$$e", {{"qty": {{"$add": ["$$e.qty", {{"$literal": 1}}]}}}}]}}, "$$e"]}}}}}}}}}}]"#
    );
    for text in code(&d, "bump_tier_lines") {
        assert!(text.contains(&format!("{filter}, {update}")), "{text}");
        assert!(!text.contains("\"$purchase_lines.qty\""), "{text}");
        assert!(!text.to_lowercase().contains("arrayfilters"), "{text}");
        assert!(!text.contains("array_filters"), "{text}");
    }
    // The caller's amount, added before the test and to the value.
    let fits = r#"{"$lte": [{"$add": ["$$e.qty", amount]}, "$$e.cap"]}"#;
    let added = r#"{"qty": {"$add": ["$$e.qty", {"$literal": amount}]}}"#;
    for text in code(&d, "fill_tier_lines") {
        assert!(text.contains(fits), "{text}");
        assert!(text.contains(added), "{text}");
    }
}

/// One line by its purchase and its id, the caller's amount added only
/// while it fits under the line's own cap: the filter tests that line
/// (`$anyElementTrue` of its id and the comparison on `$$e`) and the
/// positional `$` adds the amount to it. On the code before, the filter
/// was `{"$add": ["$purchase_lines.qty", amount]}`: the array of every
/// line's quantity, which MongoDB refuses to add to (issue 41).
#[test]
fn one_element_compares_its_own_fields_with_the_amount_added() {
    let (_, d) = crate::fixtures::load("embedded-element-updates");
    let p = plan(&d, "fill_line");
    assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    let any = r#""$expr": {"$anyElementTrue": [{"$map": {"input": "$purchase_lines", "as": "e", "in": {"$and": [{"$eq": ["$$e._id", line_id]}, {"$lte": [{"$add": ["$$e.qty", amount]}, "$$e.cap"]}]}}}]}}, {"$inc": {"purchase_lines.$.qty": amount}}"#;
    for text in code(&d, "fill_line") {
        assert!(text.contains(any), "{text}");
        assert!(!text.contains("\"$purchase_lines.qty\""), "{text}");
    }
}

/// Every line of one purchase under a condition on each: a constant
/// (`qty > 0`) names the lines (`$[e]`, the condition in `arrayFilters`);
/// two fields (`qty < cap`) rewrite them by a pipeline tested on each. On
/// the code before, the first wrote `$set purchase_lines.$[].qty` (every
/// line, to a value the caller passed) beside `$inc purchase_lines.$.qty`,
/// and the second left the comparison out (issue 41).
#[test]
fn a_documents_elements_under_a_condition_are_named_by_it() {
    let (_, d) = crate::fixtures::load("embedded-element-updates");
    let p = plan(&d, "restock_purchase_lines");
    assert_eq!(
        p.steps[0].updates,
        vec![UpdateOp::Inc {
            path: "purchase_lines.$[e].qty".into(),
            by: Some(1.0),
            amount: None,
        }]
    );
    for text in code(&d, "restock_purchase_lines") {
        assert!(
            text.contains(r#"{"$inc": {"purchase_lines.$[e].qty": 1}}"#),
            "{text}"
        );
        assert!(text.contains(r#"{"e.qty": {"$gt": 0}}"#), "{text}");
    }
    let p = plan(&d, "bump_purchase_lines");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert!(
        matches!(&p.steps[0].updates[..], [UpdateOp::SetElements { path, .. }] if path == "purchase_lines"),
        "{:?}",
        p.steps[0].updates
    );
    let cond = r#"{"$cond": [{"$lt": ["$$e.qty", "$$e.cap"]}, {"$mergeObjects": ["$$e", {"qty": {"$add": ["$$e.qty", {"$literal": 1}]}}]}, "$$e"]}"#;
    for text in code(&d, "bump_purchase_lines") {
        assert!(text.contains(cond), "{text}");
    }
}
