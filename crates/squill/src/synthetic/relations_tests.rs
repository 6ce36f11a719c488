//! Synthetic data honours the order the model's write conditions state
//! between two number fields of one entity (audit45 gap 11): with
//! `available` and `total` drawn independently, 915 of 955 hotel nights
//! had more rooms available than in total. The test writes the data as
//! `generate data` does and counts the documents that break a relation.

use super::data::{self, DataFormat, DataOptions};
use crate::inputs::model_file::parse;

const BOUNDS: &str = r#"
name: bounds
entities:
  night:
    count: 100000
    fields: {total: int, available: int, price: decimal}
  key:
    count: 100000
    fields: {used: long, quota: long}
  tank:
    count: 100000
    fields: {level: double, cap: double, floor: double}
operations:
  release:
    update: night
    filter: {_id: eq}
    increments: {available: rooms}
    when: ["available + rooms <= total"]
    rate: 10
  spend:
    update: key
    filter: {_id: eq}
    increments: {used: 1}
    when: ["used < quota"]
    rate: 10
  fill:
    update: tank
    filter: {_id: eq}
    increments: {level: 1}
    when: ["cap > level", "level >= floor"]
    rate: 10
"#;

/// A number as Extended JSON writes it (`{"$numberLong": "7"}`, …).
fn number(v: &serde_json::Value) -> f64 {
    match v {
        serde_json::Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        serde_json::Value::Object(o) => o
            .values()
            .next()
            .and_then(|s| s.as_str())
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

#[test]
fn generated_data_keeps_the_order_the_conditions_state() {
    let model = parse("bounds.yaml", BOUNDS).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let dir = std::env::temp_dir().join(format!("squill-relations-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = DataOptions {
        format: DataFormat::Ejson,
        ..DataOptions::new(300, 5)
    };
    data::write(&model, &design, &options, &dir).expect("the data is written");
    // (collection, low, high, strict)
    let relations = [
        ("night", "available", "total", false),
        ("key", "used", "quota", true),
        ("tank", "level", "cap", true),
        ("tank", "floor", "level", false),
    ];
    for (collection, low, high, strict) in relations {
        let text = std::fs::read_to_string(dir.join("data").join(format!("{collection}.json")))
            .expect("the collection's file");
        let (mut documents, mut broken, mut lows) = (0, 0, Vec::new());
        for line in text.lines() {
            let doc: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let (Some(l), Some(h)) = (doc.get(low), doc.get(high)) else {
                continue; // an optional field left out
            };
            let (l, h) = (number(l), number(h));
            documents += 1;
            if l > h || (strict && l == h) {
                broken += 1;
            }
            lows.push(l.to_bits());
        }
        assert!(documents > 100, "{collection}: {documents} documents");
        assert_eq!(
            broken,
            0,
            "{collection}: {broken} of {documents} documents break {low} {} {high}",
            if strict { "<" } else { "<=" }
        );
        // The bounded field is spread under its ceiling, not piled on it.
        lows.sort_unstable();
        lows.dedup();
        assert!(
            lows.len() > documents / 4,
            "{collection}: {} distinct {low}",
            lows.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Audit48 C6: a date only an update sets (a ride's `accepted_at`, set by
/// the accept) comes after the date its insert wrote (`requested_at`);
/// drawn independently, 179 of 363 rides were accepted before they were
/// requested. Names play no part: the fields here say nothing of order.
#[test]
fn a_date_a_later_write_sets_follows_the_inserts() {
    const RIDES: &str = r"
name: rides
entities:
  ride:
    count: 100000
    fields: {alpha: date, beta: {type: date, required: false}, status: {type: string(10), enum: [open, taken]}}
operations:
  open_ride:
    insert: ride
    rate: 10
  take_ride:
    update: ride
    filter: {_id: eq}
    when: ['status = open']
    changes: [status, beta]
    rate: 10
";
    let model = parse("rides.yaml", RIDES).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let dir = std::env::temp_dir().join(format!("squill-dates-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = DataOptions {
        format: DataFormat::Ejson,
        ..DataOptions::new(300, 5)
    };
    data::write(&model, &design, &options, &dir).expect("the data is written");
    let text = std::fs::read_to_string(dir.join("data").join("ride.json")).expect("ride.json");
    let date = |v: &serde_json::Value| v.get("$date").map(ToString::to_string);
    let (mut both, mut backwards) = (0, 0);
    for line in text.lines() {
        let doc: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let (Some(a), Some(b)) = (doc.get("alpha"), doc.get("beta")) else {
            continue;
        };
        both += 1;
        // ISO 8601 dates of one format compare as text.
        if date(b) < date(a) {
            backwards += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(both > 50, "{both} rides with both dates");
    assert_eq!(
        backwards, 0,
        "{backwards} of {both} rides taken before they were opened"
    );
}
