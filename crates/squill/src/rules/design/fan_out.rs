//! `fan-out`: Price a feed read on demand (fan-out on read) against copying each new item into every follower's timeline (fan-out on write), with the outliers left to read time.

crate::rules::declare_rule! {
    id: "fan-out",
    summary: "Price a feed read on demand (fan-out on read) against copying each new item into every follower's timeline (fan-out on write), with the outliers left to read time",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB blog: Building with Patterns: The Outlier Pattern"],
    check: Relationship { order: 157, check },
}

use crate::candidates::placement::{CHECKPOINT_SECONDS, ELEMENT};
use crate::design::{Layout, Side};
use crate::candidates::feed::feeds;
use crate::model::RelationshipId;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// A feed read of the children of the relationship judged (posts whose
/// author the user follows): its rate, limit and edge relationships.
struct Feed {
    operation: String,
    rate: f64,
    limit: u64,
    followers: RelationshipId,
    following: RelationshipId,
}

fn feed(cx: &RelCheck<'_>) -> Option<Feed> {
    let model = cx.facts.model;
    let f = feeds(model).into_iter().find(|f| f.items == cx.r)?;
    let op = model.operation(f.operation);
    Some(Feed {
        operation: op.name.clone(),
        rate: op.rate(cx.facts.mix),
        limit: f.limit,
        followers: f.followers,
        following: f.following,
    })
}

/// On a layout that keeps the children apart with their parent's id, says
/// what copying each new child into its parent's followers' timelines would
/// cost against the queries it saves, and which authors (past the
/// followers' percentile) stay read at feed time.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(
        cx.layout,
        Layout::ParentReference
            | Layout::TwoWayReferences
            | Layout::ExtendedReference {
                copies_into: Side::Child,
                ..
            }
    ) {
        return None;
    }
    let feed = feed(cx)?;
    let model = cx.facts.model;
    let c = &cx.facts.settings.design.costs;
    let followers = &model.relationship(feed.followers).children;
    let followed = cx.facts.typical(feed.following);
    let items = words::plural(&cx.child());
    let parent = cx.parent();
    let new_per_second = cx.rf().child_inserts;
    // Fan-out on write pushes each item to the followers of authors up to
    // the percentile; those above it are read at feed time in both designs.
    let (pushed, outliers) = match followers.highest_percentile() {
        Some((name, t)) => (
            followers.mean_at_most(t).unwrap_or(followers.typical as f64),
            format!(
                "; the {} of {}s above the {name} ({} followers, up to {}) stay read at feed time",
                if name == "p99" { "1%" } else { "5%" },
                parent,
                words::num(t as f64),
                followers
                    .max
                    .finite()
                    .map_or("no bound".to_string(), |m| words::num(m as f64)),
            ),
        ),
        None => (followers.typical as f64, String::new()),
    };
    let writes = new_per_second * pushed;
    // What a read on demand pays over one read of a ready timeline: a
    // query for the follows and their keys and documents.
    let saved = feed.rate
        * (c.round_trip + followed * (c.document_examined + 2.0 * c.index_key));
    // Each push adds an item to a timeline of `limit` items. WiredTiger
    // journals the item and writes the whole timeline again at each
    // checkpoint while it keeps changing, as a bucket's pushes are priced:
    // a timeline pushed to once every 27 s is written whole about every
    // other push. Each pushed item is a copy of the new one: a sync write.
    let item = ELEMENT + cx.facts.own_bytes[cx.rel().child.index()];
    let whole = feed.limit as f64 * item;
    let readers = cx.facts.count(model.relationship(feed.following).parent).max(1.0);
    let every = readers / writes.max(f64::MIN_POSITIVE);
    let rewritten = (CHECKPOINT_SECONDS / every).max(1.0).recip();
    let push = item + rewritten * whole;
    let cost = writes * (c.document_written + c.sync_write + push * c.byte_written + c.index_key);
    let verdict = if cost > saved {
        "fan-out on read costs less"
    } else {
        "fan-out on write would cost less (entity candidate timeline)"
    };
    Some(Judgement::Support(format!(
        "{} ({}/s, {} {items} each) reads on demand: a query for the {} {}s followed, then their latest {items}; fan-out on write would copy each of {} new {items}/s into about {} timelines: {} timeline writes/s, each adding {} to a timeline of {} that checkpoints write again whole every {} (about {} a push; a score of {}), to save 1 round trip and {} follows read per feed (a score of {}){outliers}; {verdict}",
        feed.operation,
        words::num(feed.rate),
        words::num(feed.limit as f64),
        words::num(followed),
        parent,
        words::num(new_per_second),
        words::num(pushed),
        words::num(writes),
        words::bytes(item),
        words::bytes(whole),
        seconds(every.max(CHECKPOINT_SECONDS)),
        words::bytes(push),
        words::num(cost),
        words::num(followed),
        words::num(saved),
    )))
}

/// `60 s`, `27 s`: a period in whole seconds.
fn seconds(s: f64) -> String {
    format!("{} s", words::num(s.round()))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        let verdict = judge(&RULE, &example("scenarios/s14-follow-graph.yaml"), "posts", "parent-reference");
        assert!(verdict.starts_with("support: home_timeline (100,000/s, 50 posts each) reads on demand"), "{verdict}");
        assert!(verdict.contains("above the p99 (5,000 followers, up to 80,000,000)"), "{verdict}");
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("scenarios/s14-follow-graph.yaml"), "posts", "embed"), "-");
        assert_eq!(judge(&RULE, &example("host-logs.yaml"), "messages", "parent-reference"), "-");
    }
}
