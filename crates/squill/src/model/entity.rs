//! Entities and their fields, with the sizes the cost model needs.

use serde::Serialize;

pub use super::ids::EntityId;

/// A kind of thing the application stores (a person, a product, a log message).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    pub name: String,
    /// Estimated number of instances (documents, if it had its own collection).
    pub count: u64,
    pub fields: Vec<Field>,
    /// Free text for reports.
    pub description: Option<String>,
    /// Combinations of keys no two instances share (the model's `unique:`),
    /// each enforced by a unique index where the design keeps them in one
    /// collection's documents.
    pub unique: Vec<Vec<KeyPart>>,
    /// Set on the archive of an entity split by age (`order_archive` holds
    /// the orders older than the horizon): its documents and indexes are
    /// read rarely enough to stay on disk, out of the working set.
    pub archive_of: Option<EntityId>,
    /// Instances the server removes a set time after a date field (a TTL index).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<super::Expiry>,
    /// How densely the instances lie on the map, for an entity with a
    /// GeoJSON field (the model's `density:`): what a read near a point or
    /// within an area finds there.
    pub density: Option<Density>,
    /// How the count grows over time (the model's `growth:`), for a
    /// capacity projection; `None`: it keeps its count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth: Option<super::CountGrowth>,
}

/// Instances per km², typical and in the densest place (a city centre).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Density {
    pub typical: f64,
    pub max: f64,
    /// The share of searches that meet the densest place's density (the
    /// model's `densest_share`, 0 to 1): a search's expected cost weighs
    /// its densest case by it, the typical by the rest. `None`: the model
    /// does not say, and searches are priced at the typical density alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub densest_share: Option<f64>,
}

impl Density {
    /// Instances inside `area_km2` at the typical and at the densest place.
    pub fn inside(&self, area_km2: f64) -> (f64, f64) {
        (self.typical * area_km2, self.max * area_km2)
    }
}

/// One key of a uniqueness constraint: a field of the entity, or the
/// reference to its parent through a relationship (wherever the design puts it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyPart {
    Field(String),
    Parent(super::ids::RelationshipId),
}

impl Entity {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The entries one instance gives an index with a key on `path` (a
    /// field, or a path inside one: `tags`, `lines.sku`): one per element
    /// when the field is an array (a multikey index: `tags: string[5]`
    /// gives five, `locations: point[3]` three, an array of unstated
    /// size the default), one per name of an `attributes` field, else one.
    /// `ids` tells which top-level names hold an array of a relationship's
    /// ids that the design keeps in the instance's document (a book's
    /// `categories`, a many-to-many's ids on either side), and how many
    /// ids one holds (the relationship's typical count per owner): that
    /// array is multikey too, an entry per id, whichever step writes or
    /// reads it.
    pub fn index_entries_at(&self, path: &str, ids: impl Fn(&str) -> Option<f64>) -> f64 {
        let name = path.split('.').next().unwrap_or(path);
        if let Some(n) = ids(name) {
            return n.max(1.0);
        }
        let Some(f) = self.field(name) else {
            return 1.0;
        };
        match &f.ty {
            FieldType::Array(_) => f.avg_size.map_or(ARRAY_ITEMS, u64::from).max(1) as f64,
            FieldType::Attributes { .. } => f.attribute_names().map_or(1, |(per, _)| per) as f64,
            _ => 1.0,
        }
    }

    /// The entity's GeoJSON fields (points, polygons).
    pub fn geo_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.ty.holds_geo())
    }
}

/// One field of an entity. `_id` is implicit (an ObjectId unless a field named
/// `_id` says otherwise).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    /// Average size in bytes of the value (strings, binary) or, for arrays, the
    /// average number of elements. `None` means the type's default.
    pub avg_size: Option<u32>,
    /// For an array, the size of each element, read as `avg_size` is for
    /// one value (a string's bytes, a polygon's corners: `polygon(12)[3]`
    /// is three polygons of 12 corners). `None` means the element type's
    /// default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element_size: Option<u32>,
    /// Number of distinct values, when known (selectivity of an equality filter).
    pub distinct: Option<u64>,
    /// Allowed values, when the model lists them (become `enum` in validators).
    pub enum_values: Vec<String>,
    /// Whether every instance has the field (default true).
    pub required: bool,
    /// Updates of this field per second are not stored here: the workload says
    /// which operations change which fields.
    pub description: Option<String>,
}

/// BSON-level types a model can declare.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    String,
    Int,
    Long,
    Double,
    Decimal,
    Bool,
    Date,
    ObjectId,
    Binary,
    /// A sub-document whose inner shape the model does not detail.
    Object,
    Array(Box<FieldType>),
    /// Named values that differ from instance to instance (a listing's
    /// specs: mileage for a car, rooms for a flat): about `avg_size` names
    /// an instance, out of `keys` in all, each value a string.
    Attributes {
        keys: u64,
    },
    /// A GeoJSON Point: `{type: "Point", coordinates: [longitude, latitude]}`.
    Point,
    /// A GeoJSON Polygon of one ring (a delivery zone): `avg_size` is its
    /// number of corners, the ring closed by repeating the first.
    Polygon,
}

/// The elements of an array whose model gives no count.
pub(super) const ARRAY_ITEMS: u64 = 4;

impl FieldType {
    /// The type a model declares for a BSON type as a scan names it
    /// (`"objectId"`, `"timestamp"` …); `None` for the types a model has
    /// no word for (arrays are built from their items).
    pub fn from_scanned_type(ty: &str) -> Option<FieldType> {
        Some(match ty {
            "string" | "symbol" => FieldType::String,
            "int" => FieldType::Int,
            "long" => FieldType::Long,
            "double" => FieldType::Double,
            "decimal" => FieldType::Decimal,
            "bool" => FieldType::Bool,
            "date" | "timestamp" => FieldType::Date,
            "objectId" => FieldType::ObjectId,
            "binData" => FieldType::Binary,
            "object" => FieldType::Object,
            _ => return None,
        })
    }

    /// Bytes of the BSON value (without the element's type byte and name), using
    /// `avg_size` for variable-length values. Arrays use `avg_size` as an element
    /// count and assume short index keys.
    pub fn value_bytes(&self, avg_size: Option<u32>) -> u64 {
        self.sized_value_bytes(avg_size, None)
    }

    /// `value_bytes`, each element of an array of the size `element_size`
    /// gives it (`Field::element_size`).
    pub fn sized_value_bytes(&self, avg_size: Option<u32>, element_size: Option<u32>) -> u64 {
        let n = avg_size.map(u64::from);
        match self {
            // int32 length + bytes + NUL
            FieldType::String => 4 + n.unwrap_or(16) + 1,
            FieldType::Int => 4,
            FieldType::Long | FieldType::Double | FieldType::Date => 8,
            FieldType::Decimal => 16,
            FieldType::Bool => 1,
            FieldType::ObjectId => 12,
            // int32 length + subtype + bytes
            FieldType::Binary => 4 + 1 + n.unwrap_or(64),
            FieldType::Object => n.unwrap_or(64),
            FieldType::Array(item) => {
                let count = n.unwrap_or(ARRAY_ITEMS);
                // document header/trailer + per element: type byte, index key, NUL
                5 + count * (1 + 2 + 1 + item.value_bytes(element_size))
            }
            // As stored: `{k, v}` pairs, each a document of two short strings.
            FieldType::Attributes { .. } => {
                let count = n.unwrap_or(ATTRIBUTES_TYPICAL);
                5 + count * (1 + 2 + 1 + ATTRIBUTE_PAIR_BYTES)
            }
            FieldType::Point => GEO_TYPE_BYTES + geo_string(5) + 1 + 12 + POSITION_BYTES,
            FieldType::Polygon => {
                let corners = n.unwrap_or(POLYGON_CORNERS).max(3);
                // The ring repeats its first position to close; each
                // position's element has a type byte and a key of up to
                // two digits with its NUL.
                let ring = 5 + (corners + 1) * (1 + 3 + POSITION_BYTES);
                GEO_TYPE_BYTES + geo_string(7) + 1 + 12 + 5 + (1 + 2 + ring)
            }
        }
    }

    /// Whether values are GeoJSON (a `2dsphere` index serves them).
    pub fn is_geo(&self) -> bool {
        matches!(self, FieldType::Point | FieldType::Polygon)
    }

    /// Whether values are GeoJSON or arrays of it (a store's several
    /// locations): a `2dsphere` index serves both, the array as a
    /// multikey index with an entry per element.
    pub fn holds_geo(&self) -> bool {
        match self {
            FieldType::Array(item) => item.is_geo(),
            other => other.is_geo(),
        }
    }

    /// Whether values are `ty`, or arrays of `ty` (one level).
    pub fn holds(&self, ty: &FieldType) -> bool {
        self == ty || matches!(self, FieldType::Array(item) if **item == *ty)
    }

    /// The `$jsonSchema` `bsonType` name.
    pub fn bson_type(&self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Int => "int",
            FieldType::Long => "long",
            FieldType::Double => "double",
            FieldType::Decimal => "decimal",
            FieldType::Bool => "bool",
            FieldType::Date => "date",
            FieldType::ObjectId => "objectId",
            FieldType::Binary => "binData",
            FieldType::Object | FieldType::Point | FieldType::Polygon => "object",
            FieldType::Array(_) | FieldType::Attributes { .. } => "array",
        }
    }
}

/// A GeoJSON object's header and trailer (5) and its `type` element's
/// type byte and name (`type` and NUL: 6).
const GEO_TYPE_BYTES: u64 = 5 + 1 + 5;

/// A string value of `len` characters: its length, the bytes, the NUL.
const fn geo_string(len: u64) -> u64 {
    4 + len + 1
}

/// One `[longitude, latitude]` array: header and trailer, two doubles with
/// their type bytes and one-character index keys.
const POSITION_BYTES: u64 = 5 + 2 * (1 + 2 + 8);

/// Corners of a polygon when the model does not say.
pub const POLYGON_CORNERS: u64 = 20;

/// Names an instance has when an `attributes` field does not say.
pub const ATTRIBUTES_TYPICAL: u64 = 10;

/// Bytes of one `{k: …, v: …}` pair: a document's header and trailer, and
/// two string elements of 12 characters.
pub const ATTRIBUTE_PAIR_BYTES: u64 = 5 + 2 * (1 + 2 + 4 + 12 + 1);

impl Field {
    /// How many different values the field takes: `distinct` when the model
    /// says, else what its type allows (the values of its `enum`, the two of
    /// a bool); `None` when nothing bounds them.
    pub fn distinct_values(&self) -> Option<u64> {
        self.distinct.or(match &self.ty {
            _ if !self.enum_values.is_empty() => Some(self.enum_values.len() as u64),
            FieldType::Bool => Some(2),
            _ => None,
        })
    }

    /// For an `attributes` field: the names an instance has (its `size`,
    /// else `ATTRIBUTES_TYPICAL`) and the names in all.
    pub fn attribute_names(&self) -> Option<(u64, u64)> {
        match self.ty {
            FieldType::Attributes { keys } => {
                Some((self.avg_size.map_or(ATTRIBUTES_TYPICAL, u64::from), keys))
            }
            _ => None,
        }
    }

    /// Bytes this field adds to a BSON document: type byte, name, NUL, value.
    pub fn element_bytes(&self) -> u64 {
        1 + self.name.len() as u64 + 1 + self.ty.sized_value_bytes(self.avg_size, self.element_size)
    }
}
