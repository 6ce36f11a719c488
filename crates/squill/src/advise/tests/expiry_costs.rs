//! ttl45 H: the TTL monitor's deletes and the TTL index are work the
//! design pays for (costs/plan/expiry.rs). A model scores more with
//! `expires` than without; a bucket expires one delete per bucket.

use super::{design_of, plan_of};
use crate::design::{Layout, Warning};

/// One expiring entity of its own documents, read by `_id` only: its TTL
/// index serves no read, so without `expires` it has no index at all.
const SESSIONS: &str = "\
entities:
  session:
    count: 1000000
    fields: {at: date, v: string(100)}
    expires: {from: at, after: 1000 seconds}
operations:
  open: {insert: session, rate: 1000}
  get: {read: session, filter: {_id: eq}, rate: 10}
";

/// With `expires`, each insert carries its document's later delete (1
/// document written and examined, 1 key of the TTL index), the TTL
/// index's million entries are in the totals, and the score is higher.
/// Without it the figures are as before.
#[test]
fn expiry_is_priced_in_the_totals_and_the_score() {
    let with = design_of(SESSIONS);
    let without =
        design_of(&SESSIONS.replace("    expires: {from: at, after: 1000 seconds}\n", ""));
    let (w, o) = (plan_of(&with, "open"), plan_of(&without, "open"));
    assert_eq!(w.cost.documents_written - o.cost.documents_written, 1.0);
    assert_eq!(w.cost.index_keys_examined - o.cost.index_keys_examined, 1.0);
    assert_eq!(
        with.totals.documents_written - without.totals.documents_written,
        1000.0
    );
    assert_eq!(
        with.totals.index_entries - without.totals.index_entries,
        1_000_000.0
    );
    assert!(with.totals.score > without.totals.score);
    assert!(w.warnings.iter().any(|x| matches!(
        x,
        Warning::Expires { per_second, buckets: false, .. } if *per_second == 1000.0
    )));
    assert!(o.warnings.is_empty());
}

/// Events in buckets of their project (the fixture pins the layout):
/// the monitor deletes a bucket when its newest event expires, so an
/// insert carries 1/per_bucket of a delete, not one.
#[test]
fn a_bucket_expires_one_delete_per_bucket() {
    let text = include_str!("../../../tests/fixtures/bucket-child-reads.yaml");
    let with = design_of(text);
    let without = design_of(&text.replace("    expires: {from: ts, after: 30 days}\n", ""));
    let per_bucket = with
        .relationships
        .iter()
        .find_map(|r| match &r.chosen {
            Layout::Bucket { per_bucket, .. } => Some(*per_bucket as f64),
            _ => None,
        })
        .expect("the events are in buckets");
    let (w, o) = (plan_of(&with, "ingest"), plan_of(&without, "ingest"));
    let more = w.cost.documents_written - o.cost.documents_written;
    assert!(
        (more - 1.0 / per_bucket).abs() < 1e-12,
        "{more} vs 1/{per_bucket}"
    );
    assert!(w.warnings.iter().any(|x| matches!(
        x,
        Warning::Expires { per_second, buckets: true, .. } if *per_second == 100.0 / per_bucket
    )));
}

/// Audit48 A3: the TTL monitor deletes expiring children without touching
/// their parent, so a sum of their amounts kept in it only ever grew. A
/// figure over an expiring entity is never kept: the read computes it
/// from the live children. The same model without `expires` keeps it
/// (fixture `hold-sum`), so the test can tell.
#[test]
fn no_figure_is_kept_over_children_that_expire() {
    use crate::design::EntityDecision;
    let text = crate::fixtures::FILES
        .iter()
        .find(|(n, _)| *n == "hold-sum")
        .expect("hold-sum")
        .1;
    let kept = |d: &crate::design::Design| {
        d.entities
            .iter()
            .filter(|e| matches!(e, EntityDecision::ComputedField { .. }))
            .count()
    };
    assert_eq!(kept(&design_of(text)), 1);
    let expiring = text.replace(
        "      created_at: date\n",
        "      created_at: date\n    expires: {from: created_at, after: 7 days}\n",
    );
    assert_ne!(expiring, text);
    let d = design_of(&expiring);
    assert_eq!(kept(&d), 0, "{:?}", d.entities);
    // The read sums the live holds itself.
    let page = plan_of(&d, "account_page");
    assert!(page.steps.len() >= 2, "{page:?}");
}

/// Review48 A1, A2: a figure is not kept over children an upsert adds
/// (its plan has no step for the parent's figure), nor a filtered figure
/// over a field a write increments (the share it moves by is the write's
/// own): the read computes each. Without those writes, both are kept.
#[test]
fn no_figure_is_kept_where_the_writes_cannot_move_it() {
    use crate::design::EntityDecision;
    let base = r"
name: game
entities:
  player: {count: 1000, fields: {gold: long}}
  stack:
    count: 30000
    fields:
      kind: {type: string(20), distinct: 500}
      qty: int
    unique: [[player, kind]]
relationships:
  inventory: {parent: player, child: stack, children: {typical: 30, max: 2000}, child_field: player, layout: parent-reference}
operations:
  page: {read: player, filter: {_id: eq}, aggregates: [AGG], rate: 3000}
  add: {insert: stack, links: [inventory], rate: 10}
  grant: {update: stack, filter: {_id: eq}, increments: {qty: amount}, OTHERWISE rate: 30}
";
    let kept = |agg: &str, otherwise: &str| {
        let d = design_of(&base.replace("AGG", agg).replace("OTHERWISE", otherwise));
        d.entities
            .iter()
            .filter(|e| matches!(e, EntityDecision::ComputedField { .. }))
            .count()
    };
    // An increment of the summed field under a test: not kept.
    assert_eq!(kept("sum(inventory.qty where kind = gem)", ""), 0);
    // The same test over a count, which the increment does not move: kept.
    assert_eq!(kept("count(inventory where kind = gem)", ""), 1);
    // An upsert adds children: no figure over them is kept.
    let upsert = base.replace(
        "filter: {_id: eq}, increments",
        "filter: {player: eq, kind: eq}, increments",
    );
    let d = design_of(
        &upsert
            .replace("AGG", "count(inventory)")
            .replace("OTHERWISE", "otherwise: insert,"),
    );
    assert!(
        !d.entities
            .iter()
            .any(|e| matches!(e, EntityDecision::ComputedField { .. })),
        "{:?}",
        d.entities
    );
    assert_eq!(kept("count(inventory)", ""), 1);
}
