//! The steps of the layouts whose step carries more than a few fields, as
//! values: an archive's, a kind's move, buckets (and back), an outlier's or
//! a subset's array (and back), a timeline. `action::Action` carries them;
//! each layout's file plans its step and writes its statements and figures
//! (`impl` blocks there), so the data sits below both the actions and the
//! layouts.

use super::step_parts::{ItemField, ItemLookup};
use crate::model::AggregateFn;

// An archive (`archive`).

/// An archive added (`back`: dropped) between the two designs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Archiving {
    /// The entity whose instances are split by age.
    pub entity: String,
    pub live: String,
    pub archive: String,
    /// The date field that tells the age.
    pub field: String,
    pub horizon_days: u64,
    /// The archive of today goes back into the live collection.
    pub back: bool,
    /// The documents move in the shape they have today, before any step
    /// reshapes the live collection (the archive keeps today's shape; the
    /// live collection changes it in place afterwards, the archived
    /// documents with the rest): first, rather than last, as the other
    /// steps leave them.
    pub first: bool,
}

impl Archiving {
    /// The collection the step reads in batches.
    pub(super) fn source(&self) -> &str {
        if self.back { &self.archive } else { &self.live }
    }
}

// A kind's move (`kinds`).

/// One kind's documents into the polymorphic collection (`back`: out of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KindMove {
    /// The kind (an entity): the discriminator's value.
    pub kind: String,
    /// Its collection of its own.
    pub own: String,
    pub shared: String,
    pub discriminator: String,
    pub back: bool,
    /// On the first kind of a collection: the collections of every kind,
    /// for the check that the whole collection is accounted for.
    pub all: Vec<String>,
}

impl KindMove {
    /// The collection the step reads in batches.
    pub(super) fn source(&self) -> &str {
        if self.back { &self.shared } else { &self.own }
    }
}

// Buckets (`bucket`).

/// A scalar field of the bucket and the BSON type the design gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Typed {
    pub field: String,
    pub bson_type: String,
}

/// Buckets by time: the children's date field (its name today), the
/// unit's length, and the bucket's field for the unit's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ByTime {
    pub source: String,
    pub unit_ms: i64,
    pub start: String,
}

/// An aggregate the bucket keeps over its children: `function` of the
/// children's `of` (today's name; none for a count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Aggregate {
    pub target: Typed,
    pub function: AggregateFn,
    pub of: Option<String>,
}

/// Where the step reads each parent's children today.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Children {
    /// Their own collection, with the parent's id at `ref_path`.
    Collection { child: String, ref_path: String },
    /// The parent's array `field` (embed); with `ids`, its items carry an
    /// `_id` (a bucket takes its first child's, as from a collection).
    Embedded { field: String, ids: bool },
}

/// The step that builds a bucket collection from a parent's children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Buckets {
    pub relationship: String,
    /// Today's parent collection: the step reads it in batches of ids.
    pub parent: String,
    /// Where the children are today.
    pub children: Children,
    /// The bucket collection and its reference to the parent.
    pub bucket: String,
    pub ref_field: String,
    /// The tenant's id the bucket holds for its children
    /// (`Model::bucket_tenant`): the bucket's field, from the first
    /// child's reference of today.
    pub tenant: Option<ItemField>,
    pub per_bucket: u64,
    /// `None`: `per_bucket` children to a bucket in the order they arrived.
    pub time: Option<ByTime>,
    pub page: Option<Typed>,
    pub count: Option<Typed>,
    /// A count bucket's children ever added (`design::ARRIVED`): its
    /// children when it is built, as the insert fills it in arrival order.
    pub arrived: Option<Typed>,
    /// The bucket's array of children and each item's fields.
    pub items_field: String,
    pub items: Vec<ItemField>,
    /// The items' references to other documents, looked up in each child
    /// read from its collection (`lookups.rs`).
    pub lookups: Vec<ItemLookup>,
    pub figures: Vec<Aggregate>,
}

impl Buckets {
    /// The script makes each bucket's `_id` (its children have none).
    pub(super) fn made_ids(&self) -> bool {
        matches!(self.children, Children::Embedded { ids: false, .. })
    }
}

/// bucket → parent-reference: each child in a bucket becomes a document of
/// the child collection with the bucket's parent id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unbuckets {
    pub relationship: String,
    /// Today's parent collection: the step reads it in batches of ids.
    pub parent: String,
    /// Today's bucket collection, its reference to the parent and its array.
    pub bucket: String,
    pub bucket_ref: String,
    pub items_field: String,
    /// The new child collection, its reference to the parent, and its
    /// fields from the bucket's items.
    pub child: String,
    pub ref_field: String,
    pub items: Vec<ItemField>,
    /// The items carry an `_id`: it is kept (a re-run replaces); without
    /// one, a batch first removes what an interrupted run of it wrote.
    pub keeps_id: bool,
    /// The bucket's count of its children, when it keeps one.
    pub count: Option<String>,
}

// An outlier's or a subset's array (`overflow`).

/// What the parent's array keeps after the final step; the rest of its
/// items are only in the child collection then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Keep {
    /// An outlier's: the first `k`, in the array's order; the items past
    /// them move to the child collection.
    First(u64),
    /// A subset's: the newest `k` by `sort` (today's item field;
    /// `child_sort`, the child collection's), newest first; without a sort
    /// field, the last `k` of the array (the order they arrived in, which
    /// the `_id`s given in the array's order keep: `child_sort` is `_id`).
    /// Every item moves to the child collection, the array keeping copies.
    Latest {
        k: u64,
        sort: Option<String>,
        child_sort: String,
    },
}

impl Keep {
    /// The items before this position stay in the array only.
    pub(super) fn moved_from(&self) -> u64 {
        match self {
            Keep::First(k) => *k,
            Keep::Latest { .. } => 0,
        }
    }
}

/// The step from today's array to the recommended outlier's or subset's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Overflow {
    pub relationship: String,
    /// The parent's collection and its array (the same name in both designs).
    pub parent: String,
    pub field: String,
    pub keep: Keep,
    /// The field of the recommended array's items for the parent's id.
    pub item_ref: Option<String>,
    /// The other fields of the recommended array's items, each from
    /// today's item's.
    pub kept: Vec<ItemField>,
    /// The child collection, its reference to the parent, and each of its
    /// fields from an item's (`_id` included).
    pub child: String,
    pub ref_field: String,
    pub child_items: Vec<ItemField>,
    /// The fields of today's items (the rollback puts them back to those).
    pub today_items: Vec<String>,
}

/// outlier → embed: each parent's array gets the children the child
/// collection holds for it (in `_id` order, after its own), in place and
/// in today's item shape, so that today's application reads them as it
/// did (until the final step it sees the children past the threshold twice,
/// in the array and in the collection). The final step gathers again (the
/// children added since included), gives the items the recommended shape,
/// then drops the child collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Gather {
    pub relationship: String,
    pub parent: String,
    pub field: String,
    /// Today's threshold (the rollback cuts the arrays back to it).
    pub threshold: u64,
    pub child: String,
    pub ref_field: String,
    /// Today's item fields, each from a child document's field.
    pub today_items: Vec<ItemField>,
    /// The recommended item fields, each from today's item's.
    pub items: Vec<ItemField>,
}

// A timeline (`timeline`).

/// Follow documents in a collection of their own, each with the reader's
/// id at `follower` and the followed parent's at `followed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Follows {
    pub edges: String,
    pub follower: String,
    pub followed: String,
}

/// Where today's items are, for the figures: in their own collection with
/// the parent's id at `ref_path`, or in the parent's array (embedded, or
/// their ids: either way a parent's items are its array's size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ItemsToday {
    Collection { child: String, ref_path: String },
    ParentArray { parent: String, field: String },
}

/// The step that builds a timeline collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Timeline {
    /// The feed's relationship of items (the step's id names it).
    pub relationship: String,
    pub collection: String,
    /// The readers' collection: the step reads it in batches of ids, and
    /// every reader gets a timeline (empty when it follows nobody).
    pub readers: String,
    /// The follows and the items in the recommended design.
    pub follows: Follows,
    pub items: String,
    pub parent_field: String,
    /// The timeline's array, and each copy's fields from the item's.
    pub items_field: String,
    pub copies: Vec<ItemField>,
    /// The feed's order: the items' fields, descending or not (ties by `_id`).
    pub sort: Vec<(String, bool)>,
    pub limit: u64,
    pub threshold: Option<u64>,
    pub outliers_field: Option<String>,
    /// The same follows and items where the design of today keeps them.
    pub follows_today: Follows,
    pub items_today: ItemsToday,
    /// The collection the step writes instead of `collection` when today's
    /// design has a timeline of that name in another shape (which today's
    /// application reads until the final step rebuilds it in place).
    pub beside: Option<String>,
}

impl Timeline {
    /// The collection the step writes.
    pub(super) fn written(&self) -> &str {
        self.beside.as_deref().unwrap_or(&self.collection)
    }
}
