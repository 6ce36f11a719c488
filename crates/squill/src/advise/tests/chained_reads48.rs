//! Reads through a chain of hops and writes by a shared id (audit48, issue
//! 41), each a class: a chained filter through a child embedded in its
//! parent (A1), a sorted read by the ids a step found (A8), and a delete
//! whose filter holds an extended reference's id (A7).

use super::{design_of as design, plan_of as plan};
use crate::design::{Design, FilterOp, ValueSource};

/// Stories of users, follows between users by their two ends, and the
/// tray: the stories of every author the caller follows, newest first.
/// `pins` adds a `layout:` line to the relationship it names.
fn social(pin_stories: &str, pin_following: &str) -> String {
    format!(
        "name: social
entities:
  user:
    count: 2000000
    fields:
      handle: {{type: string(16), unique: true}}
      avatar: string(60)
  story:
    count: 4000000
    fields:
      media_url: string(80)
      posted_at: date
  follow:
    count: 400000000
    fields:
      since: date
relationships:
  stories:
    parent: user
    child: story
    children: {{min: 0, typical: 2, max: 100}}
    child_field: author
{pin_stories}  followers:
    parent: user
    child: follow
    children: {{min: 0, typical: 200, max: 3000000}}
    child_field: followee
  following:
    parent: user
    child: follow
    children: {{min: 0, typical: 200, max: 7500}}
    child_field: follower
{pin_following}operations:
  post_story:
    insert: story
    links: [stories]
    rate: 50
  story_tray:
    read: story
    filter: {{author.followers.follower: eq}}
    sort: -posted_at
    limit: 100
    rate: 600
  follow_user:
    insert: follow
    links: [followers, following]
    rate: 30
  unfollow:
    delete: follow
    filter: {{followee: eq, follower: eq}}
    rate: 8
  followers_page:
    read: follow
    filter: {{followee: eq}}
    sort: -since
    limit: 50
    include:
      follower: {{fields: [handle, avatar]}}
    rate: 20
"
    )
}

fn indexes_of(d: &Design, coll: &str) -> Vec<String> {
    d.collections
        .iter()
        .filter(|c| c.name == coll)
        .flat_map(|c| c.indexes.iter().map(|i| i.name.clone()))
        .collect()
}

/// Stories embedded in their author: the tray finds the follows by the
/// caller (the followees' ids), then the authors by `_id: {$in: ids}`,
/// and unwinds their stories. It once queried `user {followers: eq}`, a
/// field no user has, with an index `followers_1` of nulls: the tray was
/// always empty. Each host holds 2 stories: all 200 are read to sort.
#[test]
fn a_chain_through_an_embedded_hop_finds_the_hosts_by_the_ids_beyond() {
    let d = design(&social("    layout: embed\n", ""));
    let p = plan(&d, "story_tray");
    assert_eq!(p.steps.len(), 2, "{:#?}", p.steps);
    let (first, second) = (&p.steps[0], &p.steps[1]);
    assert_eq!(first.collection, "follow");
    assert_eq!(second.collection, "user");
    let by: Vec<(&str, FilterOp, &ValueSource)> = second
        .filter
        .iter()
        .map(|f| (f.path.as_str(), f.op, &f.value_from))
        .collect();
    assert_eq!(
        by,
        vec![("_id", FilterOp::In, &ValueSource::FromStep { step: 1 })]
    );
    assert!(
        !indexes_of(&d, "user")
            .iter()
            .any(|i| i.starts_with("followers")),
        "{:?}",
        indexes_of(&d, "user")
    );
    // 200 follows, then the 200 authors they name, read whole to sort
    // their 400 stories.
    assert!(
        (p.cost.documents_examined - 400.0).abs() < 1.0,
        "{:?}",
        p.cost
    );
}

/// Stories in their own collection: the page is 100 of the 200 authors'
/// 400 stories, and the `$in` of 200 authors sorted on `posted_at`
/// merges 200 ranges of `{author, posted_at}` (a key each, then the page):
/// 300 keys and 100 stories after the 200 follows. It was priced at one
/// author's 2 stories (202 documents, 202 keys).
#[test]
fn a_sorted_read_by_the_ids_of_a_step_walks_a_range_per_id() {
    let d = design(&social("    layout: parent-reference\n", ""));
    let p = plan(&d, "story_tray");
    assert_eq!(p.steps.len(), 2, "{:#?}", p.steps);
    let second = &p.steps[1];
    assert_eq!(second.collection, "story");
    assert!((second.documents - 100.0).abs() < 1e-9, "{second:#?}");
    assert!(
        (p.cost.documents_examined - 300.0).abs() < 1.0,
        "{:?}",
        p.cost
    );
    assert!(
        (p.cost.index_keys_examined - 500.0).abs() < 1.0,
        "{:?}",
        p.cost
    );
}

/// The follower kept as an extended reference (`follower._id` and its
/// handle): a delete by both ends finds the one follow by an index over
/// both, 1 key. It once took `follower._id` as one document's key and
/// used `follower._id_1`, which walks the follower's 200 follows (7,500
/// at the max), priced as 1 key.
#[test]
fn a_delete_by_a_shared_reference_id_needs_its_filters_index() {
    let d = design(&social("", "    layout: extended-reference\n"));
    let p = plan(&d, "unfollow");
    let s = &p.steps[0];
    let paths: Vec<&str> = s.filter.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&"follower._id"), "{paths:?}");
    let index = s.index.clone().unwrap_or_default();
    let keys = &d
        .collections
        .iter()
        .find(|c| c.name == s.collection)
        .unwrap()
        .indexes
        .iter()
        .find(|i| i.name == index)
        .unwrap_or_else(|| panic!("{index}"))
        .keys;
    let names: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    assert!(names.contains(&"follower._id"), "{names:?}");
    assert!(names.contains(&"followee"), "{names:?}");
    assert!(
        (p.cost.index_keys_examined - 1.0).abs() < 1e-9,
        "{:?}",
        p.cost
    );
}

/// review48 A8: under `tenant: space`, every step of the tray names the
/// space, the hop on the follows too (it was `find follow { follower: eq
/// }` on `follower_1`), and the follows' index leads with it. The space
/// keeps every follow of the caller (a follower lies in one space): still
/// 200 follows, then the 200 authors' 400 stories.
#[test]
fn each_step_of_a_chained_read_names_the_tenant() {
    let text = social("    layout: embed\n", "")
        .replace("name: social\n", "name: social\ntenant: space\n")
        .replace("entities:\n", "entities:\n  space: {count: 1000, fields: {name: string(20)}}\n")
        .replace(
            "relationships:\n",
            "relationships:\n  members: {parent: space, child: user, children: {typical: 2000, max: 100000}, child_field: space}\n",
        );
    let d = design(&text);
    let p = plan(&d, "story_tray");
    assert_eq!(p.steps.len(), 2, "{:#?}", p.steps);
    for s in &p.steps {
        assert_eq!(
            s.filter.first().map(|f| (f.path.as_str(), f.op)),
            Some(("space", FilterOp::Eq)),
            "{} {:?}",
            s.collection,
            s.filter
        );
    }
    assert_eq!(p.steps[0].collection, "follow");
    let index = p.steps[0].index.clone().unwrap_or_default();
    assert!(index.starts_with("space_1_follower_1"), "{index}");
    assert!(
        (p.cost.documents_examined - 400.0).abs() < 1.0,
        "{:?}",
        p.cost
    );
}
