//! Extended references in a dump: a reference kept with copies of fields
//! of the document it points at, so that the common read needs no second
//! query — a post's `author: {_id, name}`, an order's `customer_id` beside
//! `customer_name`. Recognized by name and type: a field beside the
//! reference (in the same sub-document, or at the top level named after
//! the reference) whose name is a field of the referenced side, of the
//! same type. Values are not compared (the scan keeps no documents); the
//! emitted model says which fields were taken for copies.

use super::report::CollectionReport;
use crate::model::{Entity, FieldType};

/// What a holder keeps beside a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Copies {
    /// The reference's field as the model names it: the sub-document
    /// (`author`) for a nested one, the reference itself (`customer_id`)
    /// for a flat one.
    pub field: String,
    /// The referenced side's fields copied, by their names there.
    pub copies: Vec<String>,
    /// The holder's top-level fields that are the reference and its copies
    /// (`author`; `customer_name`): no fields of the holder's own.
    pub consumed: Vec<String>,
}

/// The copies `holder` keeps beside its reference at `path` to a document
/// of `other`, if any; `not_fields` are `other`'s references (ids of a
/// third collection, no fields of its entity).
pub fn find(
    holder: &CollectionReport,
    path: &str,
    other: &Entity,
    not_fields: &[&str],
) -> Option<Copies> {
    let same = |name: &str, ty: &str| {
        !not_fields.contains(&name)
            && other.fields.iter().any(|f| {
                f.name == name && FieldType::from_scanned_type(ty).is_some_and(|t| t == f.ty)
            })
    };
    let top = |f: &super::report::FieldReport| f.types.first().map_or("", |t| t.ty);
    match path.split_once('.') {
        // Nested: the reference is one field of a sub-document (or of each
        // element of an array of them); its siblings may be copies.
        Some((wrapper, key)) if !key.contains('.') => {
            let prefix = format!("{wrapper}.");
            let copies: Vec<String> = holder
                .fields
                .iter()
                .filter(|f| f.level == 2 && f.path.starts_with(&prefix))
                .map(|f| (&f.path[prefix.len()..], top(f)))
                .filter(|(name, ty)| *name != key && same(name, ty))
                .map(|(name, _)| name.to_string())
                .collect();
            (!copies.is_empty()).then(|| Copies {
                field: wrapper.to_string(),
                copies,
                consumed: vec![wrapper.to_string()],
            })
        }
        Some(_) => None,
        // Flat: `customer_id` and `customer_name` (or `customerName`).
        None => {
            let stem = reference_stem(path)?;
            let mut copies = Vec::new();
            let mut consumed = Vec::new();
            for f in holder
                .fields
                .iter()
                .filter(|f| f.level == 1 && f.path != path)
            {
                let Some(name) = f
                    .path
                    .strip_prefix(stem)
                    .and_then(|rest| rest.strip_prefix('_').or_else(|| lower_first(rest)))
                else {
                    continue;
                };
                let name = other
                    .fields
                    .iter()
                    .find(|o| o.name.eq_ignore_ascii_case(name))
                    .map(|o| o.name.clone());
                if let Some(name) = name.filter(|n| same(n, top(f))) {
                    copies.push(name);
                    consumed.push(f.path.clone());
                }
            }
            (!copies.is_empty()).then(|| Copies {
                field: path.to_string(),
                copies,
                consumed,
            })
        }
    }
}

/// `customer` of `customer_id`, `customerId` or `customer_ids`; `None`
/// when the name says no more than `id`.
fn reference_stem(path: &str) -> Option<&str> {
    let stem = ["_ids", "_id", "Ids", "Id"]
        .iter()
        .find_map(|s| path.strip_suffix(s))
        .unwrap_or(path);
    (!stem.is_empty() && stem != "_").then_some(stem)
}

/// `Name` → `name`: the rest of a camel-case name after its stem, which
/// must start with a capital.
fn lower_first(rest: &str) -> Option<&str> {
    rest.chars()
        .next()
        .filter(char::is_ascii_uppercase)
        .map(|_| rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_of_reference_names() {
        assert_eq!(reference_stem("customer_id"), Some("customer"));
        assert_eq!(reference_stem("customerId"), Some("customer"));
        assert_eq!(reference_stem("tag_ids"), Some("tag"));
        assert_eq!(reference_stem("author"), Some("author"));
        assert_eq!(reference_stem("_id"), None);
        assert_eq!(lower_first("Name"), Some("Name"));
        assert_eq!(lower_first("name"), None);
    }
}
