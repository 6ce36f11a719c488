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
use crate::words;

/// Supports a timeline for each feed read: what the feed reads from it,
/// what each new item writes, and which parents stay read at feed time.
pub fn check(facts: &Facts<'_>, candidate: &EntityCandidate) -> Option<String> {
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
    let items = words::plural(&model.entity(model.relationship(feed.items).child).name);
    let reader = &model.entity(model.relationship(feed.following).parent).name;
    let mut s = format!(
        "{} ({}/s) can read one `{collection}` document per {reader} holding its newest {} {items} ({}), each new one pushed into about {} timelines",
        op.name,
        words::num(op.rate(facts.mix)),
        words::int(feed.limit),
        words::bytes(size.document),
        words::num(size.pushed),
    );
    if let Some(t) = threshold {
        s.push_str(&format!(
            "; parents with more than {} followers are outliers, not pushed to: a {reader} follows about {} of them, whose {items} the feed still reads",
            words::int(*t),
            words::num(size.outliers_followed)
        ));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_entities};

    #[test]
    fn fires() {
        let verdicts = judge_entities(&RULE, &example("scenarios/s14-follow-graph.yaml"));
        assert!(
            verdicts.iter().any(|v| v.starts_with("home_timeline (100,000/s) can read one `user_timeline` document per user")),
            "{verdicts:?}"
        );
        assert!(verdicts.iter().any(|v| v.contains("more than 5,000 followers are outliers")), "{verdicts:?}");
    }

    #[test]
    fn stays_quiet() {
        let verdicts = judge_entities(&RULE, &example("notifications.yaml"));
        assert!(!verdicts.is_empty(), "no entity candidate to judge");
        assert!(verdicts.iter().all(|v| v == "-"), "{verdicts:?}");
    }
}
