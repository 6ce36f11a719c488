//! `tree-path`: Keep a tree's paths from the root in its nodes (and the path of its node in what references it) when reads take subtrees or ancestors.

crate::rules::declare_rule! {
    id: "tree-path",
    summary: "Keep a tree's paths from the root in its nodes (and the path of its node in what references it) when reads take subtrees or ancestors",
    kind: Design,
    severity: Info,
    sources: [
        "MongoDB manual: Model Tree Structures with an Array of Ancestors",
        "MongoDB manual: Model Tree Structures with Materialized Paths",
    ],
    check: Relationship { order: 146, check },
}

use crate::design::Layout;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Supports a kept path with what it buys (a subtree in one indexed query,
/// the ancestors' copies in the node's own document) and what it costs
/// (copies refreshed on a rename, paths rewritten on a move), per second.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let model = f.model;
    let (tree, holder) = match cx.layout {
        Layout::TreePath { .. } => (cx.r, cx.child()),
        Layout::PathReference => (model.tree_of(cx.rel().parent)?, cx.child()),
        _ => return None,
    };
    let t = model.relationship(tree);
    let node = words::singular(&model.entity(t.parent).name);
    let h = model.tree_height(tree);
    let bound = match t.levels {
        Some(l) => format!("at most {l}"),
        None => "no bound: the model gives no `levels`".to_string(),
    };
    let moves = f.rel(tree).relinks;
    let subtrees = f.rel(cx.r).subtree_reads;
    let mut text = match cx.layout {
        Layout::TreePath { fields } => {
            let copies = if fields.is_empty() {
                String::new()
            } else {
                format!(" with their {}", fields.join(", "))
            };
            let renames: f64 = fields
                .iter()
                .map(|x| f.field_update_rate(t.parent, x))
                .sum();
            let mut s = format!(
                "each {node} keeps the {} ids on its path from the root ({bound}){copies}: everything under {} is one query on the path's ids, {}",
                words::num(h),
                words::a(&node),
                words::rate(subtrees),
            );
            if !fields.is_empty() {
                s.push_str(&format!(
                    ", and its ancestors' {} come with it, {}",
                    fields.join(", "),
                    words::rate(f.rel(tree).walks)
                ));
                s.push_str(&format!(
                    "; a change of {} refreshes the copies in the {} {} below, {}",
                    fields.join(", "),
                    words::num(h),
                    words::plural(&node),
                    words::rate(renames)
                ));
            }
            s
        }
        _ => format!(
            "each {holder} keeps the {} ids of its {node}'s path ({bound}): the {} under {} are one query on an index of the path, {}",
            words::num(h),
            words::plural(&holder),
            words::a(&node),
            words::rate(subtrees),
        ),
    };
    text.push_str(&format!(
        "; a move of {} rewrites the paths below it, {}",
        words::a(&node),
        words::rate(moves)
    ));
    Some(Judgement::Support(text))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        let m = example("scenarios/s03-category-tree.yaml");
        assert_eq!(
            judge(&RULE, &m, "products", "path-reference"),
            "support: each product keeps the 6.3 ids of its category's path (at most 7): the products under a category are one query on an index of the path, 10,000/s; a move of a category rewrites the paths below it, 0.0000017/s"
        );
    }

    #[test]
    fn fires_on_the_tree() {
        let m = example("scenarios/s03-category-tree.yaml");
        let got = judge(&RULE, &m, "subcategories", "tree-path");
        assert!(
            got.starts_with("support: each category keeps the 6.3 ids on its path from the root (at most 7): everything under a category is one query on the path's ids, 10,000/s"),
            "{got}"
        );
    }

    #[test]
    fn stays_quiet() {
        let m = example("scenarios/s03-category-tree.yaml");
        assert_eq!(judge(&RULE, &m, "products", "parent-reference"), "-");
    }
}
