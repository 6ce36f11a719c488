//! `embedded-array-pagination`: An embedded array cannot be paged by the server; page-wise reads want their own documents or buckets.

crate::rules::declare_rule! {
    id: "embedded-array-pagination",
    summary: "An embedded array cannot be paged by the server; page-wise reads want their own documents or buckets",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
    check: Relationship { order: 190, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports layouts that page on the server (own documents, buckets) when reads
/// take the children a page at a time from a long list.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::Bucket { .. } | Layout::ParentReference) {
        return None;
    }
    let typical = cx.rel().children.typical;
    let (k, _, rate) = cx.rf().limits.iter().find(|(k, _, _)| *k < typical)?;
    Some(Judgement::Support(format!(
"{}/s reads take {} of a typical {} {}: an embedded array would be read whole for each page", words::num(*rate), words::num(*k as f64), words::num(typical as f64), words::plural(&cx.child())
)))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("blog-comments-pages.yaml"), "comments", "parent-reference"),
            "support: 300/s reads take 50 of a typical 300 comments: an embedded array would be read whole for each page"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("blog-comments-pages.yaml"), "comments", "embed"), "-");
    }
}
