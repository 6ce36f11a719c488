//! The steps of a migration as values: what each builds, from what, and how
//! it is checked. `plan` derives them from the two designs; `render` writes
//! them as mongosh.

use super::layout_steps::{Archiving, Buckets, Gather, KindMove, Overflow, Timeline, Unbuckets};
use super::step_parts::{
    ChildrenAt, EdgeRef, ItemField, ItemLookup, ParentField, TheirAttributes, children_of,
};
use crate::design::Index;
use crate::model::AggregateFn;

/// One step of the migration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Action {
    /// parent-reference → embed / child-references / extended reference into
    /// the parent / subset: the parent's new `field` from the child
    /// collection, by parent `_id` batches.
    BuildParent {
        relationship: String,
        parent: String,
        field: String,
        child: String,
        ref_path: String,
        what: ParentField,
        /// The items' references to other parents, with copies.
        lookups: Vec<ItemLookup>,
    },
    /// embed → parent-reference: each embedded child becomes a document of
    /// the new `child` collection with its parent's id at `ref_field`.
    Unwind {
        relationship: String,
        parent: String,
        field: String,
        one: bool,
        child: String,
        ref_field: String,
        items: Vec<ItemField>,
        /// The embedded children carry an `_id`: it is kept (and makes a
        /// re-run overwrite rather than insert); without one, a batch first
        /// removes what an interrupted run of it wrote.
        keeps_id: bool,
        /// An outlier's: the child collection holds the children past the
        /// array already.
        rest: bool,
    },
    /// child-references → parent-reference: each child gets its parent's id
    /// at `ref_field` from the parent's array.
    RefFromIds {
        relationship: String,
        parent: String,
        field: String,
        child: String,
        ref_field: String,
        /// The array holds `{_id, copies…}`, not bare ids.
        objects: bool,
        /// A one-to-one's: the field holds the one child's id, no array.
        one: bool,
    },
    /// extended reference into the child → parent reference: the child's
    /// `target` becomes the id at `ref_path` (`customer._id`); in place when
    /// `target` is the reference's own field (run last, like `CopyIntoChild`).
    IdFromCopy {
        relationship: String,
        child: String,
        ref_path: String,
        target: String,
        /// The id's BSON type (the check counts the ids of that type).
        id_type: String,
    },
    /// extended reference into the parent → child references: the parent's
    /// array of `{_id, copies…}` at `field` becomes the bare ids at `target`
    /// (in place when the names are the same: run last).
    IdsFromCopies {
        relationship: String,
        parent: String,
        field: String,
        target: String,
    },
    /// many-to-many in arrays → edge collection: one document of `edge` per
    /// item of the `holder`'s array `field`, with a deterministic `_id` (the
    /// MD5 of both references, as `squill migrate` makes them), so a batch
    /// done twice overwrites rather than duplicates.
    Edge {
        relationship: String,
        holder: String,
        field: String,
        /// The array holds `{_id, attributes…}`, not bare ids.
        objects: bool,
        edge: String,
        /// The link's reference to the holder and to the other side.
        holder_ref: EdgeRef,
        other_ref: EdgeRef,
        /// The other side's collection (for its copies).
        other: String,
        /// The link's attributes: the edge's field from the item's.
        attributes: Vec<ItemField>,
    },
    /// parent-reference → extended reference into the child: the child's
    /// `target` becomes `{_id, copies…}` from its parent's id at `ref_field`
    /// (in place when the names are the same: run last, as it changes the
    /// path the other steps match children on).
    CopyIntoChild {
        relationship: String,
        child: String,
        ref_field: String,
        target: String,
        parent: String,
        copies: Vec<ItemField>,
    },
    /// A many-to-many side's array whose items change (ids gain or lose the
    /// copies of the other side's fields): each item of `collection`'s
    /// `field` becomes the item of `target` (in place when the names are the
    /// same: run last, as it changes the path other steps read ids at):
    /// the bare id when `copies` and `attributes` are empty, else `{_id,
    /// copies…, attributes…}`, the copies looked up in `other` by the id,
    /// the link's attributes kept from the item, or (`theirs`) taken from
    /// the item of the other side's array that names the document.
    LinkItems {
        relationship: String,
        collection: String,
        field: String,
        target: String,
        other: String,
        copies: Vec<ItemField>,
        attributes: Vec<ItemField>,
        theirs: Option<Box<TheirAttributes>>,
    },
    /// parent-reference → bucket: the children of each batch of parents
    /// grouped into the documents of a bucket collection.
    Bucket(Box<Buckets>),
    /// bucket → parent-reference: each child in the buckets of a batch of
    /// parents into a document of the child collection.
    Unbucket(Box<Unbuckets>),
    /// embed → outlier: each item of a batch of parents' arrays with an
    /// `_id`, those past the threshold into the child collection.
    Overflow(Box<Overflow>),
    /// outlier → embed: each parent's array gets its children of the child
    /// collection.
    Gather(Box<Gather>),
    /// parent-reference → tree-path or path-reference: `field` of each
    /// document of `collection`, the path from the root of the tree whose
    /// nodes (in `nodes`) keep their parent's id at `parent`, down to the
    /// node at `start` (the document's own `_id` for a node's own path, its
    /// reference for a node's child), the node last: each item `{_id,
    /// copies…}` from the node, or the bare id when `items` is `None`.
    Path {
        relationship: String,
        collection: String,
        field: String,
        start: String,
        nodes: String,
        parent: String,
        items: Option<Vec<ItemField>>,
    },
    /// embed-parent-in-child → parent-reference: the parent's collection,
    /// one document per distinct parent embedded at `field` in the children
    /// of `child`, each item from the embedded parent's field; when two
    /// children hold different copies of a parent, the newest child's (by
    /// `_id`) wins, so a batch done again writes the same parent.
    ParentsFromChildren {
        relationship: String,
        child: String,
        field: String,
        parent: String,
        items: Vec<ItemField>,
    },
    /// shared-id → parent-reference: each child's parent id at `ref_field`,
    /// from its own `_id` (which is its parent's).
    RefFromOwnId {
        relationship: String,
        child: String,
        ref_field: String,
    },
    /// parent-reference → shared-id: each child written again under its
    /// parent's id (`_id` from `ref_field`, the reference dropped) into its
    /// own collection, beside the documents of today (they hold the
    /// reference, the new ones do not), which the final step deletes. A
    /// parent with two children keeps one: the figures then fail.
    Rekey {
        relationship: String,
        child: String,
        parent: String,
        ref_field: String,
    },
    /// A timeline the recommended design adds: each batch of readers'
    /// documents, built from the follows and the items (fan-out on write).
    Timeline(Box<Timeline>),
    /// An archive added (the old documents copied into it) or dropped
    /// (its documents back into the live collection).
    Archive(Box<Archiving>),
    /// A kind's documents into a polymorphic collection or out of it.
    Kind(Box<KindMove>),
    /// A count or sum over children the recommended design keeps in the parent.
    Computed {
        relationship: String,
        parent: String,
        field: String,
        function: AggregateFn,
        /// The children's field aggregated (none for a count).
        of: Option<String>,
        /// The BSON type the design gives the field (`long`, `double`, …).
        bson_type: String,
        children: ChildrenAt,
        /// The parent's collection is one the migration makes: each value
        /// is written once, so a rerun after the in-place steps (which can
        /// change the path the children are matched on: an embedded
        /// parent made its id) leaves it alone.
        once: bool,
    },
}

impl Action {
    /// A stable id for the progress marker: the step's number and what it does.
    pub(super) fn id(&self, number: usize) -> String {
        let (kind, rel, field) = match self {
            Action::BuildParent {
                relationship,
                field,
                ..
            } => ("build", relationship, field),
            Action::Unwind {
                relationship,
                child,
                ..
            } => ("unwind", relationship, child),
            Action::RefFromIds {
                relationship,
                ref_field,
                ..
            }
            | Action::RefFromOwnId {
                relationship,
                ref_field,
                ..
            } => ("reference", relationship, ref_field),
            Action::Rekey {
                relationship,
                child,
                ..
            } => ("rekey", relationship, child),
            Action::CopyIntoChild {
                relationship,
                target,
                ..
            } => ("copy", relationship, target),
            Action::IdFromCopy {
                relationship,
                target,
                ..
            }
            | Action::IdsFromCopies {
                relationship,
                target,
                ..
            } => ("ids", relationship, target),
            Action::Edge {
                relationship, edge, ..
            } => ("edges", relationship, edge),
            Action::LinkItems {
                relationship,
                target,
                ..
            } => ("items", relationship, target),
            Action::Computed {
                relationship,
                field,
                ..
            } => ("computed", relationship, field),
            Action::Bucket(b) => ("buckets", &b.relationship, &b.bucket),
            Action::Unbucket(u) => ("unbucket", &u.relationship, &u.child),
            Action::Overflow(o) => ("overflow", &o.relationship, &o.child),
            Action::Gather(g) => ("gather", &g.relationship, &g.field),
            Action::Path {
                relationship,
                field,
                ..
            } => ("path", relationship, field),
            Action::ParentsFromChildren {
                relationship,
                parent,
                ..
            } => ("parents", relationship, parent),
            Action::Timeline(t) => ("timeline", &t.relationship, &t.collection),
            Action::Archive(a) if a.back => ("unarchive", &a.entity, &a.live),
            Action::Archive(a) => ("archive", &a.entity, &a.archive),
            Action::Kind(k) if k.back => ("unkind", &k.kind, &k.own),
            Action::Kind(k) => ("kind", &k.kind, &k.shared),
        };
        format!("{number:02}-{kind}-{rel}-{field}")
    }

    /// The indexes the step's `$lookup`s need on the collections they look
    /// up, `(collection, path)`: the documents that list this one in an
    /// array of `{_id, …}` are found by the path into that array, an index
    /// read rather than a scan per document (and the test server's
    /// `$lookup` follows such a path only through an index); a timeline
    /// looks up each reader's follows and their parents' items; an
    /// embedded item's own children are found by their reference to it.
    pub(super) fn lookup_indexes(&self) -> Vec<(&str, &str)> {
        match self {
            Action::BuildParent { lookups, .. } if !lookups.is_empty() => children_of(lookups),
            Action::Bucket(b) if !b.lookups.is_empty() => children_of(&b.lookups),
            Action::BuildParent {
                child,
                ref_path,
                what: ParentField::Holders { .. },
                ..
            } if ref_path.contains('.') => vec![(child, ref_path)],
            Action::Timeline(t) => vec![
                (&t.follows.edges, &t.follows.follower),
                (&t.items, &t.parent_field),
            ],
            _ => Vec::new(),
        }
    }

    /// When the step runs: 0 first; 1 after every step that matches
    /// children on their parent's id (it changes the path they match on);
    /// 2 a timeline, last, as it reads the follows and the items where the
    /// other steps put them.
    pub(super) fn phase(&self) -> u8 {
        match self {
            Action::Timeline(_) => 2,
            a => u8::from(a.runs_last()),
        }
    }

    /// Runs after every step that matches children on their parent's id.
    pub(super) fn runs_last(&self) -> bool {
        match self {
            // The archive copies the live documents as the other steps
            // leave them.
            Action::CopyIntoChild { .. } => true,
            Action::Archive(a) => !a.first,
            Action::IdFromCopy {
                ref_path, target, ..
            } => ref_path.split('.').next() == Some(target.as_str()),
            Action::IdsFromCopies { field, target, .. }
            | Action::LinkItems { field, target, .. } => field == target,
            _ => false,
        }
    }
}

/// What the final, separate step removes once the new design is in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cleanup {
    DropCollection {
        collection: String,
    },
    /// The children now embedded in their parent's `field` (by their
    /// `_id`s there) out of the child collection, which keeps the rest.
    RemoveEmbedded {
        child: String,
        parent: String,
        field: String,
    },
    Unset {
        collection: String,
        field: String,
    },
    /// The documents of `collection` that hold `field`: those of today,
    /// once copied under their parent's id without it.
    DeleteHolding {
        collection: String,
        field: String,
    },
    /// An index of today on a field the final step removes, which the
    /// recommended design does not keep (the rollback note rebuilds it).
    DropIndex {
        collection: String,
        index: Index,
    },
    /// The documents copied into an archive out of the live collection.
    Archived(Box<Archiving>),
    /// An outlier's arrays cut to the threshold, the children past it (and
    /// any added since the step) in the child collection first.
    Overflow(Box<Overflow>),
    /// An outlier's children gathered into the arrays again (those added
    /// since the step), the items reshaped.
    Gather(Box<Gather>),
    /// A timeline of today in a new shape: built again in place, the copy
    /// the step built beside it dropped.
    Timeline(Box<Timeline>),
}

/// A figure that checks data no step moves, before the final step drops it,
/// or what a step's own figure only sums up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Check {
    /// Per parent of `parent`, its array `field` as long as its children
    /// in `child` (found by the parent's id at `ref_path`): the step's own
    /// figure only adds the arrays up.
    EachParentsChildren {
        parent: String,
        field: String,
        child: String,
        ref_path: String,
    },
    /// The parent's collection goes: each of its documents must be held by
    /// a child, at `id_path` in `child`.
    ParentsHeld {
        parent: String,
        child: String,
        id_path: String,
    },
    /// A path goes: the parent ids that stay must walk up the tree as far
    /// (`Action::Path`'s fields: the path's length from the root against
    /// the walk up the parent ids).
    PathKept {
        collection: String,
        field: String,
        start: String,
        nodes: String,
        parent: String,
    },
}

/// What undoes a step while the final step has not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Undo {
    /// A field the migration added.
    Unset { collection: String, field: String },
    /// A collection the migration created.
    Drop { collection: String },
    /// The documents the migration wrote into `collection` beside those of
    /// today: the ones without `field`, which every document of today holds.
    DeleteLacking { collection: String, field: String },
    /// The children the migration copied out of their parent's `field`
    /// into a child collection that held others already (an outlier's).
    RemoveEmbedded {
        child: String,
        parent: String,
        field: String,
    },
    /// A reference turned into `{_id, copies…}` in place: back to the id.
    BackToId { collection: String, field: String },
    /// Copies taken out of references in place: put back from the
    /// referenced documents as they are now (the step that does the
    /// opposite, as a statement).
    CopiesBack(Box<Action>),
    /// An array's items changed in place: back to the items of today (the
    /// step that does the opposite, as a statement; copies put back are
    /// the referenced documents' values as they are now).
    ItemsBack(Box<Action>),
    /// A parent's array of `{_id, copies…}` turned into bare ids in place:
    /// each id back to `{_id, copies…}` from the `child` collection.
    CopiesIntoArray {
        parent: String,
        field: String,
        child: String,
        copies: Vec<ItemField>,
    },
    /// An archive added or dropped: its statements.
    Archive(Box<Archiving>),
    /// The items of an array given `_id`s in place: back to today's fields.
    Overflow(Box<Overflow>),
    /// Arrays grown in place: back to today's threshold.
    Gather(Box<Gather>),
}

/// The collection a step reads in batches of `_id`s.
pub(super) fn collection(action: &Action) -> &str {
    match action {
        Action::BuildParent { parent, .. }
        | Action::Unwind { parent, .. }
        | Action::RefFromIds { parent, .. }
        | Action::IdsFromCopies { parent, .. }
        | Action::Computed { parent, .. } => parent,
        Action::CopyIntoChild { child, .. }
        | Action::IdFromCopy { child, .. }
        | Action::ParentsFromChildren { child, .. }
        | Action::RefFromOwnId { child, .. }
        | Action::Rekey { child, .. } => child,
        Action::LinkItems { collection, .. } | Action::Path { collection, .. } => collection,
        Action::Edge { holder, .. } => holder,
        Action::Bucket(b) => &b.parent,
        Action::Unbucket(u) => &u.parent,
        Action::Overflow(o) => &o.parent,
        Action::Gather(g) => &g.parent,
        Action::Timeline(t) => &t.readers,
        Action::Archive(a) => a.source(),
        Action::Kind(k) => k.source(),
    }
}
