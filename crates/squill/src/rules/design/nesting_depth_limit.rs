//! `nesting-depth-limit`: Documents may not nest more than 100 levels.

crate::rules::declare_rule! {
    id: "nesting-depth-limit",
    summary: "Documents may not nest more than 100 levels",
    kind: Design,
    severity: Error,
    sources: ["MongoDB manual: limits"],
    check: Relationship { order: 20, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::model::FieldType;
use crate::rules::judge::{Judgement, RelCheck};
use serde::Serialize;

/// An embedding nested past the depth limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TooDeep {
    pub parent: String,
    pub child: String,
    /// Levels of nesting the embedding makes.
    pub depth: Figure,
    /// `design.max-nesting-depth`.
    pub limit: Figure,
}

explain!(TooDeep, |w| format!(
    "embedding {} in {} nests {} levels deep (limit {})",
    w.child, w.parent, w.depth.value, w.limit.value
));

/// Forbids embedding that would nest deeper than the limit: the chain of
/// one-to-few/one-to-one parents above this one, plus the embedded child's own
/// sub-documents.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::Embed) {
        return None;
    }
    let f = cx.facts;
    let model = f.model;
    let child_objects = model
        .entity(cx.rel().child)
        .fields
        .iter()
        .filter(|x| matches!(x.ty, FieldType::Object | FieldType::Array(_)))
        .count()
        .min(1) as u32;
    // document, array, element document, the element's own sub-documents
    let depth = 1 + 2 + child_objects;
    let limit = f.settings.design.max_nesting_depth;
    (depth > limit).then(|| {
        Judgement::forbid(TooDeep {
            parent: cx.parent(),
            child: cx.child(),
            depth: Figure::count(f64::from(depth)),
            limit: Figure::count(f64::from(limit)),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{RULE, TooDeep};
    use crate::design::Figure;
    use crate::rules::testing::{example, forbid_with, judge_with};
    use crate::settings::{DesignOptions, Options};

    /// One embedding nests three levels (document, array, element), far
    /// below MongoDB's 100: whole chains are checked where the search places
    /// them (`candidates::placement`).
    /// Near miss: one embedding nests three levels (document, array,
    /// element); a limit of 3 still allows it. (MongoDB's own is 100: whole
    /// chains are checked where the search places them,
    /// `candidates::placement`.)
    #[test]
    fn stays_quiet_just_under() {
        let settings = Options {
            design: Some(DesignOptions {
                max_nesting_depth: Some(3),
                ..DesignOptions::default()
            }),
            ..Options::default()
        }
        .into_settings();
        assert_eq!(
            judge_with(&settings, &RULE, &example("person-addresses.yaml"), "addresses", "embed"),
            "-"
        );
    }

    /// With a limit of 2 levels (`max-nesting-depth` in squill.toml), the
    /// same embedding is refused.
    #[test]
    fn fires_past_a_lower_limit() {
        let settings = Options {
            design: Some(DesignOptions {
                max_nesting_depth: Some(2),
                ..DesignOptions::default()
            }),
            ..Options::default()
        }
        .into_settings();
        assert_eq!(
            forbid_with::<TooDeep>(&settings, &RULE, &example("person-addresses.yaml"), "addresses", "embed"),
            TooDeep {
                parent: "person".into(),
                child: "address".into(),
                depth: Figure::count(3.0),
                limit: Figure::count(2.0)
            }
        );
    }
}
