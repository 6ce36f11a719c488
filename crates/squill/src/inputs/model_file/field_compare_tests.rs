//! Tests of a condition that compares two fields of the written document
//! (audit44 M): `increments: {used: 1}` with `when: ["used < quota"]`,
//! each key with a quota of its own. It once said "`quota` is not a
//! number" of an `int` field.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const QUOTA: &str = r#"
name: quota
entities:
  api_key:
    count: 1000
    fields:
      used: int
      quota: long
      credits: double
      owner: string(20)
      note: string(20)
      window_start: date
      state: {type: string(8), enum: [open, quota]}
operations:
  count_call:
    update: api_key
    filter: {_id: eq}
    increments: {used: 1}
    when: ["used < quota"]
    rate: 10
"#;

#[test]
fn a_condition_compares_two_fields_of_one_kind() {
    let m = parse("m.yaml", QUOTA).unwrap();
    let t = &m.workload.operations[0].terms;
    assert_eq!(
        t.conditions,
        vec![Condition {
            field: "used".into(),
            plus: None,
            test: Test::Lt,
            value: Literal::Field("quota".into()),
        }]
    );
    // An int with a double, and two texts, are of one kind too.
    for when in ["used <= credits", "owner != note"] {
        let m = parse("m.yaml", &QUOTA.replace("used < quota", when)).unwrap();
        let c = &m.workload.operations[0].terms.conditions[0];
        assert!(matches!(c.value, Literal::Field(_)), "{when}: {c:?}");
    }
}

/// A word that is one of the tested field's values, or quoted, is a
/// value, even where a field has that name.
#[test]
fn a_value_of_the_field_or_a_quoted_word_is_not_a_field() {
    for (when, want) in [("state = quota", "quota"), ("owner = \\\"note\\\"", "note")] {
        let m = parse("m.yaml", &QUOTA.replace("used < quota", when)).unwrap();
        let c = &m.workload.operations[0].terms.conditions[0];
        assert_eq!(c.value, Literal::Text(want.into()), "{when}");
    }
}

#[test]
fn two_fields_of_different_kinds_are_refused_at_the_condition() {
    for (when, said) in [
        (
            "used < window_start",
            "m.yaml:19:12: condition `used < window_start` compares `used`, which holds a number, with field `window_start`, which holds a date: two fields compared must hold the same kind of value\n",
        ),
        (
            "owner = used",
            "m.yaml:19:12: condition `owner = used` compares `owner`, which holds text, with field `used`, which holds a number",
        ),
    ] {
        let p = problems(&QUOTA.replace("used < quota", when));
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with(said) && p[0].contains("two kinds of value"),
            "{}",
            p[0]
        );
    }
}

#[test]
fn a_field_compared_with_itself_is_refused() {
    let p = problems(&QUOTA.replace("used < quota", "used < used"));
    assert!(
        p[0].starts_with("m.yaml:19:12: condition `used < used` compares `used` of entity `api_key` with itself\n"),
        "{}",
        p[0]
    );
}
