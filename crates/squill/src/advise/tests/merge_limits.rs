//! Atomic groups with `same:` whose writes one update cannot hold safely
//! keep their transaction, and a merged group is priced in every mix
//! (review41 D2, D5, D6, D10; the models after /tmp/r41 of that review).

use crate::advise::advise;
use crate::design::{Design, MergeBlock, OperationPlan, Warning};
use crate::settings::Settings;

fn design(yaml: &str, mix: Option<&str>) -> Design {
    let m = crate::inputs::model_file::parse("merge.yaml", yaml).expect("the model parses");
    advise(&m, &Settings::default(), mix).expect("advise")
}

fn plan<'d>(d: &'d Design, name: &str) -> &'d OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

fn reason(p: &OperationPlan) -> Option<&MergeBlock> {
    p.warnings.iter().find_map(|w| match w {
        Warning::NotMerged { reason, .. } => Some(reason),
        _ => None,
    })
}

/// Shows with their seats embedded; `extra` adds entities, relationships
/// (under the keys given) and operations.
fn shows(mixes: &str, entities: &str, rels: &str, ops: &str, group: &str) -> String {
    format!(
        "name: shows
{mixes}
entities:
  show:
    count: 1000
    fields:
      title: string(40)
      seats_left: int
  seat:
    count: 100000
    fields:
      label: string(6)
      state: {{type: string(8), enum: [free, held, sold]}}
{entities}
relationships:
  seats:
    parent: show
    child: seat
    children: {{min: 10, typical: 100, max: 100}}
    child_field: show
    layout: embed
{rels}
operations:
  seat_map:
    read: show
    rate: 100
    filter: {{_id: eq}}
    include:
      seats: {{fields: [label, state]}}
{ops}
atomic:
  {group}
"
    )
}

const BUY: &str = "  buy:
    update: seat
    filter: {show: eq, label: eq}
    when: [\"state = held\"]
    changes: [state]
    rate: 10
";

/// A seat sold and a pass of the same show used: two element writes, of
/// two arrays. One update has one positional `$`, so the seat at the
/// pass's index would be sold: the group keeps its transaction.
#[test]
fn element_writes_into_two_arrays_are_not_one_update() {
    let d = design(
        &shows(
            "",
            "  pass:\n    count: 10000\n    fields:\n      code: string(6)\n      used: int\n",
            "  passes:\n    parent: show\n    child: pass\n    children: {min: 1, typical: 10, max: 20}\n    child_field: show\n    layout: embed\n",
            &format!(
                "{BUY}  use_pass:\n    update: pass\n    filter: {{show: eq, code: eq}}\n    increments: {{used: 1}}\n    rate: 10\n"
            ),
            "purchase: {writes: [buy, use_pass], same: show}",
        ),
        None,
    );
    for name in ["buy", "use_pass"] {
        let p = plan(&d, name);
        assert!(p.transaction, "{name}: {p:#?}");
        assert!(
            matches!(reason(p), Some(MergeBlock::Arrays { .. })),
            "{name}: {:?}",
            p.warnings
        );
    }
}

/// The count-down skips when no seat is left; in the one filter its
/// condition would stop the sale too, and nothing would say so.
#[test]
fn a_write_that_skips_is_not_merged() {
    let d = design(
        &shows(
            "",
            "",
            "",
            // The sale has no condition of its own: only the count-down's
            // could stop the one update.
            &format!(
                "{}  count_down:\n    update: show\n    filter: {{_id: eq}}\n    increments: {{seats_left: -1}}\n    when: [\"seats_left > 0\"]\n    otherwise: skip\n    rate: 10\n",
                BUY.replace("    when: [\"state = held\"]\n", "")
            ),
            "purchase: {writes: [buy, count_down], same: show}",
        ),
        None,
    );
    let p = plan(&d, "buy");
    assert!(p.transaction, "{p:#?}");
    assert_eq!(
        reason(p),
        Some(&MergeBlock::Skips {
            operation: "count_down".into()
        })
    );
}

/// A batch of five seats added with the count raised: merged, it pushed
/// one seat; the batch is not one plain update.
#[test]
fn a_batch_insert_is_not_merged() {
    let d = design(
        &shows(
            "",
            "",
            "",
            "  add_seats: {insert: seat, links: [seats], rate: 1, count: 5}\n  grow: {update: show, filter: {_id: eq}, increments: {seats_left: 5}, rate: 1}\n",
            "grow_group: {writes: [grow, add_seats], same: show}",
        ),
        None,
    );
    let p = plan(&d, "add_seats");
    assert!(
        !p.warnings
            .iter()
            .any(|w| matches!(w, Warning::MergedWrite { .. })),
        "{p:#?}"
    );
    assert!(
        matches!(reason(p), Some(MergeBlock::NotOneUpdate { operation }) if operation == "add_seats"),
        "{:?}",
        p.warnings
    );
}

/// In mix b only the count-down runs: the merged update is priced there,
/// at its rate, not lost with the sale's rate of 0.
#[test]
fn a_merged_group_is_priced_at_the_rate_of_the_mix() {
    let yaml = shows(
        "mixes: [a, b]",
        "",
        "",
        "  buy:\n    update: seat\n    filter: {show: eq, label: eq}\n    when: [\"state = held\"]\n    changes: [state]\n    rates: {a: 10}\n  count_down:\n    update: show\n    filter: {_id: eq}\n    increments: {seats_left: -1}\n    when: [\"seats_left > 0\"]\n    rates: {a: 10, b: 20}\n",
        "purchase: {writes: [buy, count_down], same: show}",
    );
    // Equal rates in a: the first member carries, as before.
    for (mix, carrier, other) in [("a", "buy", "count_down"), ("b", "count_down", "buy")] {
        let d = design(&yaml, Some(mix));
        let c = plan(&d, carrier);
        assert_eq!(c.steps.len(), 1, "{mix}: {c:#?}");
        assert!(
            c.warnings.iter().any(
                |w| matches!(w, Warning::MergedWrite { carries: true, into, .. } if into == carrier)
            ),
            "{mix}: {:?}",
            c.warnings
        );
        assert!(plan(&d, other).steps.is_empty(), "{mix}");
        // One document written per update, at the count-down's rate.
        let rate = if mix == "a" { 10.0 } else { 20.0 };
        assert_eq!(d.totals.documents_written, rate, "{mix}: {:?}", d.totals);
    }
}
