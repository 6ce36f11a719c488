//! Atomic groups (`atomic:`): when the writes the model asks to be atomic
//! together need a transaction (or the undo the model asks for), and when
//! they are one write of one document that needs none (issue 41).

use super::{design_of as design, plan_of as plan};
use crate::design::Warning;

/// Accounts, with the operations each test adds.
const BANK: &str = "
name: bank
entities:
  account:
    count: 1000000
    fields:
      owner: string(24)
      balance: decimal
operations:
  balance:
    read: account
    filter: {_id: eq}
    rate: 500
  debit:
    update: account
    filter: {_id: eq}
    increments: {balance: -1}
    when: [\"balance >= 0\"]
    rate: 100
  credit:
    update: account
    filter: {_id: eq}
    increments: {balance: 1}
    rate: 100
";

/// A transfer: two `updateOne account {_id}`, one kind of document and two
/// documents. Both run in the group's transaction, with its warning. The
/// group counted kinds of documents, found one, and took the money out of
/// one account with nothing to make it arrive in the other.
#[test]
fn a_transfer_between_two_documents_of_one_kind_is_a_transaction() {
    let d = design(&format!("{BANK}atomic:\n  transfer: [debit, credit]\n"));
    for name in ["debit", "credit"] {
        let p = plan(&d, name);
        assert!(p.transaction, "{name}: {p:#?}");
        assert!(p.cost.transactions > 0.0, "{name}: {:?}", p.cost);
        let w = p
            .warnings
            .iter()
            .find(|w| matches!(w, Warning::Transaction { .. }))
            .unwrap_or_else(|| panic!("{name}: no transaction warning {:?}", p.warnings));
        assert_eq!(
            w.text(),
            "atomic group `transfer` makes separate writes to one kind of document: it runs in a multi-document transaction"
        );
    }
    // The read beside them is not in the group.
    assert!(!plan(&d, "balance").transaction);
}

/// A group of one write of one document is atomic as it is: no
/// transaction, no warning.
#[test]
fn a_group_of_one_write_of_one_document_needs_no_transaction() {
    let d = design(&format!("{BANK}atomic:\n  alone: [credit]\n"));
    let p = plan(&d, "credit");
    assert!(!p.transaction, "{p:#?}");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.cost.transactions, 0.0);
}

/// A show with its seats: a seat sold only if held, the show's count of
/// free seats taken down only if above zero. `{seats}` is the layout of
/// the relationship, pinned by each test (issue 41).
fn tickets(seats: &str, group: &str) -> String {
    format!(
        "
name: tickets
entities:
  show:
    count: 2000000
    fields:
      title: string(60)
      seats_left: int
  seat:
    count: 4000000000
    fields:
      label: string(6)
      state: {{type: string(8), enum: [free, held, sold]}}
relationships:
  seats:
    parent: show
    child: seat
    children: {{min: 50, typical: 2000, max: 2000}}
    child_field: show
    layout: {seats}
operations:
  seat_map:
    read: show
    rate: 3000
    filter: {{_id: eq}}
    include:
      seats: {{fields: [label, state]}}
  buy:
    update: seat
    filter: {{show: eq, label: eq}}
    when: [\"state = held\"]
    changes: [state]
    rate: 300
  count_down:
    update: show
    filter: {{_id: eq}}
    increments: {{seats_left: -1}}
    when: [\"seats_left > 0\"]
    rate: 300
atomic:
  purchase: {group}
"
    )
}

/// Seats embedded in their show, and the model saying the group's writes
/// name one show: one `updateOne` of the show, its filter the show's `_id`
/// and the seat's key, its conditions both writes', `$set` of the seat's
/// state beside `$inc` of the count. One round trip, one document
/// written, no transaction. The list form of the same group keeps its
/// transaction: nothing says the two writes are of one show.
#[test]
fn a_group_that_writes_one_embedding_document_is_one_update() {
    use crate::design::{Action, UpdateOp};
    let same = "{writes: [buy, count_down], same: show}";
    let d = design(&tickets("embed", same));
    let buy = plan(&d, "buy");
    assert!(!buy.transaction, "{buy:#?}");
    let [step] = buy.steps.as_slice() else {
        panic!("one step: {:#?}", buy.steps)
    };
    assert_eq!(step.action, Action::UpdateOne);
    assert_eq!(step.collection, "show");
    let paths: Vec<&str> = step.filter.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["_id", "seats.label"], "{step:#?}");
    let tested: Vec<&str> = step.conditions.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(tested, ["seats.state", "seats_left"]);
    assert!(step.updates.contains(&UpdateOp::Set {
        path: "seats.$.state".into()
    }));
    assert!(
        step.updates.iter().any(
            |u| matches!(u, UpdateOp::Inc { path, .. } | UpdateOp::Dec { path } if path == "seats_left")
        ),
        "{:?}",
        step.updates
    );
    assert_eq!(buy.cost.round_trips, 1.0);
    assert_eq!(buy.cost.documents_written, 1.0);
    assert_eq!(buy.cost.transactions, 0.0);
    let down = plan(&d, "count_down");
    assert!(down.steps.is_empty() && !down.transaction, "{down:#?}");
    assert_eq!(down.cost.round_trips, 0.0);
    assert!(down.warnings.iter().any(|w| matches!(
        w,
        Warning::MergedWrite { into, carries: false, .. } if into == "buy"
    )));
    assert_eq!(d.totals.transactions, 0.0);

    let list = design(&tickets("embed", "[buy, count_down]"));
    assert!(plan(&list, "buy").transaction);
    assert!(list.totals.transactions > 0.0);
    assert!(
        d.totals.score < list.totals.score,
        "{} vs {}",
        d.totals.score,
        list.totals.score
    );
}

/// Seats in a collection of their own: the two writes land in two
/// documents, whatever the model says, so the group keeps its transaction
/// and the plan says why.
#[test]
fn a_group_whose_writes_the_layout_splits_keeps_its_transaction() {
    let d = design(&tickets(
        "parent-reference",
        "{writes: [buy, count_down], same: show}",
    ));
    for name in ["buy", "count_down"] {
        let p = plan(&d, name);
        assert!(p.transaction, "{name}: {p:#?}");
        assert!(
            p.warnings.iter().any(|w| matches!(
                w,
                Warning::NotMerged {
                    reason: crate::design::MergeBlock::Split,
                    ..
                }
            )),
            "{name}: {:?}",
            p.warnings
        );
    }
}

/// A transfer said to be of one account: both writes `$inc` the balance,
/// which one update cannot hold twice. The group keeps its transaction
/// and names the paths.
#[test]
fn writes_that_change_one_path_are_not_merged() {
    let d = design(&format!(
        "{BANK}atomic:\n  transfer: {{writes: [debit, credit], same: account}}\n"
    ));
    let p = plan(&d, "debit");
    assert!(p.transaction, "{p:#?}");
    let reason = p
        .warnings
        .iter()
        .find_map(|w| match w {
            Warning::NotMerged { reason, .. } => Some(reason),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:?}", p.warnings));
    assert_eq!(
        *reason,
        crate::design::MergeBlock::Conflict {
            first: "balance".into(),
            second: "balance".into()
        }
    );
}
