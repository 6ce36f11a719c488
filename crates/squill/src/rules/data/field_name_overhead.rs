//! `field-name-overhead`: Field names take a large share of the document bytes.

crate::rules::declare_rule! {
    id: "field-name-overhead",
    summary: "Field names take a large share of the document bytes",
    kind: Data,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Shorten the longest, most repeated field names, or turn many sparse fields into \
an array of {k, v} pairs (attribute pattern). Under WiredTiger block compression recovers much \
of the repetition on disk, but not in the cache, the indexes' documents in memory, or on the \
wire; the old MMAPv1 advice to abbreviate every name no longer holds to that degree.";

/// Collections where field names take more than the limit's share of the bytes.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.field_name_overhead;
    for c in a.collections {
        if c.documents == 0 || c.field_name_share <= limit.max.value {
            continue;
        }
        let mut longest: Vec<&str> = c
            .fields
            .iter()
            .map(|f| f.path.rsplit('.').next().unwrap_or(&f.path))
            .collect();
        longest.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        longest.dedup();
        longest.truncate(3);
        out.push(finding(
            &RULE,
            limit.severity,
            format!(
                "field names are {:.0} % of the document bytes (limit {:.0} %)",
                c.field_name_share * 100.0,
                limit.max.value * 100.0
            ),
            location(c, None, c.largest_example_id.as_ref()),
            vec![
                Evidence::new("field_name_share", c.field_name_share),
                Evidence::new("field_name_bytes", c.field_name_bytes),
                Evidence::new("document_bytes", c.bytes),
                Evidence::new("distinct_field_names", c.distinct_field_names),
                Evidence::new("longest_names", longest),
                Evidence::new("limit", limit.max.value),
                Evidence::new("limit_source", limit.max.source),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    #[test]
    fn fires_when_names_dominate() {
        let docs = (0..10)
            .map(|i| {
                doc(&[
                    ("_id", B::I32(i)),
                    ("customer_preferred_contact_method_flag", B::Bool(true)),
                    ("customer_marketing_opt_in_confirmed_flag", B::Bool(false)),
                ])
            })
            .collect();
        let r = scan(vec![coll("d", "c", docs)], &Default::default());
        assert_eq!(fired(&r, "field-name-overhead").len(), 1);
    }

    #[test]
    fn quiet_when_values_dominate() {
        let docs = (0..10)
            .map(|i| {
                doc(&[
                    ("_id", B::I32(i)),
                    ("text", B::Owned("lorem ipsum ".repeat(20))),
                ])
            })
            .collect();
        let r = scan(vec![coll("d", "c", docs)], &Default::default());
        assert!(fired(&r, "field-name-overhead").is_empty());
    }
}
