//! Figures in the text report's sentences (issue 41, the audit's G7): the
//! number as shown decides singular or plural, and the indexes a TTL
//! delete takes an entry from count the `_id_` index every collection has,
//! listed or not. Each test fails on the code before its fix.

use crate::advise::advise;
use crate::settings::Settings;

/// Sessions that expire 8 hours after they were last seen; one login a
/// second, so one document written a second. `EXTRA` adds operations.
const SESSIONS: &str = r"
name: sessions
entities:
  session:
    count: 100000
    fields: {seen_at: date, user: string(20)}
    expires: {from: seen_at, after: 8 hours}
operations:
  login: {insert: session, rate: 1}
  by_user: {read: session, filter: {user: eq}, rate: 50}
EXTRA";

fn text(extra: &str) -> String {
    let model =
        crate::inputs::model_file::parse("sessions.yaml", &SESSIONS.replace("EXTRA", extra))
            .unwrap_or_else(|e| panic!("{e}"));
    let d = advise(&model, &Settings::default(), None).unwrap_or_else(|e| panic!("{e}"));
    crate::outputs::design::text::render(&d, false)
}

/// "1 document written", not "1 documents written", in the totals line:
/// half a login a second, and the TTL monitor's delete of each session
/// later (ttl45: priced with the insert), is one document written a second.
#[test]
fn a_total_of_one_reads_in_the_singular() {
    let model = crate::inputs::model_file::parse(
        "sessions.yaml",
        &SESSIONS
            .replace("EXTRA", "")
            .replace("{insert: session, rate: 1}", "{insert: session, rate: 0.5}"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let d = advise(&model, &Settings::default(), None).unwrap_or_else(|e| panic!("{e}"));
    let t = crate::outputs::design::text::render(&d, false);
    let line = t
        .lines()
        .find(|l| l.starts_with("Workload, per second:"))
        .expect("the totals line");
    assert!(line.contains(" · 1 document written · "), "{line}");
    assert!(line.contains(" · 0 transactions"), "{line}");
}

/// The TTL index, `user_1` and `_id_`: 3 indexes, whether a plan uses
/// `_id_` (and the list shows it) or not.
#[test]
fn a_ttl_delete_counts_the_id_index() {
    for extra in ["", "  by_id: {read: session, filter: {_id: eq}, rate: 5}\n"] {
        let t = text(extra);
        assert!(
            t.contains("each a document and an entry of each of its 3 indexes"),
            "{t}"
        );
        assert_eq!(t.contains("_id_ "), !extra.is_empty(), "{t}");
    }
}
