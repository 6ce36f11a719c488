//! Issue 41's words written each way the model language allows, on the
//! scenarios that use them (S15–S21): the same application gives the same
//! advice, compared as the whole design JSON (layouts, indexes, plans,
//! findings), not only the layouts. A word with one spelling only is named
//! in the test of its neighbour, so nobody looks for the missing pair.

use crate::advise::advise;
use crate::settings::Settings;

fn text(name: &str) -> String {
    crate::rules::testing::example(&format!("{name}.yaml"))
}

/// `text` with every `(from, to)` replaced, each asserted to apply once,
/// so a scenario edited under the test breaks it instead of making the two
/// phrasings equal by doing nothing.
fn rewrite(text: &str, edits: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (from, to) in edits {
        assert_eq!(out.matches(from).count(), 1, "`{from}` must occur once");
        out = out.replacen(from, to, 1);
    }
    out
}

/// The design JSON advised from a model text, in every mix it names.
fn advice(yaml: &str) -> Vec<serde_json::Value> {
    let model = crate::inputs::model_file::parse("phrasing.yaml", yaml)
        .unwrap_or_else(|e| panic!("{e:?}\n{yaml}"));
    super::golden::mixes_of(&model)
        .into_iter()
        .map(|mix| {
            let d = advise(&model, &Settings::default(), mix.as_deref()).unwrap();
            serde_json::to_value(&d).unwrap()
        })
        .collect()
}

/// The first place two JSON values differ, as a path, for the message.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value::{Array, Object};
    match (a, b) {
        (Object(x), Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (p, q) = (x.get(k), y.get(k));
                match (p, q) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, &format!("{at}.{k}")) {
                            return Some(d);
                        }
                    }
                    _ => return Some(format!("{at}.{k}: {p:?} / {q:?}")),
                }
            }
            None
        }
        (Array(x), Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}[{i}]"))),
        _ => (a != b).then(|| format!("{at}: {a} / {b}")),
    }
}

/// Both texts parse, differ, and give the same design in every mix.
fn same_advice(one: &str, other: &str) {
    assert_ne!(one, other, "the rewrite must apply");
    let (a, b) = (advice(one), advice(other));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        if let Some(d) = first_difference(x, y, "design") {
            let d: String = d.chars().take(600).collect();
            panic!("the two phrasings advise differently at {d}");
        }
    }
}

/// A claim (S17) has one word, `claim:`; its order is a sort, which reads
/// the same as a list, as MongoDB's `{field: -1}` and as SQL's `desc`; its
/// condition's constant may be quoted.
#[test]
fn a_claim_with_its_sort_and_condition_spelled_each_way() {
    let s17 = text("scenarios/s17-job-queue");
    for (sort, when) in [
        (
            "sort: {priority: -1, created_at: 1}",
            r#"when: ["status = 'pending'"]"#,
        ),
        (
            "sort: \"priority desc, created_at asc\"",
            r#"when: ["status == pending"]"#,
        ),
    ] {
        let other = rewrite(
            &s17,
            &[
                ("sort: [-priority, created_at]", sort),
                (r#"when: ["status = pending"]"#, when),
            ],
        );
        same_advice(&s17, &other);
    }
}

/// A conditional write's `otherwise` defaults to `fail`: S17's `finish`
/// says nothing, and saying `otherwise: fail` is the same write. (S16's
/// `otherwise: undo` has no other spelling.)
#[test]
fn a_conditional_write_fails_by_default_or_when_told() {
    let s17 = text("scenarios/s17-job-queue");
    let told = rewrite(
        &s17,
        &[(
            "    when: [\"status = running\"]\n",
            "    when: [\"status = running\"]\n    otherwise: fail\n",
        )],
    );
    same_advice(&s17, &told);
    // S16's decrement, its condition written without spaces.
    let s16 = text("scenarios/s16-coupons");
    let other = rewrite(
        &s16,
        &[(r#"when: ["remaining > 0"]"#, r#"when: ["remaining>0"]"#)],
    );
    same_advice(&s16, &other);
}

/// S15's places: a radius in km or in m, the place's filter first or
/// last (the equality keys lead the `2dsphere` index either way), and the
/// density's unit left out or written. `intersects` has one spelling.
#[test]
fn a_near_read_and_its_density_in_other_units_and_order() {
    let s15 = text("scenarios/s15-restaurants");
    let metres = rewrite(
        &s15,
        &[(
            "filter: {open: eq, location: near(3 km)}",
            "filter: {location: near(3000 m), open: eq}",
        )],
    );
    same_advice(&s15, &metres);
    // The unit alone is one of it (`per: km2`, the default, as the
    // error's help and docs/model-file.md write it).
    for per in ["per: km2", "per: 1 km2"] {
        let explicit = rewrite(
            &s15,
            &[(
                "density: {typical: 50, max: 400}",
                &format!("density: {{typical: 50, max: 400, {per}}}"),
            )],
        );
        same_advice(&s15, &explicit);
    }
}

/// A search `within` a circle: the radius in km or in m.
#[test]
fn a_within_read_in_km_or_m() {
    let s15 = text("scenarios/s15-restaurants");
    let km = rewrite(
        &s15,
        &[(
            "filter: {open: eq, location: near(3 km)}\n    limit: 20",
            "filter: {cuisine: eq, location: within(2 km)}\n    limit: 20",
        )],
    );
    let m = km.replace("within(2 km)", "within(2000 m)");
    same_advice(&km, &m);
}

/// Expiry (S18, S16): a duration in any unit that makes the same seconds.
#[test]
fn an_expiry_in_other_units() {
    let s18 = text("scenarios/s18-sessions");
    let other = rewrite(
        &s18,
        &[
            ("after: 30 minutes", "after: 1800 seconds"),
            ("after: 1 hour", "after: 60 min"),
        ],
    );
    same_advice(&s18, &other);
    let s16 = text("scenarios/s16-coupons");
    let year = rewrite(&s16, &[("after: 365 days", "after: 1 year")]);
    same_advice(&s16, &year);
}

/// A tenant (S19) said once at the top, or also named by every operation
/// (the filters name the store, last; the inserts link to it), in its long
/// form; and `unique_within: store` as the entity's `unique: [[store, sku]]`.
#[test]
fn a_tenant_said_once_or_by_every_operation() {
    let s19 = text("scenarios/s19-stores");
    let named = rewrite(
        &s19,
        &[
            ("\ntenant: store\n", "\ntenant: {entity: store}\n"),
            ("filter: {sku: eq}", "filter: {sku: eq, store: eq}"),
            ("filter: {status: eq}", "filter: {status: eq, store: eq}"),
            (
                "filter: {customer: eq}",
                "filter: {customer: eq, store: eq}",
            ),
            (
                "    filter: {_id: eq}\n  add_product:",
                "    filter: {_id: eq, store: eq}\n  add_product:",
            ),
            (
                "    insert: product\n",
                "    insert: product\n    links: [products]\n",
            ),
            (
                "links: [customer_orders]",
                "links: [customer_orders, store_orders]",
            ),
        ],
    );
    same_advice(&s19, &named);
    let unique = rewrite(
        &s19,
        &[
            (
                "sku: {type: string(12), unique_within: store}",
                "sku: string(12)",
            ),
            (
                "  product:\n    count: 200000000\n",
                "  product:\n    count: 200000000\n    unique: [[store, sku]]\n",
            ),
        ],
    );
    same_advice(&s19, &unique);
}

/// Growth with a spread (S20) per day or per week (seven times the
/// figures); and a spread of its typical figure alone as `growth_per_day`.
#[test]
fn a_growth_spread_per_day_or_per_week() {
    let s20 = text("scenarios/s20-device-activity");
    let weekly = rewrite(
        &s20,
        &[(
            "growth: {typical: 50, p99: 5000, max: 200000, per: day}",
            "growth: {typical: 350, p99: 35000, max: 1400000, per: week}",
        )],
    );
    same_advice(&s20, &weekly);
    let typical = rewrite(
        &s20,
        &[(
            "growth: {typical: 50, p99: 5000, max: 200000, per: day}",
            "growth: {typical: 50, per: day}",
        )],
    );
    let per_day = typical.replace("growth: {typical: 50, per: day}", "growth_per_day: 50");
    same_advice(&typical, &per_day);
}

/// S20's last day of a device's events, as an include from the device
/// (as the scenario has it, returning only the device's id) or as the
/// events queried by their device.
#[test]
fn a_bucketed_window_as_an_include_or_a_query() {
    const INCLUDE: &str = "    read: device
    rate: 2000
    filter: {_id: eq}
    include:
      events: {filter: {ts: range(0.0333)}, sort: -ts}";
    let s20 = text("scenarios/s20-device-activity");
    let include = rewrite(
        &s20,
        &[(
            INCLUDE,
            &INCLUDE.replace("    include:", "    fields: [_id]\n    include:"),
        )],
    );
    let query = rewrite(
        &s20,
        &[(
            INCLUDE,
            "    read: event
    rate: 2000
    filter: {device: eq, ts: range(0.0333)}
    sort: -ts",
        )],
    );
    same_advice(&include, &query);
}

/// S21's deep pages: `paging` on a query of the posts (as the scenario
/// has it) or on the include of the posts from their thread.
#[test]
fn deep_pages_on_a_query_or_an_include() {
    let query = text("scenarios/s21-forum");
    let include = rewrite(
        &query,
        &[(
            "    read: post
    rate: 10500
    filter: {thread: eq}
    sort: created_at
    limit: 25
    paging: {by: keyset, past_first: 0.048, depth: {typical: 5, max: 1000}}",
            "    read: thread
    rate: 10500
    filter: {_id: eq}
    fields: [_id]
    include:
      posts:
        sort: created_at
        limit: 25
        paging: {by: keyset, past_first: 0.048, depth: {typical: 5, max: 1000}}",
        )],
    );
    same_advice(&query, &include);
}

/// A bounded array read whole (issue 41's replies, at most 500): as an
/// include of every reply from the thread (returning only the thread's
/// id), or as the replies queried by their thread. The maximum is the
/// relationship's `children.max` either way; the model has no other place
/// to state it.
#[test]
fn a_bounded_array_read_whole_as_an_include_or_a_query() {
    const INCLUDE: &str = "    read: thread
    rate: 2000
    filter: {_id: eq}
    include:
      replies: {}";
    let thread = super::bounded::THREAD;
    let include = rewrite(
        thread,
        &[(
            INCLUDE,
            &INCLUDE.replace("    include:", "    fields: [_id]\n    include:"),
        )],
    );
    let query = rewrite(
        thread,
        &[(
            INCLUDE,
            "    read: reply
    rate: 2000
    filter: {thread: eq}",
        )],
    );
    same_advice(&include, &query);
}

/// The phrasing and invariant tests walk every example file; S15–S21 are
/// among them (a renamed folder would silently drop them).
#[test]
fn the_issue_41_scenarios_are_walked() {
    let names = super::golden::example_names();
    for s in [
        "s15-restaurants",
        "s16-coupons",
        "s17-job-queue",
        "s18-sessions",
        "s19-stores",
        "s20-device-activity",
        "s21-forum",
    ] {
        assert!(
            names.contains(&format!("scenarios/{s}")),
            "{s} is not among {names:?}"
        );
    }
}
