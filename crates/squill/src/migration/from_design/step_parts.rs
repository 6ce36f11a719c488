//! What the steps are made of: the fields of the items a step builds, an
//! item's references to other documents, what a parent's new field holds,
//! an edge's references and where a computed field's children are. Below
//! `action` and the layouts' own steps (`layout_steps`), which all carry
//! them.

/// One field of the items a step builds: its name in the recommended
/// design and the field of the source document it is copied from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ItemField {
    pub target: String,
    pub source: String,
}

/// An item's references to other documents, with copies of their fields:
/// looked up in `from` and left at `at` in each child read
/// (`lookups.rs`): `{_id, copies…}` of another parent of the child, or the
/// array of the child's own children (bare ids when `copies` is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ItemLookup {
    pub from: String,
    pub at: String,
    pub by: LookupBy,
    pub copies: Vec<ItemField>,
}

/// The collections and paths an item's own children are looked up by.
pub(super) fn children_of(lookups: &[ItemLookup]) -> Vec<(&str, &str)> {
    lookups
        .iter()
        .filter_map(|l| match &l.by {
            LookupBy::Children(back) => Some((l.from.as_str(), back.as_str())),
            LookupBy::Parent(_) => None,
        })
        .collect()
}

/// How an item's referenced documents are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LookupBy {
    /// The other parent, by the child's id of it at this field of today.
    Parent(String),
    /// The child's own children, by their reference to it at this field.
    Children(String),
}

/// What a parent's new field holds, built from its children's collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ParentField {
    /// The children themselves (embed): an array, or one sub-document.
    Embedded { items: Vec<ItemField>, one: bool },
    /// The children's ids (child references).
    Ids,
    /// A one-to-one's child reference: the one child's id, a plain value
    /// (none when the parent has no child).
    Id,
    /// An outlier's parent: its first `k` children in the order they
    /// arrived (by `_id`); the rest stay in the child collection.
    First { items: Vec<ItemField>, k: u64 },
    /// bucket → embed: the items of the parent's buckets (`child`, the
    /// bucket collection), the buckets in the order of their `key` fields
    /// (page or unit start, then `_id`), each bucket's `array` in its own
    /// order, each item's fields from the bucket item's.
    FromBuckets {
        array: String,
        key: Vec<String>,
        items: Vec<ItemField>,
    },
    /// Copies of some of the children's fields beside their ids (an
    /// extended reference into the parent; a subset when `latest` keeps the
    /// newest `k` by the sort field).
    Copies {
        items: Vec<ItemField>,
        latest: Option<Latest>,
    },
    /// Many-to-many, the side without the array: the ids of the documents of
    /// `child` (the other side) whose array at `ref_path` lists it, each
    /// with `copies` of that document's fields and the link's `attributes`
    /// from the item of its array that names the parent, when there are
    /// any (`{_id, copies…, attributes…}`).
    Holders {
        copies: Vec<ItemField>,
        attributes: Vec<ItemField>,
    },
    /// From an edge collection (`child`), one item per link whose `ref_path`
    /// is the parent: the other side's id at `id` in the link, bare when
    /// `items` and `copies` are empty, else `{_id, copies…, items…}`: the
    /// copies of the other side's fields looked up in `other` by the id,
    /// the link's attributes from the link.
    FromEdges {
        id: String,
        items: Vec<ItemField>,
        other: String,
        copies: Vec<ItemField>,
    },
}

/// A reference of an edge document: its field, and the copies kept beside
/// the id (`{_id, copies…}`; none for a bare id), each from the referenced
/// document's field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct EdgeRef {
    pub field: String,
    pub copies: Option<Vec<ItemField>>,
}

impl EdgeRef {
    /// The path of the id in the edge document.
    pub(super) fn id_path(&self) -> String {
        match self.copies {
            Some(_) => format!("{}._id", self.field),
            None => self.field.clone(),
        }
    }
}

/// The link's attributes a side's array takes from the other side's array
/// of today (both keep one; the attributes move): the other document's
/// array `back` (in `LinkItems::other`), its item naming this document at
/// `_id`, each attribute from the item's field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TheirAttributes {
    pub back: String,
    pub attributes: Vec<ItemField>,
}

/// The newest `k` children by `sort` (descending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Latest {
    pub k: u64,
    pub sort: Option<String>,
}

/// Where a computed field's children are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ChildrenAt {
    /// The child collection, matched on `ref_path`.
    Collection { child: String, ref_path: String },
    /// The parent's own array (or sub-document) of embedded children.
    Embedded { field: String, one: bool },
    /// The child collection, matched on the ids in the parent's array.
    Ids { child: String, field: String },
}
