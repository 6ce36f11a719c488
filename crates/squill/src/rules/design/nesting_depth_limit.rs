//! `nesting-depth-limit`: Documents may not nest more than 100 levels.

crate::rules::declare_rule! {
    id: "nesting-depth-limit",
    summary: "Documents may not nest more than 100 levels",
    kind: Design,
    severity: Error,
    sources: ["MongoDB manual: limits"],
    check: Relationship { order: 20, check },
}

use crate::design::Layout;
use crate::model::FieldType;
use crate::rules::judge::{Judgement, RelCheck};

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
        Judgement::Forbid(format!(
            "embedding {} in {} nests {depth} levels deep (limit {limit})",
            cx.child(),
            cx.parent()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge, judge_with};
    use crate::settings::{DesignOptions, Options};

    /// One embedding nests three levels (document, array, element), far
    /// below MongoDB's 100: whole chains are checked where the search places
    /// them (`candidates::placement`).
    #[test]
    fn stays_quiet_under_the_limit() {
        let model = example("person-addresses.yaml");
        assert_eq!(judge(&RULE, &model, "addresses", "embed"), "-");
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
            judge_with(&settings, &RULE, &example("person-addresses.yaml"), "addresses", "embed"),
            "forbid: embedding address in person nests 3 levels deep (limit 2)"
        );
    }
}
