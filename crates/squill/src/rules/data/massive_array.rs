//! `massive-array`: An array in the data is longer than the profile allows.

crate::rules::declare_rule! {
    id: "massive-array",
    summary: "An array in the data is longer than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "Compass performance insights", "Atlas schema advice", "Schaefer & Coupal anti-patterns"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Bound the array: keep the latest or most used elements in the document and \
all of them in their own collection (subset pattern), group elements into bucket documents \
(bucket pattern), or store a reference to the parent in each element's own document \
(parent-reference) when it grows without bound.";

/// Arrays longer than the profile's limit (reference arrays are judged by
/// `long-reference-array` instead).
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.massive_array;
    for c in a.collections {
        for f in &c.fields {
            let Some(arr) = &f.array else { continue };
            if arr.lengths.max <= limit.max.value {
                continue;
            }
            let is_reference_array = a.relationships.iter().any(|r| {
                r.direction == crate::scan::report::Direction::ChildReferenceArray
                    && r.field == f.path
                    && r.from.collection == c.name
                    && r.from.database == c.database
            });
            if is_reference_array {
                continue;
            }
            out.push(finding(
                &RULE,
                limit.severity,
                format!(
                    "`{}` holds arrays of up to {} elements (limit {})",
                    f.path, arr.lengths.max, limit.max.value
                ),
                location(c, Some(&f.path), arr.longest_example_id.as_ref()),
                vec![
                    Evidence::new("max_elements", arr.lengths.max),
                    Evidence::new("p95_elements", arr.lengths.p95),
                    Evidence::new("p50_elements", arr.lengths.p50),
                    Evidence::new("arrays", arr.lengths.count),
                    Evidence::new("limit", limit.max.value),
                    Evidence::new("limit_source", limit.max.source),
                ],
                HELP,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    fn with_array(n: i32) -> Vec<Vec<u8>> {
        vec![doc(&[
            ("_id", B::I32(1)),
            ("v", B::Arr((0..n).map(|i| B::F64(f64::from(i))).collect())),
        ])]
    }

    #[test]
    fn fires_above_the_limit_with_the_longest_example() {
        let r = scan(vec![coll("d", "c", with_array(201))], &Default::default());
        let f = fired(&r, "massive-array");
        assert_eq!(f.len(), 1);
        insta::assert_json_snapshot!(f[0]);
    }

    #[test]
    fn quiet_at_the_limit_and_under_other_profiles() {
        let r = scan(vec![coll("d", "c", with_array(200))], &Default::default());
        assert!(fired(&r, "massive-array").is_empty());
        let atlas = crate::settings::Options {
            profile: Some(crate::settings::Profile::Atlas),
            ..Default::default()
        }
        .into_settings();
        let r = scan(vec![coll("d", "c", with_array(5000))], &atlas);
        assert!(fired(&r, "massive-array").is_empty());
    }
}
