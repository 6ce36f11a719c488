//! Tests of the words for deep pages: a read's and an include's `paging`,
//! what they parse to, what they refuse and how the error says so.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const FORUM: &str = r"
name: forum
entities:
  thread:
    count: 2000000
    fields: {title: string(60)}
  post:
    count: 60000000
    fields: {text: string(400), created_at: date}
relationships:
  posts:
    parent: thread
    child: post
    children: {typical: 30, max: 50000}
    child_field: thread
operations:
  thread_page:
    read: post
    rate: 10500
    filter: {thread: eq}
    sort: created_at
    limit: 25
    paging: {by: skip, past_first: 0.05, depth: {typical: 20, max: 1000}}
  with_thread:
    read: thread
    rate: 10
    filter: {_id: eq}
    include:
      posts: {sort: created_at, limit: 25, paging: {by: keyset, past_first: 0.5, depth: {typical: 3}}}
";

fn op<'m>(m: &'m Model, name: &str) -> &'m Operation {
    m.workload
        .operations
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("{name}"))
}

#[test]
fn paging_parses_on_a_read_and_on_an_include() {
    let m = parse("forum.yaml", FORUM).unwrap_or_else(|e| panic!("{e}"));
    let page = op(&m, "thread_page").paging;
    assert_eq!(
        page,
        Some(Paging {
            by: PagingBy::Skip,
            past_first: 0.05,
            depth: 20.0,
            deepest: 1000.0,
            deepest_share: None,
        })
    );
    // 0.05 × 19 pages × 25 keys before the typical later page.
    assert!((page.map_or(0.0, |p| p.skipped(25)) - 23.75).abs() < 1e-9);
    assert_eq!(page.map(|p| p.deepest_skipped(25)), Some(24975.0));
    let OperationKind::Read { include, .. } = &op(&m, "with_thread").kind else {
        panic!("a read");
    };
    // `max` defaults to the typical page; keyset skips nothing.
    let inc = include[0].paging.unwrap_or_else(|| panic!("no paging"));
    assert_eq!(
        (inc.by, inc.depth, inc.deepest),
        (PagingBy::Keyset, 3.0, 3.0)
    );
    assert_eq!(inc.deepest_skipped(25), 0.0);
    // The read asked on the posts keeps its paging as the thread's include.
    let (_, as_include) = op(&m, "thread_page")
        .as_parent_include(&m)
        .unwrap_or_else(|| panic!("an include"));
    assert_eq!(as_include.paging, page);
}

#[test]
fn paging_is_by_keyset_or_skip() {
    let p = problems(&FORUM.replace("by: skip", "by: offset"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn paging_needs_a_limit() {
    let p = problems(&FORUM.replace("    limit: 25\n", ""));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn keyset_paging_needs_a_sort() {
    let p = problems(
        &FORUM
            .replace("    sort: created_at\n", "")
            .replace("by: skip", "by: keyset"),
    );
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn a_share_past_the_first_page_is_at_most_one() {
    let p = problems(&FORUM.replace("past_first: 0.05", "past_first: 5"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn the_deepest_page_is_at_least_the_typical_one() {
    let p = problems(&FORUM.replace("max: 1000", "max: 10"));
    insta::assert_snapshot!(p.join("\n"));
}

/// The executions that ask for the deepest page are some of those that
/// ask for a later page (audit48 B4's `max_share`).
#[test]
fn the_deepest_pages_share_is_part_of_past_first() {
    let p = problems(&FORUM.replace("max: 1000", "max: 1000, max_share: 0.2"));
    insta::assert_snapshot!(p.join("\n"));
    let m = parse(
        "forum.yaml",
        &FORUM.replace("max: 1000", "max: 1000, max_share: 0.002"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let page = op(&m, "thread_page").paging.expect("paged");
    assert_eq!(page.deepest_share, Some(0.002));
    // 0.048 × 19 × 25 + 0.002 × 999 × 25.
    assert!((page.skipped(25) - (22.8 + 49.95)).abs() < 1e-9, "{page:?}");
}

#[test]
fn paging_is_for_reads() {
    let p = problems(&FORUM.replace(
        "  with_thread:",
        "  add:\n    insert: post\n    links: [posts]\n    rate: 1\n    paging: {by: skip, past_first: 0.1, depth: {typical: 2}}\n  with_thread:",
    ));
    insta::assert_snapshot!(p.join("\n"));
}
