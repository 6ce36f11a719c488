//! `expiry-without-ttl`: A date field named like an expiry, later than the collection's other dates, has no TTL index.

crate::rules::declare_rule! {
    id: "expiry-without-ttl",
    summary: "A date field named like an expiry, later than the collection's other dates, has no TTL index",
    kind: Data,
    severity: Info,
    sources: ["MongoDB manual: TTL indexes"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};
use crate::scan::profile::DateRange;
use crate::scan::report::{CollectionReport, FieldReport};
use crate::words;

const HELP: &str = "A TTL index deletes each document once the date in the field has passed \
(`createIndex({field: 1}, {expireAfterSeconds: 0})` when the field holds the moment of expiry; \
a positive number when it holds the moment the count starts, as a last use). Without one the \
expired documents stay until the application deletes them, and every read that must skip them \
tests the date. The TTL monitor runs about every 60 seconds, so a read that must never see an \
expired document still compares the date. In a model file: `expires: {from: field, after: 0 \
seconds}`.";

/// `expires_at`, `expiry`, `expirationDate`, `valid_until`: a name that
/// says the date ends the document's life. Compared without case, `_`
/// or `-`.
pub(crate) fn named_like_an_expiry(path: &str) -> bool {
    let name = path.rsplit('.').next().unwrap_or(path);
    let plain: String = name
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    plain.contains("expir")
        || ["validuntil", "validto", "validthrough", "deleteat", "purgeat"]
            .iter()
            .any(|w| plain.starts_with(w) || plain.ends_with(w))
}

/// A field's dates, where it held any outside arrays.
fn dated(f: &FieldReport) -> Option<DateRange> {
    f.dates
}

/// Each date field named like an expiry whose latest value is after the
/// latest of every other date of its collection (the documents' writes
/// and uses: its values lie ahead of them, as an expiry does), in a
/// collection whose metadata lists its indexes and none with
/// `expireAfterSeconds` on that field. The data holds no clock: the other
/// dates stand for the time the data was taken, so a collection with no
/// other date, or without metadata (no TTL index can be ruled out), is
/// not judged.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let severity = a.settings.scan.expiry_without_ttl;
    for c in a.collections {
        let Some(indexes) = &c.indexes else { continue };
        for f in &c.fields {
            let Some(range) = dated(f).filter(|_| named_like_an_expiry(&f.path)) else {
                continue;
            };
            let ttl = indexes.iter().any(|i| {
                i.expire_after_seconds.is_some() && i.key.len() == 1 && i.key[0].0 == f.path
            });
            if ttl {
                continue;
            }
            let Some((other, latest)) = latest_other_date(c) else {
                continue;
            };
            if range.max <= latest.max {
                continue;
            }
            out.push(finding(
                &RULE,
                severity,
                format!(
                    "{} looks like an expiry date: its latest value ({}) is after the latest {} ({}), and no TTL index deletes the documents once it passes",
                    f.path,
                    words::utc(range.max),
                    other,
                    words::utc(latest.max)
                ),
                location(c, Some(&f.path), None),
                vec![
                    Evidence::new("field", f.path.clone()),
                    Evidence::new("earliest", words::utc(range.min)),
                    Evidence::new("latest", words::utc(range.max)),
                    Evidence::new("compared_with", other.to_string()),
                    Evidence::new("compared_latest", words::utc(latest.max)),
                    Evidence::new("ttl_indexes", indexes.iter().filter(|i| i.expire_after_seconds.is_some()).count()),
                ],
                HELP,
            ));
        }
    }
}

/// The date field of `c`, not named like an expiry, with the latest value.
fn latest_other_date(c: &CollectionReport) -> Option<(&str, DateRange)> {
    c.fields
        .iter()
        .filter(|f| !named_like_an_expiry(&f.path))
        .filter_map(|f| dated(f).map(|d| (f.path.as_str(), d)))
        .max_by(|x, y| x.1.max.cmp(&y.1.max).then(y.0.cmp(x.0)))
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, index, scan};

    const DAY: i64 = 86_400_000;

    /// Sessions: each used at `last_used`, expiring 30 days later; the
    /// metadata lists the indexes of `indexes`.
    fn sessions(indexes: Vec<crate::scan::report::IndexReport>) -> crate::scan::report::ScanReport {
        let docs = (0..4)
            .map(|i| {
                doc(&[
                    ("_id", B::I32(i)),
                    ("last_used", B::Date(1_000 * DAY + i64::from(i) * DAY)),
                    ("expires_at", B::Date(1_030 * DAY + i64::from(i) * DAY)),
                ])
            })
            .collect();
        let mut c = coll("app", "sessions", docs);
        c.indexes = Some(indexes);
        scan(vec![c], &crate::settings::Settings::default())
    }

    #[test]
    fn fires_on_an_expiry_ahead_of_the_other_dates_without_a_ttl_index() {
        let report = sessions(vec![index("_id_", &[("_id", 1)])]);
        let found = fired(&report, "expiry-without-ttl");
        assert_eq!(found.len(), 1, "{:?}", report.findings);
        let ev = |name: &str| {
            found[0]
                .evidence
                .iter()
                .find(|e| e.name == name)
                .map(|e| e.value.clone())
                .unwrap()
        };
        assert_eq!(ev("field"), "expires_at");
        assert_eq!(ev("compared_with"), "last_used");
        assert_eq!(ev("latest"), crate::words::utc(1_033 * DAY));
        assert_eq!(ev("compared_latest"), crate::words::utc(1_003 * DAY));
    }

    /// Near misses: the same sessions with a TTL index on the field; and
    /// with expiry dates no later than the last use (a past deadline
    /// kept as a record, not a pending expiry).
    #[test]
    fn stays_quiet_with_a_ttl_index_or_dates_behind_the_others() {
        let mut ttl = index("expires_at_1", &[("expires_at", 1)]);
        ttl.expire_after_seconds = Some(0);
        let report = sessions(vec![index("_id_", &[("_id", 1)]), ttl]);
        assert!(fired(&report, "expiry-without-ttl").is_empty());

        let docs = vec![doc(&[
            ("_id", B::I32(1)),
            ("last_used", B::Date(1_000 * DAY)),
            ("expires_at", B::Date(1_000 * DAY)),
        ])];
        let mut c = coll("app", "sessions", docs);
        c.indexes = Some(vec![index("_id_", &[("_id", 1)])]);
        let report = scan(vec![c], &crate::settings::Settings::default());
        assert!(fired(&report, "expiry-without-ttl").is_empty());
    }

    /// Issue 41: an expiry date inside an array's sub-documents (a user's
    /// `sessions: [{expires_at}]`) is no date of the user's: a TTL index on
    /// it would delete the user when a session expires. Before, the date
    /// counted (it sits in a sub-document, not straight in the array).
    #[test]
    fn stays_quiet_on_an_expiry_inside_an_array() {
        let docs = (0..4)
            .map(|i| {
                let session = |d: i64| B::Doc(vec![("expires_at", B::Date((1_030 + d) * DAY))]);
                doc(&[
                    ("_id", B::I32(i)),
                    ("last_used", B::Date(1_000 * DAY + i64::from(i) * DAY)),
                    ("sessions", B::Arr(vec![session(0), session(i64::from(i))])),
                ])
            })
            .collect();
        let mut c = coll("app", "users", docs);
        c.indexes = Some(vec![index("_id_", &[("_id", 1)])]);
        let report = scan(vec![c], &crate::settings::Settings::default());
        assert!(
            fired(&report, "expiry-without-ttl").is_empty(),
            "{:?}",
            report.findings
        );
    }

    #[test]
    fn expiry_names() {
        for yes in ["expires_at", "expiry", "expirationDate", "valid_until", "validTo", "a.expiresAt"] {
            assert!(super::named_like_an_expiry(yes), "{yes}");
        }
        for no in ["created_at", "last_used", "validated", "updatedAt"] {
            assert!(!super::named_like_an_expiry(no), "{no}");
        }
    }
}
