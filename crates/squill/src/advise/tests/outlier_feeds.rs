//! Feeds over follows kept as an outlier (feed44): most follows sit in the
//! followed parent's array, the rest in their own collection. Fan-out on
//! read finds the parents followed in both places; fan-out on write reads
//! a new item's parent's followers from its array.

use crate::design::{Action, EntityDecision, OperationPlan, Purpose, ValueSource};

fn plan<'d>(d: &'d crate::design::Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

/// The feed's first step once read the follow collection alone, which
/// holds only the follows past the array's threshold: the players followed
/// through their arrays were never found. Now the players holding the
/// reader in their array, and the follows apart, feed the results' query
/// together, and the two steps share the reader's follows between them.
#[test]
fn a_feed_over_outlier_follows_finds_the_followed_in_arrays_and_apart() {
    let (_, d) = crate::fixtures::outlier_feed();
    let feed = plan(&d, "friend_feed");
    let inside = feed
        .steps
        .iter()
        .position(|s| s.collection == "player" && s.filter[0].path == "followers.follower")
        .expect("a find of the players by their embedded followers");
    let apart = feed
        .steps
        .iter()
        .position(|s| s.collection == "follow" && s.filter[0].path == "follower")
        .expect("a find of the follows apart");
    assert_eq!(feed.steps[inside].projection, ["_id"]);
    assert_eq!(feed.steps[apart].projection, ["followed"]);
    let last = feed.steps.last().unwrap();
    assert_eq!(last.collection, "result");
    // The player's ids both steps found (after the game, the tenant).
    let by_player = last
        .filter
        .iter()
        .find(|f| f.path == "player")
        .expect("the players");
    assert_eq!(
        by_player.value_from,
        ValueSource::FromSteps {
            steps: vec![inside + 1, apart + 1]
        }
    );
    // The model's 20 follows a player typically has, split by the share
    // past the threshold.
    let found = feed.steps[inside].documents + feed.steps[apart].documents;
    assert!((found - 20.0).abs() < 1e-9, "{found}");
    assert!(feed.steps[apart].documents < feed.steps[inside].documents);
}

/// A new post's author's followers, with the follows embedded in the
/// author (the fixture pins `outlier`; its timeline threshold is below
/// the array's, so no follower of a pushed author lives apart): the
/// author's document by id, for its array's followers, feeds the push.
#[test]
fn a_timeline_over_embedded_followers_is_pushed_from_the_authors_array() {
    let (_, d) = crate::fixtures::load("feed-embedded-followers");
    assert!(
        d.entities
            .iter()
            .any(|e| matches!(e, EntityDecision::Timeline { .. })),
        "the timeline is a candidate with followers in the author's array"
    );
    let publish = plan(&d, "publish");
    let find = publish
        .steps
        .iter()
        .position(|s| {
            s.action == Action::Find
                && s.collection == "member"
                && s.purpose
                    .iter()
                    .any(|p| matches!(p, Purpose::FindFollowers { .. }))
        })
        .expect("the author's followers read from its document");
    assert_eq!(publish.steps[find].filter[0].path, "_id");
    assert_eq!(publish.steps[find].projection, ["followers.follower"]);
    let push = publish
        .steps
        .iter()
        .find(|s| {
            s.purpose
                .iter()
                .any(|p| matches!(p, Purpose::PushToTimelines { .. }))
        })
        .unwrap();
    assert_eq!(
        push.filter[0].value_from,
        ValueSource::FromStep { step: find + 1 }
    );
}
