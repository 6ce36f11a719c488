//! What expires stays expired in the generated code (audit45 gaps 4 and 5):
//! a claim or a lookup of an expiring entity never returns a document past
//! its life that the TTL monitor has not yet deleted (run in each language
//! against a server by scripts/testenv/check_expiry.py), and a write whose
//! filter guards both a condition and an array's room says which may have
//! failed.

use super::external_tests::{
    run_check_script, run_check_script_on_data, says_in_each_language, server_tools,
};
use super::*;

/// Tickets claimed oldest first, which expire 2 minutes after they are
/// queued; preview tokens looked up by their value, which expire after an
/// hour.
const EXPIRING: &str = "
name: expiring
entities:
  ticket:
    count: 60000
    fields:
      region: {type: string(6), distinct: 12}
      queued_at: date
      state: {type: string(8), enum: [waiting, matched]}
    expires: {from: queued_at, after: 2 minutes}
  preview:
    count: 7200
    fields:
      token: {type: string(32), distinct: 7200}
      made_at: date
    expires: {from: made_at, after: 1 hour}
operations:
  queue: {insert: ticket, rate: 500}
  take_ticket: {claim: ticket, filter: {region: eq}, sort: queued_at, when: ['state = waiting'], changes: [state], rate: 500}
  make_preview: {insert: preview, rate: 2}
  preview_by_token: {read: preview, filter: {token: eq}, rate: 100}
  touch_preview: {update: preview, filter: {_id: eq}, changes: [made_at], rate: 10}
";

fn expiring() -> (crate::model::Model, crate::design::Design) {
    let model =
        crate::inputs::model_file::parse("expiring.yaml", EXPIRING).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// Each language's claim takes the live ticket, not the older one that
/// expired 30 s before and is still there; each language's lookup of a
/// token shared by a live and an expired preview returns the live one
/// alone; a touch of the expired preview by its id does not bring it
/// back, a touch of the live one does. Without the test of the date (planted: `model::expiry` made
/// nothing), the claim took the expired ticket and the lookup returned
/// both, in all three languages.
#[test]
fn claims_and_lookups_skip_expired_documents_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = expiring();
    let tools = (uri.as_str(), python.as_path(), mongosh.as_path());
    let out = run_check_script(
        tools,
        (&model, &design),
        ("expiry-claim", "squill_expiry_claim", false),
        (
            "check_expiry.py",
            &["take_ticket", "ticket", "queued_at", "120", "state=waiting"],
        ),
    );
    says_in_each_language(
        &out,
        "",
        &["ok: {lang} take_ticket: claimed the live ticket, not the expired one"],
    );
    let out = run_check_script(
        tools,
        (&model, &design),
        ("expiry-token", "squill_expiry_token", false),
        (
            "check_expiry.py",
            &["preview_by_token", "preview", "made_at", "3600"],
        ),
    );
    says_in_each_language(
        &out,
        "",
        &["ok: {lang} preview_by_token: returned the live preview, not the expired one"],
    );
    let out = run_check_script(
        tools,
        (&model, &design),
        ("expiry-touch", "squill_expiry_touch", false),
        (
            "check_expiry.py",
            &["touch_preview", "preview", "made_at", "3600"],
        ),
    );
    says_in_each_language(
        &out,
        "",
        &["ok: {lang} touch_preview: changed the live preview, not the expired one"],
    );
}

/// audit46 D3: the synthetic data of an expiring entity, loaded into a
/// database set up by setup.js (its TTL index included), is found by the
/// read that compares the date, in each language
/// (scripts/testenv/check_live_data.py). With the data placed at the
/// clock as the CLI does; the dates once lay in 2024 (planted:
/// `ScalarSpec::alive_at` left out in `synthetic/plan.rs`), and every
/// lookup returned nothing.
#[test]
fn synthetic_data_of_an_expiring_entity_is_found_when_loaded_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = expiring();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let options = crate::synthetic::DataOptions {
        now_ms,
        format: crate::synthetic::DataFormat::Ejson,
        ..crate::synthetic::DataOptions::new(20, 5)
    };
    let out = run_check_script_on_data(
        (uri.as_str(), python.as_path(), mongosh.as_path()),
        (&model, &design),
        ("expiry-live-data", "squill_expiry_live_data", true),
        Some(&options),
        ("check_live_data.py", &["preview_by_token", "preview"]),
    );
    says_in_each_language(
        &out,
        "",
        &["ok: {lang} preview_by_token: returned each of 3 loaded preview documents asked for"],
    );
}

/// The plan's steps test the date against now less the life, and the
/// cookbook computes it when the operation runs, in each language.
#[test]
fn the_plan_and_the_cookbook_compare_the_date() {
    let (model, design) = expiring();
    for (op, field, seconds) in [
        ("take_ticket", "queued_at", 120),
        ("preview_by_token", "made_at", 3600),
    ] {
        let plan = design
            .operations
            .iter()
            .find(|p| p.operation == op)
            .expect("a plan");
        assert!(
            plan.steps[0].filter.iter().any(|f| f.path == field
                && f.value_from == crate::design::ValueSource::Unexpired { seconds }),
            "{op}: {:?}",
            plan.steps[0].filter
        );
    }
    let files = artifacts(&model, &design, &Options::default()).expect("artifacts");
    let text = |name: &str| {
        files
            .iter()
            .find(|a| a.file == name)
            .map(|a| a.content.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    };
    assert!(text("cookbook.py").contains(r#""queued_at": {"$gt": _alive_since(120)}"#));
    assert!(text("cookbook.py").contains("def _alive_since(seconds):"));
    for js in ["cookbook.js", "cookbook.mongosh.js"] {
        assert!(
            text(js).contains(r#""made_at": {"$gt": new Date(Date.now() - 3600 * 1000)}"#),
            "{js}"
        );
    }
}

/// A hold of rooms (a condition on the night) merged with the push of the
/// hold into the night's bounded array: when nothing matches, either the
/// night failed the condition or its array is full, and the error says
/// both (it said only the first, which reads as "sold out").
#[test]
fn a_conditional_push_into_a_bounded_array_names_the_full_array() {
    let yaml = "
name: nights
entities:
  night:
    count: 1000
    fields: {available: int}
  hold:
    count: 5000
    fields: {rooms: int, made_at: date}
relationships:
  holds:
    parent: night
    child: hold
    children: {min: 0, typical: 5, max: 50}
    child_field: night
    layout: embed
operations:
  hold_rooms: {update: night, filter: {_id: eq}, increments: {available: -rooms}, when: ['available >= rooms'], rate: 300}
  record_hold: {insert: hold, links: [holds], rate: 300}
atomic:
  take_hold: {writes: [hold_rooms, record_hold], same: night}
";
    let model = crate::inputs::model_file::parse("nights.yaml", yaml).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let files = artifacts(&model, &design, &Options::default()).expect("artifacts");
    let want = "nothing matched (no night met the conditions of the write, or its holds is full)";
    for name in ["cookbook.py", "cookbook.js", "cookbook.mongosh.js"] {
        let text = &files
            .iter()
            .find(|a| a.file == name)
            .expect("a cookbook")
            .content;
        assert!(text.contains(want), "{name}:\n{text}");
    }
}

/// The share of its life a document can outlive its TTL by is in the JSON
/// beside the TTL, as the text states it (embed46: the text alone said
/// "up to 50% of the 2 minutes stated").
#[test]
fn the_json_states_the_share_of_life_the_monitor_adds() {
    let (_, design) = expiring();
    let json = crate::outputs::design::json::render(&design);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let share = |coll: &str| {
        v["collections"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == coll))
            .and_then(|c| c["indexes"].as_array())
            .and_then(|is| is.iter().find(|i| i.get("expire_after_seconds").is_some()))
            .and_then(|i| i.get("monitor_delay_share"))
            .and_then(|s| s.as_f64())
    };
    assert_eq!(share("ticket"), Some(0.5), "60 s of 2 minutes");
    assert_eq!(share("preview"), Some(60.0 / 3600.0), "60 s of an hour");
    let text = crate::outputs::design::text::render(&design, false);
    assert!(
        text.contains("outlive the 2 minutes stated by up to 60 s, 50% of it"),
        "{text}"
    );
}
