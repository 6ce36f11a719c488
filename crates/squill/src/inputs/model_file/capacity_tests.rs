//! Tests of the words of a capacity projection: an entity's `growth`, the
//! model's `deployment`, what they parse to, what they refuse (at
//! file:line:column) and how a written model says them back.

use super::geo_tests::problems;
use super::*;
use crate::model::*;

const CHAT: &str = r"
name: chat
deployment: {ram: 64GiB, disk: 4TiB, shards: 2, compression: 0.5}
entities:
  user:
    count: 2000000
    growth: {percent: 8, per: month}
  message:
    count: 3000000000
    growth: {add: 1000000, per: day}
relationships:
  authored: {parent: user, child: message, children: {typical: 500, max: 3000000}}
";

fn model(text: &str) -> Model {
    parse("chat.yaml", text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn growth_and_deployment_parse() {
    let m = model(CHAT);
    assert_eq!(
        m.entities[0].growth,
        Some(CountGrowth::Percent {
            percent: 8.0,
            per: Period::Month
        })
    );
    assert_eq!(
        m.entities[1].growth,
        Some(CountGrowth::Added {
            count: 1_000_000.0,
            per: Period::Day
        })
    );
    assert_eq!(
        m.deployment,
        Deployment {
            ram_bytes: Some(64 * GIB),
            disk_bytes: Some(4 * 1024 * GIB),
            shards: Some(2),
            compression: Some(0.5),
        }
    );
}

#[test]
fn a_written_model_keeps_growth_and_deployment() {
    let m = model(CHAT);
    let text = super::write::to_yaml(&m);
    assert!(
        text.contains("deployment: {ram: 64GiB, disk: 4TiB, shards: 2, compression: 0.5}"),
        "{text}"
    );
    assert!(text.contains("growth: {percent: 8, per: month}"), "{text}");
    let again = parse("again.yaml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again.deployment, m.deployment);
    assert_eq!(again.entities[0].growth, m.entities[0].growth);
    assert_eq!(again.entities[1].growth, m.entities[1].growth);
}

/// A model without either writes neither back.
#[test]
fn a_model_without_them_writes_neither() {
    let m = model(&CHAT.replace(
        "deployment: {ram: 64GiB, disk: 4TiB, shards: 2, compression: 0.5}\n",
        "",
    ));
    assert!(m.deployment.is_empty());
    assert!(!super::write::to_yaml(&m).contains("deployment"));
}

#[test]
fn a_size_needs_a_unit_people_use() {
    let p = problems(&CHAT.replace("ram: 64GiB", "ram: 64 gigs"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn compression_is_at_most_one() {
    let p = problems(&CHAT.replace("compression: 0.5", "compression: 2"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn shards_are_whole() {
    let p = problems(&CHAT.replace("shards: 2", "shards: 1.5"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn growth_is_a_percent_or_an_add() {
    let p = problems(&CHAT.replace(
        "{percent: 8, per: month}",
        "{percent: 8, add: 5, per: month}",
    ));
    insta::assert_snapshot!(p.join("\n"));
    let p = problems(&CHAT.replace("{percent: 8, per: month}", "{per: month}"));
    insta::assert_snapshot!("neither", p.join("\n"));
}

#[test]
fn growth_is_per_a_known_period() {
    let p = problems(&CHAT.replace("per: month", "per: quarter"));
    insta::assert_snapshot!(p.join("\n"));
}

#[test]
fn deployment_has_only_its_words() {
    let p = problems(&CHAT.replace("shards: 2", "shards: 2, cpus: 8"));
    insta::assert_snapshot!(p.join("\n"));
}
