//! The cookbook's language-independent form: each operation of the design as
//! named parameters and steps whose filters and updates are expressions. The
//! three renderers (mongosh, Python, Node.js) only spell these out, so the
//! three versions of an operation cannot drift apart. Built by `plan` (and
//! `timeline` for the fan-out on write), rendered by `render`.

use crate::design::Action;

#[derive(Debug, Clone, PartialEq)]
pub struct OpCode {
    pub name: String,
    pub function: String,
    pub rate: f64,
    pub transaction: bool,
    pub warnings: Vec<String>,
    pub params: Vec<Param>,
    pub steps: Vec<StepCode>,
    /// A feed merged from a timeline and the outliers' items.
    pub merge: Option<Merge>,
    /// An outlier's children counted in two places, added (`scans_count`).
    pub total: Option<Total>,
    /// An operation whose write the plan merged into another's one update
    /// (an atomic group with `same:`): what its function throws, since
    /// alone it has nothing to send.
    pub merged_away: Option<String>,
}

/// What a parameter stands for, so a caller (or a test) can supply a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A value of the field at `path`.
    Value,
    /// A list of such values (`$in`).
    List,
    /// The low and high end of a range of the field at `path`.
    From,
    To,
    /// A whole new document of the collection.
    Document,
    /// Several new documents of the collection.
    Documents,
    /// One element of the array at `path`.
    Item,
    /// Several new elements of the array at `path`, pushed at once (a
    /// batch insert's children, `count:` above 1).
    Items,
    /// A yes or no the caller knows (a followed account is past the
    /// followers' threshold).
    Flag,
    /// A page's number, 1 for the first (a read paged by `skip`).
    Page,
    /// An amount the caller passes under a name the model gives it
    /// (`increments: {available: -quantity}`): in an atomic group's
    /// function, one value for every operation that names it.
    Amount,
    /// How many documents a batch job's find takes, when not its
    /// default (the archiving job's).
    Batch,
}

impl ParamKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::Value => "value",
            ParamKind::Amount => "amount",
            ParamKind::List => "list",
            ParamKind::From => "from",
            ParamKind::To => "to",
            ParamKind::Document => "document",
            ParamKind::Documents => "documents",
            ParamKind::Item => "item",
            ParamKind::Items => "items",
            ParamKind::Flag => "flag",
            ParamKind::Page => "page",
            ParamKind::Batch => "batch",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub collection: String,
    pub path: String,
    pub kind: ParamKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Param(String),
    /// The caller's document `param` with `fields` set over its own
    /// (`{**new_visit, "clinic": clinic_id}`): an insert's tenant and
    /// parent references, as its checks found them.
    WithFields {
        param: String,
        fields: Vec<(String, Expr)>,
    },
    /// `{"$in": param}`.
    In(String),
    /// `{"$ne": param}`: no element holds the caller's key yet (an
    /// upsert's guarded `$push`).
    NotEqual(String),
    /// `{"$not": {"$elemMatch": {k1: p1, k2: p2}}}` on the array: no
    /// element holds the caller's key of several fields together (and,
    /// for expiring elements, is still alive). One `$ne` per field would
    /// refuse the push where an element shares any one of them (a cart's
    /// line of the same sku in another size).
    HeldByNone(Vec<(String, Expr)>),
    /// A new `ObjectId`: the `_id` of an element an upsert adds.
    NewId,
    /// `{"$gte": from, "$lt": to}`.
    Range(String, String),
    /// `{"$in": ids}` with the values at `path` in an earlier step's documents
    /// (ids of embedded objects are taken from their `_id`).
    IdsFrom {
        step: String,
        path: String,
    },
    /// `{"$in": ids}` with the values of several earlier steps together,
    /// each `(step, path)` as in `IdsFrom`: an outlier's children found in
    /// their parents' arrays and in their own collection.
    IdsFromAll(Vec<(String, String)>),
    /// The value at `path` in the first document an earlier step found
    /// (none found: null): a figure read again from the children.
    FirstOf {
        step: String,
        path: String,
        /// The figure it stands for (a parent's max of its children).
        function: crate::model::AggregateFn,
    },
    /// A literal number.
    Number(i64),
    /// The ids an earlier `insertMany` gave its documents, as a list
    /// (pushed with `$each`).
    InsertedIds {
        step: String,
    },
    /// The value at `field` in the one document an earlier find returned
    /// (`step[0]["starts_at"]`): what a relink copies from the new parent
    /// it read (the find fails the operation when it found none).
    FoundField {
        step: String,
        field: String,
    },
    /// An amount the model states (`increments: {remaining: -1}`), written
    /// as the literal it is.
    Amount(f64),
    /// A parameter taken away: `-quantity`, the caller's amount a write
    /// takes (`increments: {available: -quantity}`), or an undo's reverse
    /// of an amount it added.
    Negated(String),
    /// The opposite of a value in its own type: an undo's reverse of the
    /// amount an inserted child added to its parent's sum
    /// (`_negated(new_hold["amount"])`).
    NegatedOf(Box<Expr>),
    /// The number of documents in a list parameter: what a batch insert
    /// adds to its parent's count (`len(new_view_list)`).
    LengthOf(String),
    /// Nearest first, within the radius: a find with one is a `$geoNear`
    /// stage (render.rs, `near_pipeline`); elsewhere `{"$near":
    /// {"$geometry": point, "$maxDistance": metres}}`.
    Near {
        point: String,
        metres: u64,
    },
    /// `{"$geoWithin": {"$centerSphere": [point.coordinates, radians]}}`
    /// for a circle, `{"$geoWithin": {"$geometry": area}}` for a polygon.
    WithinCircle {
        point: String,
        metres: u64,
    },
    WithinArea(String),
    /// `{"$geoIntersects": {"$geometry": point}}`: the shapes that contain
    /// the point.
    Intersects(String),
    /// A conditional write's test on a constant (`{"$gt": 0}`, or the
    /// value itself for equality).
    Test(crate::model::Test, crate::model::Literal),
    /// A test of one field against another of the same document, the
    /// value of a `"$expr"` key: `{"$lt": ["$used", "$quota"]}`.
    Fields(crate::model::Test, String, String),
    /// Whether some element of `array` passes the filter's `tests` of
    /// its fields (`_id` = the caller's key, `tier` = the tier's id) and
    /// `compares` of two of its fields, the value of a `"$expr"` key
    /// (`$expr` cannot go inside the `$elemMatch` that finds an element):
    /// `{"$anyElementTrue": [{"$map": {"input": "$keys", "as": "e", "in":
    /// {"$and": [{"$eq": ["$$e._id", key]}, {"$lt": ["$$e.used",
    /// "$$e.quota"]}]}}}]}`. An update pipeline's rewrite of the same
    /// array tests each element with the same expression (pipeline.rs).
    ElementFields {
        array: String,
        tests: Vec<(String, Expr)>,
        compares: Vec<ElementCompare>,
    },
    /// A test of a field with the caller's amount added (the value the
    /// write leaves), the value of a `"$expr"` key: `{"$lte": [{"$add":
    /// ["$available", rooms]}, "$total"]}`; `$subtract` when `negative`.
    Added {
        test: crate::model::Test,
        path: String,
        amount: String,
        negative: bool,
        value: crate::model::Literal,
    },
    /// `{"$lt": n}`: a bucket that still has room.
    Below(u64),
    /// `{"$gt": now − seconds}`: a document of an entity that expires
    /// `seconds` after this date, not yet past it (`model::expiry`).
    Unexpired(u64),
    /// `{"$gte": param}`: a bucket whose last date is in or after a window.
    AtLeast(String),
    /// `{"$lt": param}`: a bucket whose first date is before a window's end.
    Under(String),
    /// `{"$gte": from truncated to unit, "$lt": to}`: the time buckets
    /// (keyed by the unit) holding any child of the window.
    KeyInWindow {
        from: String,
        to: String,
        unit: String,
    },
    /// `{"$lte": max - len(list)}`: a bucket with room for every element
    /// of the list (a batch's chunk).
    RoomFor {
        max: u64,
        list: String,
    },
    /// `{"$lte": [{"$size": {"$ifNull": ["$array", []]}}, max - len(list)]}`
    /// under `$expr`: an array bounded at `max` with room for every
    /// element of the list (a batch pushed into its host).
    RoomIn {
        array: String,
        max: u64,
        list: String,
    },
    /// `{"$lte": [{"$size": live}, max - n]}` under `$expr`, `live` the
    /// elements of `array` whose `field` is within its life (`$filter`
    /// against now less `seconds`), `n` one or the length of `list`: an
    /// array bounded at `max` with room for the new elements once the
    /// same write drops the expired ones (`Update::PullExpired`). A test
    /// of the last free slot would count the expired elements, and refuse
    /// the push into an array full of them.
    LiveRoomIn {
        array: String,
        field: String,
        seconds: u64,
        max: u64,
        list: Option<String>,
    },
    /// A list parameter pushed with `$each` as it is (a batch's
    /// children), not as a list of one.
    Items(String),
    /// `function` of `field` over the documents of list `list`: what a
    /// batch moves a figure by, taken from its children (the sum of their
    /// amounts, their least and greatest, the first's and the last's)
    /// rather than asked of the caller (issue 41).
    OfItems {
        list: String,
        field: String,
        function: crate::model::AggregateFn,
        /// The figure's BSON type in the validator, which a sum is
        /// converted to (the sum of int amounts kept as a double would
        /// be an int, and a new bucket's figure fail validation).
        bson_type: Option<String>,
    },
    /// The value at `field` of the one child document `param` (the one
    /// inserted or pushed): what it moves its parent's figure `function`
    /// by (audit44 G), in the figure's BSON type for a sum, as `OfItems`.
    OwnValue {
        param: String,
        field: String,
        function: crate::model::AggregateFn,
        bson_type: Option<String>,
    },
    /// What one child document adds to a parent's figure over a subset
    /// (`count(tickets where status = open)`): 0 when it does not meet
    /// the test, else 1 for a count or its amount for a sum. `doc` is the
    /// inserted document's parameter.
    Share {
        doc: String,
        subset: Subset,
        bson_type: Option<String>,
    },
    /// The same added up over the documents of `list` (a batch's children,
    /// or those a delete found), negated for a delete.
    Shares {
        list: String,
        subset: Subset,
        negative: bool,
        bson_type: Option<String>,
    },
    /// What the child moves the figure by in an update: its share with
    /// `changes` applied less its share before, the child as the update's
    /// `findOneAndUpdate` returned it (`before`, a list of 0 or 1).
    Moved {
        before: String,
        changes: Vec<(String, Expr)>,
        subset: Subset,
        bson_type: Option<String>,
    },
    /// `{"$gt": n}`: a bucket that holds children.
    Above(u64),
    /// `{"$exists": false}`: an array with no element at that index.
    Missing,
    /// `{"_id": param}`: the element of an array of objects with that id
    /// (what `$pull` removes from an array of references with copies).
    IdIs(String),
    /// `{"$elemMatch": {"k": name, "v": value}}`: one name of an
    /// `attributes` field with its value, in the same pair.
    Pair(String, String),
    /// `{"$in": ids}` with the ids of a subtree an earlier `$graphLookup`
    /// step found: each found node's own `_id` and the `_id` of each
    /// document it walked to (`into`).
    SubtreeIds {
        step: String,
        into: String,
    },
    /// `param["field"]`: a field of a document parameter (the new post's
    /// author).
    FieldOf {
        param: String,
        field: String,
    },
    /// The id an earlier insert step gave its document.
    InsertedId {
        step: String,
    },
    /// Document parameter `param` as earlier step `step` inserted it, with
    /// the id it was given.
    Inserted {
        param: String,
        step: String,
    },
    /// A new document of these fields (a new reader's empty timeline).
    Doc(Vec<(String, Expr)>),
    /// `[]`.
    EmptyList,
    /// Keyset paging: `{"$gt": param}` (`$lt` for a descending sort), the
    /// next page starting after the sort key of the last item seen; left
    /// out of the filter when the caller passes none (the first page).
    /// `id` is the last item's `_id`, which orders items whose key ties
    /// (none for a key no two items share).
    /// `then` holds the sort's later keys (path, parameter, descending):
    /// the page starts after the last item's whole tuple, compared key by
    /// key, and `id` then follows the last key's direction.
    After {
        param: String,
        id: Option<String>,
        descending: bool,
        then: Vec<(String, String, bool)>,
    },
}

/// Keyset pages of children kept in buckets. A child has no `_id` of its
/// own, so children that tie on the sort's keys are ordered by their
/// bucket's `_id`, then by their position in it (`$unwind`'s
/// `includeArrayIndex`, named `position`): the page starts after the last
/// child's whole tuple, none lost or read twice. A child keeps its
/// position while the bucket only grows; a child deleted from a bucket
/// moves the later ones of that bucket up one place.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketKeyset {
    /// The field each unwound child's position in its bucket comes in.
    pub position: String,
    /// The buckets that can hold a child past the cursor, where they
    /// keep their first and last date: for a descending sort, those whose
    /// first date is before the cursor's, or equal to it with an `_id` not
    /// past the cursor's bucket (mirrored on the last date for an
    /// ascending one). Buckets filled in date order hold no child before
    /// another's, so the cursor's bucket and the older ones hold the next
    /// page. Left out without the cursor (the first page).
    pub buckets: Option<BucketCursor>,
}

/// The test of `BucketKeyset::buckets`.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketCursor {
    /// The bucket's first (descending) or last (ascending) date, or a
    /// time bucket's key.
    pub field: String,
    /// The cursor's date.
    pub at: String,
    /// A count bucket: the cursor's bucket `_id`, for buckets that end on
    /// the cursor's date.
    pub bucket: Option<String>,
    /// A time bucket: the unit its key is the start of (one bucket a
    /// unit, none sharing a child's date with another).
    pub unit: Option<String>,
    pub descending: bool,
}

/// The subset a parent's figure is over: children whose `field` passes
/// `test` against `value`; `amount` is the summed field (`None`: a count).
#[derive(Debug, Clone, PartialEq)]
pub struct Subset {
    pub field: String,
    pub test: crate::model::Test,
    pub value: crate::model::Literal,
    pub amount: Option<String>,
}

/// A condition a step runs under; otherwise its result is empty (a find)
/// or null (a write).
#[derive(Debug, Clone, PartialEq)]
pub enum When {
    /// A yes-or-no parameter the caller passes.
    Flag(String),
    /// An earlier find returned at most `n` documents.
    AtMost { step: String, n: u64 },
    /// Earlier steps' ids (`(step, path)` as in `Expr::IdsFromAll`) are at
    /// most `n` together: followers read from an array of the followed
    /// document (one document, many followers) and from the edges apart.
    IdsAtMost { ids: Vec<(String, String)>, n: u64 },
    /// An earlier step's documents hold some value at `path`.
    Any { step: String, path: String },
    /// Some document of an earlier step holds `n` items at `path` (an
    /// outlier's array full: its other children live apart). With `each`
    /// the step runs once for each such document (its limit that
    /// document's), its ids taken from that document alone.
    /// With `size`, the number the step returned under that key holds the
    /// array's stored length: its array came back filtered
    /// (`ArraySlice::stored`).
    Full {
        step: String,
        path: String,
        n: u64,
        each: bool,
        size: Option<String>,
    },
    /// An earlier conditional write matched a document, or the delete
    /// `or_deleted` before it deleted one (a time bucket deleted with its
    /// last child, which the drop after it then does not match).
    Matched {
        step: String,
        or_deleted: Option<String>,
        /// Changed a document, not only matched one (`Step::if_changed`).
        changed: bool,
    },
    /// The `deleteMany` at `delete` deleted as many documents as the find
    /// at `found` returned (`holds`), or fewer (`!holds`).
    DeletedAll {
        delete: String,
        found: String,
        holds: bool,
    },
}

/// An outlier's children counted: the matching elements of each parent's
/// array (counted on the server) plus those kept apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Total {
    /// The result's key and its variable (`scans_count`).
    pub name: String,
    /// The step whose documents hold their array's count under `path`.
    pub holders: String,
    pub path: String,
    /// The count of the children kept apart (0 when it did not run).
    pub apart: String,
}

/// A feed read from a timeline: the timeline's items and the items read at
/// feed time, merged in the feed's order and cut to its limit (`feed` in
/// the result).
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    /// The result's key and its variable (`feed`).
    /// With `each`, the path of each child's reference to its parent: the
    /// list holds one list per document of `timeline` (in its order), each
    /// its own array's and its own children read apart, merged and cut to
    /// the limit (an outlier's newest children of several parents).
    pub each: Option<String>,
    pub name: String,
    /// What the merged list is, for its comment.
    pub says: String,
    pub timeline: String,
    pub path: String,
    pub items: String,
    pub sort: Vec<(String, i32)>,
    pub limit: u64,
}

/// Where a rebase takes the new parent's path from.
#[derive(Debug, Clone, PartialEq)]
pub enum NewPath {
    /// An earlier `find` of the new parent that returned its own path
    /// (`field`, objects with an `_id`, the parent last); none found: a root.
    Field { step: String, field: String },
    /// An earlier `$graphLookup` up from the new parent: its `_id` and its
    /// ancestors (`into`), ordered by following `parent` up.
    Walk {
        step: String,
        into: String,
        parent: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    Set(String, Expr),
    SetOnInsert(String, Expr),
    Unset(String),
    Inc(String, Expr),
    Min(String, Expr),
    Max(String, Expr),
    Push {
        path: String,
        item: Expr,
        sort: Option<(String, i32)>,
        slice: Option<i64>,
    },
    AddToSet(String, Expr),
    Pull(String, Expr),
    /// `$pull` from the array `path` of the elements the step's filter
    /// tests under `path.` match, as those tests (`{issue: id}` for a
    /// filter `{"authored.issue": id}`): the filter that finds the
    /// documents and the condition that picks their elements cannot
    /// disagree, and the caller passes no element.
    PullWhere(String),
    /// An update pipeline: the part of the path array `path` above the
    /// moved node `node` (a parameter) replaced by the new parent's path.
    /// `objects`: the items are objects with an `_id` (a node's own path),
    /// else bare ids (the path a child of a node keeps).
    Rebase {
        path: String,
        node: String,
        objects: bool,
        from: NewPath,
    },
    /// An update pipeline's `$map` over the array `path`: each element the
    /// step's filter tests under `path.` match takes these fields' values.
    SetElements {
        path: String,
        fields: Vec<(String, Expr)>,
        /// Amounts added to fields of each matched element (`$add` of
        /// the element's own value).
        adds: Vec<(String, Expr)>,
    },
    /// An update pipeline's `$filter` of the array `path`: the elements the
    /// step's filter tests under `path.` match are dropped.
    DropElements(String),
    /// The elements of the array `path` past their life (`field` more than
    /// `seconds` old) dropped by the write that pushes one: an update
    /// pipeline whose `$concatArrays` takes the array `$filter`ed
    /// (pipeline.rs, `pushed`).
    PullExpired {
        path: String,
        field: String,
        seconds: u64,
    },
    /// A figure the document keeps over its array, computed again in the
    /// pipeline after the elements changed: `function` of the values at
    /// `over` (the array itself for a count), stored in the figure's BSON
    /// type in the validator (`None` when the shape does not say).
    Recompute {
        path: String,
        function: crate::model::AggregateFn,
        over: String,
        /// The date a first or last follows (`UpdateOp::Recompute`).
        by: Option<String>,
        bson_type: Option<String>,
    },
    /// A figure set to what it is over no elements, in an update pipeline:
    /// a count's or a sum's 0 converted to `bson_type` (the validator's),
    /// null for the others.
    Reset {
        path: String,
        function: crate::model::AggregateFn,
        bson_type: Option<String>,
    },
}

/// A condition of a write on fields of one element (`Expr::ElementFields`):
/// the element's field `a`, the caller's `amount` added (`(name,
/// negative)`: subtracted), tested against `value`, another field of the
/// element as `Literal::Field("$e.cap")` (which spells `"$$e.cap"`), or a
/// constant or the caller's value.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementCompare {
    pub test: crate::model::Test,
    pub a: String,
    pub plus: Option<(String, bool)>,
    pub value: crate::model::Literal,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StepCode {
    /// Variable holding the step's result (the collection's name, made unique).
    pub key: String,
    pub collection: String,
    pub action: Action,
    pub filter: Vec<(String, Expr)>,
    pub sort: Vec<(String, i32)>,
    pub limit: Option<u64>,
    pub projection: Vec<String>,
    pub updates: Vec<Update>,
    /// Array filters for updates of elements of an array (`$[e]`).
    pub array_filters: Vec<(String, Expr)>,
    /// The array whose element tests in `filter` must hold for one and
    /// the same element (`{"comments": {"$elemMatch": {"created_on": c,
    /// "votes": old_votes}}}`): the edited child named by its key and the
    /// old value the caller's difference was taken from.
    pub elem_match: Option<String>,
    /// The document parameter of an insert.
    pub insert: Option<String>,
    /// The document an insert builds itself (a new reader's timeline),
    /// instead of a parameter.
    pub insert_doc: Option<Expr>,
    /// Runs only when this holds.
    pub when: Option<When>,
    /// A find that returns, for each value of this path, the first
    /// document in its sort's order (an aggregation that `$group`s by it).
    pub group: Option<String>,
    /// A grouped find's totals: each one's name, and the field it adds up
    /// (none: a count of the group's documents).
    pub group_sums: Vec<(String, Option<String>)>,
    /// A find that returns figures per group, computed on the server
    /// (`$group` by the parent, and the window's unit of time).
    pub figures: Option<crate::design::StepFigures>,
    /// A find of an array's elements on their own (`Step::elements`):
    /// the documents' matching elements, unwound, sorted and cut.
    pub elements: Option<String>,
    /// With `elements`, children kept in buckets: the buckets' order and
    /// how many the read takes before it unwinds them (`Step::bucket_order`).
    pub bucket_order: Option<crate::design::BucketOrder>,
    /// With `bucket_order`, a page of the children by keyset: each child's
    /// position in its bucket and the cursor's test of the buckets.
    pub bucket_keyset: Option<BucketKeyset>,
    /// The arrays around `elements`, unwound first (`Step::elements_within`).
    pub elements_within: Vec<String>,
    /// Embedded arrays returned cut to a limit (`Step::slices`).
    pub slices: Vec<crate::design::ArraySlice>,
    /// The slices' tests of their elements, each path under its array's
    /// (`ArraySlice::filter`), with the values the caller passes.
    pub slice_filters: Vec<(String, Expr)>,
    pub index: Option<String>,
    pub documents: f64,
    pub purpose: String,
    /// The key of the write this step stands in for when that write
    /// matched nothing (an outlier's child when its parent has no room).
    pub fallback_of: Option<String>,
    /// With `fallback_of`: that write is itself a fallback, which may not
    /// have run (`None`/`null`), so the gate tests that it ran first (an
    /// upsert's `$inc` again after a `$push` that lost a race).
    pub fallback_chained: bool,
    /// An upsert on a unique key (`otherwise: insert`): run again once on
    /// a duplicate key error, which a racing caller's insert causes.
    pub retry_duplicate: bool,
    /// Runs once every so many executions (a rare or batched step).
    pub every: Option<u64>,
    /// The walk of a `$graphLookup` step.
    pub graph: Option<Box<crate::design::GraphWalk>>,
    /// A `$graphLookup` that finds a subtree (the node and what is below):
    /// a step fed by it takes every id it found.
    pub subtree: bool,
    /// Filters that test a path from a tree's root (an `under`): what a
    /// check needs to work the subtree out from the `parent` references.
    pub under: Vec<UnderTest>,
    /// A bulk write's updates: one per element, each by its own amount.
    pub each: Option<EachCode>,
    /// Paging by `skip`: the parameter with the page's number (1 for the
    /// first); the find skips the `(page - 1) * limit` items before it.
    pub skip: Option<String>,
    /// A batch job's find (the archiving job's): the parameter that takes
    /// another batch than `limit`, which stays the default when the
    /// caller passes none (a run of a smaller batch, to test the job).
    pub limit_param: Option<String>,
    /// A count bucket's upsert that may open a bucket: the parameter with
    /// the page number it opens it at. A duplicate key from the unique
    /// `{parent, page}` index means another writer opened that page first;
    /// the code runs the upsert again with the next page, which lands in
    /// that writer's bucket while it has room (issue 41).
    pub next_page: Option<String>,
    /// A batch's children upserted into buckets a chunk at a time
    /// (`_into_buckets`): the step's filter and updates name the chunk
    /// (`CHUNK`) and, for a count bucket, the page it is tried at.
    pub chunks: Option<Chunks>,
    /// An insert of documents that keep their `_id` (an archive's copy of
    /// the live documents), which a rerun repeats: after a crash between
    /// the copy and the delete, the job copies some documents again. The
    /// insert is unordered, and a duplicate key is a document already
    /// there, not an error (audit43 H).
    pub skip_duplicates: bool,
    /// A read of how many match (`returns: count`): `countDocuments` on
    /// the filter, its result a number.
    pub counts: bool,
    /// A `findOneAndUpdate` that returns the document as it was before
    /// (`Step::before`), its projection only, as a list of 0 or 1.
    pub before: bool,
    /// A find whose one document a later write copies from (a relink's
    /// new parent): when it finds none, the operation fails, naming what
    /// it did not find, before any write.
    pub must_find: bool,
    /// A find of an insert's parent in the caller's tenant: the parent
    /// and the tenant it names when it finds none.
    pub not_in_tenant: Option<(String, String)>,
    /// A conditional write or a claim: what the code does when it matches
    /// nothing (`fail`: throw; `undo`: the atomic group's function undoes
    /// the group's earlier writes; `skip`: nothing).
    pub otherwise: Option<crate::model::Otherwise>,
}

/// A batch of new children upserted into their parent's buckets in
/// chunks of at most `per` (the bucket's bound), one upsert each, in the
/// batch's order (issue 41). A chunk goes whole into a bucket with room
/// for all of it (`Expr::RoomFor`), else the upsert opens the next page.
/// For a count bucket, a chunk that opened a page then closes the
/// buckets it passed over (`close`, the counter of places taken, set to
/// `per` in every other bucket of the parent with room): a later child
/// that would fit their room would otherwise land behind the newer page,
/// and reads by page would miss it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunks {
    /// The list parameter with the batch's children.
    pub list: String,
    pub per: u64,
    pub close: Option<String>,
}

/// The updates of a bulk write: for each object of `source`, one
/// `updateOne` of the document whose `_id` is the object's `id`, `$inc`ing
/// each field by the object's amount (negated where `negative`).
#[derive(Debug, Clone, PartialEq)]
pub struct EachCode {
    pub source: EachSource,
    /// The path of the id in each object.
    pub id: String,
    /// The field written, the path of its amount in each object, and
    /// whether the amount is taken away.
    pub amounts: Vec<(String, String, bool)>,
    /// The field `$set`, the path of its value in each object, and for a
    /// count or sum recounted the BSON type it is kept in (the value is
    /// converted to it, 0 where the object has none).
    pub sets: Vec<(String, String, Option<String>)>,
}

/// Where a bulk write's objects come from.
#[derive(Debug, Clone, PartialEq)]
pub enum EachSource {
    /// The objects at `elements` (through arrays) in the documents an
    /// earlier step found (`""`: the documents themselves).
    Step { step: String, elements: String },
    /// A list the caller passes: objects with the id and the amounts.
    Param(String),
    /// One object per distinct id at `path` in the documents of step
    /// `ids`: the document of step `groups` whose `_id` is that id, or
    /// only the id where there is none (a parent a delete left with no
    /// child, whose figure is then `$set` to null).
    Touched {
        ids: String,
        path: String,
        groups: String,
    },
}

/// A filter on a path from a tree's root, in the terms of the data: the
/// tree's collection and the field its nodes keep their parent's id in,
/// and the field of the step's documents that names the node whose path
/// they keep (`_id` for a node's own path).
#[derive(Debug, Clone, PartialEq)]
pub struct UnderTest {
    pub path: String,
    pub tree_collection: String,
    pub parent_field: String,
    pub node_field: String,
}

/// A name usable in Python and JavaScript.
pub(super) fn ident(s: &str) -> String {
    let out = crate::words::snake(s);
    let out = if out.is_empty() {
        "value".to_string()
    } else {
        out
    };
    if out.starts_with(|c: char| c.is_ascii_digit())
        || matches!(
            out.as_str(),
            "db" | "in"
                | "for"
                | "if"
                | "class"
                | "def"
                | "return"
                | "new"
                | "delete"
                | "function"
                | "import"
                | "from"
                | "with"
                | "var"
                | "let"
                | "const"
                | "async"
                | "await"
                | "default"
                | "lambda"
                | "pass"
                | "is"
                | "not"
                | "and"
                | "or"
                | "none"
                | "true"
                | "false"
                | "null"
                | "this"
                | "session"
                | "client"
                | "sdb"
                | "attempt"
                | "commit"
                | "labelled"
                | "in_transaction"
                // The cookbooks' own helpers and locals.
                | "ids"
                | "newest"
                | "out"
                | "feed"
                | "page_tried"
                | "chunk"
                | "page_at"
                | "opened"
        )
    {
        format!("p_{out}")
    } else {
        out
    }
}
