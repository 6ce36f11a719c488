//! Expiring children kept in their parent's array by a pin (expiry48):
//! no TTL index deletes an element of an array, so the plan does what the
//! monitor would. A list of the children read on their own and their count
//! compare the date alike, and are priced alike (the date is no key of the
//! index: every document holding a key walked is fetched); the write that
//! pushes a child drops the expired ones in the same update pipeline, its
//! cap counting the live ones. The list once returned expired tickets, and
//! a lane whose places held expired tickets refused every new one.

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

fn code(d: &crate::design::Design, name: &str) -> [String; 3] {
    let ops = cookbook::op_codes(d);
    let op = ops.iter().find(|o| o.name == name).expect("the op");
    [
        cookbook::mongosh_function(op),
        cookbook::node_function(op),
        cookbook::python_function(op),
    ]
}

/// The list and the count test the life alike, in the plan and in each
/// language's pipeline, and examine the same documents.
#[test]
fn a_list_of_embedded_expiring_children_compares_the_date_as_the_count_does() {
    let (_, d) = crate::fixtures::load("expiring-embedded");
    let tested = |name: &str| {
        plan(&d, name).steps[0].filter.iter().any(|f| {
            matches!(
                f.value_from,
                crate::design::ValueSource::Unexpired { seconds: 120 }
            )
        })
    };
    assert!(
        tested("mode_tickets"),
        "{:?}",
        plan(&d, "mode_tickets").steps[0]
    );
    assert!(tested("mode_count"));
    let (list, count) = (plan(&d, "mode_tickets"), plan(&d, "mode_count"));
    assert_eq!(list.cost.documents_examined, count.cost.documents_examined);
    assert_eq!(
        list.cost.index_keys_examined,
        count.cost.index_keys_examined
    );
    let matched = r#"{"$match": {"tickets.mode": mode, "tickets.queued_at": {"$gt": "#;
    for text in code(&d, "mode_tickets") {
        assert!(text.contains(matched), "{text}");
    }
}

/// A life the model says outlives the inserts (60,000 tickets, 20,000
/// alive): the walk of `tickets.mode_1` reads every lane holding a ticket
/// of the mode, live or expired, and the date is tested on the lane. Both
/// are priced at those lanes, not at the lanes holding a live one.
#[test]
fn the_date_no_index_holds_does_not_narrow_the_walk() {
    let (_, text) = crate::fixtures::FILES
        .iter()
        .find(|(n, _)| *n == "expiring-embedded")
        .expect("the fixture");
    let text = text.replace("    count: 40000\n", "    count: 120000\n");
    let model = crate::inputs::model_file::parse("dead.yaml", &text).expect("parses");
    let d =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let lanes = 20_000.0_f64;
    // 1,200 tickets of a mode stored, 400 of them live.
    let holding = lanes * (1.0 - (1.0 - 1.0 / lanes).powf(1200.0));
    for name in ["mode_tickets", "mode_count"] {
        let c = &plan(&d, name).cost;
        assert!(
            (c.documents_examined - holding).abs() <= 1.0
                && c.index_keys_examined == c.documents_examined,
            "{name}: {c:?}, want about {holding} lanes"
        );
    }
}

/// The push is one update pipeline that drops the expired tickets before
/// it adds the new one, its guard a `$size` of the live ones; the plan
/// says how big the array gets.
#[test]
fn a_push_of_an_expiring_child_drops_the_expired_ones_in_the_same_write() {
    let (_, d) = crate::fixtures::load("expiring-embedded");
    let queue = plan(&d, "queue");
    let step = &queue.steps[0];
    assert!(step.updates.iter().any(|u| matches!(u,
        crate::design::UpdateOp::PullExpired { path, field, seconds: 120 } if path == "tickets" && field == "queued_at")));
    let Some(crate::design::Warning::ExpiredDropped {
        live,
        lingering,
        max,
        ..
    }) = queue
        .warnings
        .iter()
        .find(|w| matches!(w, crate::design::Warning::ExpiredDropped { .. }))
    else {
        panic!("{:?}", queue.warnings)
    };
    // 333 pushes/s over 20,000 lanes, 120 s of life.
    let rate = 333.0 / 20_000.0;
    assert!((live - rate * 120.0).abs() < 1e-9, "{live}");
    assert!(
        (lingering - (1.0 - (-rate * 120.0_f64).exp())).abs() < 1e-9,
        "{lingering}"
    );
    assert_eq!(*max, Some(3));
    let [mongosh, node, python] = code(&d, "queue");
    let kept = |since: &str| {
        format!(
            r#"[{{"$set": {{"tickets": {{"$concatArrays": [{{"$filter": {{"input": {{"$ifNull": ["$tickets", []]}}, "cond": {{"$gt": ["$$this.queued_at", {since}]}}}}}}, {{"$literal": [new_tickets_item]}}]}}}}}}]"#
        )
    };
    let guard = |since: &str| {
        format!(
            r#""$expr": {{"$lte": [{{"$size": {{"$filter": {{"input": {{"$ifNull": ["$tickets", []]}}, "cond": {{"$gt": ["$$this.queued_at", {since}]}}}}}}}}, 2]}}"#
        )
    };
    for text in [mongosh, node] {
        let since = "new Date(Date.now() - 120 * 1000)";
        assert!(text.contains(&kept(since)), "{text}");
        assert!(text.contains(&guard(since)), "{text}");
    }
    assert!(python.contains(&kept("_alive_since(120)")), "{python}");
    assert!(python.contains(&guard("_alive_since(120)")), "{python}");
}

/// Against the server, in each language
/// (scripts/testenv/check_expiring_embedded.py): the list gives the live
/// tickets of a mode alone, the count 2, a lane whose places hold expired
/// tickets takes a new one and drops them, and a lane full of live tickets
/// refuses it.
#[test]
fn expiring_embedded_children_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("expiring-embedded");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("expiring-embedded", "squill_expiring_embedded", false),
        ("check_expiring_embedded.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} mode_tickets(m): the live tickets 4 and 2",
            "ok: {lang} mode_count(m): 2",
            "ok: {lang} queue(1): lane 1 full of expired tickets took ticket 9",
            "ok: {lang} queue(3): refused",
        ],
    );
}

/// Review48 A3: a write of expiring elements whose condition compares two
/// of their fields (`tries < cap`) tests each element's life inside the
/// update pipeline and `$anyElementTrue`; the life's test had no spelling
/// there and became `{"$literal": false}`, so no write ever matched.
#[test]
fn a_two_field_write_of_expiring_elements_tests_their_life() {
    let text = r#"
name: lanes
entities:
  lane: {count: 20000, fields: {name: {type: string(20), distinct: 20000}}}
  ticket:
    count: 40000
    fields:
      queued_at: date
      mode: {type: string(10), distinct: 100}
      tries: int
      cap: int
    expires: {from: queued_at, after: 2 minutes}
relationships:
  tickets: {parent: lane, child: ticket, children: {min: 0, typical: 2, max: 3}, child_field: lane, layout: embed}
operations:
  queue: {insert: ticket, links: [tickets], rate: 333}
  retry_lane: {update: ticket, filter: {lane: eq}, multi: true, increments: {tries: 1}, when: ["tries < cap"], rate: 5}
  mode_count: {read: ticket, filter: {mode: eq}, returns: count, rate: 300}
"#;
    let d = crate::advise::tests::design_of(text);
    for code in code(&d, "retry_lane") {
        assert!(
            !code.contains(r#""$literal": false"#) && !code.contains(r#""$literal": False"#),
            "{code}"
        );
        assert!(code.contains(r#"{"$gt": ["$$e.queued_at", "#), "{code}");
    }
}
