//! `avoid-application-joins`: Every application-level join is another round trip; denormalize when reads depend on many joins.

crate::rules::declare_rule! {
    id: "avoid-application-joins",
    summary: "Every application-level join is another round trip; denormalize when reads depend on many joins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
    check: Relationship { order: 220, check },
}

use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// The reads that this layout answers without a second query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoJoin {
    /// Reads through the relationship, either way.
    pub reads: Figure,
    pub relationship: String,
}

explain!(NoJoin, |w| format!(
    "{}/s reads through {} need no second query",
    words::num(w.reads.value),
    w.relationship
));

/// Supports layouts that answer the reads through the relationship without an
/// application-level join (a round trip each).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (cx.reads() > 0.0 && cx.answers_reads_without_join()).then(|| {
        Judgement::support(NoJoin {
            reads: Figure::per_second(cx.reads()),
            relationship: cx.rel().name.clone(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{NoJoin, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<NoJoin>(&RULE, &example("user-address.yaml"), "address", "embed"),
            NoJoin {
                reads: Figure::per_second(100.0),
                relationship: "address".into()
            }
        );
    }

    /// Near miss: the same embedding, with the profile never read.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("user-address.yaml").replace("rate: 100", "rate: 0");
        assert_eq!(judge(&RULE, &model, "address", "embed"), "-");
    }
}
