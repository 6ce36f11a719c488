//! Figures over a subset of the children kept in the parent (fixture
//! `subset-figures`: the open tickets of a queue, counted and their cost
//! summed). Every write that can move them moves them by the child's own
//! share: the insert by the new ticket's, the delete by the found
//! ticket's, an update by its share after less its share before, the
//! ticket as its `findOneAndUpdate` returned it.

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

/// Each write of a ticket moves the open figures by the ticket's share,
/// never by one the caller passes, and an update reads the ticket as it
/// was in the same write.
#[test]
fn each_write_moves_the_subset_figures_by_the_childs_share() {
    let (_, d) = crate::fixtures::load("subset-figures");
    let args = r#""status", "$eq", "open""#;
    let [sh, node, py] = code(&d, "open_ticket");
    assert!(
        py.contains(&format!("_share(new_ticket, {args}, None)")),
        "{py}"
    );
    assert!(
        py.contains(&format!("_share(new_ticket, {args}, \"cost\")")),
        "{py}"
    );
    for js in [&sh, &node] {
        assert!(
            js.contains(&format!("share(new_ticket, {args}, null)")),
            "{js}"
        );
    }
    for name in ["set_status", "reprice"] {
        let [sh, node, py] = code(&d, name);
        assert!(py.contains("find_one_and_update("), "{py}");
        assert!(py.contains("return_document=False"), "{py}");
        assert!(py.contains("_moved(ticket, "), "{py}");
        assert!(sh.contains("\"returnNewDocument\": false"), "{sh}");
        assert!(node.contains("\"returnDocument\": \"before\""), "{node}");
        for text in [&sh, &node, &py] {
            assert!(text.contains(r#""queue_id": 1"#), "{text}");
            assert!(text.contains(r#""status": 1"#), "{text}");
            // The parent is the one the ticket referenced, not the caller's.
            assert!(
                !text.contains("queue_id)") || text.contains("ids(ticket"),
                "{text}"
            );
        }
        assert!(!py.contains("add_tickets"), "{py}");
    }
    let [sh, node, py] = code(&d, "drop_ticket");
    assert!(
        py.contains(&format!("-sum(_share(d, {args}, None) for d in ticket)")),
        "{py}"
    );
    for js in [&sh, &node] {
        assert!(
            js.contains(&format!(
                "ticket.reduce((s, d) => s - share(d, {args}, null), 0)"
            )),
            "{js}"
        );
    }
    assert!(!py.contains("minus_tickets"), "{py}");
}

/// The read of the queue answers from the kept figures: no step over the
/// tickets.
#[test]
fn the_read_uses_the_kept_figures() {
    let (_, d) = crate::fixtures::load("subset-figures");
    let page = d
        .operations
        .iter()
        .find(|o| o.operation == "queue_page")
        .expect("queue_page");
    assert_eq!(page.steps.len(), 1);
    assert_eq!(page.steps[0].collection, "queue");
}

/// Against the server, in each language
/// (scripts/testenv/check_subset_figures.py): after each write of a
/// sequence (tickets opened in and out of the subset, closed, reopened,
/// repriced, deleted, and a write of a missing one), each queue's kept
/// figures equal its open tickets recomputed.
#[test]
fn subset_figures_follow_every_write_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("subset-figures");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("subset-figures", "squill_subset_figures", true),
        ("check_subset_figures.py", &[]),
    );
    let steps = [
        "open_ticket(t1, open, 10)",
        "open_ticket(t2, pending, 5)",
        "open_ticket(t3, open, 7)",
        "open_ticket(t4, open, 3)",
        "set_status(t1, closed)",
        "set_status(t2, open)",
        "set_status(t3, open)",
        "reprice(t3, 20)",
        "reprice(t1, 100)",
        "set_status(t1, open)",
        "set_status(t4, pending)",
        "set_status(missing, closed)",
        "drop_ticket(t3)",
        "drop_ticket(t4)",
    ];
    let lines: Vec<String> = steps
        .iter()
        .map(|s| format!("ok: {{lang}} after {s}: the kept figures equal the open tickets"))
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    says_in_each_language(&out, "", &lines);
}

/// The subset-figures model with one more write of tickets.
fn with_write(write: &str) -> crate::design::Design {
    let (_, text) = crate::fixtures::FILES
        .iter()
        .find(|(n, _)| *n == "subset-figures")
        .expect("the fixture");
    let yaml = format!("{text}{write}");
    let model = crate::inputs::model_file::parse("sf.yaml", &yaml).expect("a valid model");
    crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("a design")
}

/// A write that cannot learn each child's share leaves a figure over a
/// subset computed at read time, not kept: a delete of many tickets by
/// a filter (its per-queue counts down count every ticket), a move of a
/// ticket to another queue (filtagg48's open list, review48 B6), and a
/// sweep that changes the tested field of many tickets in one
/// `updateMany` (review49 A2).
#[test]
fn a_write_that_cannot_move_a_subset_figure_leaves_it_computed() {
    for write in [
        "  purge_closed:\n    delete: ticket\n    filter: {status: eq}\n    rate: 0.01\n",
        "  move_ticket:\n    update: ticket\n    filter: {_id: eq}\n    relinks: [tickets]\n    rate: 1\n",
        "  close_all:\n    update: ticket\n    filter: {status: eq}\n    changes: [status]\n    multi: true\n    rate: 0.01\n",
    ] {
        let d = with_write(write);
        let queue = d
            .collections
            .iter()
            .find(|c| c.name == "queue")
            .expect("queue");
        let example = queue.example.to_string();
        assert!(
            !example.contains("tickets_count_status_open"),
            "{write}: kept: {example}"
        );
        let page = d
            .operations
            .iter()
            .find(|o| o.operation == "queue_page")
            .expect("queue_page");
        assert!(
            page.steps.iter().any(|s| s.collection == "ticket"),
            "{write}: {:#?}",
            page.steps
        );
    }
}
