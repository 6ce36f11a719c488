//! What a live scan keeps of its sampled documents to ask the server about
//! afterwards, and the questions it may ask.
//!
//! A sample of the children checked against a sample of the parents finds
//! most references dangling (issue 46: half of them, with half the customers
//! sampled). So the values that could be references are kept, as the server
//! compares them, for the first documents of each sample (a random sample's
//! first documents are a random sample too), and checked against the whole
//! target collection through `Lookup`. The trait is here, below `scan`, so
//! the scan's estimates are tested against a fake server and the driver
//! (`live`, feature `mongodb`) implements it.

use super::bson::{Container, Scalar, Visitor, walk};
use std::collections::BTreeMap;

/// A reference or key value, as the server compares it: numbers of every type
/// by their integral value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefValue {
    ObjectId([u8; 12]),
    String(String),
    Int(i64),
}

impl RefValue {
    pub fn of(v: &Scalar<'_>) -> Option<Self> {
        match v {
            Scalar::ObjectId(b) => Some(RefValue::ObjectId(**b)),
            Scalar::String(s) if !s.is_empty() && s.len() <= MAX_KEY_STRING => {
                Some(RefValue::String(s.as_str().to_string()))
            }
            other => other.integral_value().map(RefValue::Int),
        }
    }
}

/// Longer strings are no keys (as scan's fingerprints: 64 bytes).
const MAX_KEY_STRING: usize = 64;

/// Fields whose values are kept, per collection: enough for every plausible
/// reference, bounded whatever the documents hold.
pub const MAX_KEPT_FIELDS: usize = 64;

/// Sub-document levels looked into (`author._id` is level 2).
const MAX_KEPT_DEPTH: u32 = 3;

/// The possible reference values of the first documents of one sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeptValues {
    /// Documents whose values are kept.
    pub documents: u64,
    /// Dotted path (through arrays, as in queries) → its values, one per
    /// occurrence, in document order.
    pub fields: BTreeMap<String, KeptField>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeptField {
    pub values: Vec<RefValue>,
    /// For a field holding arrays: each kept document's array length (the
    /// references it holds), documents without the field left out.
    pub array_lengths: Vec<u64>,
}

impl KeptValues {
    /// Keeps the possible reference values of one BSON document. A document
    /// that is not valid BSON keeps nothing (the scan reports it).
    pub fn add(&mut self, doc: &[u8]) {
        let mut v = Keep {
            kept: &mut *self,
            path: Vec::new(),
        };
        if walk(doc, &mut v).is_ok() {
            self.documents += 1;
        }
    }

    /// The `_id` values kept, in sample order.
    pub fn ids(&self) -> &[RefValue] {
        self.fields.get("_id").map_or(&[], |f| &f.values)
    }
}

struct Keep<'a> {
    kept: &'a mut KeptValues,
    /// The open containers below the document.
    path: Vec<Frame>,
}

struct Frame {
    /// Dotted path; an array's elements share it.
    name: String,
    array: bool,
    /// An array inside an array: its elements are no references.
    ignored: bool,
    /// Kept values directly inside (an array's references).
    values: u64,
}

impl Keep<'_> {
    /// The path of an element named `key` in the innermost container.
    fn name_of(&self, key: &str) -> String {
        match self.path.last() {
            None => key.to_string(),
            Some(f) if f.array => f.name.clone(),
            Some(f) => format!("{}.{key}", f.name),
        }
    }
}

impl Visitor for Keep<'_> {
    fn enter(&mut self, key: &str, container: Container, _: u32, depth: u32) {
        if depth == 0 {
            return;
        }
        let name = self.name_of(key);
        let ignored = self
            .path
            .last()
            .is_some_and(|f| f.ignored || (f.array && container == Container::Array));
        self.path.push(Frame {
            name,
            array: container == Container::Array,
            ignored,
            values: 0,
        });
    }

    fn leave(&mut self, _: Container, _: u32, depth: u32) {
        if depth == 0 {
            return;
        }
        if let Some(f) = self.path.pop()
            && f.array
            && f.values > 0
            && let Some(field) = self.kept.fields.get_mut(&f.name)
        {
            field.array_lengths.push(f.values);
        }
    }

    fn scalar(&mut self, key: &str, value: Scalar<'_>, _: u32, depth: u32) {
        if depth > MAX_KEPT_DEPTH || self.path.last().is_some_and(|f| f.ignored) {
            return;
        }
        let Some(v) = RefValue::of(&value) else {
            return;
        };
        let name = self.name_of(key);
        let room = self.kept.fields.len() < MAX_KEPT_FIELDS;
        let field = match self.kept.fields.get_mut(&name) {
            Some(f) => f,
            None if room => self.kept.fields.entry(name).or_default(),
            None => return,
        };
        field.values.push(v);
        if let Some(f) = self.path.last_mut()
            && f.array
        {
            f.values += 1;
        }
    }
}

/// The read-only questions a scan asks the server about its samples.
pub trait Lookup {
    /// The values among `values` that some document of
    /// `database.collection` holds in `key` (with an index on `key`).
    fn existing(
        &mut self,
        database: &str,
        collection: &str,
        key: &str,
        values: &[RefValue],
    ) -> Result<Vec<RefValue>, String>;

    /// The documents of `database.collection` whose `field` equals `value`.
    fn count(
        &mut self,
        database: &str,
        collection: &str,
        field: &str,
        value: &RefValue,
    ) -> Result<u64, String>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::testing::{B, doc, oid};

    #[test]
    fn keeps_reference_values_by_path_with_array_lengths() {
        let mut k = KeptValues::default();
        k.add(&doc(&[
            ("_id", B::I32(1)),
            ("customerId", B::F64(3.0)),
            ("price", B::F64(2.5)),
            ("tags", B::Arr(vec![B::Oid(oid(7)), B::Oid(oid(8))])),
            ("author", B::Doc(vec![("_id", B::I64(9))])),
            ("items", B::Arr(vec![B::Doc(vec![("sku", B::Str("a"))])])),
        ]));
        assert_eq!(k.documents, 1);
        assert_eq!(k.ids(), &[RefValue::Int(1)]);
        assert_eq!(k.fields["customerId"].values, vec![RefValue::Int(3)]);
        assert!(!k.fields.contains_key("price"));
        assert_eq!(k.fields["tags"].values.len(), 2);
        assert_eq!(k.fields["tags"].array_lengths, vec![2]);
        assert_eq!(k.fields["author._id"].values, vec![RefValue::Int(9)]);
        assert_eq!(
            k.fields["items.sku"].values,
            vec![RefValue::String("a".into())]
        );
    }
}
