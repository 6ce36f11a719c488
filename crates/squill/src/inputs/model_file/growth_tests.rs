//! Tests of the words for growth with a spread per parent: a
//! cardinality's `growth`, what it parses to, what it refuses and how the
//! error says so.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const DEVICES: &str = r"
name: devices
entities:
  device:
    count: 1000000
    fields: {serial: string(16)}
  event:
    count: 51840000000
    fields: {ts: date, value: double}
relationships:
  events:
    parent: device
    child: event
    children: {min: 0, typical: 1500, max: unbounded, growth: {typical: 50, p99: 5000, max: 200000, per: day}}
    child_field: device
operations:
  record:
    insert: event
    links: [events]
    rate: 20000
";

fn growth(text: &str) -> Option<Growth> {
    let m = parse("devices.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    m.relationships[0].children.growth
}

#[test]
fn growth_parses_with_its_spread() {
    assert_eq!(
        growth(DEVICES),
        Some(Growth {
            typical: 50.0,
            p95: None,
            p99: Some(5000.0),
            max: Some(200_000.0),
            per: Period::Day,
        })
    );
}

/// Figures per hour are kept per day; the period is kept to say them back.
#[test]
fn growth_per_another_period_is_kept_per_day() {
    let g = growth(&DEVICES.replace(
        "growth: {typical: 50, p99: 5000, max: 200000, per: day}",
        "growth: {typical: 2, p95: 24, max: 8000, per: hour}",
    ))
    .unwrap_or_else(|| panic!("a growth"));
    assert_eq!(
        (g.typical, g.p95, g.p99, g.max, g.per),
        (48.0, Some(576.0), None, Some(192_000.0), Period::Hour)
    );
}

/// `per` defaults to a day; `growth_per_day` is a growth without spread.
#[test]
fn growth_per_day_is_a_growth_of_one_figure() {
    let per_day = growth(&DEVICES.replace(
        "growth: {typical: 50, p99: 5000, max: 200000, per: day}",
        "growth_per_day: 50",
    ));
    let no_per = growth(&DEVICES.replace(
        "growth: {typical: 50, p99: 5000, max: 200000, per: day}",
        "growth: {typical: 50}",
    ));
    assert_eq!(per_day, Some(Growth::per_day(50.0)));
    assert_eq!(no_per, per_day);
}

/// The model writer says a spread back in the period it was stated in.
#[test]
fn a_written_model_keeps_the_spread() {
    let m = parse("devices.yaml", DEVICES).unwrap_or_else(|e| panic!("{e}"));
    let text = super::write::to_yaml(&m);
    assert!(
        text.contains("growth: {typical: 50, p99: 5000, max: 200000, per: day}"),
        "{text}"
    );
    let again = parse("again.yaml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again.relationships[0].children.growth, growth(DEVICES));
}

#[test]
fn growth_figures_are_in_order() {
    let p = problems(&DEVICES.replace("p99: 5000", "p99: 30"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn the_busiest_parent_is_at_least_the_p99() {
    let p = problems(&DEVICES.replace("max: 200000", "max: 4000"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn growth_is_per_a_known_period() {
    let p = problems(&DEVICES.replace("per: day", "per: fortnight"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn growth_is_given_once() {
    let p = problems(&DEVICES.replace("growth: {", "growth_per_day: 50, growth: {"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn growth_figures_are_not_negative() {
    let p = problems(&DEVICES.replace("typical: 50,", "typical: -50,"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn growth_has_only_its_words() {
    let p = problems(&DEVICES.replace("per: day", "per: day, mean: 1728"));
    insta::assert_snapshot!(p.join("\n"));
}
