//! What an archive split says of the collections it divides (audit48 B5,
//! C2): figures compared with what the model states are compared over
//! the whole history, and a count of one side names it as that side.

use super::design_of as design;
use crate::design::EntityDecision;

/// Two billion rides, a day of them live (400/s): riders read the day's
/// rides, and page their whole history by skip down to page `DEPTH` of
/// 20; a rider has at most 20,000 rides.
const RIDES: &str = r"
name: rides
entities:
  rider: {count: 1000000, fields: {name: string(20)}}
  ride:
    count: 2000000000
    fields:
      fare: double
      requested_at: date
relationships:
  rider_rides: {parent: rider, child: ride, children: {min: 0, typical: 200, max: 20000}, child_field: rider, layout: parent-reference}
operations:
  request_ride: {insert: ride, links: [rider_rides], rate: 400}
  rides_today:
    read: ride
    filter: {rider: eq, requested_at: since(1 day)}
    sort: -requested_at
    limit: 20
    rate: 300
  history:
    read: ride
    filter: {rider: eq}
    sort: -requested_at
    limit: 20
    rate: 30
    paging: {by: skip, past_first: 0.1, depth: {typical: 3, max: DEPTH}}
";

fn rides(depth: u32) -> crate::design::Design {
    design(&RIDES.replace("DEPTH", &depth.to_string()))
}

/// Pages down to item 4,000 of a rider with at most 20,000 rides agree
/// with the model, though the live collection holds only a day of them
/// (346 for the largest rider): no `skip-paging` disagreement (the live
/// share was compared, audit48 B5).
#[test]
fn the_deepest_page_is_compared_with_the_stated_max() {
    let d = rides(200);
    assert!(
        d.collections.iter().any(|c| c.name == "ride_archive"),
        "the split is the premise"
    );
    let past = |d: &crate::design::Design| -> Vec<f64> {
        d.findings
            .iter()
            .filter(|f| f.rule == "skip-paging")
            .filter_map(|f| f.evidence.iter().find(|e| e.name == "matched_at_largest"))
            .filter_map(|e| e.value.as_f64())
            .collect()
    };
    assert_eq!(past(&d), Vec::<f64>::new());
    // A read on both sides of the split pages by keyset in each, one
    // cursor valid in both (archive49, audit49 A4): no page is skipped to,
    // so no depth is compared at all, however deep.
    assert_eq!(past(&rides(2_000)), Vec::<f64>::new());
}

/// The archive decision's working set without the split is the whole
/// collection's, not the live share's; the history reads every age, so
/// the reason does not say the reads keep to the last day, and says a
/// day as a day; the archived rides are counted as such.
#[test]
fn the_split_names_each_side_as_what_it_holds() {
    let d = rides(200);
    let Some(EntityDecision::Archive {
        working_set,
        without_archive,
        rules,
        ..
    }) = d
        .entities
        .iter()
        .find(|e| matches!(e, EntityDecision::Archive { .. }))
    else {
        panic!("no archive")
    };
    assert_eq!(without_archive.documents, 2_000_000_000);
    assert!(working_set.documents < without_archive.documents / 10);
    let words = rules[0].reason.words();
    assert!(!words.contains("keep to"), "{words}");
    assert!(words.contains("older than the last day"), "{words}");
    let archived = d
        .relationships
        .iter()
        .find(|r| r.relationship == "rider_rides_archive")
        .expect("the archive's relationship");
    let said: Vec<String> = archived.rules.iter().map(|h| h.reason.words()).collect();
    assert!(
        said.iter().any(|w| w.contains("archived rides")),
        "{said:?}"
    );
    assert!(
        !said.iter().any(|w| w.contains("ride_archives")),
        "{said:?}"
    );
}
