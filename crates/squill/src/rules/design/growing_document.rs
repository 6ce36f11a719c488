//! `growing-document`: A document that keeps growing is rewritten in full on every update; bound it or move the growth out.

crate::rules::declare_rule! {
    id: "growing-document",
    summary: "A document that keeps growing is rewritten in full on every update; bound it or move the growth out",
    kind: Design,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "003_8caca105590b9080.txt"],
    check: Relationship { order: 200, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports layouts that keep the parent document from growing when children
/// keep arriving (the parent is otherwise rewritten, larger, on every insert).
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let growth = cx.rel().children.growth_per_day.filter(|g| *g > 0.0)?;
    matches!(
        cx.layout,
        Layout::ParentReference | Layout::Bucket { .. } | Layout::Subset { .. }
    )
    .then(|| {
        Judgement::Support(format!(
"each {} gains {} {} a day: this layout keeps the {} document from growing with them", cx.parent(), words::num(growth), words::plural(&cx.child()), cx.parent()
))
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("page-views.yaml"), "views", "parent-reference"),
            "support: each page gains 8.6 views a day: this layout keeps the page document from growing with them"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("page-views.yaml"), "views", "embed"), "-");
    }
}
