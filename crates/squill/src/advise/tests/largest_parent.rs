//! A fan-out read states what it costs at the relationship's largest
//! parent beside the typical price (audit48 B3): the follows of a user
//! who follows the `max`, and the `$in` of their ids, not only the
//! typical user's.

use super::golden::example;
use crate::advise::advise;
use crate::design::StepLargest;
use crate::settings::Settings;

/// S14's home timeline: 150 followees typically, 8,000 at most. The plan
/// is priced at 150; the largest reader's 8,000 follows and the `$in` of
/// 8,000 authors (8,000 ranges merged, then the page of 50) are stated
/// beside it, and the price does not move.
#[test]
fn a_fan_out_read_states_the_largest_parent() {
    let d = advise(
        &example("scenarios/s14-follow-graph"),
        &Settings::default(),
        None,
    )
    .expect("a design");
    let plan = d
        .operations
        .iter()
        .find(|o| o.operation == "home_timeline")
        .expect("home_timeline");
    let largest: Vec<Option<&StepLargest>> =
        plan.steps.iter().map(|s| s.largest.as_deref()).collect();
    let [Some(follows), Some(posts)] = largest[..] else {
        panic!("both steps state the largest parent: {largest:#?}");
    };
    assert_eq!(
        (follows.parent.as_str(), follows.children),
        ("user", 8_000.0)
    );
    assert_eq!((follows.documents, follows.ids), (8_000.0, None));
    assert_eq!(posts.ids, Some(8_000.0));
    assert_eq!((posts.documents, posts.keys), (50.0, 8_050.0));
    // The price stays the typical reader's.
    assert_eq!(plan.steps[0].documents, 150.0);
}
