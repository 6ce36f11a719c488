//! `embed-read-together`: Data read together, one-to-one or one-to-few and bounded, belongs in one document.

crate::rules::declare_rule! {
    id: "embed-read-together",
    summary: "Data read together, one-to-one or one-to-few and bounded, belongs in one document",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
    check: Relationship { order: 160, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::model::CardinalityClass;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Reads that take the parent with its few children.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadTogether {
    /// Reads that take the parent with its children.
    pub reads: Figure,
    pub parent: String,
    pub child: String,
    /// At most this many children per parent.
    pub max: Option<Figure>,
    /// What a count of the children calls them, where the relationship's
    /// name is not the child's plural (`followers`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
}

explain!(ReadTogether, |w| match w.max.map(|m| m.value) {
    // One at most: a user's address, not "its addresses (at most 1)".
    Some(one) if one <= 1.0 => format!(
        "{}/s reads take {} with its {} (one at most): one document answers them",
        words::num(w.reads.value),
        words::a(&w.parent),
        words::singular(&w.child),
    ),
    max => format!(
        "{}/s reads take {} with its {}, which are bounded ({}): one document answers them",
        words::num(w.reads.value),
        words::a(&w.parent),
        words::items(w.items.as_deref(), &w.child),
        words::at_most(max)
    ),
});

/// Supports embedding what the workload reads together when it is one-to-one
/// or one-to-few and bounded.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let bounded_small = matches!(
        cx.class(),
        CardinalityClass::OneToOne | CardinalityClass::OneToFew
    );
    (matches!(cx.layout, Layout::Embed) && bounded_small && cx.rf().reads_down > 0.0).then(|| {
        Judgement::support(ReadTogether {
            reads: Figure::per_second(cx.rf().reads_down),
            parent: cx.parent(),
            child: cx.child(),
            max: Figure::max(cx.max_children()),
            items: cx.items(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, ReadTogether};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<ReadTogether>(&RULE, &example("user-address.yaml"), "address", "embed"),
            ReadTogether {
                reads: Figure::per_second(100.0),
                parent: "user".into(),
                child: "address".into(),
                max: Some(Figure::count(1.0)),
                items: None,
            }
        );
    }

    /// Near miss: 11 addresses a person, one past `cardinality.few-max`
    /// (10): no longer bounded small, though read together.
    /// One child at most is named as one (issue 41: "its addresses, which
    /// are bounded (at most 1)"); several keep the plural and the bound.
    #[test]
    fn one_at_most_reads_as_one() {
        use crate::design::reason::Explain;
        let one = ReadTogether {
            reads: Figure::per_second(100.0),
            parent: "user".into(),
            child: "addresses".into(),
            max: Some(Figure::count(1.0)),
            items: None,
        };
        assert_eq!(
            one.words(),
            "100/s reads take a user with its address (one at most): one document answers them"
        );
        let five = ReadTogether {
            max: Some(Figure::count(5.0)),
            items: None,
            ..one
        };
        assert_eq!(
            five.words(),
            "100/s reads take a user with its addresses, which are bounded (at most 5): one document answers them"
        );
    }

    #[test]
    fn stays_quiet_just_under() {
        let model = example("person-addresses.yaml").replace("max: 5}", "max: 11}");
        assert_eq!(judge(&RULE, &model, "addresses", "embed"), "-");
    }
}
