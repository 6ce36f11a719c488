//! `timeline`: A feed of the newest items of the accounts a reader follows can be kept as a timeline document per reader, pushed by each new item (fan-out on write).

crate::rules::declare_rule! {
    id: "timeline",
    summary: "A feed of the newest items of the accounts a reader follows can be kept as a timeline document per reader, pushed by each new item (fan-out on write)",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "MongoDB blog: Building with Patterns: The Outlier Pattern"],
    check: Entity(check),
}

use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::placement::timeline_size;
use crate::design::reason::explain;
use crate::design::{Figure, Reason};
use crate::words;
use serde::Serialize;

/// A timeline per reader for a feed read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timeline {
    /// The feed read and its rate.
    pub feed: String,
    pub reads: Figure,
    pub collection: String,
    pub reader: String,
    pub item: String,
    /// Items a timeline holds, and the size of its document.
    pub limit: Figure,
    pub document: Figure,
    /// Timelines each new item is pushed into, typically.
    pub pushed: Figure,
    /// Parents with more followers than this are not pushed to (`null`: all are).
    pub threshold: Option<Figure>,
    /// Such parents a reader follows, typically.
    pub outliers_followed: Figure,
}

explain!(Timeline, |w| {
    let (items, reader) = (words::plural(&w.item), &w.reader);
    let mut s = format!(
        "{} ({}/s) can read one `{}` document per {reader} holding its newest {} {items} ({}), each new one pushed into about {} timelines",
        w.feed,
        words::num(w.reads.value),
        w.collection,
        words::int(w.limit.value as u64),
        words::bytes(w.document.value),
        words::num(w.pushed.value),
    );
    if let Some(t) = w.threshold {
        s.push_str(&format!(
            "; parents with more than {} followers are outliers, not pushed to: a {reader} follows about {} of them, whose {items} the feed still reads",
            words::int(t.value as u64),
            words::num(w.outliers_followed.value)
        ));
    }
    s
});

/// Supports a timeline for each feed read: what the feed reads from it,
/// what each new item writes, and which parents stay read at feed time.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<Reason> {
    let EntityCandidate::Timeline {
        feed,
        collection,
        threshold,
    } = candidate
    else {
        return None;
    };
    let model = facts.model;
    let size = timeline_size(facts, feed, *threshold);
    let op = model.operation(feed.operation);
    Some(Reason::new(Timeline {
        feed: op.name.clone(),
        reads: Figure::per_second(op.rate(facts.mix)),
        collection: collection.clone(),
        reader: model
            .entity(model.relationship(feed.following).parent)
            .name
            .clone(),
        item: model.entity(model.relationship(feed.items).child).name.clone(),
        limit: Figure::count(feed.limit as f64),
        document: Figure::bytes(size.document),
        pushed: Figure::count(size.pushed),
        threshold: threshold.map(|t| Figure::count(t as f64)),
        outliers_followed: Figure::count(size.outliers_followed),
    }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, Timeline};
    use crate::design::Figure;
    use crate::rules::testing::{entity_support, example, judge_entities};

    #[test]
    fn fires() {
        let got = entity_support::<Timeline>(&RULE, &example("scenarios/s14-follow-graph.yaml"));
        let t = got.iter().find(|t| t.threshold.is_some()).expect("a timeline with outliers");
        assert_eq!((t.feed.as_str(), t.reads), ("home_timeline", Figure::per_second(100_000.0)));
        assert_eq!((t.collection.as_str(), t.reader.as_str(), t.item.as_str()), ("user_timeline", "user", "post"));
        assert_eq!(t.threshold, Some(Figure::count(5_000.0)));
    }

    /// The rule has no threshold: it describes every such candidate the
    /// search offers. What can be checked is that it says nothing of
    /// the other entity candidates (a guard test, named as one).
    #[test]
    fn says_nothing_of_other_candidates() {
        let verdicts = judge_entities(&RULE, &example("notifications.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
