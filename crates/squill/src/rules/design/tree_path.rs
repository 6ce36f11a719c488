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

use crate::design::reason::explain;
use crate::design::{Figure, Layout};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A kept path: what it buys and what it costs, per second.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeptPath {
    /// Who keeps the path: a node of the tree (`tree-path`) or an entity
    /// filed under one (`path-reference`).
    pub holder: String,
    pub node: String,
    /// Ids on a path, typically, and the model's `levels` (`null`: none given).
    pub height: Figure,
    pub levels: Option<Figure>,
    /// Reads of everything under a node.
    pub subtree_reads: Figure,
    /// For a node's own path (`tree-path`): the ancestors' fields copied
    /// along it, the reads that take them, and how often they change;
    /// `null` for a `path-reference`.
    pub copies: Option<PathCopies>,
    /// Moves of a node to another parent.
    pub moves: Figure,
}

/// The ancestors' fields a `tree-path` keeps along the ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathCopies {
    pub fields: Vec<String>,
    pub walks: Figure,
    pub renames: Figure,
}

explain!(KeptPath, |w| {
    let node = &w.node;
    let h = words::num(w.height.value);
    let bound = match w.levels {
        Some(l) => format!("at most {}", l.value),
        None => "no bound: the model gives no `levels`".to_string(),
    };
    let mut text = if let Some(tree) = &w.copies {
        let copies = Some(tree).filter(|c| !c.fields.is_empty());
        let with = copies.map_or(String::new(), |c| {
            format!(" with their {}", c.fields.join(", "))
        });
        let mut s = format!(
            "each {node} keeps the {h} ids on its path from the root ({bound}){with}: everything under {} is one query on the path's ids, {}",
            words::a(node),
            words::rate(w.subtree_reads.value),
        );
        if let Some(c) = copies {
            s.push_str(&format!(
                ", and its ancestors' {} come with it, {}",
                c.fields.join(", "),
                words::rate(c.walks.value)
            ));
            s.push_str(&format!(
                "; a change of {} refreshes the copies in the {h} {} below, {}",
                c.fields.join(", "),
                words::plural(node),
                words::rate(c.renames.value)
            ));
        }
        s
    } else {
        format!(
            "each {} keeps the {h} ids of its {node}'s path ({bound}): the {} under {} are one query on an index of the path, {}",
            w.holder,
            words::plural(&w.holder),
            words::a(node),
            words::rate(w.subtree_reads.value),
        )
    };
    text.push_str(&format!(
        "; a move of {} rewrites the paths below it, {}",
        words::a(node),
        words::rate(w.moves.value)
    ));
    text
});

/// Supports a kept path with what it buys (a subtree in one indexed query,
/// the ancestors' copies in the node's own document) and what it costs
/// (copies refreshed on a rename, paths rewritten on a move), per second.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let f = cx.facts;
    let model = f.model;
    let tree = match cx.layout {
        Layout::TreePath { .. } => cx.r,
        Layout::PathReference => model.tree_of(cx.rel().parent)?,
        _ => return None,
    };
    let t = model.relationship(tree);
    let node = words::singular(&model.entity(t.parent).name);
    let copies = match cx.layout {
        Layout::TreePath { fields } => Some(PathCopies {
            fields: fields.clone(),
            walks: Figure::per_second(f.rel(tree).walks),
            renames: Figure::per_second(
                fields
                    .iter()
                    .map(|x| f.field_update_rate(t.parent, x))
                    .sum(),
            ),
        }),
        _ => None,
    };
    Some(Judgement::support(KeptPath {
        holder: if copies.is_some() {
            node.clone()
        } else {
            cx.child()
        },
        node,
        height: Figure::count(model.tree_height(tree)),
        levels: t.levels.map(|l| Figure::count(f64::from(l))),
        subtree_reads: Figure::per_second(f.rel(cx.r).subtree_reads),
        copies,
        moves: Figure::per_second(f.rel(tree).relinks),
    }))
}

#[cfg(test)]
mod tests {
    use super::{KeptPath, PathCopies, RULE};
    use crate::design::Figure;
    use crate::design::Layout;
    use crate::rules::testing::{example, judge_layout, support};

    #[test]
    fn fires() {
        let m = example("scenarios/s03-category-tree.yaml");
        let got: KeptPath = support(&RULE, &m, "products", "path-reference");
        assert_eq!((got.holder.as_str(), got.node.as_str()), ("product", "category"));
        assert_eq!((got.levels, &got.copies), (Some(Figure::count(7.0)), &None));
        assert_eq!(got.subtree_reads, Figure::per_second(10_000.0));
        assert!((6.25..6.35).contains(&got.height.value), "{got:?}");
        assert!((1.6e-6..1.8e-6).contains(&got.moves.value), "{got:?}");
    }

    #[test]
    fn fires_on_the_tree() {
        let m = example("scenarios/s03-category-tree.yaml");
        let got: KeptPath = support(&RULE, &m, "subcategories", "tree-path");
        assert_eq!((got.holder.as_str(), got.node.as_str()), ("category", "category"));
        assert_eq!(got.subtree_reads, Figure::per_second(10_000.0));
        let copies: Option<PathCopies> = got.copies;
        assert!(copies.is_some());
    }

    /// Near miss: the same path reference, on a child whose parent is no
    /// tree's node (a host's log messages): no path to keep.
    #[test]
    fn stays_quiet_just_under() {
        assert_eq!(
            judge_layout(&RULE, &example("host-logs.yaml"), "messages", &Layout::PathReference),
            "-"
        );
    }
}
