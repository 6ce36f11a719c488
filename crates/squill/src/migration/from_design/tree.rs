//! The steps of a tree whose layout changes: a node's path from the root
//! (tree-path) and the path of ids a tree node's child keeps (path-reference),
//! built from the parent ids both designs keep, or dropped in the final step
//! with the parent ids left as they are. The parent ids are the one source:
//! a path is derived data, and a walk up them ($graphLookup) rebuilds it.

use super::action::{Action, Check, Cleanup, Undo};
use super::plan_value::{Plan, same_field};
use super::source::{collection_of, link_field, own_field};
use super::step_parts::ItemField;
use crate::design::{
    Collection, Design, FieldOrigin, Layout, RelationshipDecision, ShapeField, ShapeType,
};

/// Whether the layout keeps a path from a tree's root.
pub(super) fn is_tree(layout: &Layout) -> bool {
    matches!(layout, Layout::TreePath { .. } | Layout::PathReference)
}

/// The steps of `rel` from its layout of today (`now`) to the recommended one.
pub(super) fn plan(
    p: &mut Plan,
    today: &Design,
    recommended: &Design,
    now: &RelationshipDecision,
    rel: &RelationshipDecision,
) {
    let Some(w) = Where::of(p, today, recommended, rel) else {
        return;
    };
    match (&now.chosen, &rel.chosen) {
        (Layout::ParentReference, Layout::TreePath { .. } | Layout::PathReference) => {
            build(p, today, &w);
        }
        (Layout::TreePath { .. } | Layout::PathReference, Layout::ParentReference) => {
            drop_path(p, today, &w);
        }
        _ => p
            .refused
            .push("a path is only built from parent ids, or dropped for them".into()),
    }
}

/// The documents that keep the path, their reference to the parent (the
/// same in both designs), and the relationship whose path they keep.
struct Where<'d> {
    relationship: &'d str,
    /// The tree's node when `rel` is the tree; else the tree's node is the
    /// parent of `rel` (path-reference).
    own_path: bool,
    old: &'d Collection,
    new: &'d Collection,
    reference: &'d ShapeField,
}

impl<'d> Where<'d> {
    fn of(
        p: &mut Plan,
        today: &'d Design,
        recommended: &'d Design,
        rel: &'d RelationshipDecision,
    ) -> Option<Self> {
        let (Some(old), Some(new)) = (
            collection_of(today, &rel.child),
            collection_of(recommended, &rel.child),
        ) else {
            p.refused
                .push(format!("`{}` without a collection of its own", rel.child));
            return None;
        };
        let kept = link_field(old, &rel.relationship).zip(link_field(new, &rel.relationship));
        let Some((reference, _)) = kept.filter(|(a, b)| {
            same_field(a, b) && matches!(a.ty, ShapeType::Scalar { .. }) && old.name == new.name
        }) else {
            p.refused.push(format!(
                "`{}` does not keep the same parent id in both designs",
                old.name
            ));
            return None;
        };
        Some(Where {
            relationship: &rel.relationship,
            own_path: rel.parent == rel.child,
            old,
            new,
            reference,
        })
    }

    /// The path field of `coll` for this relationship, and the tree it
    /// follows.
    fn path<'c>(&self, coll: &'c Collection) -> Option<(&'c ShapeField, &'c str)> {
        coll.shape.fields.iter().find_map(|f| match &f.origin {
            FieldOrigin::Path { tree, via: None } if self.own_path && tree == self.relationship => {
                Some((f, tree.as_str()))
            }
            FieldOrigin::Path { tree, via: Some(v) }
                if !self.own_path && v == self.relationship =>
            {
                Some((f, tree.as_str()))
            }
            _ => None,
        })
    }

    /// The tree's nodes today and the field of their parent id: the
    /// documents themselves for a node's own path, else the nodes the
    /// reference points to.
    fn nodes(&self, p: &mut Plan, today: &'d Design, tree: &str) -> Option<(String, String)> {
        let nodes = if self.own_path {
            Some(self.old)
        } else {
            today
                .relationships
                .iter()
                .find(|r| r.relationship == tree)
                .and_then(|t| collection_of(today, &t.parent))
        };
        let parent = nodes.and_then(|n| link_field(n, tree).map(|f| (n, f)));
        match parent {
            Some((n, f)) if matches!(f.ty, ShapeType::Scalar { .. }) => {
                Some((n.name.clone(), f.name.clone()))
            }
            _ => {
                p.refused
                    .push(format!("the nodes of `{tree}` keep no parent id today"));
                None
            }
        }
    }

    /// Where the walk up the tree starts: the node itself, or the node
    /// the document references.
    fn start(&self) -> String {
        if self.own_path {
            "_id".into()
        } else {
            self.reference.name.clone()
        }
    }
}

/// The path built from the parent ids, checked, undone by removing it.
fn build(p: &mut Plan, today: &Design, w: &Where<'_>) {
    let Some((field, tree)) = w.path(w.new) else {
        p.refused.push(format!("no path field in `{}`", w.new.name));
        return;
    };
    let Some((nodes, parent)) = w.nodes(p, today, tree) else {
        return;
    };
    let Some(node_coll) = today.collections.iter().find(|c| c.name == nodes) else {
        return;
    };
    let items = match &field.ty {
        ShapeType::Array { items, .. } => match items.as_ref() {
            ShapeType::Object { shape } => {
                let mut out = Vec::new();
                for f in &shape.fields {
                    let source = match &f.origin {
                        FieldOrigin::Reference { .. } | FieldOrigin::Id if f.name == "_id" => "_id",
                        FieldOrigin::Copy { entity, field, .. } => {
                            let Some(s) = own_field(node_coll, entity, field) else {
                                p.refused
                                    .push(format!("no field `{field}` in `{}`", node_coll.name));
                                return;
                            };
                            s
                        }
                        _ => {
                            p.refused.push(format!(
                                "`{}.{}` is neither the node's id nor a copy",
                                field.name, f.name
                            ));
                            return;
                        }
                    };
                    out.push(ItemField {
                        target: f.name.clone(),
                        source: source.into(),
                    });
                }
                Some(out)
            }
            _ => None,
        },
        _ => {
            p.refused
                .push(format!("`{}.{}` is no array", w.new.name, field.name));
            return;
        }
    };
    p.actions.push(Action::Path {
        relationship: w.relationship.into(),
        collection: w.new.name.clone(),
        field: field.name.clone(),
        start: w.start(),
        nodes,
        parent,
        items,
    });
    p.undo.push(Undo::Unset {
        collection: w.new.name.clone(),
        field: field.name.clone(),
    });
}

/// Nothing to build: the parent ids stay, the path goes in the final step;
/// the check says the two agreed.
fn drop_path(p: &mut Plan, today: &Design, w: &Where<'_>) {
    let Some((field, tree)) = w.path(w.old) else {
        p.refused
            .push(format!("no path field in `{}` today", w.old.name));
        return;
    };
    let Some((nodes, parent)) = w.nodes(p, today, tree) else {
        return;
    };
    p.cleanup.push(Cleanup::Unset {
        collection: w.old.name.clone(),
        field: field.name.clone(),
    });
    p.checks.push(Check::PathKept {
        collection: w.old.name.clone(),
        field: field.name.clone(),
        start: w.start(),
        nodes,
        parent,
    });
}
