//! Document shapes: the field tree of a collection's documents and where each
//! field comes from (the entity's own field, an embedded child, a reference, a
//! copy kept in sync).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Shape {
    pub fields: Vec<ShapeField>,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ShapeField {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ShapeType,
    pub required: bool,
    pub origin: FieldOrigin,
}

impl ShapeField {
    /// Whether this is an `attributes` field (the attribute pattern): an
    /// array of `{k, v}` documents whose names and values are the field's
    /// own. A filter on it tests one name and its value together
    /// (`$elemMatch`); its index keys are `field.k` and `field.v`.
    pub fn is_attributes(&self) -> bool {
        let ShapeType::Array { items, .. } = &self.ty else {
            return false;
        };
        let ShapeType::Object { shape } = items.as_ref() else {
            return false;
        };
        matches!(shape.fields.as_slice(), [k, v]
            if k.name == "k" && v.name == "v" && k.origin == self.origin && v.origin == self.origin)
    }
}

/// The GeoJSON types a shape holds, as their `type` field names them.
pub const GEOJSON_POINT: &str = "Point";
pub const GEOJSON_POLYGON: &str = "Polygon";

impl ShapeType {
    /// The GeoJSON type of an object shaped `{type: "Point" | "Polygon",
    /// coordinates: […]}` (what a `point` or `polygon` field becomes), so
    /// example and synthetic data write valid positions there.
    pub fn geojson(&self) -> Option<&'static str> {
        let ShapeType::Object { shape } = self else {
            return None;
        };
        let [t, c] = shape.fields.as_slice() else {
            return None;
        };
        if t.name != "type" || c.name != "coordinates" {
            return None;
        }
        let ShapeType::Scalar { enum_values, .. } = &t.ty else {
            return None;
        };
        match enum_values.as_slice() {
            [v] if v == GEOJSON_POINT => Some(GEOJSON_POINT),
            [v] if v == GEOJSON_POLYGON => Some(GEOJSON_POLYGON),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ShapeType {
    /// A BSON scalar, by `$jsonSchema` bsonType name ("string", "objectId", …),
    /// with the model's enum values when it has them.
    Scalar {
        bson_type: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        enum_values: Vec<String>,
    },
    Object {
        shape: Shape,
    },
    Array {
        items: Box<ShapeType>,
        /// Bound the design keeps (a subset's K, a bucket's size, the model's max).
        max_items: Option<u64>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum FieldOrigin {
    /// `_id`.
    Id,
    /// A field of the entity itself.
    Own { entity: String, field: String },
    /// An embedded child (or children) of a relationship.
    Embedded { relationship: String },
    /// Id(s) of related documents.
    Reference {
        relationship: String,
        /// Whose reference this is, for a relationship of an entity with
        /// itself (users following users, a tree): `parent` for the ids of
        /// the children (the users one follows), `child` for the ids of the
        /// parents (the followers). Both sides' fields sit in one document
        /// there, so neither the collection nor the field's place in the
        /// shape tells them apart.
        #[serde(skip_serializing_if = "Option::is_none")]
        side: Option<super::Side>,
    },
    /// A copy of another entity's field, kept in sync on update.
    Copy {
        relationship: String,
        entity: String,
        field: String,
        /// Written once with the document and never refreshed: the value as
        /// it was then (the model's `snapshot:`).
        snapshot: bool,
    },
    /// A field of the link itself in a many-to-many (a member's role), kept
    /// with the reference on this side.
    Attribute { relationship: String, field: String },
    /// A pre-computed aggregate or counter: `function` of the children's
    /// `field` (none for a count) through `relationship`. A bucket keeps the
    /// sum for an average (the average is the sum over the count).
    Computed {
        function: crate::model::AggregateFn,
        field: Option<String>,
        relationship: String,
        /// The same, in words.
        description: String,
        /// Only the children meeting this test count (`status = open`,
        /// at the child's field): a filtered figure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filter: Option<super::StepCondition>,
    },
    /// A path from the root of tree `tree` (a relationship of an entity
    /// with itself): the ids of the nodes from a root down, each with
    /// copies of its fields when the items are objects. The node's own
    /// path, itself last, when `via` is `None`; the path of the node the
    /// document references through `via` (a product's category) otherwise.
    Path { tree: String, via: Option<String> },
    /// The type field of a polymorphic collection.
    Discriminator,
    /// A timeline's copies of the newest instances of `entity` (posts) of
    /// the parents its reader follows, in feed `feed`'s order, as many as
    /// its limit: fan-out on write. Each item is a copy of the whole
    /// document of `entity`.
    Timeline { feed: String, entity: String },
    /// The ids of the instances of `entity` past the followers' threshold
    /// (outliers, not pushed to) that a timeline's reader follows.
    Outliers { feed: String, entity: String },
    /// Bookkeeping of a bucket (its key, its count).
    Bucket {
        part: BucketPart,
        description: String,
    },
}

/// Which of a bucket's own fields a `Bucket` field is: together with the
/// parent's id, `Page` or `Start` is the bucket's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BucketPart {
    /// The page number, from 0, of a bucket of a fixed number of children
    /// in the order they arrived.
    Page,
    /// The start of the time unit the bucket's children fall in.
    Start,
    /// How many children the bucket holds.
    Count,
    /// How many children were ever added to a bucket of a fixed number
    /// (deletes do not take it down): the insert fills a bucket only while
    /// fewer than its number have arrived, so a bucket emptied by deletes
    /// is never filled again and the newest child is always in the newest
    /// page (issue 41).
    Arrived,
}

/// The name of a count bucket's `Arrived` field, which the insert's upsert
/// tests and increments by one.
pub const ARRIVED: &str = "arrived";

/// The field a guard write increments (`Purpose::GuardConditions`): a
/// version, as object mappers keep one, changed so that a change of the
/// same document by another transaction conflicts with the guard's.
pub const VERSION: &str = "_version";

/// The name of a count bucket's page number: the reads sort by it, the
/// upsert that opens a bucket sets it (`$setOnInsert`), and a unique
/// `{parent, page}` index keeps two writers from opening the same page.
pub const PAGE: &str = "page";
