//! The steps of a migration as values: what each builds, from what, and how
//! it is checked. `plan` derives them from the two designs; `render` writes
//! them as mongosh.

use crate::model::AggregateFn;

/// One field of the items a step builds: its name in the recommended
/// design and the field of the source document it is copied from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemField {
    pub target: String,
    pub source: String,
}

/// What a parent's new field holds, built from its children's collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParentField {
    /// The children themselves (embed): an array, or one sub-document.
    Embedded { items: Vec<ItemField>, one: bool },
    /// The children's ids (child references).
    Ids,
    /// Copies of some of the children's fields beside their ids (an
    /// extended reference into the parent; a subset when `latest` keeps the
    /// newest `k` by the sort field).
    Copies {
        items: Vec<ItemField>,
        latest: Option<Latest>,
    },
}

/// The newest `k` children by `sort` (descending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Latest {
    pub k: u64,
    pub sort: Option<String>,
}

/// Where a computed field's children are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildrenAt {
    /// The child collection, matched on `ref_path`.
    Collection { child: String, ref_path: String },
    /// The parent's own array (or sub-document) of embedded children.
    Embedded { field: String, one: bool },
    /// The child collection, matched on the ids in the parent's array.
    Ids { child: String, field: String },
}

/// One step of the migration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
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
    },
    /// child-references → parent-reference: each child gets its parent's id
    /// at `ref_field` from the parent's array.
    RefFromIds {
        relationship: String,
        parent: String,
        field: String,
        child: String,
        ref_field: String,
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
    },
}

impl Action {
    /// A stable id for the progress marker: the step's number and what it does.
    pub fn id(&self, number: usize) -> String {
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
            } => ("reference", relationship, ref_field),
            Action::CopyIntoChild {
                relationship,
                target,
                ..
            } => ("copy", relationship, target),
            Action::Computed {
                relationship,
                field,
                ..
            } => ("computed", relationship, field),
        };
        format!("{number:02}-{kind}-{rel}-{field}")
    }

    /// Runs after every step that matches children on their parent's id.
    pub fn runs_last(&self) -> bool {
        matches!(self, Action::CopyIntoChild { .. })
    }
}

/// What the final, separate step removes once the new design is in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cleanup {
    DropCollection { collection: String },
    Unset { collection: String, field: String },
}

/// What undoes a step while the final step has not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undo {
    /// A field the migration added.
    Unset { collection: String, field: String },
    /// A collection the migration created.
    Drop { collection: String },
    /// A reference turned into `{_id, copies…}` in place: back to the id.
    BackToId { collection: String, field: String },
}
