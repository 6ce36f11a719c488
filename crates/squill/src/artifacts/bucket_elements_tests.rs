//! A read of children kept in buckets, on their own (audit44 B): its tests
//! of the children hold for one child (`$elemMatch`), the matching
//! children are unwound and tested again, then sorted, skipped and cut by
//! the read's own order, paging and limit. It once returned the buckets
//! that held some match, in page order, with no limit: a bucket with a
//! signup of last month and this week's pageviews was "this week's
//! signups".

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;
use crate::design::ValueSource;

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

/// The plan's step: the children's array unwound, the read's sort and
/// limit on the children, the window tested on each child and on the
/// bucket's first and last dates; the buckets' page order moved ahead of
/// the unwinding where a limit picks the newest buckets.
#[test]
fn a_read_of_bucketed_children_returns_the_matching_children() {
    let (_, d) = crate::fixtures::load("bucket-child-reads");
    let explore = plan(&d, "explore").steps.last().expect("a step");
    assert_eq!(explore.elements.as_deref(), Some("events"));
    assert_eq!(explore.sort, vec![("events.ts".to_string(), -1)]);
    assert_eq!(explore.limit, Some(10));
    assert!(explore.bucket_order.is_none(), "{explore:?}");
    let test = |path: &str| explore.filter.iter().find(|f| f.path == path);
    assert!(test("events.name").is_some(), "{explore:?}");
    assert_eq!(
        test("events.ts").map(|f| &f.value_from),
        Some(&ValueSource::Param)
    );
    assert_eq!(
        test("last_ts").map(|f| &f.value_from),
        Some(&ValueSource::WindowStart {
            field: "events.ts".into()
        })
    );
    assert_eq!(
        test("first_ts").map(|f| &f.value_from),
        Some(&ValueSource::WindowEnd {
            field: "events.ts".into()
        })
    );
    let latest = plan(&d, "latest").steps.last().expect("a step");
    assert_eq!(latest.limit, Some(25));
    let order = latest.bucket_order.as_deref().expect("the buckets' order");
    assert_eq!(order.sort, vec![("last_ts".to_string(), -1)]);
    assert_eq!(order.limit, Some(2));
    let ops = cookbook::op_codes(&d);
    let code = |name: &str| {
        let op = ops.iter().find(|o| o.name == name).expect("the op");
        [
            cookbook::mongosh_function(op),
            cookbook::node_function(op),
            cookbook::python_function(op),
        ]
    };
    for text in code("explore") {
        for part in [
            r#"{"$match": {"project": project_id, "events": {"$elemMatch": {"name": name, "ts": {"$gte": ts_from, "$lt": ts_to}}}, "last_ts": {"$gte": ts_from}, "first_ts": {"$lt": ts_to}}}, {"$unwind": "$events"}"#,
            r#"{"$sort": {"events.ts": -1}}, {"$skip": (page - 1) * 10}, {"$limit": 10}"#,
        ] {
            assert!(text.contains(part), "{text}");
        }
    }
    for text in code("latest") {
        assert!(
            text.contains(r#"{"$sort": {"last_ts": -1}}, {"$limit": 2}, {"$unwind": "$events"}"#),
            "{text}"
        );
    }
}

/// Events that expire, kept in buckets (audit44 D): the TTL index is on
/// the bucket's newest date, which every bucket keeps, and says the
/// buckets hold events; no `expiry-lost` finding. They once had no TTL
/// index, no job and no warning.
#[test]
fn bucketed_children_expire_with_their_bucket() {
    let (model, d) = crate::fixtures::load("bucket-child-reads");
    let c = d
        .collections
        .iter()
        .find(|c| c.entities.iter().any(|e| e == "event"))
        .expect("the events' collection");
    let ttl = c
        .indexes
        .iter()
        .find(|i| i.expire_after_seconds.is_some())
        .unwrap_or_else(|| panic!("a TTL index: {:?}", c.indexes));
    assert_eq!(ttl.keys, vec![("last_ts".to_string(), 1)]);
    assert_eq!(ttl.expire_after_seconds, Some(30 * 86_400));
    assert_eq!(ttl.expires_buckets_of.as_deref(), Some("event"));
    // `expiry-lost` refuses layouts in the search now (audit45): the
    // bucket is not one of them, so the design breaks no such rule.
    let _ = model;
    let lost: Vec<_> = d
        .findings
        .iter()
        .filter(|f| f.rule == "expiry-lost")
        .collect();
    assert!(lost.is_empty(), "{lost:?}");
}

/// A count per hour over count buckets (audit44 C): the buckets picked by
/// their first and last dates against the window, never by their fill
/// (`count`), and their children unwound and grouped by the hour on the
/// server. It once tested `count` with a range the caller passed and
/// returned the buckets whole.
#[test]
fn a_window_over_count_buckets_groups_their_children_by_the_hour() {
    let (_, d) = crate::fixtures::load("bucket-child-reads");
    let step = plan(&d, "hourly").steps.last().expect("a step");
    assert!(step.filter.iter().all(|f| f.path != "count"), "{step:?}");
    let test = |path: &str| step.filter.iter().find(|f| f.path == path);
    assert!(matches!(
        test("last_ts").map(|f| &f.value_from),
        Some(ValueSource::WindowStart { .. })
    ));
    assert!(test("events.ts").is_some(), "{step:?}");
    let g = step
        .figures
        .as_deref()
        .expect("figures grouped on the server");
    assert_eq!(g.unwind.as_deref(), Some("events"));
    assert_eq!(g.by, "project");
    let per = g.per.as_ref().expect("per hour");
    assert_eq!(
        (per.field.as_str(), per.unit.as_str()),
        ("events.ts", "hour")
    );
    let ops = cookbook::op_codes(&d);
    let op = ops.iter().find(|o| o.name == "hourly").expect("hourly");
    for text in [
        cookbook::mongosh_function(op),
        cookbook::node_function(op),
        cookbook::python_function(op),
    ] {
        assert!(text.contains(r#"{"$unwind": "$events"}"#), "{text}");
        assert!(
            text.contains(r#"{"$group": {"_id": {"project": "$project", "ts": {"$dateTrunc": {"date": "$events.ts", "unit": "hour"}}}, "count": {"$sum": 1}}}"#),
            "{text}"
        );
        assert!(!text.contains("count_from"), "{text}");
    }
}

/// Against the server, in each language (scripts/testenv/
/// check_bucket_elements.py): a bucket holding a 30-day-old signup and
/// this hour's pageviews gives no signup to a 7-day read; the signups of
/// this week come 10, 5 and 0 a page, newest first; a user's newest 5 and
/// the project's newest 25 come in order; the events of the week are
/// counted per hour, the old signup in none; a child ingested after a
/// newer one leaves the bucket's `first_ts` and `last_ts` its least and
/// greatest `ts` (`$min`/`$max`, not a `$set` from the latest arrival).
#[test]
fn bucketed_children_read_on_their_own_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("bucket-child-reads");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("bucket-child-reads", "squill_bucket_elements", false),
        ("check_bucket_elements.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} explore(signup, 7 days): pages of 10, 5 and 0",
            "ok: {lang} by_user(u1): u1's newest 5 events",
            "ok: {lang} latest: the project's newest 25 events, of both buckets",
            "ok: {lang} hourly: ",
            "ok: {lang} late child: first_ts and last_ts are the least and the greatest",
        ],
    );
}

/// A window read of children in time buckets picks the buckets by their
/// key in the window's own bounds (issue 41): one range on the key, from
/// the window's start truncated to the bucket's unit, with the children's
/// parameters. It once took a range of the key of its own beside the
/// window's (`minute_from`, `minute_to`).
#[test]
fn a_window_picks_time_buckets_by_its_own_bounds() {
    let (_, d) = crate::fixtures::load("bucket-time-window");
    let step = plan(&d, "minute_ticks").steps.last().expect("a step");
    let keys: Vec<_> = step.filter.iter().filter(|f| f.path == "minute").collect();
    assert_eq!(keys.len(), 1, "{step:?}");
    assert_eq!(
        keys[0].value_from,
        ValueSource::WindowKey {
            field: "ticks.time".into(),
            unit: "minute".into()
        }
    );
    let ops = cookbook::op_codes(&d);
    let op = ops
        .iter()
        .find(|o| o.name == "minute_ticks")
        .expect("the op");
    let py = cookbook::python_function(op);
    assert!(
        py.contains("def minute_ticks(db, symbol_id, time_from, time_to)"),
        "{py}"
    );
    assert!(
        py.contains(
            r#""minute": {"$gte": time_from.replace(second=0, microsecond=0), "$lt": time_to}"#
        ),
        "{py}"
    );
}

/// The first and last of a field that is not a date follow the ticks'
/// date, as the `$max` of `last_time` does (review46 item 5): the upsert
/// computes them from the array by `ticks.time`, in one update pipeline
/// in each language, and the plan says so. A `$set` of the newest
/// arrival's price left `last_price` and `last_time` from two ticks.
#[test]
fn a_buckets_first_and_last_price_follow_the_ticks_date() {
    use crate::design::UpdateOp;
    let (_, d) = crate::fixtures::load("bucket-time-window");
    let step = &plan(&d, "record").steps[0];
    for (path, function) in [
        ("first_price", crate::model::AggregateFn::First),
        ("last_price", crate::model::AggregateFn::Last),
    ] {
        let want = UpdateOp::Recompute {
            path: path.into(),
            function,
            over: "ticks.price".into(),
            by: Some("ticks.time".into()),
        };
        assert!(step.updates.contains(&want), "{:?}", step.updates);
    }
    let ops = cookbook::op_codes(&d);
    for text in [
        cookbook::python(&d, &ops),
        cookbook::node(&d, &ops),
        cookbook::mongosh(&d, &ops),
    ] {
        assert!(text.contains(r#""ticks": {"$concatArrays": "#), "{text}");
        assert!(
            text.contains(
                r#""$cond": [{"$lt": ["$$this.time", "$$value.time"]}, "$$value", "$$this"]"#
            ),
            "{text}"
        );
        assert!(
            !text.contains("$setOnInsert") && !text.contains(r#""$set": {"last_price""#),
            "{text}"
        );
    }
}

/// Against the server, in each language (scripts/testenv/
/// check_bucket_window.py): windows that start and end inside a minute
/// return their ticks, those of the minute holding the start included;
/// ticks that arrive out of order leave the bucket's first and last price
/// those of its earliest and latest tick (review46 item 5).
#[test]
fn a_window_of_time_buckets_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("bucket-time-window");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("bucket-time-window", "squill_bucket_window", false),
        ("check_bucket_window.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} minute_ticks(10:00:30 to 10:01:30): the 2 ticks",
            "ok: {lang} minute_ticks(10:01:00 to 10:02:00): the 2 ticks",
            "ok: {lang} minute_ticks(10:00:06 to 10:02:06): the 4 ticks",
            "ok: {lang} late tick: first_price and last_price are those of the earliest and latest tick",
        ],
    );
}

/// Against the server, in each language (scripts/testenv/
/// check_bucket_tenant.py, fixture bucket-tenant; review46 items 1 and 5):
/// a caller of one org who names another org's symbol or article pushes
/// nothing into that org's buckets, and the reads of the buckets return
/// the caller's org's children only, each on its own. The upsert once
/// named the parent alone and wrote into the other org's bucket; then it
/// opened a bucket of the caller's org under the other org's symbol. The
/// symbol (the article) is now found in the caller's org first: the call
/// raises and no bucket changes (review48).
#[test]
fn buckets_under_a_tenant_keep_each_org_apart_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("bucket-tenant");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("bucket-tenant", "squill_bucket_tenant", false),
        ("check_bucket_tenant.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} record, add_comment: org A's caller wrote nothing into org B's buckets",
            "ok: {lang} record with another org's parent: refused",
            "ok: {lang} add_comment with another org's parent: refused",
            "ok: {lang} minute_ticks(B, B's symbol): the caller's org's ticks only",
            "ok: {lang} minute_ticks(A, B's symbol): the caller's org's ticks only",
            "ok: {lang} comments_in_order(B, B's article): org B's comment only",
        ],
    );
}
