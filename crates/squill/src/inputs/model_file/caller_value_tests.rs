//! Tests of conditions on the caller's own values (audit45 gap 7): a
//! compare-and-set (`version = :expected`, with `$inc: {version: 1}`), a
//! state the caller names (`status = :wanted`), and a field with the
//! write's amount added (`available + rooms <= total`). Each was refused,
//! at cms-occ.yaml:60:12, with a help text that suggested `version:
//! -expected`.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const PAGES: &str = r#"
name: pages
entities:
  page:
    count: 1000
    fields:
      body: string(100)
      version: int
      saved_at: date
      state: {type: string(9), enum: [draft, published]}
      owner: string(20)
  night:
    count: 1000
    fields:
      total: int
      available: int
      open: bool
operations:
  save:
    update: page
    filter: {_id: eq}
    when: ["version = :expected"]
    changes: [body]
    increments: {version: 1}
    rate: 10
  release:
    update: night
    filter: {_id: eq}
    increments: {available: rooms}
    when: ["available + rooms <= total"]
    rate: 10
"#;

fn conditions(text: &str, op: usize) -> Vec<Condition> {
    let m = parse("m.yaml", text).unwrap();
    m.workload.operations[op].terms.conditions.clone()
}

#[test]
fn a_version_is_compared_with_the_callers_value() {
    assert_eq!(
        conditions(PAGES, 0),
        vec![Condition {
            field: "version".into(),
            plus: None,
            test: Test::Eq,
            value: Literal::Param("expected".into()),
        }]
    );
}

/// A word is a constant where a field holds text; `:name` is the
/// caller's value whatever the field holds.
#[test]
fn a_colon_names_the_callers_value_for_any_field() {
    for (when, field) in [
        ("state = :wanted", "state"),
        ("owner = :wanted", "owner"),
        ("version >= :wanted", "version"),
        ("saved_at < :wanted", "saved_at"),
    ] {
        let c = &conditions(&PAGES.replace("version = :expected", when), 0)[0];
        assert_eq!(c.field, field, "{when}");
        assert_eq!(c.value, Literal::Param("wanted".into()), "{when}");
    }
    // A bare word stays a word where the field holds text.
    let c = &conditions(&PAGES.replace("version = :expected", "owner = wanted"), 0)[0];
    assert_eq!(c.value, Literal::Text("wanted".into()));
}

/// A bare name compared with a number or a date is taken only where the
/// write names it (another field, an amount of its `increments`): any
/// other is an error at its line and column, whose help gives the nearest
/// name and the `:name` spelling. occ45 took `version = expected` (and a
/// typo far from every name) as a new parameter of the cookbook.
#[test]
fn a_bare_name_the_write_does_not_name_is_refused() {
    for (when, message, help) in [
        (
            "version = expected",
            "condition `version = expected`: `expected` is no field of entity `page` and no amount the write takes from the caller",
            "help: a value the caller passes for the test alone is written with a colon: `version = :expected`",
        ),
        (
            "version = xyzzy",
            "condition `version = xyzzy`: `xyzzy` is no field of entity `page`",
            "`version = :xyzzy`",
        ),
        (
            "saved_at < seen",
            "condition `saved_at < seen`: `seen` is no field of entity `page`\n",
            "help: a value the caller passes for the test alone is written with a colon: `saved_at < :seen`",
        ),
    ] {
        let p = problems(&PAGES.replace("version = :expected", when));
        assert_eq!(p.len(), 1, "{when}: {p:?}");
        assert!(
            p[0].starts_with(&format!("m.yaml:22:12: {message}")),
            "{}",
            p[0]
        );
        assert!(
            p[0].contains("unknown name") && p[0].contains(help),
            "{}",
            p[0]
        );
    }
    // A near-miss of another field of the tested one's kind is suggested.
    let p = problems(&PAGES.replace("available + rooms <= total", "available + rooms <= totl"));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("m.yaml:30:12: condition `available + rooms <= totl`: `totl` is no field of entity `night`")
            && p[0].contains("help: did you mean `total`, a field of `night`? Or a value the caller passes for the test alone is written with a colon: `available + rooms <= :totl`"),
        "{}",
        p[0]
    );
}

#[test]
fn a_field_takes_the_writes_amount_before_the_test() {
    assert_eq!(
        conditions(PAGES, 1),
        vec![Condition {
            field: "available".into(),
            plus: Some(Plus {
                amount: "rooms".into(),
                negative: false,
            }),
            test: Test::Lte,
            value: Literal::Field("total".into()),
        }]
    );
    let c = &conditions(
        &PAGES.replace("available + rooms <= total", "available - rooms >= 0"),
        1,
    )[0];
    assert_eq!(
        (c.plus.as_ref().map(|p| p.negative), &c.value),
        (Some(true), &Literal::Number(0.0))
    );
}

#[test]
fn an_added_name_must_be_the_writes_amount() {
    let p = problems(&PAGES.replace("available + rooms <= total", "available + room <= total"));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].starts_with("m.yaml:30:12: condition `available + room <= total` adds `room` to `available`, and `room` is no amount the write takes from the caller\n")
            && p[0].contains("amount never passed")
            && p[0].contains("help: did you mean `rooms`?"),
        "{}",
        p[0]
    );
    let p = problems(&PAGES.replace("available + rooms <= total", "open + rooms <= total"));
    assert!(
        p[0].starts_with("m.yaml:30:12: condition `open + rooms <= total` adds `rooms` to `open`, which holds true or false: only a number takes an amount\n"),
        "{}",
        p[0]
    );
    let p = problems(&PAGES.replace("version = :expected", "version = :9x"));
    assert!(
        p[0].starts_with(
            "m.yaml:22:12: condition `version = :9x`: `:9x` is not a name for a value the caller passes\n"
        ),
        "{}",
        p[0]
    );
}

/// The model writer writes both back as the file said them, and they
/// read again the same.
#[test]
fn the_callers_values_are_written_back() {
    let text = PAGES.replace("version = :expected", "state = :wanted");
    let m = parse("m.yaml", &text).unwrap();
    let out = super::write::to_yaml(&m);
    assert!(out.contains("state = :wanted"), "{out}");
    assert!(out.contains("available + rooms <= total"), "{out}");
    let again = parse("m.yaml", &out).unwrap();
    for i in 0..2 {
        assert_eq!(
            again.workload.operations[i].terms,
            m.workload.operations[i].terms
        );
    }
}

/// A date or an id compared with a constant (`saved_at > 0`): the model
/// has no constant of those kinds, and the number or text the value
/// became never matches a date or an id in MongoDB, so every call took
/// `otherwise` (audit48 B2: `at > 0` was planned as `at > "0"`).
#[test]
fn a_date_or_an_id_compared_with_a_constant_is_refused() {
    let text = PAGES.replace("owner: string(20)", "owner: objectId");
    for (when, holds) in [
        ("saved_at > 0", "a date"),
        ("saved_at >= 2024-01-01", "a date"),
        ("owner = 'abc'", "an id"),
    ] {
        let p = problems(&text.replace("version = :expected", when));
        assert_eq!(p.len(), 1, "{when}: {p:?}");
        assert!(
            p[0].starts_with("m.yaml:22:12: condition `")
                && p[0].contains(&format!("holds {holds}, and"))
                && p[0].contains("is no constant of that kind")
                && p[0].contains("no constant of the field's kind"),
            "{}",
            p[0]
        );
    }
    // Another field of its kind, and the caller's value, still hold.
    let c = &conditions(&text.replace("version = :expected", "saved_at > :since"), 0)[0];
    assert_eq!(c.value, Literal::Param("since".into()));
}
