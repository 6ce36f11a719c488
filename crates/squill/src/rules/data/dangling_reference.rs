//! `dangling-reference`: References whose target _id is not in the referenced collection.

crate::rules::declare_rule! {
    id: "dangling-reference",
    summary: "References whose target _id is not in the referenced collection",
    kind: Data,
    severity: Warning,
    sources: ["000_34acd10fa9a500cb.txt"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Find out how the references lost their targets (deletes that do not cascade, \
imports in the wrong order) and fix them: delete or re-point the orphans, and delete children \
with their parent in one transaction, or embed what is owned by one parent.";

/// Relationships where some values match no key of the target collection.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.dangling_reference;
    for r in a.relationships {
        // A sampled relationship the server could not check: its share is
        // unknown, and a sample's own mismatch is no evidence (issue 46).
        let estimated = r.estimate.as_ref().map(|e| e.dangling);
        if r.dangling_share <= limit.max.value || estimated == Some(None) {
            continue;
        }
        let Some(c) = a.collection(&r.from) else {
            continue;
        };
        let dangling = r.values_checked - r.values_matched;
        out.push(finding(
            &RULE,
            limit.severity,
            format!(
                "{:.1} % of `{}` values match no {} in {} ({} of {} checked)",
                r.dangling_share * 100.0,
                r.field,
                r.key,
                r.to,
                dangling,
                r.values_checked
            ),
            location(c, Some(&r.field), None),
            [
                Evidence::new("values_checked", r.values_checked),
                Evidence::new("values_dangling", dangling),
                Evidence::new("dangling_share", r.dangling_share),
                Evidence::new("sample_rate", r.sample_rate),
                Evidence::new("target", format!("{}.{}", r.to, r.key)),
                Evidence::new("limit", limit.max.value),
                Evidence::new("limit_source", limit.max.source),
            ]
            .into_iter()
            .chain(estimated.flatten().map(|d| {
                Evidence::new("dangling_interval_99", vec![d.low, d.high])
            }))
            .collect(),
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, oid, scan};

    fn input(dangling: u64) -> Vec<crate::rules::data::testing::Coll> {
        let movies = (0..10).map(|i| doc(&[("_id", B::Oid(oid(i)))])).collect();
        let comments = (0..10)
            .map(|i| {
                let target = if i < dangling { 1000 + i } else { i };
                doc(&[("_id", B::I32(i as i32)), ("movie_id", B::Oid(oid(target)))])
            })
            .collect();
        vec![coll("m", "movies", movies), coll("m", "comments", comments)]
    }

    #[test]
    fn fires_when_some_references_miss() {
        let r = scan(input(2), &Default::default());
        let f = fired(&r, "dangling-reference");
        assert_eq!(f.len(), 1, "{:#?}", r.relationships);
        assert!(
            f[0].message.starts_with("20.0 % of `movie_id`"),
            "{}",
            f[0].message
        );
    }

    /// Issue 46: a sampled relationship whose references could not be looked
    /// up keeps the sample's mismatch in `dangling_share`; it is not reported.
    #[test]
    fn quiet_when_a_sampled_share_is_unknown() {
        use crate::scan::estimate::{FanOutMethod, MatchMethod, RelationshipEstimate};
        let mut r = crate::scan::testing::scan(input(2), &Default::default());
        r.relationships[0].estimate = Some(RelationshipEstimate {
            confidence: 0.99,
            match_method: MatchMethod::Unknown,
            dangling: None,
            fan_out_method: FanOutMethod::ChildSample,
            children: 0,
            parents_with_any: 0,
            typical: 1.0,
            parents_measured: 0,
            percentiles: Vec::new(),
            largest_seen: 1,
            notes: Vec::new(),
        });
        crate::rules::data::apply(&mut r, &Default::default());
        assert!(fired(&r, "dangling-reference").is_empty());
    }

    #[test]
    fn quiet_when_every_reference_hits() {
        let r = scan(input(0), &Default::default());
        assert!(fired(&r, "dangling-reference").is_empty());
        assert_eq!(r.relationships.len(), 1);
    }
}
