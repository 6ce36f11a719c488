//! A bounded array read whole with its parent (issue 41): the stated
//! maximum and a byte budget decide whether it is embedded, not the fixed
//! count cap, which stays where the maximum is unknown or only part of the
//! array is read.

use super::design_of as design;
use crate::design::Layout;

/// A thread and its replies: at most 500 replies of about 500 bytes each
/// (about 245 KiB), every read of a thread shows all of them.
pub(super) const THREAD: &str = "
name: threads
entities:
  thread:
    count: 100000
    fields:
      title: string(80)
  reply:
    count: 5000000
    fields:
      author: string(20)
      body: string(440)
      posted_at: date
relationships:
  replies:
    parent: thread
    child: reply
    children: {min: 0, typical: 50, max: 500}
operations:
  thread_page:
    read: thread
    rate: 2000
    filter: {_id: eq}
    include:
      replies: {}
  reply:
    insert: reply
    links: [replies]
    rate: 20
";

fn chosen(yaml: &str) -> Layout {
    design(yaml)
        .relationships
        .iter()
        .find(|r| r.relationship == "replies")
        .unwrap()
        .chosen
        .clone()
}

#[test]
fn a_stated_maximum_read_whole_embeds_past_the_count_cap() {
    assert_eq!(chosen(THREAD), Layout::Embed);
}

/// Near misses, each one fact away from the case above: the count cap
/// (200) decides again, so 500 replies are not embedded.
#[test]
fn the_count_cap_stays_where_the_array_is_not_known_or_not_read_whole() {
    let unknown = THREAD.replace("max: 500}", "max: unbounded}");
    let a_page = THREAD.replace("replies: {}", "replies: {limit: 25}");
    let some = THREAD.replace("replies: {}", "replies: {filter: {posted_at: range}}");
    let alone =
        format!("{THREAD}  one_reply:\n    read: reply\n    rate: 5\n    filter: {{_id: eq}}\n");
    for (what, yaml) in [
        ("no stated maximum", unknown),
        ("a page of the replies", a_page),
        ("some of the replies", some),
        ("a reply read on its own", alone),
    ] {
        assert_ne!(chosen(&yaml), Layout::Embed, "{what}");
    }
}

/// Past the byte budget (1 MiB): 5,000 replies of about 500 bytes take
/// about 2.4 MiB, so the array is not embedded, though read whole.
#[test]
fn the_byte_budget_bounds_a_stated_maximum() {
    let many = THREAD.replace("max: 500}", "max: 5000}");
    assert_ne!(chosen(&many), Layout::Embed);
}

/// A child that another relationship also reaches (a reply that is also
/// its author's) is not only read with this parent: the count cap stays.
#[test]
fn a_child_with_another_parent_keeps_the_count_cap() {
    let two = THREAD
        .replace(
            "  reply:\n    count",
            "  author:\n    count: 10000\n    fields:\n      name: string(20)\n  reply:\n    count",
        )
        .replace(
            "operations:",
            "  written:\n    parent: author\n    child: reply\n    children: {min: 0, typical: 500, max: unbounded}\n    child_field: author_id\noperations:",
        );
    assert_ne!(chosen(&two), Layout::Embed);
}

/// Forums as tenants (audit48 B1): a reply's link to its forum is not
/// another parent, since the thread that embeds it holds the same forum.
fn under_a_forum(thread: &str) -> String {
    thread
        .replace(
            "name: threads\n",
            "name: threads\ntenant: {entity: forum, largest: 0.05}\n",
        )
        .replace(
            "entities:\n",
            "entities:\n  forum:\n    count: 500\n    fields:\n      name: string(20)\n",
        )
        .replace(
            "relationships:\n",
            "relationships:\n  threads:\n    parent: forum\n    child: thread\n    children: {min: 0, typical: 200, max: 20000}\n    child_field: forum\n",
        )
}

#[test]
fn a_bounded_array_read_whole_embeds_under_a_tenant() {
    assert_eq!(chosen(&under_a_forum(THREAD)), Layout::Embed);
}

/// The near miss: a reply the tenant reads on its own (a forum's newest
/// replies) is not only read with its thread, so the count cap stays.
#[test]
fn replies_the_tenant_reads_keep_the_count_cap() {
    let newest = format!(
        "{}  newest_replies:\n    read: forum\n    rate: 5\n    filter: {{_id: eq}}\n    include:\n      forum_of_reply: {{limit: 20}}\n",
        under_a_forum(THREAD)
    );
    assert_ne!(chosen(&newest), Layout::Embed);
}
