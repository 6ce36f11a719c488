//! `fold-needs-a-child`: Folding the parent into each child keeps a parent only where it has a child: a parent that may have none is not folded.

crate::rules::declare_rule! {
    id: "fold-needs-a-child",
    summary: "Folding the parent into each child keeps a parent only where it has a child: a parent that may have none is not folded",
    kind: Design,
    severity: Error,
    sources: ["001_5782b55841006ac6.txt", "003_8caca105590b9080.txt"],
    check: Relationship { order: 36, check },
}

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A parent folded into its children though it may have none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Childless {
    pub parent: String,
    pub child: String,
    /// The fewest children a parent has (the model's `children.min`).
    pub min: Figure,
}

explain!(Childless, |w| format!(
    "{} can have no {}: folded into its {}, a {} with none would have no document at all, and nothing would find it",
    words::a(&w.parent),
    w.child,
    words::plural(&w.child),
    w.parent,
));

/// Forbids folding the parent into its children when the model says a
/// parent may have none (`children.min` 0): those parents would exist
/// nowhere, and a delete or expiry of a parent's last child would delete
/// the parent too.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    (matches!(cx.layout, Layout::EmbedParentInChild) && cx.rel().children.min == 0).then(|| {
        Judgement::forbid(Childless {
            parent: cx.parent(),
            child: cx.child(),
            min: Figure::count(0.0),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{Childless, RULE};
    use crate::rules::testing::{example, forbid, judge};

    /// Pages with no views yet (page-views' `children.min` is 0) would not
    /// exist once folded into their views.
    #[test]
    fn fires() {
        let got: Childless = forbid(&RULE, &example("page-views.yaml"), "views", "embed-parent-in-child");
        assert_eq!((got.parent.as_str(), got.child.as_str()), ("page", "view"));
        let text = crate::design::reason::Explain::words(&got);
        assert!(text.starts_with("a page can have no view: folded into its views"), "{text}");
    }

    /// Near miss: every page has at least one view.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("page-views.yaml");
        let model = model.replacen("children: {min: 0,", "children: {min: 1,", 1);
        assert!(model.contains("children: {min: 1,"), "the model says every page has a view");
        assert_eq!(judge(&RULE, &model, "views", "embed-parent-in-child"), "-");
    }
}
