//! Tests of a changed field set to the caller's value (`changes:
//! ["current_price = :offer"]`, audit48 A5): it reads into the terms, is
//! written back as it was read, and each misuse is an error at its
//! line:column.

use super::*;

/// An auction whose price a bid raises only above the current one.
const AUCTION: &str = r#"
name: auctions
entities:
  auction:
    count: 1000
    fields:
      status: {type: string(8), enum: [open, closed]}
      current_price: decimal
      leader: {type: objectId, required: false}
      bid_count: int
operations:
  raise_price:
    update: auction
    filter: {_id: eq}
    when: ["current_price < :offer", "status = open"]
    changes: ["current_price = :offer", leader]
    increments: {bid_count: 1}
    otherwise: fail
    rate: 3000
"#;

/// Each problem of `text` as (line, column, message).
fn errors(text: &str) -> Vec<(usize, usize, String)> {
    match parse("m.yaml", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e
            .problems()
            .iter()
            .map(|p| {
                let at = p.position.expect("a place");
                (at.line, at.column, p.message.clone())
            })
            .collect(),
    }
}

/// The one error of `text`, at `line`:`column`, saying `says`.
fn one_error(text: &str, line: usize, column: usize, says: &str) {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (line, column), "{e:?}");
    assert!(e[0].2.contains(says), "{e:?}");
}

#[test]
fn a_field_set_to_the_tested_value_reads_and_writes_back() {
    let m = parse("m.yaml", AUCTION).unwrap_or_else(|e| panic!("{e}"));
    let op = &m.workload.operations[0];
    match &op.kind {
        crate::model::OperationKind::Update { changes, .. } => {
            assert_eq!(changes, &["current_price", "leader"]);
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(op.terms.value_of("current_price"), Some("offer"));
    assert_eq!(op.terms.value_of("leader"), None);
    let back = write::to_yaml(&m);
    assert!(
        back.contains(r#""current_price = :offer""#),
        "written back:\n{back}"
    );
    let again = parse("again.yaml", &back).unwrap_or_else(|e| panic!("{e}\n{back}"));
    assert_eq!(again.workload.operations[0].terms, op.terms);
}

#[test]
fn an_unknown_field_is_an_error_at_its_entry() {
    one_error(
        &AUCTION.replace("\"current_price = :offer\"", "\"current_pric = :offer\""),
        16,
        15,
        "field `current_pric` changed is not a field of entity `auction`",
    );
}

#[test]
fn a_value_without_its_colon_is_an_error() {
    one_error(
        &AUCTION.replace("current_price = :offer\"", "current_price = offer\""),
        16,
        15,
        "written with a colon and a name",
    );
}

/// `:ofer` is close to `:offer`, which the conditions test: a typo, not a
/// second value. A name no other is close to is a value of its own.
#[test]
fn a_name_close_to_the_tested_one_is_an_error() {
    one_error(
        &AUCTION.replace("current_price = :offer\"", "current_price = :ofer\""),
        16,
        15,
        "`:ofer` is no value the write's conditions test",
    );
    parse(
        "m.yaml",
        &AUCTION.replace("current_price = :offer\"", "current_price = :price\""),
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// `:offer` is a number (the conditions compare it with the price): an
/// id cannot take it.
#[test]
fn a_value_of_another_kind_is_an_error() {
    one_error(
        &AUCTION.replace(", leader]", ", \"leader = :offer\"]"),
        16,
        41,
        "`:offer` is compared with `current_price` in `when:`, which holds a number, and `leader` holds an id",
    );
}

#[test]
fn a_field_both_set_and_added_to_is_an_error() {
    one_error(
        &AUCTION.replace(", leader]", ", \"bid_count = :n\"]"),
        16,
        41,
        "which `increments` adds to",
    );
}
