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
use crate::model::RelationshipId;
use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A feed read on demand, and what fan-out on write would cost instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FanOut {
    /// The feed read, its rate and the items it takes.
    pub feed: String,
    pub feed_rate: Figure,
    pub limit: Figure,
    pub parent: String,
    pub child: String,
    /// Parents one reader follows, typically.
    pub followed: Figure,
    /// New children per second, and their batches when inserts bring many.
    pub new_items: Figure,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<super::subset::Batches>,
    /// Timelines each new child would be pushed into.
    pub pushed: Figure,
    /// Timeline writes per second (`new_items` × `pushed`).
    pub writes: Figure,
    /// One pushed item, and the timeline it joins.
    pub item: Figure,
    pub timeline: Figure,
    /// How often a timeline is written again whole, at the least a checkpoint.
    pub rewritten_every: Figure,
    /// What one push writes, on average.
    pub push: Figure,
    /// The cost model's score of the pushes, and of the reads they save.
    pub write_score: Figure,
    pub saved_score: Figure,
    /// Parents above the followers' percentile, read at feed time.
    pub outliers: Option<Outliers>,
    /// Whether fan-out on read costs less (else: on write would).
    pub on_read_costs_less: bool,
}

/// The followers' percentile past which parents are not pushed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outliers {
    /// `p95` or `p99`.
    pub percentile: String,
    pub followers: Figure,
    /// The most followers a parent has (`null`: no bound).
    pub max: Option<Figure>,
}

explain!(FanOut, |w| {
    let items = words::plural(&w.child);
    let parent = &w.parent;
    let parents = words::plural(parent);
    let outliers = w.outliers.as_ref().map_or(String::new(), |o| {
        format!(
            "; the {} of {parents} above the {} ({} followers, up to {}) stay read at feed time",
            if o.percentile == "p99" { "1%" } else { "5%" },
            o.percentile,
            words::num(o.followers.value),
            o.max.map_or("no bound".to_string(), |m| words::num(m.value)),
        )
    });
    let verdict = if w.on_read_costs_less {
        "fan-out on read costs less"
    } else {
        "fan-out on write would cost less (entity candidate timeline)"
    };
    format!(
        "{} ({}/s, {} {items} each) reads on demand: a query for the {} {parents} followed, then their latest {items}; fan-out on write would copy each of {} new {items}/s{} into about {} timelines: {} timeline writes/s, each adding {} to a timeline of {} that checkpoints write again whole every {} (about {} a push; a score of {}), to save 1 round trip and {} follows read per feed (a score of {}){outliers}; {verdict}",
        w.feed,
        words::num(w.feed_rate.value),
        words::num(w.limit.value),
        words::num(w.followed.value),
        words::num(w.new_items.value),
        super::subset::in_batches(&w.new_items, w.batches.as_ref()),
        words::num(w.pushed.value),
        words::num(w.writes.value),
        words::bytes(w.item.value),
        words::bytes(w.timeline.value),
        seconds(w.rewritten_every.value),
        words::bytes(w.push.value),
        words::num(w.write_score.value),
        words::num(w.followed.value),
        words::num(w.saved_score.value),
    )
});

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
    let f = cx.facts.feeds.iter().find(|f| f.items == cx.r)?;
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
    let new_per_second = cx.rf().child_inserts;
    // Fan-out on write pushes each item to the followers of authors up to
    // the percentile; those above it are read at feed time in both designs.
    let (pushed, outliers) = match followers.highest_percentile() {
        Some((name, t)) => (
            followers.mean_at_most(t).unwrap_or(followers.typical as f64),
            Some(Outliers {
                percentile: name.to_string(),
                followers: Figure::count(t as f64),
                max: Figure::max(followers.max),
            }),
        ),
        None => (followers.typical as f64, None),
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
    Some(Judgement::support(FanOut {
        feed: feed.operation,
        feed_rate: Figure::per_second(feed.rate),
        limit: Figure::count(feed.limit as f64),
        parent: cx.parent(),
        child: cx.child(),
        followed: Figure::count(followed),
        new_items: Figure::per_second(new_per_second),
        batches: super::subset::Batches::of(cx.rf()),
        pushed: Figure::count(pushed),
        writes: Figure::per_second(writes),
        item: Figure::bytes(item),
        timeline: Figure::bytes(whole),
        rewritten_every: Figure::seconds(every.max(CHECKPOINT_SECONDS)),
        push: Figure::bytes(push),
        write_score: Figure::count(cost),
        saved_score: Figure::count(saved),
        outliers,
        on_read_costs_less: cost > saved,
    }))
}

/// `60 s`, `27 s`: a period in whole seconds.
fn seconds(s: f64) -> String {
    format!("{} s", words::num(s.round()))
}

#[cfg(test)]
mod tests {
    use super::{FanOut, Outliers, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        let got: FanOut = support(&RULE, &example("scenarios/s14-follow-graph.yaml"), "posts", "parent-reference");
        assert_eq!(got.feed, "home_timeline");
        assert_eq!((got.feed_rate, got.limit), (Figure::per_second(100_000.0), Figure::count(50.0)));
        assert_eq!(
            got.outliers,
            Some(Outliers {
                percentile: "p99".into(),
                followers: Figure::count(5_000.0),
                max: Some(Figure::count(80_000_000.0))
            })
        );
        assert_eq!(got.writes.value, got.new_items.value * got.pushed.value);
        assert_eq!(got.on_read_costs_less, got.write_score.value > got.saved_score.value);
    }

    /// Posts imported 500 at a time push 500 items at once: the reason
    /// says the new posts come in batches, and names the parents in the
    /// plural English gives them (issue 41: "a query for the 150 persons"
    /// came from the parent's name with an `s`).
    #[test]
    fn posts_in_batches_and_plural_parents_say_so() {
        let model = example("scenarios/s14-follow-graph.yaml").replace(
            "    links: [posts]\n    rate: 5000\n",
            "    links: [posts]\n    rate: 10\n    count: 500\n",
        );
        assert!(model.contains("count: 500"), "the insert is made a batch");
        let got: FanOut = support(&RULE, &model, "posts", "parent-reference");
        let text = crate::design::reason::Explain::words(&got);
        assert!(text.contains(" new posts/s, in batches of 500 ("), "{text}");
        let people = model.replace("user", "person");
        let got: FanOut = support(&RULE, &people, "posts", "parent-reference");
        let text = crate::design::reason::Explain::words(&got);
        assert!(text.contains(" people followed,") && text.contains("% of people above"), "{text}");
    }

    /// Near miss: the same posts by reference, read by author rather than
    /// through whom the reader follows: no feed to push into.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("scenarios/s14-follow-graph.yaml")
            .replace("filter: {author.followers.follower: eq}", "filter: {author: eq}");
        assert_eq!(judge(&RULE, &model, "posts", "parent-reference"), "-");
    }
}
