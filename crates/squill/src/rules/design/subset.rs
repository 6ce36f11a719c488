//! `subset`: Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection.

crate::rules::declare_rule! {
    id: "subset",
    summary: "Keep the latest K children in the parent ($push with $each/$sort/$slice) and all of them in their own collection",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt", "002_6843193bac1933d0.txt"],
    check: Relationship { order: 140, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// The latest children, read more often than new ones arrive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latest {
    pub parent: String,
    pub child: String,
    /// The children the parent keeps.
    pub kept: Figure,
    /// Reads of at most `kept` children, and new children, per second.
    pub reads: Figure,
    pub inserts: Figure,
    /// How the new children come when an insert brings many at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<Batches>,
}

/// New children inserted many at a time: the insert operation that brings
/// the most of them, its children per call and calls per second, and the
/// children all batched inserts bring per second. A rate of children alone
/// reads as a steady stream ("1.2/s") where 1,000 come at once every 14
/// minutes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Batches {
    pub size: Figure,
    pub per_second: Figure,
    pub children: Figure,
}

impl Batches {
    /// The batches of `rf`'s new children, if any insert brings more
    /// than one.
    pub fn of(rf: &crate::candidates::facts::RelFacts) -> Option<Self> {
        let (size, per_second) = rf
            .child_insert_batches
            .iter()
            .copied()
            .max_by(|a, b| (a.0 as f64 * a.1).total_cmp(&(b.0 as f64 * b.1)))?;
        let children = rf
            .child_insert_batches
            .iter()
            .map(|(n, r)| *n as f64 * r)
            .sum();
        Some(Self {
            size: Figure::count(size as f64),
            per_second: Figure::per_second(per_second),
            children: Figure::per_second(children),
        })
    }
}

/// "1.2/s", or with its batches: "1.2/s, in batches of 1,000 (0.0012
/// batches/s)", and "…, 1/s of them in batches of …" when some arrive one
/// at a time.
pub fn arrive(inserts: &Figure, batches: Option<&Batches>) -> String {
    format!(
        "{}/s{}",
        words::num(inserts.value),
        in_batches(inserts, batches)
    )
}

/// What follows a rate of new children that come many at a time: ", in
/// batches of 1,000 (0.0012 batches/s)", or ", 1/s of them in batches of
/// …" when some arrive one at a time; nothing when none come in batches.
pub fn in_batches(inserts: &Figure, batches: Option<&Batches>) -> String {
    let Some(b) = batches else {
        return String::new();
    };
    let part = if b.children.value < inserts.value {
        format!(" {}/s of them", words::num(b.children.value))
    } else {
        String::new()
    };
    format!(
        ",{part} in batches of {} ({} batches/s)",
        words::num(b.size.value),
        words::num(b.per_second.value)
    )
}

explain!(Latest, |w| format!(
    "{} {} read {}/s and new ones arrive {}: keep {} in the {}, all of them in their own collection",
    words::latest(w.kept.value as u64, &w.child),
    words::is_are(w.kept.value as u64),
    words::num(w.reads.value),
    arrive(&w.inserts, w.batches.as_ref()),
    if w.kept.value as u64 == 1 { "it" } else { "them" },
    w.parent
));

/// Supports keeping the latest K children in the parent when they are read
/// more often than new children arrive.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Subset { k, .. } = cx.layout else {
        return None;
    };
    let rf = cx.rf();
    let reads: f64 = rf
        .limits
        .iter()
        .filter(|(l, _, _)| l <= k)
        .map(|(_, _, r)| r)
        .sum();
    (reads > 0.0 && reads >= rf.child_inserts).then(|| {
        Judgement::support(Latest {
            parent: cx.parent(),
            child: cx.child(),
            kept: Figure::count(*k as f64),
            reads: Figure::per_second(reads),
            inserts: Figure::per_second(rf.child_inserts),
            batches: Batches::of(rf),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{Latest, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Latest>(&RULE, &example("host-last-1000.yaml"), "messages", "subset"),
            Latest {
                parent: "host".into(),
                child: "logmsg".into(),
                kept: Figure::count(1_000.0),
                reads: Figure::per_second(100.0),
                inserts: Figure::per_second(20.0),
                batches: None,
            }
        );
    }

    /// Issue 41: one kept child reads in the singular ("the latest
    /// version is read", not "the latest 1 versions are read").
    #[test]
    fn one_kept_child_reads_in_the_singular() {
        use crate::design::reason::Explain;
        let got = support::<Latest>(&RULE, &example("drive-folders.yaml"), "versions", "subset");
        assert!(
            got.words()
                .starts_with("the latest version is read 2,000/s and new ones arrive 800/s: keep it in the file,"),
            "{}",
            got.words()
        );
    }

    /// Issue 41: reviews inserted 1,000 at a time, 0.0012 times a second,
    /// arrive 1.2/s on average, but not as a steady stream: the reason
    /// says the batches.
    #[test]
    fn children_inserted_in_batches_say_their_batches() {
        use crate::design::reason::Explain;
        let model = example("product-reviews.yaml").replace(
            "    links: [reviews]\n    rate: 1.2\n",
            "    links: [reviews]\n    rate: 0.0012\n    count: 1000\n",
        );
        let got = support::<Latest>(&RULE, &model, "reviews", "subset");
        assert!(
            got.words().contains(
                "new ones arrive 1.2/s, in batches of 1,000 (0.0012 batches/s): keep them"
            ),
            "{}",
            got.words()
        );
        // Half the reviews one at a time: the batches are a part.
        let mixed = model.replace(
            "operations:\n",
            "operations:\n  one_review:\n    insert: review\n    links: [reviews]\n    rate: 1.2\n",
        );
        let got = support::<Latest>(&RULE, &mixed, "reviews", "subset");
        assert!(
            got.words().contains(
                "new ones arrive 2.4/s, 1.2/s of them in batches of 1,000 (0.0012 batches/s)"
            ),
            "{}",
            got.words()
        );
    }

    /// Near miss: the host page read 19 times a second, just under the 20
    /// messages that arrive: the subset would be rewritten more than read.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("host-last-1000.yaml").replace("rate: 100\n", "rate: 19\n");
        assert_eq!(judge(&RULE, &model, "messages", "subset"), "-");
    }
}
