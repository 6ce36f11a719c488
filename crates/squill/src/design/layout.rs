//! The layouts the seeds describe, as values.

use crate::model::{AggregateFn, LayoutKind};
use serde::Serialize;

/// Which end of a relationship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Parent,
    Child,
}

/// One way to lay out one relationship between a parent and a child entity.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "layout")]
pub enum Layout {
    /// The child lives inside the parent document: a sub-document for 1:1, an
    /// array of sub-documents for 1:N. The child has no collection of its own.
    Embed,
    /// The parent's fields are copied into each child (1:1 linked the other way,
    /// or a small "one" side folded into the squillions side); the parent has no
    /// collection of its own when nothing else needs it.
    EmbedParentInChild,
    /// The parent holds an array of the children's ids; application-level join
    /// with `$in`.
    ChildReferences,
    /// Each child holds its parent's id (indexed).
    ParentReference,
    /// Both: ids of children in the parent and the parent's id in each child.
    TwoWayReferences,
    /// A reference plus copies of a few fields of the referenced document, so the
    /// common read needs no join. `copies_into` says which side holds the copies:
    /// `Parent` = child fields copied into the parent's reference array (part
    /// names into a product), `Child` = parent fields copied into each child
    /// (product name into parts, host ip into log messages).
    ExtendedReference {
        copies_into: Side,
        fields: Vec<String>,
    },
    /// The latest `k` children (by `sort_field`) embedded in the parent, all of
    /// them in their own collection with a parent reference.
    Subset {
        k: u64,
        sort_field: Option<String>,
        fields: Vec<String>,
    },
    /// The first `threshold` children embedded in the parent, as usual; a
    /// parent with more (an outlier, beyond the 99th percentile) keeps the
    /// rest in the child's collection, each with its parent's id.
    Outlier { threshold: u64 },
    /// Children grouped `per_bucket` to a document (or by time unit), with the
    /// pre-computed aggregates the workload reads.
    Bucket {
        by: BucketBy,
        per_bucket: u64,
        aggregates: Vec<Aggregation>,
    },
    /// N:M: ids of the other side kept in one side's documents only.
    ManyToManyOneWay { ids_in: Side },
    /// N:M: ids kept on both sides.
    ManyToManyTwoWay,
    /// N:M: ids kept on both sides, each with copies of a few fields of the
    /// other side (a team's members with their names, a user's teams with
    /// theirs), so reads from either side need no join. One list may be
    /// empty: that side keeps bare ids (and the link's attributes).
    TwoWayExtendedReference {
        copies_in_parent: Vec<String>,
        copies_in_child: Vec<String>,
    },
    /// 1:1 by reference without a reference field: the child's `_id` is its
    /// parent's `_id` (a user's settings under the user's id).
    SharedId,
    /// N:M: one document per link in a collection of its own (the join
    /// table: a membership, a star), with both references and the link's
    /// attributes; neither side keeps an array. Priced as the model with
    /// the relationship written as an entity (`model::as_junction`).
    EdgeCollection { collection: String },
    /// A tree (an entity's one-to-many with itself): each node keeps its
    /// parent's id and its path from the root, `[{_id, …fields}]`, the
    /// node itself last: MongoDB's array of ancestors, with the node
    /// included so that one multikey index on the path's ids finds a whole
    /// subtree and breadcrumbs are in the node's own document.
    TreePath { fields: Vec<String> },
    /// The child of a tree's node keeps the node's id and the ids on the
    /// node's path from the root (a product's category and every category
    /// above it): everything under a node is one indexed query.
    PathReference,
}

impl Layout {
    /// A short stable name (also the JSON `layout` tag).
    pub fn kind(&self) -> &'static str {
        self.layout_kind().name()
    }

    /// Which layout this is, without its parameters.
    pub fn layout_kind(&self) -> LayoutKind {
        match self {
            Layout::Embed => LayoutKind::Embed,
            Layout::EmbedParentInChild => LayoutKind::EmbedParentInChild,
            Layout::ChildReferences => LayoutKind::ChildReferences,
            Layout::ParentReference => LayoutKind::ParentReference,
            Layout::TwoWayReferences => LayoutKind::TwoWayReferences,
            Layout::ExtendedReference { .. } => LayoutKind::ExtendedReference,
            Layout::Subset { .. } => LayoutKind::Subset,
            Layout::Outlier { .. } => LayoutKind::Outlier,
            Layout::Bucket { .. } => LayoutKind::Bucket,
            Layout::ManyToManyOneWay { .. } => LayoutKind::ManyToManyOneWay,
            Layout::ManyToManyTwoWay => LayoutKind::ManyToManyTwoWay,
            Layout::TwoWayExtendedReference { .. } => LayoutKind::TwoWayExtendedReference,
            Layout::SharedId => LayoutKind::SharedId,
            Layout::EdgeCollection { .. } => LayoutKind::EdgeCollection,
            Layout::TreePath { .. } => LayoutKind::TreePath,
            Layout::PathReference => LayoutKind::PathReference,
        }
    }

    /// Whether each child document (of its own collection, or holding its
    /// parent inside it) keeps its parent's id, so the children of a parent
    /// are found by one filter on the child side. The timeline's push
    /// (fan-out on write) finds a new item's parent's followers this way,
    /// and the planner's `parent_ref_path` names the path.
    pub fn child_keeps_parent_id(&self) -> bool {
        match self {
            Layout::ParentReference
            | Layout::TwoWayReferences
            | Layout::Subset { .. }
            | Layout::TreePath { .. }
            | Layout::PathReference
            | Layout::SharedId
            | Layout::EmbedParentInChild => true,
            l => matches!(l.many_sides(), Some((_, Some(_)))),
        }
    }

    /// Whether each parent keeps its children's ids (an array of them, bare
    /// or with copies), so the parents of a child are found by one filter
    /// on the parent side: the followers whose kept follows hold a new
    /// follow of the author (the timeline's push, `costs::plan::timeline`).
    pub fn parent_keeps_child_ids(&self) -> bool {
        match self {
            Layout::ChildReferences | Layout::TwoWayReferences => true,
            l => matches!(l.many_sides(), Some((Some(_), _))),
        }
    }

    /// For a many-to-many (or shared children): the copies of the other
    /// side's fields each element of the parent's and of the child's array
    /// carries; `None` for a side that keeps no array. `None` as a whole for
    /// layouts that are not id arrays.
    #[allow(clippy::type_complexity)] // two optional slices, named by position
    pub fn many_sides(&self) -> Option<(Option<&[String]>, Option<&[String]>)> {
        const BARE: &[String] = &[];
        Some(match self {
            Layout::ManyToManyOneWay {
                ids_in: Side::Parent,
            } => (Some(BARE), None),
            Layout::ManyToManyOneWay {
                ids_in: Side::Child,
            } => (None, Some(BARE)),
            Layout::ManyToManyTwoWay => (Some(BARE), Some(BARE)),
            Layout::ExtendedReference {
                copies_into: Side::Parent,
                fields,
            } => (Some(fields), None),
            Layout::ExtendedReference {
                copies_into: Side::Child,
                fields,
            } => (None, Some(fields)),
            Layout::TwoWayExtendedReference {
                copies_in_parent,
                copies_in_child,
            } => (Some(copies_in_parent), Some(copies_in_child)),
            _ => return None,
        })
    }

    /// The copies of the other side's fields that `side` keeps next to its
    /// reference (empty when it keeps none).
    pub fn copies_in(&self, side: Side) -> &[String] {
        match (self, side) {
            (
                Layout::ExtendedReference {
                    copies_into,
                    fields,
                },
                s,
            ) if *copies_into == s => fields,
            (
                Layout::TwoWayExtendedReference {
                    copies_in_parent, ..
                },
                Side::Parent,
            ) => copies_in_parent,
            (
                Layout::TwoWayExtendedReference {
                    copies_in_child, ..
                },
                Side::Child,
            ) => copies_in_child,
            _ => &[],
        }
    }

    /// The most children one bucket of this layout holds: its array's
    /// `maxItems` (`advise::document`), the bound the upsert that adds to
    /// it tests (a full bucket makes it open another), and the bound the
    /// bucket's reason gives (`rules/design/bucket.rs`). `None` for other
    /// layouts.
    pub fn bucket_capacity(&self) -> Option<u64> {
        match self {
            Layout::Bucket { per_bucket, .. } => Some(*per_bucket),
            _ => None,
        }
    }

    /// Whether the child keeps a collection of its own under this layout.
    pub fn child_has_collection(&self) -> bool {
        !matches!(self, Layout::Embed | Layout::Bucket { .. })
    }
}

/// How a bucket groups children.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum BucketBy {
    /// A fixed number of children per bucket (comments in pages of 50).
    Count,
    /// Children whose `field` (a date) falls in one `unit` ("hour", "day").
    Time { field: String, unit: String },
}

/// A pre-computed aggregate kept in a bucket or a parent (`$inc`, `$min`, `$max`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Aggregation {
    pub function: AggregateFn,
    pub field: Option<String>,
}
