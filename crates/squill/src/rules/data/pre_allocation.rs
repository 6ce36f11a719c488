//! `pre-allocation`: Arrays of placeholders written ahead of their data only helped the old MMAPv1 engine; under WiredTiger they waste space on every read and write.

crate::rules::declare_rule! {
    id: "pre-allocation",
    summary: "Arrays of placeholders written ahead of their data only helped the old MMAPv1 engine; under WiredTiger they waste space on every read and write",
    kind: Data,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Create the document with its first element and let the array grow with \
$push (an upsert creates a bucket on its first child); bound it with $slice or the bucket's \
count. WiredTiger writes a new version of the whole document on every update, so padding \
only costs disk, cache and network.";

/// Fewest arrays of one field before their shape is judged: a pattern of
/// the collection, not of a few documents.
const MIN_ARRAYS: u64 = 10;
/// Share of the elements that are null for the slots to count as placeholders.
const MIN_NULL_SHARE: f64 = 0.5;

/// Fields whose arrays all have the same length and are mostly null: slots
/// written ahead of their data (a day's 1,440 minutes, filled as they come).
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let severity = a.settings.scan.pre_allocation;
    for c in a.collections {
        for f in &c.fields {
            let Some(arr) = &f.array else { continue };
            let l = &arr.lengths;
            let fixed = l.count >= MIN_ARRAYS && l.min == l.max && l.max > 1;
            let elements: u64 = arr.element_types.iter().map(|t| t.count).sum();
            let nulls: u64 = arr
                .element_types
                .iter()
                .filter(|t| t.ty == "null")
                .map(|t| t.count)
                .sum();
            let share = nulls as f64 / elements.max(1) as f64;
            if !fixed || share < MIN_NULL_SHARE {
                continue;
            }
            out.push(finding(
                &RULE,
                severity,
                format!(
                    "`{}` holds {} slots in every document, {:.0}% of them null: placeholders written ahead of the data",
                    f.path,
                    l.max,
                    share * 100.0
                ),
                location(c, Some(&f.path), arr.longest_example_id.as_ref()),
                vec![
                    Evidence::new("slots", l.max),
                    Evidence::new("arrays", l.count),
                    Evidence::new("null_share", (share * 1000.0).round() / 1000.0),
                ],
                HELP,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    /// `n` documents with a `slots` array of `len` elements, the first
    /// `filled` set and the rest null.
    fn docs(n: i32, len: i32, filled: i32) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                let slots = (0..len)
                    .map(|j| if j < filled { B::F64(f64::from(j)) } else { B::Null })
                    .collect();
                doc(&[("_id", B::I32(i)), ("slots", B::Arr(slots))])
            })
            .collect()
    }

    #[test]
    fn fires_on_fixed_arrays_of_placeholders() {
        let r = scan(vec![coll("d", "c", docs(20, 60, 10))], &Default::default());
        let f = fired(&r, "pre-allocation");
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].message,
            "`slots` holds 60 slots in every document, 83% of them null: placeholders written ahead of the data"
        );
    }

    #[test]
    fn quiet_on_full_arrays_growing_arrays_and_few_documents() {
        let full = scan(vec![coll("d", "c", docs(20, 60, 60))], &Default::default());
        assert!(fired(&full, "pre-allocation").is_empty());
        let growing: Vec<Vec<u8>> = (0..20)
            .map(|i| doc(&[("_id", B::I32(i)), ("slots", B::Arr((0..=i).map(|_| B::Null).collect()))]))
            .collect();
        let growing = scan(vec![coll("d", "c", growing)], &Default::default());
        assert!(fired(&growing, "pre-allocation").is_empty());
        let few = scan(vec![coll("d", "c", docs(5, 60, 10))], &Default::default());
        assert!(fired(&few, "pre-allocation").is_empty());
    }
}
