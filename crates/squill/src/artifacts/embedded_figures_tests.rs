//! Figures over children embedded in their parent, computed when the
//! parent is read (fixture `embedded-figures`: the open tickets of a
//! queue, counted and their cost summed, tickets that expire after 30
//! days). The parent's find computes each figure on the server over the
//! live elements that pass the aggregate's test, and returns the array
//! cut to its live elements (review48 A6: the whole array came back,
//! expired elements included, and no figure).

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

/// The plan: one find of the queue that returns the live tickets and the
/// two figures beside them, each over the live open tickets.
#[test]
fn an_embedded_aggregate_is_computed_in_the_parents_find() {
    let (_, d) = crate::fixtures::load("embedded-figures");
    let page = d
        .operations
        .iter()
        .find(|o| o.operation == "queue_page")
        .expect("queue_page");
    assert_eq!(page.steps.len(), 1, "{:#?}", page.steps);
    let slice = page.steps[0]
        .slices
        .iter()
        .find(|x| x.path == "tickets")
        .expect("the tickets returned with their figures");
    assert!(
        slice.unexpired.is_some(),
        "the array cut to its live tickets"
    );
    let names: Vec<&str> = slice.figures.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["tickets_count_status_open", "tickets_sum_cost_status_open"]
    );
    for f in &slice.figures {
        assert!(f.unexpired.is_some(), "{} over the live tickets", f.name);
        let test = f.test.as_ref().expect("the aggregate's test");
        assert_eq!(test.path, "status");
    }
    let ops = cookbook::op_codes(&d);
    let op = ops.iter().find(|o| o.name == "queue_page").expect("the op");
    let py = cookbook::python_function(op);
    let node = cookbook::node_function(op);
    for code in [&py, &node] {
        assert!(
            code.contains(r#""tickets_count_status_open": {"$size": {"$filter": {"input": {"$filter": {"input": {"$ifNull": ["$tickets", []]}, "cond": {"$eq": ["$$this.status", "open"]}}}"#),
            "{code}"
        );
        assert!(
            code.contains(r#""tickets_sum_cost_status_open": {"$sum": {"$map""#),
            "{code}"
        );
    }
    assert!(py.contains("_alive_since(2592000)"), "{py}");
}

/// Against the server, in each language
/// (scripts/testenv/check_embedded_figures.py): a queue of live and
/// expired, open and closed tickets gives the live open ones' number and
/// sum, and only its live tickets; a queue with no tickets gives 0 and 0.
#[test]
fn embedded_figures_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("embedded-figures");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("embedded-figures", "squill_embedded_figures", true),
        ("check_embedded_figures.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} queue_page(a): 2 open tickets costing 13, computed on the server",
            "ok: {lang} queue_page(a): the live tickets only",
            "ok: {lang} queue_page(b): 0 open tickets costing 0, computed on the server",
            "ok: {lang} queue_page(b): the live tickets only",
        ],
    );
}
