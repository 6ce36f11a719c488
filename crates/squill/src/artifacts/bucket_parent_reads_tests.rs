//! Children kept in buckets read by their parent, or included from it
//! (issue 41): the newest children the read asks for, across as many
//! buckets as hold them, sorted and cut by its own limit; not the buckets.
//! They once came back whole: two pages of 100 readings for "the last
//! 50". Buckets of a count only (`include_bucket_elements` says why).

use super::external_tests::{run_check_script, says_in_each_language, server_tools};

/// Each read's step unwinds the children, sorts them newest first and
/// cuts them to the read's limit; the buckets' own order and count move
/// ahead of the unwinding, priced as before (the buckets read).
#[test]
fn reads_by_the_parent_and_includes_return_the_newest_children() {
    let (_, d) = crate::fixtures::load("bucket-parent-reads");
    for (name, array, time, limit) in [
        ("last_readings", "readings", "readings.time", 50),
        ("sensor_latest", "readings", "readings.time", 50),
        ("article_page", "comments", "comments.at", 20),
    ] {
        let p = d
            .operations
            .iter()
            .find(|p| p.operation == name)
            .unwrap_or_else(|| panic!("no plan for {name}"));
        let s = p.steps.last().expect("a step");
        assert_eq!(s.elements.as_deref(), Some(array), "{name}: {s:?}");
        assert_eq!(s.sort, vec![(time.to_string(), -1)], "{name}");
        assert_eq!(s.limit, Some(limit), "{name}");
        let order = s.bucket_order.as_deref().expect("the buckets' order");
        assert_eq!(order.limit, Some(2), "{name}: {order:?}");
    }
}

/// Against the server, in each language (scripts/testenv/
/// check_bucket_parent_reads.py): 230 readings in pages of 100 give their
/// newest 50, 150 comments in two pages their newest 20.
#[test]
fn reads_by_the_parent_of_bucketed_children_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("bucket-parent-reads");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("bucket-parent-reads", "squill_bucket_parent_reads", false),
        ("check_bucket_parent_reads.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} last_readings: the newest 50, newest first",
            "ok: {lang} sensor_latest: the newest 50, newest first",
            "ok: {lang} article_page: the newest 20, newest first",
        ],
    );
}
