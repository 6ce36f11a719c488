//! Suggested indexes for place searches and claims, from legacy and JSON
//! log lines (fixtures of our own): a `2dsphere` key after the equality
//! keys, and a claim's equality and sort keys.

use crate::rules::workload::testing::{fired, judged};
use crate::workload::report::{GeoKey, IndexSuggestion};

/// A legacy slow-command line on `ns` running `command` by `plan`.
fn legacy(ns: &str, command: &str, plan: &str) -> String {
    format!(
        "2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command {ns} command: {command} planSummary: {plan} keysExamined:0 docsExamined:40000 nreturned:20 250ms\n"
    )
}

/// The same as a JSON (4.4+) slow-query line.
fn json(ns: &str, command: &str, plan: &str) -> String {
    format!(
        r#"{{"t":{{"$date":"2023-09-23T16:25:00.000Z"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn2","msg":"Slow query","attr":{{"type":"command","ns":"{ns}","command":{command},"planSummary":"{plan}","keysExamined":0,"docsExamined":40000,"nreturned":20,"durationMillis":250}}}}
"#
    )
}

/// The suggestion's key pattern and namespace from its typed values
/// (`{open: 1, location: "2dsphere"} on food.restaurants`); the reports'
/// words are tested in `outputs::workload`.
fn rendered(i: &IndexSuggestion) -> String {
    let mut parts: Vec<String> = i
        .keys
        .iter()
        .map(|k| format!("{}: {}", k.path, if k.descending { -1 } else { 1 }))
        .collect();
    if let Some(g) = &i.geo {
        parts.insert(g.at, format!("{}: \"2dsphere\"", g.path));
    }
    format!("{{{}}} on {}", parts.join(", "), i.namespace)
}

#[test]
fn a_geo_within_search_gets_a_2dsphere_index_after_its_equality() {
    let r = judged(&legacy(
        "food.restaurants",
        r#"find { find: "restaurants", filter: { open: true, location: { $geoWithin: { $centerSphere: [ [ -73.9, 40.7 ], 0.0005 ] } } } }"#,
        "COLLSCAN",
    ));
    let [i] = r.suggested_indexes.as_slice() else {
        panic!("{:?}", r.suggested_indexes)
    };
    assert_eq!(
        i.geo,
        Some(GeoKey {
            path: "location".into(),
            at: 1
        })
    );
    assert_eq!(
        i.keys.iter().map(|k| k.path.as_str()).collect::<Vec<_>>(),
        ["open"]
    );
    assert!(
        rendered(i).starts_with(r#"{open: 1, location: "2dsphere"} on food.restaurants"#),
        "{}",
        rendered(i)
    );
}

/// The same search from a JSON log, and `$geoIntersects` on zones: each
/// its own 2dsphere index (before, the first got `{open: 1}` and the
/// second nothing: a geo operator was no key at all).
#[test]
fn json_lines_and_geo_intersects_get_theirs() {
    let log = [
        json(
            "food.restaurants",
            r#"{"find":"restaurants","filter":{"open":true,"location":{"$geoWithin":{"$centerSphere":[[-73.9,40.7],0.0005]}}}}"#,
            "COLLSCAN",
        ),
        json(
            "food.zones",
            r#"{"find":"zones","filter":{"area":{"$geoIntersects":{"$geometry":{"type":"Point","coordinates":[-73.9,40.7]}}}}}"#,
            "COLLSCAN",
        ),
    ]
    .concat();
    let r = judged(&log);
    let mut got: Vec<String> = r.suggested_indexes.iter().map(rendered).collect();
    got.sort();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].starts_with(r#"{area: "2dsphere"} on food.zones"#),
        "{got:?}"
    );
    assert!(
        got[1].starts_with(r#"{open: 1, location: "2dsphere"} on food.restaurants"#),
        "{got:?}"
    );
}

/// A `$geoNear` stage names its key and filters by its `query`; one that
/// already ran on a 2dsphere index (the plan says so) needs none.
#[test]
fn a_geo_near_stage_is_a_near_search() {
    let command = r#"aggregate { aggregate: "restaurants", pipeline: [ { $geoNear: { near: { type: "Point", coordinates: [ -73.9, 40.7 ] }, key: "location", query: { cuisine: "thai" }, distanceField: "d", maxDistance: 3000 } }, { $limit: 20 } ] }"#;
    let r = judged(&legacy("food.restaurants", command, "COLLSCAN"));
    let [i] = r.suggested_indexes.as_slice() else {
        panic!("{:?}", r.suggested_indexes)
    };
    assert!(
        rendered(i).starts_with(r#"{cuisine: 1, location: "2dsphere"}"#),
        "{}",
        rendered(i)
    );
    let served = judged(&legacy(
        "food.restaurants",
        command,
        r#"GEO_NEAR_2DSPHERE { cuisine: 1, location: "2dsphere" }"#,
    ));
    assert!(
        served.suggested_indexes.is_empty(),
        "{:?} {:?}",
        served.suggested_indexes,
        served.namespaces[0].shapes[0].plans
    );
}

/// A claim (`findAndModify` with a filter and a sort) gets the compound
/// index of its equality then its sort keys, from either log format.
#[test]
fn a_claim_gets_its_equality_then_sort_index() {
    for line in [
        legacy(
            "q.jobs",
            r#"findAndModify { findAndModify: "jobs", query: { status: "pending" }, sort: { priority: -1, created_at: 1 }, update: { $set: { status: "running", worker: "w1" } } }"#,
            "COLLSCAN",
        ),
        json(
            "q.jobs",
            r#"{"findAndModify":"jobs","query":{"status":"pending"},"sort":{"priority":-1,"created_at":1},"update":{"$set":{"status":"running","worker":"w1"}}}"#,
            "COLLSCAN",
        ),
    ] {
        let r = judged(&line);
        let got: Vec<String> = r.suggested_indexes.iter().map(rendered).collect();
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].starts_with("{status: 1, priority: -1, created_at: 1} on q.jobs"),
            "{got:?}"
        );
    }
}

/// Issue 41: the collection-scan finding of a place search names the
/// `2dsphere` index the suggestions name. Before, a `$near` after an
/// equality got "an index {open: 1}" (which cannot run a `$near`) and a
/// `$geoWithin`, `$geoIntersects` or `$geoNear` alone got no index.
#[test]
fn a_place_search_s_scan_finding_names_its_2dsphere_index() {
    let near = r#"{"type":"Point","coordinates":[-73.9,40.7]}"#;
    let log = [
        json(
            "food.restaurants",
            &format!(
                r#"{{"find":"restaurants","filter":{{"open":true,"location":{{"$near":{{"$geometry":{near},"$maxDistance":3000}}}}}},"limit":20}}"#
            ),
            "COLLSCAN",
        ),
        json(
            "food.shops",
            r#"{"find":"shops","filter":{"location":{"$geoWithin":{"$centerSphere":[[-73.9,40.7],0.0005]}}}}"#,
            "COLLSCAN",
        ),
        json(
            "food.zones",
            &format!(r#"{{"find":"zones","filter":{{"area":{{"$geoIntersects":{{"$geometry":{near}}}}}}}}}"#),
            "COLLSCAN",
        ),
        json(
            "food.cafes",
            &format!(
                r#"{{"aggregate":"cafes","pipeline":[{{"$geoNear":{{"near":{near},"key":"spot","distanceField":"d"}}}},{{"$limit":20}}]}}"#
            ),
            "COLLSCAN",
        ),
    ]
    .concat();
    let r = judged(&log);
    let mut got: Vec<String> = fired(&r, "collection-scan")
        .iter()
        .map(|f| f.message.split("; ").last().unwrap_or_default().to_string())
        .collect();
    got.sort();
    let want = [
        r#"an index {area: "2dsphere"} would serve it"#,
        r#"an index {location: "2dsphere"} would serve it"#,
        r#"an index {open: 1, location: "2dsphere"} would serve it"#,
        r#"an index {spot: "2dsphere"} would serve it"#,
    ];
    assert_eq!(got, want);
}

/// A `$geoWithin` with a sort keys the sort before the `2dsphere` key, in
/// the equality–sort–range order (the place is the range): keyed after it,
/// the index would not give the order. A `$near` with the same sort keys
/// no sort (it orders by distance). Before, both had the sort after the
/// place (`{open: 1, location: "2dsphere", rating: -1}`) or none.
#[test]
fn a_geo_within_search_with_a_sort_keys_the_sort_before_the_place() {
    let within = judged(&legacy(
        "food.restaurants",
        r#"find { find: "restaurants", filter: { open: true, location: { $geoWithin: { $centerSphere: [ [ -73.9, 40.7 ], 0.0005 ] } } }, sort: { rating: -1 }, limit: 10 }"#,
        "COLLSCAN",
    ));
    let [i] = within.suggested_indexes.as_slice() else {
        panic!("{:?}", within.suggested_indexes)
    };
    assert_eq!(
        i.geo,
        Some(GeoKey {
            path: "location".into(),
            at: 2
        })
    );
    assert!(
        rendered(i)
            .starts_with(r#"{open: 1, rating: -1, location: "2dsphere"} on food.restaurants"#),
        "{}",
        rendered(i)
    );
    let near = judged(&legacy(
        "food.restaurants",
        r#"find { find: "restaurants", filter: { open: true, location: { $near: { $geometry: { type: "Point", coordinates: [ -73.9, 40.7 ] }, $maxDistance: 2000 } } }, sort: { rating: -1 }, limit: 10 }"#,
        "COLLSCAN",
    ));
    let [i] = near.suggested_indexes.as_slice() else {
        panic!("{:?}", near.suggested_indexes)
    };
    assert!(
        rendered(i).starts_with(r#"{open: 1, location: "2dsphere"} on food.restaurants"#),
        "{}",
        rendered(i)
    );
}
