//! `embedded-array-pagination`: An embedded array cannot be paged by the server; page-wise reads want their own documents or buckets.

crate::rules::declare_rule! {
    id: "embedded-array-pagination",
    summary: "An embedded array cannot be paged by the server; page-wise reads want their own documents or buckets",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
    check: Relationship { order: 190, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Reads that take a page of a long list of children.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paged {
    /// Reads that take a page.
    pub reads: Figure,
    /// The children one page takes.
    pub page: Figure,
    /// The relationship's typical number of children.
    pub typical: Figure,
    pub child: String,
}

explain!(Paged, |w| format!(
    "{}/s reads take {} of a typical {} {}: an embedded array would be read whole for each page",
    words::num(w.reads.value),
    words::num(w.page.value),
    words::num(w.typical.value),
    words::plural(&w.child)
));

/// Supports layouts that page on the server (own documents, buckets) when reads
/// take the children a page at a time from a long list.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    if !matches!(cx.layout, Layout::Bucket { .. } | Layout::ParentReference) {
        return None;
    }
    let typical = cx.rel().children.typical;
    let (k, _, rate) = cx.rf().limits.iter().find(|(k, _, _)| *k < typical)?;
    Some(Judgement::support(Paged {
        reads: Figure::per_second(*rate),
        page: Figure::count(*k as f64),
        typical: Figure::count(typical as f64),
        child: cx.child(),
    }))
}

#[cfg(test)]
mod tests {
    use super::{Paged, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, judge, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Paged>(&RULE, &example("blog-comments-pages.yaml"), "comments", "parent-reference"),
            Paged {
                reads: Figure::per_second(300.0),
                page: Figure::count(50.0),
                typical: Figure::count(300.0),
                child: "comment".into()
            }
        );
    }

    /// Near miss: a page of 300, the typical number of comments: the read
    /// takes them all, no page of a longer list.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("blog-comments-pages.yaml").replace("limit: 50}", "limit: 300}");
        assert_eq!(judge(&RULE, &model, "comments", "parent-reference"), "-");
    }
}
