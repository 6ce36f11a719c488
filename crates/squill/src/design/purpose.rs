//! Why a step of a plan runs, and what a plan warns of, as values. The planner
//! says what it does with names and numbers (`RefreshCopy { source, fields,
//! holders, holder }`); English is made from them only when a person reads
//! it (`text`), with the grammar helper choosing each name's form, so no
//! sentence is written with a name in a fixed slot and patched afterwards.
//! Programs read the typed values (the design JSON carries both).

use crate::words::{a, num, plural, sides, singular};
use serde::{Serialize, Serializer};

/// Why a step runs. Entity and field names are the model's.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Purpose {
    /// The documents a read asks for.
    Find {
        entity: String,
    },
    /// How many documents match, for a read that returns only that
    /// (`returns: count`).
    Count {
        entity: String,
    },
    /// The first step of a read filtered on a related entity's field.
    FindMatching {
        entity: String,
        field: String,
    },
    /// A document read for the ids it keeps in `field`.
    ReadIds {
        entity: String,
        field: String,
    },
    /// The documents of every kind of a polymorphic collection at once.
    AllKinds {
        collection: String,
    },
    /// The buckets (in `field`) of each `entity`.
    ReadBuckets {
        field: String,
        entity: String,
    },
    /// An application-level join: the `target` (or several) of each `from`
    /// through relationship `via`.
    Join {
        target: String,
        many: bool,
        from: String,
        via: String,
    },
    /// A walk of a tree in one command: the ancestors (`up`) or the
    /// descendants of each `entity` through relationship `via`.
    Walk {
        entity: String,
        up: bool,
        via: String,
    },
    /// Every instance of `entity` in the subtree of the given node of the
    /// tree `via` (the node included): the ids a query under it takes.
    Subtree {
        entity: String,
        via: String,
    },
    /// The paths `holders` instances of `holder` keep, rewritten below the
    /// moved `entity` (its subtree, or what references its subtree).
    RebasePaths {
        entity: String,
        holder: String,
        holders: f64,
    },
    /// A value kept per bucket, added up (`function` as in the model: count, sum…).
    AddUpBuckets {
        function: String,
    },
    /// A value computed over the items of the buckets.
    ComputeOverBuckets {
        function: String,
    },
    /// A value computed by an aggregation over each parent's children.
    ComputeOverChildren {
        function: String,
        child: String,
        parent: String,
    },
    FindToDelete {
        entity: String,
    },
    Delete {
        entity: String,
    },
    /// An embedded entity removed from the document that holds it.
    Pull {
        entity: String,
    },
    /// A link to an existing `to` recorded in `entity`'s document (a star,
    /// a track added to a playlist).
    Link {
        entity: String,
        to: String,
    },
    /// A link to `to` removed from `entity`'s document.
    Unlink {
        entity: String,
        to: String,
    },
    /// The link's own `fields` (a member's role) changed where `entity`'s
    /// document keeps its link to `to`.
    ChangeLink {
        entity: String,
        to: String,
        fields: Vec<String>,
    },
    /// A new `entity`'s `parent`, found by its id in the caller's
    /// `tenant` before the insert: a parent of another tenant is not
    /// found, and the insert is refused rather than filed where the
    /// tenant's reads never see it. The insert sets `tenant_field` and
    /// `field` (the new document's references) to the ids it found by;
    /// `field` is `None` where the parent keeps the new document's id
    /// instead (a follower's `following`: the push follows the insert).
    CheckParent {
        entity: String,
        parent: String,
        tenant: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        field: Option<String>,
        tenant_field: String,
    },
    /// The fields an extended reference copies, read from the instance
    /// being linked.
    ReadCopies {
        entity: String,
        fields: Vec<String>,
    },
    /// A child's id or copy removed from its parent.
    RemoveFromParent {
        entity: String,
        parent: String,
    },
    /// An embedded entity added to its host document.
    AddInside {
        entity: String,
        host: String,
    },
    /// The expired elements of an array of an expiring entity dropped by
    /// the write that adds one (no TTL index deletes them).
    DropExpired {
        entity: String,
        host: String,
    },
    /// A parent folded into its children, written into each.
    WriteIntoEach {
        entity: String,
        host: String,
    },
    AddToOpenBucket {
        entity: String,
        parent: String,
    },
    Insert {
        entity: String,
    },
    /// A child's id (and copied fields) added to its parent.
    AddId {
        entity: String,
        fields: Vec<String>,
        parent: String,
    },
    /// The latest `k` children kept in the parent (a subset).
    KeepLatest {
        k: u64,
        entity: String,
        parent: String,
    },
    /// A computed field of the parent kept up to date on insert: `function`
    /// of `field` (no field: a count).
    KeepComputed {
        function: String,
        field: Option<String>,
        entity: String,
        parent: String,
    },
    FindToUpdate {
        entity: String,
    },
    /// A re-pointed child leaving its old parent's list.
    RemoveFromOldParent {
        entity: String,
        parent: String,
    },
    /// A re-pointed child joining its new parent's list.
    AddToNewParent {
        entity: String,
        parent: String,
    },
    /// A bucket's figures (count, sums, min, max…) computed again from the
    /// children it holds, in the write that changed or removed one.
    RecomputeBucket {
        entity: String,
    },
    /// A time bucket deleted when the child a delete drops is its last
    /// (`count: 1`): kept empty, every window over its time would read it,
    /// and its figures would be a sum of 0 and no min or max.
    DropEmptyBucket {
        entity: String,
    },
    /// Every bucket of a parent deleted at once (a delete of all its
    /// children: a filter on the parent alone).
    DeleteBuckets {
        entity: String,
        parent: String,
    },
    /// The children a deleted parent owns, kept in documents of their own,
    /// deleted with it (before it: a failure part-way leaves a parent that
    /// is still found, with fewer children).
    DeleteOwnedChildren {
        entity: String,
        parent: String,
    },
    /// The children a deleted parent owns, embedded in another entity's
    /// documents (`host`: a member's comments, owned by their issue),
    /// pulled from every document that holds one, before the parent goes.
    PullOwnedChildren {
        entity: String,
        parent: String,
        host: String,
    },
    /// A parent's figures over its children set to those of none (a count
    /// and sums of 0, no max, min or last) once all its children went.
    ResetComputed {
        entity: String,
        parent: String,
    },
    /// A parent's `function` (max, min, first, last) of its children's
    /// `field`, read again from the children after one was lowered or
    /// removed.
    RereadComputed {
        function: String,
        field: String,
        entity: String,
        parent: String,
    },
    /// The `entity` children a delete removes, counted (and summed) per
    /// `parent` before they go: each parent's counters then go down by
    /// its own amount.
    CountRemovedPerParent {
        entity: String,
        parent: String,
    },
    /// The conditions of a link tested on `entity`, a document the link
    /// does not otherwise write: a conditional write of its version
    /// (`design::VERSION`), in the link's transaction, so that a change of
    /// `entity` before the link commits conflicts with it.
    GuardConditions {
        entity: String,
        field: String,
    },
    /// The `entity` children each `parent` a delete touched has left,
    /// counted (and summed) after the delete: its counters set from them
    /// when another delete took some of the same children first.
    RecountPerParent {
        entity: String,
        parent: String,
    },
    /// A parent's figure (`field`: its max, min, first or last of its
    /// `entity` children) tested against the value the changed child held:
    /// the write matches only when that child may have held it, and only
    /// then is the figure read again.
    TestHeldComputed {
        field: String,
        entity: String,
        parent: String,
    },
    /// A computed field (`field`) of the parent kept up to date on update.
    MaintainComputed {
        field: String,
        parent: String,
    },
    Update {
        entity: String,
    },
    /// A claim: the first instance the filter and sort find, changed in
    /// the same write (`findOneAndUpdate`), so no other caller takes it.
    Claim {
        entity: String,
    },
    /// The copies of `source`'s `fields` refreshed in `holders` documents of
    /// `holder`.
    RefreshCopy {
        source: String,
        fields: Vec<String>,
        holders: f64,
        holder: String,
        /// The most documents one refresh can touch, at the model's maximum
        /// cardinality (`None`: unbounded).
        at_most: Option<u64>,
    },
    /// The reader's timeline document: the newest `entity` items pushed
    /// into it (fan-out on write).
    ReadTimeline {
        entity: String,
        reader: String,
    },
    /// The newest `entity` items of the parents past the followers'
    /// threshold that the reader follows: not pushed, read now.
    OutliersItems {
        entity: String,
    },
    /// The followers of the new item's `parent`, whose timelines it goes into.
    FindFollowers {
        parent: String,
    },
    /// The new `entity` pushed into `timelines` timelines, keeping the newest.
    PushToTimelines {
        entity: String,
        timelines: f64,
    },
    /// The deleted `entity`'s copies pulled out of `timelines` timelines.
    PullFromTimelines {
        entity: String,
        timelines: f64,
    },
    /// A new timeline, empty, for the new `reader`.
    CreateTimeline {
        reader: String,
    },
    /// The followed `parent` past the threshold noted in the follower's
    /// timeline (a follow), or removed from it (an unfollow).
    NoteOutlier {
        parent: String,
    },
}

impl Purpose {
    /// The purpose in English, for reports and the cookbook's comments.
    pub fn text(&self) -> String {
        use Purpose::*;
        let one = |name: &str| singular(name);
        match self {
            Find { entity } => format!("find {entity}"),
            Count { entity } => format!("count the {} that match", plural(entity)),
            ReadTimeline { entity, reader } => format!(
                "the {}'s timeline: the newest {} pushed into it",
                one(reader),
                plural(entity)
            ),
            OutliersItems { entity } => format!(
                "the newest {} of the followed accounts too followed to push to (outliers)",
                plural(entity)
            ),
            FindFollowers { parent } => format!(
                "the followers of the item's {}, up to the outliers' threshold",
                one(parent)
            ),
            PushToTimelines { entity, timelines } => format!(
                "push the {} into about {} timelines, keeping the newest",
                one(entity),
                num(*timelines)
            ),
            PullFromTimelines { entity, timelines } => format!(
                "pull the {}'s copy out of about {} timelines",
                one(entity),
                num(*timelines)
            ),
            CreateTimeline { reader } => format!("create the new {}'s empty timeline", one(reader)),
            NoteOutlier { parent } => format!(
                "keep the follower's timeline's list of followed {} past the threshold (outliers)",
                plural(parent)
            ),
            FindMatching { entity, field } => {
                format!("find the {} whose {field} matches", plural(entity))
            }
            ReadIds { entity, field } => {
                format!("read the {} to get its {field} ids", one(entity))
            }
            AllKinds { collection } => format!("{} of every kind in one query", plural(collection)),
            ReadBuckets { field, entity } => {
                format!("read the buckets of {field} of each {}", one(entity))
            }
            Join {
                target,
                many,
                from,
                via,
            } => {
                // A self-relationship names its sides by role: "the child
                // employees of each parent employee".
                let (from, target) = if *many {
                    sides(from, target)
                } else {
                    let (parent, child) = sides(target, from);
                    (child, parent)
                };
                format!(
                    "application-level join: the {} of each {from} through {via}",
                    if *many { plural(&target) } else { target }
                )
            }
            Walk { entity, up, via } => format!(
                "the {} of each {} through {via}, every level in one walk",
                if *up { "ancestors" } else { "descendants" },
                one(entity)
            ),
            Subtree { entity, via } => format!(
                "the {} under the given one through {via}, itself included",
                plural(entity)
            ),
            RebasePaths {
                entity,
                holder,
                holders,
            } => format!(
                "rewrite the path of the {} {} under the moved {}",
                crate::words::num(*holders),
                plural(holder),
                one(entity)
            ),
            AddUpBuckets { function } => format!("add up the {function} kept in each bucket"),
            ComputeOverBuckets { function } => {
                format!("compute the {function} over the buckets' items")
            }
            ComputeOverChildren {
                function,
                child,
                parent,
            } => format!(
                "compute the {function} of the {} of each {} (aggregation)",
                plural(child),
                one(parent)
            ),
            FindToDelete { entity } => format!("find the {} to delete", plural(entity)),
            Delete { entity } => format!("delete the {}", one(entity)),
            Pull { entity } => format!("pull the {} out of its document", one(entity)),
            Link { entity, to } => {
                format!("record the link to the {} in the {}", one(to), one(entity))
            }
            Unlink { entity, to } => {
                format!(
                    "remove the link to the {} from the {}",
                    one(to),
                    one(entity)
                )
            }
            ChangeLink { entity, to, fields } => format!(
                "set the link's {} where the {} keeps its link to the {}",
                fields.join(", "),
                one(entity),
                one(to)
            ),
            ReadCopies { entity, fields } => {
                format!("read the {}'s {} to copy", one(entity), fields.join(", "))
            }
            CheckParent {
                entity,
                parent,
                tenant,
                ..
            } => format!(
                "check the new {}'s {} is in this {}",
                one(entity),
                one(parent),
                one(tenant)
            ),
            RemoveFromParent { entity, parent } => {
                format!("remove the {} from its {}", one(entity), one(parent))
            }
            AddInside { entity, host } => {
                format!("add the {} inside its {}", one(entity), one(host))
            }
            DropExpired { entity, host } => format!(
                "drop the expired {} of its {} in the same write: no TTL index deletes them from the array",
                plural(entity),
                one(host)
            ),
            WriteIntoEach { entity, host } => {
                format!(
                    "write the {} into each of its {}",
                    one(entity),
                    plural(host)
                )
            }
            AddToOpenBucket { entity, parent } => format!(
                "add the {} to the open bucket of its {}",
                one(entity),
                one(parent)
            ),
            Insert { entity } => format!("insert the {}", one(entity)),
            AddId {
                entity,
                fields,
                parent,
            } if fields.is_empty() => {
                format!("add the {}'s id to its {}", one(entity), one(parent))
            }
            AddId {
                entity,
                fields,
                parent,
            } => format!(
                "add the {}'s id and {} to its {}",
                one(entity),
                fields.join(", "),
                one(parent)
            ),
            KeepLatest { k, entity, parent } => {
                format!(
                    "keep {} in the {}",
                    crate::words::latest(*k, entity),
                    one(parent)
                )
            }
            KeepComputed {
                function,
                field,
                entity,
                parent,
            } => format!(
                "keep the {} of {} in the {}",
                match field {
                    Some(x) => format!("{function} of {x}"),
                    None => "count".to_string(),
                },
                plural(entity),
                one(parent)
            ),
            FindToUpdate { entity } => format!("find the {} to update", plural(entity)),
            RemoveFromOldParent { entity, parent } => {
                format!("remove the {} from its old {}", one(entity), one(parent))
            }
            AddToNewParent { entity, parent } => {
                format!("add the {} to its new {}", one(entity), one(parent))
            }
            RereadComputed {
                function,
                field,
                entity,
                parent,
            } => format!(
                "read the {function} of {field} of the {}'s {} again",
                one(parent),
                plural(entity)
            ),
            RecomputeBucket { entity } => {
                format!("recompute the bucket's figures from its {}", plural(entity))
            }
            DropEmptyBucket { entity } => {
                format!(
                    "delete the bucket if this is the last of its {}",
                    plural(entity)
                )
            }
            DeleteBuckets { entity, parent } => format!(
                "delete every bucket of the {}'s {}",
                one(parent),
                plural(entity)
            ),
            DeleteOwnedChildren { entity, parent } => format!(
                "delete the {} each deleted {} owns",
                plural(entity),
                one(parent)
            ),
            PullOwnedChildren {
                entity,
                parent,
                host,
            } => format!(
                "pull the {} each deleted {} owns out of the {} that hold them",
                plural(entity),
                one(parent),
                plural(host)
            ),
            ResetComputed { entity, parent } => format!(
                "set the {}'s figures of its {} to those of none",
                one(parent),
                plural(entity)
            ),
            CountRemovedPerParent { entity, parent } => format!(
                "count the {} it deletes from each {}",
                plural(entity),
                one(parent)
            ),
            RecountPerParent { entity, parent } => format!(
                "count the {} each {} it touched has left",
                plural(entity),
                one(parent)
            ),
            TestHeldComputed {
                field,
                entity,
                parent,
            } => format!(
                "match the {} only if its {field} is the value the {} held (then read it again)",
                one(parent),
                one(entity)
            ),
            GuardConditions { entity, field } => format!(
                "test the {}'s conditions and raise its {field}, so that a change of the {} before this commits conflicts with it",
                one(entity),
                one(entity)
            ),
            MaintainComputed { field, parent } => {
                format!("keep the {}'s {field} up to date", one(parent))
            }
            Update { entity } => format!("update the {}", one(entity)),
            Claim { entity } => format!(
                "claim one {}: the first that matches, found and changed in one write",
                one(entity)
            ),
            RefreshCopy {
                source,
                fields,
                holders,
                holder,
                at_most,
            } => {
                let worst = match at_most {
                    Some(n) if (*n as f64) > *holders => format!(" (at most {})", num(*n as f64)),
                    Some(_) => String::new(),
                    None => " (no upper bound)".to_string(),
                };
                format!(
                    "refresh the copy of the {}'s {} in {} {}{worst}",
                    one(source),
                    fields.join(", "),
                    num(*holders),
                    if num(*holders) == "1" {
                        one(holder)
                    } else {
                        plural(holder)
                    }
                )
            }
        }
    }

    /// The purposes of one step in English, joined.
    pub fn texts(purposes: &[Purpose]) -> String {
        purposes
            .iter()
            .map(Purpose::text)
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl From<Purpose> for Vec<Purpose> {
    fn from(p: Purpose) -> Self {
        vec![p]
    }
}

/// Why the writes of an atomic group with `same:` stay separate calls.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MergeBlock {
    /// The design puts the writes in more than one document (a child kept
    /// in a collection of its own).
    Split,
    /// An operation's plan is not one update of one document.
    NotOneUpdate { operation: String },
    /// Two writes change paths that overlap (`seats` and `seats.$.state`):
    /// one update cannot hold both.
    Conflict { first: String, second: String },
    /// Two writes address elements of one array: one positional `$` names
    /// one element.
    OneArray { array: String },
    /// The writes address elements of two arrays, `first` and `second`:
    /// one update has one positional `$`, of one array.
    Arrays { first: String, second: String },
    /// `operation` skips its write when its condition fails: in one update
    /// that condition would stop the other writes too.
    Skips { operation: String },
    /// The writes say different things to do when nothing matches.
    Otherwise,
}

impl MergeBlock {
    fn text(&self) -> String {
        match self {
            MergeBlock::Split => "this design keeps them in more than one document".into(),
            MergeBlock::NotOneUpdate { operation } => {
                format!("{operation} is not one update of one document here")
            }
            MergeBlock::Conflict { first, second } if first == second => {
                format!("two of them change {first}, and one update cannot change it twice")
            }
            MergeBlock::Conflict { first, second } => {
                format!("{first} and {second} overlap, and one update cannot change both")
            }
            MergeBlock::OneArray { array } => format!(
                "two of them address elements of the array {array}, and one positional $ names one element"
            ),
            MergeBlock::Arrays { first, second } => format!(
                "they address elements of the arrays {first} and {second}, and one positional $ names an element of one array"
            ),
            MergeBlock::Skips { operation } => format!(
                "{operation} skips its write when its condition fails, and in one update that condition would stop the others' writes too"
            ),
            MergeBlock::Otherwise => "they say different things to do when nothing matches".into(),
        }
    }
}

/// What a plan's reader should know about how it runs.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Warning {
    /// An update of several `entity` documents at once that changes what a
    /// parent's figure over a subset of them tests or sums (`figures`):
    /// one write cannot return each child as it was, so the plan does not
    /// move those figures (costs/plan/subset.rs).
    SubsetFigureNotKept {
        entity: String,
        figures: Vec<String>,
    },
    /// An insert of `entity`, which expires by TTL in `collection`: the
    /// TTL monitor deletes later what it inserts, about `per_second`
    /// documents a second (buckets when `buckets`), and that delete and
    /// the TTL index are priced with this insert (costs/plan/expiry.rs).
    Expires {
        entity: String,
        collection: String,
        per_second: f64,
        buckets: bool,
    },
    /// An insert of `entity`, which expires, into an array of its `host`:
    /// the write drops the expired elements as it pushes (no TTL index
    /// deletes them), so the array holds the `live` elements a host
    /// typically has (`per_host_per_second` pushes over the life), and
    /// `lingering` expired since its last push on average
    /// (`1 − e^(−rate × life)`); at most `max`, the live ones its guard
    /// allows, which a host no longer written keeps.
    ExpiredDropped {
        entity: String,
        host: String,
        per_host_per_second: f64,
        live: f64,
        lingering: f64,
        max: Option<u64>,
    },
    /// An atomic group that writes `kinds` kinds of documents.
    Transaction { group: String, kinds: usize },
    /// An operation whose `writes` writes to different documents are not
    /// atomic: documents of the entities `written` (each collection's root).
    NotAtomic {
        operation: String,
        writes: usize,
        #[serde(skip)]
        #[schemars(skip)]
        written: Vec<String>,
    },
    /// Re-pointing an entity takes `updates` updates that are not atomic.
    RepointNotAtomic { entity: String, updates: usize },
    /// The entity's `unique:` combination `keys` is not in one collection's
    /// documents under this design: no index can enforce it.
    UniqueUnchecked { entity: String, keys: Vec<String> },
    /// A delete of `entity` leaves its owned `children` (through
    /// `relationship`, not `standalone`), which the plan cannot reach
    /// (another entity holds them, or keeps them in buckets or an outlier's
    /// array, or they sit below children found by no id:
    /// costs/plan/cascade.rs), so the application
    /// deletes them too or they stay.
    OrphanedChildren {
        entity: String,
        children: String,
        relationship: String,
        why: Unreached,
    },
    /// Operation `operation` states conditions (`when:`) on `entity`, but
    /// under this design its plan writes no document of `entity` (a link
    /// kept on the other side only): no write carries them, so nothing
    /// tests them unless the application does.
    ConditionUntested {
        operation: String,
        entity: String,
        conditions: Vec<String>,
    },
    /// Operation `operation` adds `entity` when it finds none (`otherwise:
    /// insert`), but this design keeps it where no guarded write can add
    /// it (below an embedded parent, in buckets): the plan adds to an
    /// instance that exists, and tells the caller when there is none.
    UpsertUnplanned { operation: String, entity: String },
    /// Operation `operation` compares two fields of `entity` (`used <
    /// quota`), which this design keeps as elements of an array: MongoDB
    /// compares two fields only with `$expr`, on the top-level document,
    /// and `$expr` cannot go inside the `$elemMatch` that finds the
    /// element, so the write does not test them. Only where neither the
    /// element's own key (`$anyElementTrue` and `$`) nor an update
    /// pipeline's rewrite of the array (many elements, each tested on its
    /// own) can: one element no key names, or a change the pipeline does
    /// not spell (an amount of each document's own).
    FieldsInElement {
        operation: String,
        entity: String,
        conditions: Vec<String>,
    },
    /// An operation's conditions on `entity`, a document it does not
    /// otherwise write, tested by a write of its version in a transaction
    /// with the operation's writes (`Purpose::GuardConditions`).
    ConditionGuarded {
        operation: String,
        entity: String,
        conditions: Vec<String>,
    },
    /// An atomic group kept without a transaction: its conditional write
    /// runs last, and when it matches nothing the application undoes the
    /// group's earlier writes (`otherwise: undo`).
    Compensated { group: String },
    /// An earlier write of compensated group `group` that only adds
    /// amounts (step `step`, 1-based): when the group's conditional write
    /// `then` matches nothing, the undo adds the opposite amounts
    /// (`reversed`) on the document the step's filter finds, without the
    /// step's conditions (issue 41: `$inc held by units` is undone by
    /// `$inc held by -units`).
    TakenBack {
        group: String,
        then: String,
        step: usize,
        reversed: Vec<crate::design::UpdateOp>,
    },
    /// On a sharded cluster: a join into the sharded `collection` whose
    /// `values` key values fall on about `shards` of the cluster's
    /// `of` shards, one command each where one replica set takes one.
    ShardedJoin {
        collection: String,
        values: f64,
        shards: f64,
        of: u32,
    },
    /// On a sharded cluster: a step on the sharded `collection` that
    /// filters on no field a shard key can hold (only arrays, or none):
    /// it goes to every one of the `of` shards.
    EveryShard { collection: String, of: u32 },
    /// Atomic group `group` (`same: entity`) writes one document: its
    /// operations' writes are one single-document update, planned in the
    /// one the mix runs most (`into`; the first of them where rates tie),
    /// atomic with no transaction (issue 41).
    /// `carries`: this plan is `into`'s, which holds the update and its
    /// cost; the others' plans have no step of their own.
    MergedWrite {
        group: String,
        entity: String,
        operations: Vec<String>,
        into: String,
        carries: bool,
    },
    /// Atomic group `group` says its writes address one `entity`, but they
    /// cannot be one write under this design: they stay separate calls,
    /// kept atomic by a transaction or by undoing (the warning beside it
    /// says which; this one once said "in a transaction" beside "needs no
    /// transaction", audit48 C1).
    NotMerged {
        group: String,
        entity: String,
        reason: MergeBlock,
    },
    /// On a sharded cluster: an atomic group whose writes fall on about
    /// `participants` shards (of `of`): its commit is a two-phase commit
    /// across them, `extra` more commands than a single-shard commit.
    CrossShardTransaction {
        group: String,
        participants: f64,
        of: u32,
        extra: f64,
    },
    /// On a sharded cluster: the transaction of `operation`'s guard
    /// (`ConditionGuarded`, a conditional write of `entity`) and its link
    /// writes documents on about `participants` shards (of `of`): its
    /// commit is a two-phase commit across them, `extra` more commands.
    CrossShardGuard {
        operation: String,
        entity: String,
        participants: f64,
        of: u32,
        extra: f64,
    },
}

impl super::KeptBeside {
    /// Why a partial index stays beside `index`, in English.
    pub fn words(&self) -> String {
        match self.why {
            super::BesideWhy::Unique => format!(
                "kept beside {}: this one is unique over the documents it holds, which {} cannot be (it holds every document, and those without the keys would collide); {} serves the reads that do not test this one's condition",
                self.index, self.index, self.index
            ),
            super::BesideWhy::Walk => format!(
                "kept beside {}: its claims stop at the first document that meets their condition, where {} would walk past every document that fails it, each fetched to test it (a walk that costs more than this index's upkeep)",
                self.index, self.index
            ),
        }
    }
}

/// Why a delete's plan cannot reach the owned children it warns of
/// (`Warning::OrphanedChildren`): each case a step of its own would need
/// what the plan does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unreached {
    /// Some of them live in another parent's buckets or outlier's array,
    /// where no filter by this parent's id finds them all.
    OtherParentsArray,
    /// They share the parent's collection (a polymorphic one): the
    /// delete's own conditions would land on their step.
    SameCollection,
    /// In buckets or an outlier's overflow while another parent keeps
    /// their ids or figures, which each bucket's share would have to
    /// lower.
    KeptUpInBuckets,
    /// Embedded in another entity's documents below the top (an array in
    /// an array, or one object), which one `$pull` by a path does not
    /// reach.
    NestedInHost,
    /// Embedded in another entity whose documents (or another parent)
    /// keep ids or figures over them: a `$pull` by filter lowers each
    /// host by a share the plan does not know.
    KeptUpInHost,
    /// Neither side keeps the other's id.
    NoReference,
    /// They sit below children found by no id (in buckets, an outlier's
    /// array, or pulled by their parent's id from another entity).
    BelowUnread,
    /// The delete already takes their entity above (a cycle of owned
    /// relationships).
    Cycle,
}

impl Unreached {
    /// Why, in words, after "this plan cannot reach them:".
    pub fn words(self) -> &'static str {
        match self {
            Self::OtherParentsArray => {
                "some of them live in another parent's buckets or outlier's array, which no filter by this parent's id finds whole"
            }
            Self::SameCollection => {
                "they share its collection, where the delete's conditions would land on their step"
            }
            Self::KeptUpInBuckets => {
                "they live in buckets or an outlier's overflow while another parent keeps their ids or figures, which a delete of whole buckets would leave wrong"
            }
            Self::NestedInHost => {
                "another entity holds them below the top of its documents (an array in an array, or one object), which one `$pull` by a path does not reach"
            }
            Self::KeptUpInHost => {
                "another entity holds them and it (or another parent) keeps their ids or figures, which a `$pull` by a filter would lower by a share per document the plan does not know"
            }
            Self::NoReference => "neither side keeps the other's id",
            Self::BelowUnread => "they sit below children whose ids the plan does not read",
            Self::Cycle => "the delete already takes their entity above them",
        }
    }
}

impl Warning {
    /// Whether the warning is a trade-off of the relationship between
    /// `parent` and `child`: for separate writes, when they write both
    /// (move_deal writes a deal and its copy in a contact: a trade-off of
    /// `contact_deals`, not of the workspace's `deals`, audit48 C4), or,
    /// when `joined` says no relationship links any two of the entities
    /// written, when they write either; any other warning, when it is
    /// about either.
    pub fn concerns(&self, parent: &str, child: &str, joined: impl Fn(&str, &str) -> bool) -> bool {
        match self {
            Warning::NotAtomic { written, .. } => {
                let has = |e: &str| written.iter().any(|w| w == e);
                let linked = written
                    .iter()
                    .enumerate()
                    .any(|(i, a)| written[i..].iter().any(|b| joined(a, b)));
                if linked {
                    has(parent) && has(child)
                } else {
                    has(parent) || has(child)
                }
            }
            _ => self.mentions(parent) || self.mentions(child),
        }
    }

    /// Whether the warning is about `entity` (by its name in the model).
    pub fn mentions(&self, entity: &str) -> bool {
        match self {
            Warning::Transaction { group, .. } => group.contains(entity),
            Warning::NotAtomic { written, .. } => written.iter().any(|w| w == entity),
            Warning::RepointNotAtomic { entity: e, .. }
            | Warning::SubsetFigureNotKept { entity: e, .. } => e == entity,
            Warning::UniqueUnchecked { entity: e, .. }
            | Warning::OrphanedChildren { entity: e, .. }
            | Warning::ConditionUntested { entity: e, .. }
            | Warning::UpsertUnplanned { entity: e, .. }
            | Warning::FieldsInElement { entity: e, .. }
            | Warning::ConditionGuarded { entity: e, .. } => e == entity,
            Warning::Compensated { group } | Warning::TakenBack { group, .. } => {
                group.contains(entity)
            }
            Warning::ShardedJoin { collection, .. } | Warning::EveryShard { collection, .. } => {
                collection.contains(entity)
            }
            Warning::CrossShardTransaction { group, .. } => group.contains(entity),
            // Said of the group's operations, not a trade-off of the
            // entity's relationships.
            Warning::MergedWrite { .. } | Warning::NotMerged { .. } => false,
            Warning::CrossShardGuard { entity: e, .. } => e == entity,
            // A cost of the insert, not a trade-off of a relationship.
            Warning::Expires { .. } | Warning::ExpiredDropped { .. } => false,
        }
    }

    pub fn text(&self) -> String {
        match self {
            Warning::Expires {
                entity,
                collection,
                per_second,
                buckets: false,
            } => format!(
                "the TTL monitor deletes each {} later: about {} of them/s from {collection}, each a document and an entry of each of its indexes, priced with this insert",
                singular(entity),
                num(*per_second)
            ),
            Warning::Expires {
                entity,
                collection,
                per_second,
                buckets: true,
            } => format!(
                "the TTL monitor deletes each bucket of {} in {collection} when its newest one expires: about {} buckets/s, each a document and an entry of each of its indexes, priced with this insert",
                plural(entity),
                num(*per_second)
            ),
            Warning::ExpiredDropped {
                entity,
                host,
                per_host_per_second,
                live,
                lingering,
                max,
            } => {
                let cap = max.map_or(String::new(), |m| {
                    format!(
                        "; at most {}, the live ones its cap allows, which {} no longer written keeps (reads leave them out)",
                        num(m as f64),
                        a(host)
                    )
                });
                format!(
                    "no TTL index deletes {} from its {}'s array: this write drops the expired ones as it pushes, so {} holds its live {} (about {} at {} pushes/s each) and about {} expired since its last push{cap}",
                    a(entity),
                    singular(host),
                    a(host),
                    plural(entity),
                    num(*live),
                    num(*per_host_per_second),
                    num(*lingering),
                )
            }
            Warning::Transaction { group, kinds: 1 } => format!(
                "atomic group `{group}` makes separate writes to one kind of document: it runs in a multi-document transaction"
            ),
            Warning::Transaction { group, kinds } => format!(
                "atomic group `{group}` writes {kinds} kinds of documents: it runs in a multi-document transaction"
            ),
            Warning::NotAtomic {
                operation, writes, ..
            } => {
                format!(
                    "{operation} takes {writes} writes to different documents that are not atomic"
                )
            }
            Warning::SubsetFigureNotKept { entity, figures } => format!(
                "this update changes several {} at once, and {} over a subset of them cannot follow: one write does not return each as it was; update them one at a time by their ids",
                plural(entity),
                figures.join(", ")
            ),
            Warning::RepointNotAtomic { entity, updates } => {
                format!(
                    "re-pointing {} takes {updates} updates that are not atomic",
                    a(entity)
                )
            }
            Warning::MergedWrite {
                group,
                entity,
                operations,
                carries: true,
                ..
            } => format!(
                "atomic group `{group}` writes one {}: {} are one update of that document, atomic with no transaction",
                singular(entity),
                operations.join(" and ")
            ),
            Warning::MergedWrite {
                group,
                entity,
                into,
                carries: false,
                ..
            } => format!(
                "atomic group `{group}` writes one {}: this write is part of {into}'s one update of that document, priced there",
                singular(entity)
            ),
            Warning::NotMerged {
                group,
                entity,
                reason,
            } => format!(
                "atomic group `{group}` writes one {}, but its writes stay separate calls: {}",
                singular(entity),
                reason.text()
            ),
            Warning::Compensated { group } => format!(
                "atomic group `{group}` needs no transaction: its conditional write runs last, and when it matches nothing the application undoes the group's earlier writes"
            ),
            Warning::TakenBack {
                group,
                then,
                step,
                reversed,
            } => {
                let amounts: Vec<String> = reversed.iter().map(reversed_words).collect();
                format!(
                    "when {then} then matches nothing, the undo of atomic group `{group}` takes back what step {step} added: {} on the document the step's filter finds",
                    amounts.join(", ")
                )
            }
            Warning::ShardedJoin {
                collection,
                values,
                shards,
                of,
            } => format!(
                "the join into {collection}, sharded, looks up {} key values that fall on about {} of the {of} shards: a request to each, where one replica set takes one",
                num(*values),
                num(*shards)
            ),
            Warning::EveryShard { collection, of } => format!(
                "a step on {collection}, sharded, filters on no field a shard key can hold (a key holds no array): it goes to all {of} shards"
            ),
            Warning::CrossShardTransaction {
                group,
                participants,
                of,
                extra,
            } => format!(
                "atomic group {group} writes documents on about {} of the {of} shards: its commit is a two-phase commit across them (a prepare and a commit to each shard, and the coordinator's decision), {} more requests than on one shard",
                num(*participants),
                num(*extra)
            ),
            Warning::CrossShardGuard {
                operation,
                entity,
                participants,
                of,
                extra,
            } => format!(
                "{operation}'s transaction (the guard on {} and the link) writes documents on about {} of the {of} shards: its commit is a two-phase commit across them (a prepare and a commit to each shard, and the coordinator's decision), {} more requests than on one shard",
                crate::words::a(entity),
                num(*participants),
                num(*extra)
            ),
            Warning::OrphanedChildren {
                entity,
                children,
                relationship,
                why,
            } => format!(
                "deleting {} leaves the {children} instances it owns ({relationship}, not `standalone`): this plan cannot reach them: {}; the application must delete them too (found by the {entity}'s id they hold), or they stay, kept and reached by no {entity}",
                a(entity),
                why.words()
            ),
            Warning::UniqueUnchecked { entity, keys } => format!(
                "no unique index is written for ({}) of {entity}: this design does not keep every key in each of its documents; the application must check before it inserts",
                keys.join(", ")
            ),
            Warning::ConditionGuarded {
                operation,
                entity,
                conditions,
            } => format!(
                "{operation}'s {} ({}) {} {}, a document the link is not kept in: a conditional write of its {} tests {}, in a transaction with the link, so that a change of the {entity} meanwhile conflicts with it; a link kept in the {entity} too would test {} in its own write, with no transaction",
                conditions_word(conditions.len()),
                conditions.join(", "),
                if conditions.len() == 1 {
                    "tests"
                } else {
                    "test"
                },
                a(entity),
                crate::design::VERSION,
                it_them(conditions.len()),
                it_them(conditions.len()),
            ),
            Warning::FieldsInElement {
                operation,
                entity,
                conditions,
            } => format!(
                "{operation}'s {} ({}) {} two fields of {}, which this design keeps in an array of its parent: MongoDB compares two fields only with `$expr`, which tests the top-level document and cannot go inside the `$elemMatch` that finds the element, so the write does not test {}; keep the {entity} in a collection of {}, or test {} in the application in a transaction with the write",
                conditions_word(conditions.len()),
                conditions.join(", "),
                if conditions.len() == 1 {
                    "compares"
                } else {
                    "compare"
                },
                a(entity),
                it_them(conditions.len()),
                "its own",
                it_them(conditions.len()),
            ),
            Warning::UpsertUnplanned { operation, entity } => format!(
                "{operation} adds {} when it finds none (otherwise: insert), but this design keeps the {entity} where no single guarded write can add it: the plan only adds to {} that exists, and tells the caller when there is none",
                a(entity),
                a(entity),
            ),
            Warning::ConditionUntested {
                operation,
                entity,
                conditions,
            } => format!(
                "{operation}'s {} ({}) {} {}, a document this plan does not write: no write carries {}, so {} not tested; the application must test {} in a transaction with the write (a read before the write leaves a window in which {} can change), or the link must be kept in the {entity} too",
                conditions_word(conditions.len()),
                conditions.join(", "),
                if conditions.len() == 1 {
                    "tests"
                } else {
                    "test"
                },
                a(entity),
                it_them(conditions.len()),
                if conditions.len() == 1 {
                    "it is"
                } else {
                    "they are"
                },
                it_them(conditions.len()),
                if conditions.len() == 1 { "it" } else { "they" }
            ),
        }
    }
}

/// A purpose or warning as the design JSON shows it: its fields, and its
/// English under `text`.
#[derive(Serialize, schemars::JsonSchema)]
pub struct WithText<T> {
    #[serde(flatten)]
    what: T,
    text: String,
}

/// The schema of `Step::purpose` in the design JSON.
pub type PurposesJson = Vec<WithText<Purpose>>;
/// The schema of `OperationPlan::warnings` in the design JSON.
pub type WarningsJson = Vec<WithText<Warning>>;

/// Each item with its English under `text`.
fn with_text<S: Serializer, T: Serialize>(
    items: &[T],
    text: impl Fn(&T) -> String,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(items.iter().map(|what| WithText {
        what,
        text: text(what),
    }))
}

pub(super) fn purposes_json<S: Serializer>(p: &[Purpose], s: S) -> Result<S::Ok, S::Error> {
    with_text(p, Purpose::text, s)
}

pub(super) fn warnings_json<S: Serializer>(w: &[Warning], s: S) -> Result<S::Ok, S::Error> {
    with_text(w, Warning::text, s)
}

/// "condition" or "conditions", for a warning that lists them.
fn conditions_word(n: usize) -> &'static str {
    if n == 1 { "condition" } else { "conditions" }
}

/// "it" or "them", for what a warning says of its conditions.
fn it_them(n: usize) -> &'static str {
    if n == 1 { "it" } else { "them" }
}

/// One reversed `$inc` in words: `$inc held by -units (the caller's
/// amount)`, `$inc seats_left by 1`.
fn reversed_words(u: &crate::design::UpdateOp) -> String {
    match u {
        crate::design::UpdateOp::Inc {
            path,
            by,
            amount: Some(amount),
        } => {
            let sign = if by.is_some_and(|b| b < 0.0) { "-" } else { "" };
            format!("$inc {path} by {sign}{amount} (the caller's amount)")
        }
        crate::design::UpdateOp::Inc {
            path, by: Some(by), ..
        } => format!("$inc {path} by {}", crate::words::num(*by)),
        crate::design::UpdateOp::Inc { path, .. } => format!("$inc {path} (up)"),
        crate::design::UpdateOp::Dec { path } => format!("$inc {path} (down)"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names come as the model spells them, singular or plural; each slot
    /// takes the form it needs.
    #[test]
    fn names_take_the_form_of_their_slot() {
        let cases = [
            (
                Purpose::AddInside {
                    entity: "bids".into(),
                    host: "items".into(),
                },
                "add the bid inside its item",
            ),
            (
                Purpose::FindMatching {
                    entity: "category".into(),
                    field: "name".into(),
                },
                "find the categories whose name matches",
            ),
            (
                Purpose::Join {
                    target: "users".into(),
                    many: false,
                    from: "comments".into(),
                    via: "comments_sent".into(),
                },
                "application-level join: the user of each comment through comments_sent",
            ),
            (
                Purpose::RefreshCopy {
                    source: "parts".into(),
                    fields: vec!["name".into(), "price".into()],
                    holders: 1.0,
                    holder: "products".into(),
                    at_most: Some(1),
                },
                "refresh the copy of the part's name, price in 1 product",
            ),
            (
                Purpose::KeepComputed {
                    function: "sum".into(),
                    field: Some("amount".into()),
                    entity: "address".into(),
                    parent: "people".into(),
                },
                "keep the sum of amount of addresses in the person",
            ),
        ];
        let self_join = Purpose::Join {
            target: "employee".into(),
            many: true,
            from: "employee".into(),
            via: "reports".into(),
        };
        assert_eq!(
            self_join.text(),
            "application-level join: the child employees of each parent employee through reports"
        );
        for (purpose, text) in cases {
            assert_eq!(purpose.text(), text);
        }
        assert_eq!(
            Warning::RepointNotAtomic {
                entity: "accounts".into(),
                updates: 3
            }
            .text(),
            "re-pointing an account takes 3 updates that are not atomic"
        );
    }

    /// The design JSON shows a purpose's fields, its kind and its text.
    #[test]
    fn json_has_the_kind_the_fields_and_the_text() {
        let mut out = Vec::new();
        let mut s = serde_json::Serializer::new(&mut out);
        purposes_json(
            &[Purpose::Delete {
                entity: "users".into(),
            }],
            &mut s,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"[{"kind":"delete","entity":"users","text":"delete the user"}]"#
        );
    }
}
