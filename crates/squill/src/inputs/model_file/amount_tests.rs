//! Tests of the caller's amount (audit43 B): `increments: {available:
//! -quantity}` with `when: ["available >= quantity"]`, what it parses to,
//! and every misuse refused at its line and column.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const STOCK: &str = r#"
name: stock
entities:
  stock:
    count: 1000
    fields:
      available: int
      reserved: int
      price: decimal
      status: {type: string(8), enum: [open, closed]}
  line:
    count: 1000
    fields: {quantity: int}
relationships:
  lines:
    parent: stock
    child: line
    children: {typical: 3, max: 10}
    child_field: stock
operations:
  take:
    update: stock
    filter: {_id: eq}
    increments: {available: -quantity, reserved: quantity}
    when: ["available >= quantity"]
    rate: 10
"#;

#[test]
fn a_condition_compares_with_the_amount_the_write_takes() {
    let m = parse("m.yaml", STOCK).unwrap();
    let t = &m.workload.operations[0].terms;
    assert_eq!(
        t.increments,
        vec![
            Increment {
                field: "available".into(),
                by: -1.0,
                per: None,
                amount: Some("quantity".into()),
            },
            Increment {
                field: "reserved".into(),
                by: 1.0,
                per: None,
                amount: Some("quantity".into()),
            },
        ]
    );
    assert_eq!(
        t.conditions,
        vec![Condition {
            field: "available".into(),
            plus: None,
            test: Test::Gte,
            value: Literal::Amount("quantity".into()),
        }]
    );
}

/// A condition on a name no increment passes is refused at its line and
/// column (caller46): occ45 took it as the caller's value, so a typo far
/// from every name became a new parameter of the cookbook. The caller's
/// value is written `:quantity`; the help says so.
#[test]
fn a_name_no_increment_passes_is_refused_with_the_colon_spelling() {
    let text = STOCK.replace(
        "increments: {available: -quantity, reserved: quantity}",
        "increments: {available: -1, reserved: 1}",
    );
    let p = problems(&text);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("m.yaml:25:12: condition `available >= quantity`: `quantity` is no field of entity `stock` and no amount the write takes from the caller\n")
            && p[0].contains("unknown name")
            && p[0].contains("help: a value the caller passes for the test alone is written with a colon: `available >= :quantity`"),
        "{}",
        p[0]
    );
    let m = parse(
        "m.yaml",
        &text.replace("available >= quantity", "available >= :quantity"),
    )
    .unwrap();
    assert_eq!(
        m.workload.operations[0].terms.conditions[0].value,
        Literal::Param("quantity".into())
    );
}

#[test]
fn a_misspelt_amount_is_suggested() {
    let p = problems(&STOCK.replace("available >= quantity", "available >= quantiy"));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("m.yaml:25:12: condition `available >= quantiy`")
            && p[0].contains("help: did you mean `quantity`, the amount the write takes? Or a value the caller passes for the test alone is written with a colon: `available >= :quantiy`"),
        "{}",
        p[0]
    );
}

#[test]
fn a_field_cannot_name_the_amount() {
    let p = problems(&STOCK.replace("available: -quantity,", "available: -reserved,"));
    assert!(
        p[0].starts_with("m.yaml:24:29: `reserved` in `-reserved` is a field of entity `stock`, so it cannot also name the amount the caller passes\n")
            && p[0].contains("a field, not an amount"),
        "{}",
        p[0]
    );
}

#[test]
fn a_relationship_cannot_name_the_amount() {
    let p = problems(&STOCK.replace("available: -quantity,", "available: -lines,"));
    assert!(
        p[0].starts_with("m.yaml:24:29: `lines` in `-lines` is a relationship of entity `stock`")
            && p[0].contains("help: write `-lines.FIELD`"),
        "{}",
        p[0]
    );
}

#[test]
fn an_amount_is_not_compared_with_text() {
    let p = problems(&STOCK.replace("available >= quantity", "status = quantity"));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("m.yaml:25:12: condition `status = quantity`: `quantity` is the amount the caller passes, a number, and `status` holds text\n")
            && p[0].contains("a number against another kind"),
        "{}",
        p[0]
    );
}

/// A decimal `$inc` turns an int into a decimal, which the validator
/// refuses: one amount, one kind of number.
#[test]
fn one_amount_is_one_kind_of_number() {
    let p = problems(&STOCK.replace("reserved: quantity}", "price: quantity}"));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("m.yaml:24:47: amount `quantity` is added to a field that holds a whole number and to `price`, which holds a decimal")
            && p[0].contains("two kinds of number"),
        "{}",
        p[0]
    );
}

#[test]
fn an_amount_is_a_name() {
    let p = problems(&STOCK.replace("available: -quantity,", "available: -9x,"));
    assert!(
        p[0].starts_with(
            "m.yaml:24:29: `-9x` is neither a number, a related field, nor the name of an amount"
        ),
        "{}",
        p[0]
    );
}

/// The model writer writes the amount back as the file said it.
#[test]
fn the_amount_is_written_back() {
    let m = parse("m.yaml", STOCK).unwrap();
    let text = super::write::to_yaml(&m);
    assert!(
        text.contains("available: \"-quantity\"") || text.contains("available: -quantity"),
        "{text}"
    );
    assert!(text.contains("available >= quantity"), "{text}");
    let again = parse("m.yaml", &text).unwrap();
    assert_eq!(
        again.workload.operations[0].terms,
        m.workload.operations[0].terms
    );
}
