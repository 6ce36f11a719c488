//! The reasons `advise` gives in its own name, as values: a layout the
//! search could not price with the others, what a kept entity candidate
//! saves, and a chosen layout that breaks a rule. Like the rules' verdicts
//! (`design/reason.rs`), each carries its evidence and is worded last, with
//! the cost model's phrases (`reasons.rs`).

pub use super::reasons::OperationDifference;
use super::reasons::{breaks_a_rule, explanation_of, layout_phrase};
use crate::design::reason::{Explain, explain};
use crate::design::{Figure, Layout, Reason};
use serde::Serialize;

/// An allowed layout that cannot be priced: it conflicts with the other
/// relationships' choices (design-for-workload).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CannotCombine {
    pub parent: String,
    pub child: String,
    /// The layout, tagged by `layout` as in the design.
    #[serde(flatten)]
    pub layout: Layout,
}

explain!(CannotCombine, |w| format!(
    "{} cannot be combined with the other choices of this design",
    layout_phrase(&w.parent, &w.child, &w.layout)
));

/// What the design would do without an entity candidate it keeps.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "instead", rename_all = "snake_case")]
pub enum Instead {
    /// A collection of its own for each of `entities` (instead of one
    /// polymorphic collection).
    SeparateCollections { entities: Vec<String> },
    /// The aggregate in `field` computed at each read.
    ComputedAtRead { field: String },
    /// The feed `operation` read from its sources on each read.
    FanOutOnRead { operation: String },
}

impl Instead {
    fn words(&self) -> String {
        match self {
            Instead::SeparateCollections { entities } => {
                format!(
                    "a collection of its own for each of {}",
                    entities.join(", ")
                )
            }
            Instead::ComputedAtRead { field } => {
                format!("computing `{field}` at each read instead of keeping it")
            }
            Instead::FanOutOnRead { operation } => {
                format!("reading {operation} on demand (fan-out on read)")
            }
        }
    }
}

/// An entity candidate kept because the design costs more without it
/// (design-for-workload).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Kept {
    /// What the design would do instead.
    #[serde(flatten)]
    pub instead: Instead,
    /// The design's score with the candidate, per second.
    pub score: Figure,
    /// What the design would cost more without it, per second.
    pub margin: Figure,
    /// The operations whose cost differs.
    pub operations: Vec<OperationDifference>,
}

explain!(Kept, |w| explanation_of(
    &w.instead.words(),
    w.margin.value,
    w.score.value,
    &w.operations
));

/// The chosen layout breaks rule `broken`'s limit: because the model pins
/// it, or because every candidate breaks one. Its evidence is the broken
/// rule's own, with `pinned` first.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenDespite {
    pub pinned: bool,
    pub broken: Reason,
}

impl Explain for ChosenDespite {
    fn words(&self) -> String {
        breaks_a_rule(self.pinned, &self.broken.words())
    }
    fn evidence(&self) -> serde_json::Value {
        with_first(
            [("pinned", serde_json::Value::Bool(self.pinned))],
            self.broken.evidence(),
        )
    }
}

/// Relationship `relationship`'s chosen layout breaks rule `broken`: the
/// design's finding on it, and the reason a many-to-many's arrays lose to an
/// edge collection. Its evidence is the broken rule's own, with the
/// relationship, the layout and `pinned` first.
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceBreaksRule {
    pub relationship: String,
    pub layout: &'static str,
    pub pinned: bool,
    pub broken: Reason,
}

impl Explain for ChoiceBreaksRule {
    fn words(&self) -> String {
        let what = if self.pinned {
            format!(
                "the model pins layout `{}`, which breaks a rule",
                self.layout
            )
        } else {
            "every layout breaks a rule; the chosen one".to_string()
        };
        format!("{}: {what}: {}", self.relationship, self.broken.words())
    }
    fn evidence(&self) -> serde_json::Value {
        with_first(
            [
                (
                    "relationship",
                    serde_json::Value::String(self.relationship.clone()),
                ),
                ("layout", serde_json::Value::String(self.layout.to_string())),
                ("pinned", serde_json::Value::Bool(self.pinned)),
            ],
            self.broken.evidence(),
        )
    }
}

/// `first`'s members, then `rest`'s (an object; its own members win).
fn with_first<const N: usize>(
    first: [(&str, serde_json::Value); N],
    rest: serde_json::Value,
) -> serde_json::Value {
    let mut out: serde_json::Map<String, serde_json::Value> =
        first.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    if let serde_json::Value::Object(m) = rest {
        out.extend(m);
    }
    serde_json::Value::Object(out)
}
