//! `missing-id-index`: A collection's metadata lists no _id index.

crate::rules::declare_rule! {
    id: "missing-id-index",
    summary: "A collection's metadata lists no _id index",
    kind: Data,
    severity: Warning,
    sources: ["MongoDB manual: indexes"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Every regular collection has a unique index on _id; without it lookups by _id \
scan the collection and uniqueness is not enforced. Recreate the collection (or restore it \
without --noIndexRestore) so the _id index exists; if _id carries a natural key, keep it there \
(custom _id) rather than adding a second unique index.";

/// Collections whose metadata lists indexes but none on `_id`. Collections
/// without metadata, and system collections, are not judged.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let severity = a.settings.scan.missing_id_index;
    for c in a.collections {
        let Some(indexes) = &c.indexes else { continue };
        if c.name.starts_with("system.") {
            continue;
        }
        let has_id = indexes
            .iter()
            .any(|i| i.key.len() == 1 && i.key[0].0 == "_id");
        if has_id {
            continue;
        }
        out.push(finding(
            &RULE,
            severity,
            "the metadata lists no index on _id".to_string(),
            location(c, Some("_id"), None),
            vec![
                Evidence::new("indexes", indexes.len()),
                Evidence::new(
                    "names",
                    indexes.iter().map(|i| i.name.clone()).collect::<Vec<_>>(),
                ),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, index, scan};

    fn with(
        indexes: Option<Vec<crate::scan::report::IndexReport>>,
    ) -> crate::scan::report::ScanReport {
        let mut c = coll("d", "c", vec![doc(&[("_id", B::I32(1))])]);
        c.indexes = indexes;
        scan(vec![c], &Default::default())
    }

    #[test]
    fn fires_without_an_id_index() {
        let r = with(Some(vec![index("a_1", &[("a", 1)])]));
        assert_eq!(fired(&r, "missing-id-index").len(), 1);
    }

    #[test]
    fn quiet_with_it_or_without_metadata() {
        assert!(
            fired(
                &with(Some(vec![index("_id_", &[("_id", 1)])])),
                "missing-id-index"
            )
            .is_empty()
        );
        assert!(fired(&with(None), "missing-id-index").is_empty());
    }
}
