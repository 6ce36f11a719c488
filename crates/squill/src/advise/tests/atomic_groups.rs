//! Atomic groups (`atomic:`): when the writes the model asks to be atomic
//! together need a transaction (or the undo the model asks for), and when
//! they are one write of one document that needs none (issue 41).

use crate::advise::advise;
use crate::design::{Design, OperationPlan, Warning};
use crate::settings::Settings;

fn design(yaml: &str) -> Design {
    let m = crate::inputs::model_file::parse("atomic.yaml", yaml).expect("the model parses");
    advise(&m, &Settings::default(), None).expect("advise")
}

fn plan<'d>(d: &'d Design, name: &str) -> &'d OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

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
