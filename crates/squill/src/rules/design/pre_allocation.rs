//! `pre-allocation`: Pre-allocating documents only helped the old MMAPv1 engine; under WiredTiger it only wastes space.

crate::rules::declare_rule! {
    id: "pre-allocation",
    summary: "Pre-allocating documents only helped the old MMAPv1 engine; under WiredTiger it only wastes space",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Design(check),
}

use crate::design::Layout;
use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;

/// Where the design keeps fixed-size groups (buckets, subsets), notes that
/// pre-allocating their slots only helped MMAPv1; under WiredTiger every update
/// rewrites the document anyway and pre-allocation just wastes space.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for d in &cx.design.relationships {
        let slots = match &d.chosen {
            Layout::Bucket { per_bucket, .. } => *per_bucket,
            Layout::Subset { k, .. } => *k,
            _ => continue,
        };
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{}: do not pre-fill the {slots} slots with placeholders; that only helped the MMAPv1 engine, WiredTiger rewrites the document on each update anyway",
                d.relationship
            ),
            location: DesignCheck::at(format!("relationships.{}", d.relationship)),
            evidence: vec![Evidence::new("slots", slots)],
            help: Some("let the array grow with $push; bound it with $slice or the bucket's count".to_string()),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_design};

    #[test]
    fn fires() {
        assert_eq!(
            judge_design(&RULE, &example("blog-comments-pages.yaml")),
            [
            "comments: do not pre-fill the 50 slots with placeholders; that only helped the MMAPv1 engine, WiredTiger rewrites the document on each update anyway"
            ]
        );
    }

    #[test]
    fn stays_quiet() {
        assert!(judge_design(&RULE, &example("user-address.yaml")).iter().all(|v| v == "-"));
    }
}
