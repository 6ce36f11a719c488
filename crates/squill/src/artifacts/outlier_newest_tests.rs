//! An include of an outlier's children in an order up to a limit (audit45
//! gap 2): the children apart are read only for a parent whose array is
//! full, newest first up to the limit through `{parent, sort}`, and merged
//! with the array's in the include's order, cut to the limit. The code
//! once read every child apart on every run, unsorted, where the plan
//! priced that query "once every N runs".

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

/// The plan's step and each language: sorted and cut, run only for a
/// full array, merged.
#[test]
fn an_outlier_include_reads_apart_only_for_a_full_array_and_merges() {
    let (_, d) = crate::fixtures::load("outlier-include-newest");
    let plan = d
        .operations
        .iter()
        .find(|p| p.operation == "track")
        .expect("track");
    let rest = plan.steps.last().expect("a step");
    assert_eq!(rest.sort, vec![("ts".to_string(), -1)]);
    assert_eq!(rest.limit, Some(5));
    let full = rest.if_full.as_deref().expect("only for a full array");
    assert_eq!((full.step, full.array.as_str()), (1, "scans"));
    let every = rest.every.expect("priced once every N runs") as f64;
    // The plan's round trips are the code's: one, and the rest once in `every`.
    assert!((plan.cost.round_trips - (1.0 + 1.0 / every)).abs() < 1e-9);
    let ops = cookbook::op_codes(&d);
    let op = ops.iter().find(|o| o.name == "track").expect("track");
    let n = full.threshold;
    let py = cookbook::python_function(op);
    assert!(
        py.contains(&format!(
            "[x for _parent in parcel if len(_parent.get(\"scans\") or []) >= {n} for x in list(db[\"scan\"].find({{\"parcel\": {{\"$in\": _ids([_parent], \"_id\")}}}}).sort([(\"ts\", -1)]).limit(5))]"
        )),
        "{py}"
    );
    assert!(
        py.contains("scans_merged = [_newest(t.get(\"scans\", []) + [x for x in scan if x.get(\"parcel\") == t[\"_id\"]], [(\"ts\", -1)], 5) for t in parcel]"),
        "{py}"
    );
    for js in [cookbook::mongosh_function(op), cookbook::node_function(op)] {
        assert!(
            js.contains(&format!(
                "parcel.filter((_parent) => (_parent[\"scans\"] || []).length >= {n})"
            )),
            "{js}"
        );
        assert!(js.contains(".sort({\"ts\": -1}).limit(5)"), "{js}");
        assert!(
            js.contains("const scans_merged = parcel.map((t) => newest((t[\"scans\"] || []).concat(scan.filter((x) => String(x[\"parcel\"]) === String(t._id))), [[\"ts\", -1]], 5));"),
            "{js}"
        );
    }
}

/// A batch of parents read with their newest children (embed46): the
/// rest is read once for each full parent, its limit that parent's, and
/// priced a query for each of the parents read. One query cut to 5 per
/// parent read over them all could give one parent every slot.
#[test]
fn an_outlier_include_of_several_parents_reads_each_parent_apart() {
    let (_, d) = crate::fixtures::load("outlier-include-newest");
    let plan = d
        .operations
        .iter()
        .find(|p| p.operation == "track_batch")
        .expect("track_batch");
    let parents = plan.steps[0].documents;
    assert!(parents > 1.0, "a batch reads several parcels: {parents}");
    let rest = plan.steps.last().expect("a step");
    assert_eq!(rest.limit, Some(5), "the limit is each parcel's");
    let full = rest.if_full.as_deref().expect("only for a full array");
    assert!(full.each, "once for each full parcel");
    let every = rest.every.expect("priced once every N runs") as f64;
    assert!(
        (plan.cost.round_trips - (1.0 + parents / every)).abs() < 1e-9,
        "a query for each full parcel: {} vs 1 + {parents}/{every}",
        plan.cost.round_trips
    );
    assert!(
        (rest.documents - 5.0 * parents).abs() < 1e-9,
        "{}",
        rest.documents
    );
}

/// Against the server, in each language
/// (scripts/testenv/check_outlier_newest.py): a parcel with a full array
/// and 10 newer scans apart gives those newest 5; a parcel with room gives
/// its 3 embedded scans, and nothing is read apart for it.
#[test]
fn an_outlier_include_of_the_newest_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("outlier-include-newest");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("outlier-include-newest", "squill_outlier_newest", false),
        ("check_outlier_newest.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} track(A): the newest 5 scans, all kept apart",
            "ok: {lang} track(B): its 3 embedded scans, newest first",
            "ok: {lang} track_batch(b1): each parcel's own newest scans",
        ],
    );
}

/// The same reads under a tenant (`carrier`), against the server in
/// each language (outcount48): the reads find the parcels by tracking or
/// batch within the caller's carrier, the guard and merge hold, and a
/// parcel of another carrier with the same tracking never comes back.
/// REVIEW47 item 7 fixed the plan, which no server had run.
#[test]
fn an_outlier_include_under_a_tenant_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let model =
        crate::inputs::model_file::parse("oit.yaml", &under_a_tenant()).expect("a valid model");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("a design");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("outlier-include-tenant", "squill_outlier_tenant", false),
        ("check_outlier_newest.py", &["carrier"]),
    );
    assert!(!out.contains("FAIL"), "{out}");
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} track(A): the newest 5 scans, all kept apart",
            "ok: {lang} track(B): its 3 embedded scans, newest first",
            "ok: {lang} track_batch(b1): each parcel's own newest scans",
        ],
    );
}

/// The fixture with the review's tenant, a carrier of parcels.
fn under_a_tenant() -> String {
    include_str!("../../tests/fixtures/outlier-include-newest.yaml")
        .replacen(
            "entities:\n",
            "tenant: {entity: carrier, largest: 0.05}\nentities:\n  carrier: {count: 100, fields: {name: string(20)}}\n",
            1,
        )
        .replacen(
            "relationships:\n",
            "relationships:\n  parcels: {parent: carrier, child: parcel, children: {min: 0, typical: 10000, max: 500000}, child_field: carrier}\n",
            1,
        )
}

/// Under a tenant (REVIEW47 item 7): the reads find the tenant by its id
/// first, a step the plan drops, and the full-array test once kept the
/// dropped step's numbering: it named the read apart itself, and the code
/// lost its per-parent loop, its guard and its merge. Both reads keep them.
#[test]
fn an_outlier_include_under_a_tenant_keeps_its_guard_and_merge() {
    let yaml = under_a_tenant();
    let model = crate::inputs::model_file::parse("oit.yaml", &yaml).expect("a valid model");
    let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("a design");
    let ops = cookbook::op_codes(&d);
    for name in ["track", "track_batch"] {
        let plan = d
            .operations
            .iter()
            .find(|p| p.operation == name)
            .expect(name);
        let rest = plan.steps.last().expect("a step");
        let full = rest.if_full.as_deref().expect("only for a full array");
        assert_eq!((full.step, full.array.as_str()), (1, "scans"), "{name}");
        let op = ops.iter().find(|o| o.name == name).expect(name);
        let py = cookbook::python_function(op);
        assert!(
            py.contains("for _parent in parcel if len(_parent.get(\"scans\") or []) >= "),
            "{py}"
        );
        assert!(py.contains("scans_merged = ["), "{py}");
        for js in [cookbook::mongosh_function(op), cookbook::node_function(op)] {
            assert!(js.contains("const scans_merged = parcel.map("), "{js}");
        }
    }
}
