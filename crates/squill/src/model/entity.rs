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
}

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
                let count = n.unwrap_or(4);
                // document header/trailer + per element: type byte, index key, NUL
                5 + count * (1 + 2 + 1 + item.value_bytes(None))
            }
            // As stored: `{k, v}` pairs, each a document of two short strings.
            FieldType::Attributes { .. } => {
                let count = n.unwrap_or(ATTRIBUTES_TYPICAL);
                5 + count * (1 + 2 + 1 + ATTRIBUTE_PAIR_BYTES)
            }
        }
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
            FieldType::Object => "object",
            FieldType::Array(_) | FieldType::Attributes { .. } => "array",
        }
    }
}

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
        1 + self.name.len() as u64 + 1 + self.ty.value_bytes(self.avg_size)
    }
}
