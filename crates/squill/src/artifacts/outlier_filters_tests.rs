//! An outlier's children read through their parent by a field of their
//! own (outcount48): the parent's array is tested on the server, and a
//! count adds the array's matching elements, counted on the server, to
//! the rest's count, read only for a full parent. The count once matched
//! the parent's id against the children's own ids (`countDocuments scan
//! {_id: in (ids from step 1), kind}`) and counted nothing, and the list
//! returned the parent's whole array, untested.

use super::external_tests::{run_check_script, says_in_each_language, server_tools};
use super::*;

fn plan<'d>(d: &'d crate::design::Design, name: &str) -> &'d crate::design::OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .expect("the operation")
}

fn code(d: &crate::design::Design, name: &str) -> [String; 3] {
    let ops = cookbook::op_codes(d);
    let op = ops.iter().find(|o| o.name == name).expect("the op");
    [
        cookbook::python_function(op),
        cookbook::mongosh_function(op),
        cookbook::node_function(op),
    ]
}

/// The count: the parcel found by its id returns the number of its
/// scans of the kind (`$size` of `$filter`) and its array's stored
/// length; the rest is a `countDocuments` of the parcel's scans of the
/// kind, run only for a full parcel, and the function returns the sum.
#[test]
fn an_outlier_count_adds_the_arrays_matches_to_the_rest() {
    let (_, d) = crate::fixtures::load("outlier-child-filters");
    let p = plan(&d, "kind_count");
    assert_eq!(p.steps.len(), 2, "{:?}", p.steps);
    let holder = &p.steps[0];
    assert_eq!(holder.collection, "parcel");
    let slice = holder.slices.first().expect("the array returned counted");
    assert!(slice.count && slice.stored, "{slice:?}");
    assert_eq!(
        slice
            .filter
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["scans.kind"]
    );
    let rest = &p.steps[1];
    assert_eq!(rest.collection, "scan");
    assert!(rest.count.is_some(), "the rest is counted");
    let full = rest.if_full.as_deref().expect("only for a full parcel");
    assert_eq!((full.step, full.array.as_str()), (1, "scans"));
    assert!(
        rest.filter.iter().any(|f| f.path == "parcel")
            && rest.filter.iter().any(|f| f.path == "kind"),
        "the rest's parcel and kind: {:?}",
        rest.filter
    );
    // The price: the parcel, and the rest once in so many runs.
    let every = rest.every.expect("once every N runs") as f64;
    assert!(
        (p.cost.round_trips - (1.0 + 1.0 / every)).abs() < 1e-9,
        "{}",
        p.cost.round_trips
    );
    let filtered = r#""scans": {"$size": {"$filter": {"input": {"$ifNull": ["$scans", []]}, "cond": {"$eq": ["$$this.kind", kind]}}}}, "_stored_scans": {"$size": {"$ifNull": ["$scans", []]}}"#;
    let [py, sh, node] = code(&d, "kind_count");
    for text in [&py, &sh, &node] {
        assert!(text.contains(filtered), "{text}");
        assert!(!text.contains(r#""_id": {"$in""#), "{text}");
    }
    assert!(
        py.contains(r#"if any((d.get("_stored_scans") or 0) >= "#) && py.contains(" else 0\n"),
        "{py}"
    );
    assert!(
        py.contains(r#"scans_count = sum(t.get("scans") or 0 for t in parcel) + scan"#),
        "{py}"
    );
    for js in [&sh, &node] {
        assert!(
            js.contains(
                r#"const scans_count = parcel.reduce((n, t) => n + (t["scans"] || 0), 0) + scan;"#
            ),
            "{js}"
        );
        assert!(js.contains(r#""scans_count": scans_count"#), "{js}");
    }
    // Every scan of the parcel: the array's size, no test.
    let [py, ..] = code(&d, "scan_count");
    assert!(
        py.contains(r#""scans": {"$size": {"$ifNull": ["$scans", []]}}"#),
        "{py}"
    );
    assert!(py.contains("scans_count = "), "{py}");
}

/// The list: the array comes back filtered on the server in the read's
/// order and cut to its limit, with its stored length, and the rest is
/// read only when that length says the parcel is full.
#[test]
fn an_outlier_list_by_a_child_field_filters_the_array_on_the_server() {
    let (_, d) = crate::fixtures::load("outlier-child-filters");
    let p = plan(&d, "kind_list");
    let slice = p.steps[0]
        .slices
        .first()
        .expect("the array returned filtered");
    assert!(!slice.count && slice.stored, "{slice:?}");
    assert_eq!(slice.limit, Some(10));
    assert_eq!(slice.sort, vec![("ts".to_string(), -1)]);
    for text in code(&d, "kind_list") {
        assert!(
            text.contains(r#"{"$filter": {"input": {"$ifNull": ["$scans", []]}, "cond": {"$eq": ["$$this.kind", kind]}}}"#),
            "{text}"
        );
        assert!(text.contains(r#""_stored_scans""#), "{text}");
    }
    let [py, ..] = code(&d, "kind_list");
    assert!(
        py.contains(r#"for _parent in parcel if (_parent.get("_stored_scans") or 0) >= "#),
        "{py}"
    );
}

/// Against the server, in each language
/// (scripts/testenv/check_outlier_filters.py): a parcel with a full array
/// and scans apart, and a parcel with room and a stray scan apart.
#[test]
fn outlier_children_by_their_own_fields_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = crate::fixtures::load("outlier-child-filters");
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        ("outlier-child-filters", "squill_outlier_filters", false),
        ("check_outlier_filters.py", &[]),
    );
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} kind_count(A, hub):",
            "ok: {lang} kind_count(B, hub): 2 counted",
            "ok: {lang} kind_count(B, bike): 0 counted",
            "ok: {lang} scan_count(A, all):",
            "ok: {lang} scan_count(B, all): 5 counted",
            "ok: {lang} kind_list(A, hub): the newest 10 hubs",
            "ok: {lang} kind_list(B, hub): its 2 embedded hubs",
        ],
    );
}

/// The fixture under a tenant, a carrier of parcels (model-level
/// tenancy): every operation names its carrier.
fn under_a_tenant() -> (crate::model::Model, crate::design::Design) {
    let yaml = include_str!("../../tests/fixtures/outlier-child-filters.yaml")
        .replacen(
            "entities:\n",
            "tenant: {entity: carrier, largest: 0.05}\nentities:\n  carrier: {count: 100, fields: {name: string(20)}}\n",
            1,
        )
        .replacen(
            "relationships:\n",
            "relationships:\n  parcels: {parent: carrier, child: parcel, children: {min: 0, typical: 10000, max: 500000}, child_field: carrier}\n",
            1,
        );
    let model = crate::inputs::model_file::parse("oct.yaml", &yaml).expect("a valid model");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("a design");
    (model, design)
}

/// Under a tenant the count and the list take the same route, and the
/// parcel's find and the rest's query both test the carrier. They once
/// kept the old plan (`scan { carrier, _id: in (ids from step 1), kind }`):
/// the tenant's test kept the read off the parent's route.
#[test]
fn under_a_tenant_the_parcel_and_the_rest_test_the_carrier() {
    let (_, d) = under_a_tenant();
    for name in ["kind_count", "kind_list"] {
        let p = plan(&d, name);
        assert_eq!(p.steps.len(), 2, "{name}: {:?}", p.steps);
        assert!(!p.steps[0].slices.is_empty(), "{name}: the array filtered");
        for s in &p.steps {
            assert!(
                s.filter.iter().any(|f| f.path == "carrier"),
                "{name}: {} tests the carrier: {:?}",
                s.collection,
                s.filter
            );
            assert!(
                !s.filter
                    .iter()
                    .any(|f| f.path == "_id" && s.collection == "scan"),
                "{name}"
            );
        }
        assert_eq!(p.steps[0].index.as_deref(), Some("_id_"), "{name}");
    }
}

/// Against the server, under the tenant: the same truths, every document
/// of carrier t1, and the reads pass it.
#[test]
fn outlier_children_under_a_tenant_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = under_a_tenant();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            "outlier-child-filters-tenant",
            "squill_outlier_filters_t",
            false,
        ),
        ("check_outlier_filters.py", &["carrier"]),
    );
    assert!(!out.contains("FAIL"), "{out}");
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} kind_count(A, hub):",
            "ok: {lang} scan_count(A, all):",
            "ok: {lang} kind_list(A, hub): the newest 10 hubs",
            "ok: {lang} kind_list(B, hub): its 2 embedded hubs",
            "ok: {lang} kind_count(X, hub): 0 counted, a parcel of another carrier",
            "ok: {lang} kind_list(X, hub): nothing of another carrier's parcel",
        ],
    );
}

/// The fixture with scans that expire 30 days after `ts` (fixe48).
fn expiring() -> (crate::model::Model, crate::design::Design) {
    let yaml = include_str!("../../tests/fixtures/outlier-child-filters.yaml")
        .replacen("      ts: date\n", "      ts: {type: date, required: true}\n", 1)
        .replacen(
            "      kind: {type: string(10), distinct: 12}\n",
            "      kind: {type: string(10), distinct: 12}\n    expires: {from: ts, after: 30 days}\n",
            1,
        );
    let model = crate::inputs::model_file::parse("oce.yaml", &yaml).expect("a valid model");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("a design");
    (model, design)
}

/// Scans that expire: the array's expired elements are left out of the
/// list and the count by their date against now (nothing deletes them
/// from the array), and the rest's count tests the life against now.
/// The count once asked its caller for `ts_from, ts_to` (the life turned
/// into a caller's range) and the list returned expired scans.
#[test]
fn an_outlier_of_expiring_children_reads_and_counts_the_live_ones() {
    let (_, d) = expiring();
    for name in ["kind_count", "scan_count", "kind_list"] {
        let p = plan(&d, name);
        let slice = p.steps[0].slices.first().expect("the array returned cut");
        let live = slice.unexpired.as_ref().expect("the live elements");
        assert_eq!((live.field.as_str(), live.seconds), ("ts", 30 * 86_400));
        assert!(
            slice.filter.iter().all(|f| f.path != "scans.ts"),
            "{name}: {slice:?}"
        );
        let [py, sh, node] = code(&d, name);
        assert!(
            py.contains(r#"{"$gt": ["$$this.ts", _alive_since(2592000)]}"#),
            "{py}"
        );
        for text in [&py, &sh, &node] {
            assert!(!text.contains("ts_from"), "{name}: {text}");
        }
        for js in [&sh, &node] {
            assert!(js.contains("new Date(Date.now() - 2592000 * 1000)"), "{js}");
        }
    }
    for name in ["kind_count", "scan_count"] {
        let rest = &plan(&d, name).steps[1];
        let ts = rest
            .filter
            .iter()
            .find(|f| f.path == "ts")
            .expect("the life");
        assert_eq!(
            ts.value_from,
            crate::design::ValueSource::Unexpired {
                seconds: 30 * 86_400
            },
            "{name}"
        );
    }
}

/// Against the server: expired hubs in B's array and kept apart for A
/// are neither listed nor counted.
#[test]
fn outlier_expiring_children_against_a_server() {
    let Some((uri, python, mongosh)) = server_tools() else {
        return;
    };
    let (model, design) = expiring();
    let out = run_check_script(
        (&uri, &python, &mongosh),
        (&model, &design),
        (
            "outlier-child-filters-expiring",
            "squill_outlier_filters_e",
            false,
        ),
        ("check_outlier_filters.py", &["--expiring"]),
    );
    assert!(!out.contains("FAIL"), "{out}");
    says_in_each_language(
        &out,
        "",
        &[
            "ok: {lang} kind_count(A, hub):",
            "ok: {lang} kind_count(B, hub): 2 counted",
            "ok: {lang} scan_count(A, all):",
            "ok: {lang} scan_count(B, all): 5 counted",
            "ok: {lang} kind_list(B, hub): its 2 embedded hubs",
        ],
    );
}

/// A figure over a subset of an outlier's children
/// (`count(scans where kind = hub)`): the rest's query tests the subset
/// as the array's children are tested. It once read every scan kept
/// apart, the `where` dropped (review48 A7).
#[test]
fn an_outlier_figure_over_a_subset_tests_the_subset_apart() {
    let yaml = include_str!("../../tests/fixtures/outlier-child-filters.yaml").replacen(
        "operations:\n",
        "operations:\n  parcel_page:\n    read: parcel\n    rate: 200\n    filter: {_id: eq}\n    aggregates: [count(scans where kind = hub)]\n",
        1,
    );
    let model = crate::inputs::model_file::parse("oca.yaml", &yaml).expect("a valid model");
    let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("a design");
    let p = plan(&d, "parcel_page");
    let rest = p
        .steps
        .iter()
        .find(|s| s.collection == "scan")
        .expect("the scans kept apart");
    assert!(
        rest.conditions.iter().any(|c| c.path == "kind"
            && matches!(&c.value, crate::model::Literal::Text(v) if v == "hub")),
        "{rest:?}"
    );
    // Read only for a parent whose array is full, on an index that leads
    // with the parent: it once ran on every read, through a collection
    // scan (review48 A7).
    let full = rest.if_full.as_ref().expect("read only for a full parent");
    assert_eq!(full.array, "scans");
    assert!(
        rest.index
            .as_deref()
            .is_some_and(|i| i.starts_with("parcel_1")),
        "{rest:?}"
    );
    let [py, sh, node] = code(&d, "parcel_page");
    for text in [&py, &sh, &node] {
        assert!(text.contains(r#""kind": "hub""#), "{text}");
        assert!(text.contains(&format!(">= {}", full.threshold)), "{text}");
    }
}

fn outlier_figure() -> (crate::model::Model, crate::design::Design) {
    let yaml = include_str!("../../tests/fixtures/outlier-child-filters.yaml").replacen(
        "operations:\n",
        "operations:\n  parcel_page:\n    read: parcel\n    rate: 200\n    filter: {_id: eq}\n    aggregates: [count(scans where kind = hub)]\n",
        1,
    );
    let model = crate::inputs::model_file::parse("oca.yaml", &yaml).expect("a valid model");
    let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("a design");
    (model, d)
}

/// Against the server: a parcel whose array has room has no scans apart
/// to read, so a stray scan kept apart for it is not read; a full
/// parcel's scans apart of the subset are (review48 A7: the code read
/// them for every parcel).
#[test]
fn an_outlier_figures_rest_is_read_for_a_full_parent_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, d) = outlier_figure();
    let p = plan(&d, "parcel_page");
    let rest = p
        .steps
        .iter()
        .find(|s| s.collection == "scan")
        .expect("the rest");
    // The array's cap, whether or not the step says it is gated.
    let n = rest.if_full.as_ref().map_or(1700, |f| f.threshold);
    let script = format!(
        r#"
import sys
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
db["parcel"].drop()
db["scan"].drop()
kinds = ["hub", "door", "van"]
db["parcel"].insert_one({{"_id": "A", "tracking": "a", "scans": [{{"_id": i, "kind": kinds[i % 3]}} for i in range(5)]}})
db["parcel"].insert_one({{"_id": "F", "tracking": "f", "scans": [{{"_id": 10000 + i, "kind": kinds[i % 3]}} for i in range({n})]}})
db["scan"].insert_many([
    {{"_id": 1, "parcel": "A", "kind": "hub"}},
    {{"_id": 2, "parcel": "F", "kind": "hub"}},
    {{"_id": 3, "parcel": "F", "kind": "hub"}},
    {{"_id": 4, "parcel": "F", "kind": "van"}},
])
a = cookbook.parcel_page(db, "A")
apart = [s["_id"] for s in a["scan"]]
assert apart == [], ("A has room: nothing apart is read", apart)
print("ok: A (room in its array): nothing read apart")
f = cookbook.parcel_page(db, "F")
apart = sorted(s["_id"] for s in f["scan"])
assert apart == [2, 3], ("F is full: its hubs apart", apart)
print("ok: F (full): its 2 hubs apart read")
"#
    );
    let out = super::external_tests::run_inline_python(
        (&uri, &python),
        (&model, &d),
        ("outlier-figure-rest", "squill_outlier_figure_rest"),
        &script,
    );
    assert!(out.contains("ok: A (room in its array)"), "{out}");
    assert!(out.contains("ok: F (full): its 2 hubs apart read"), "{out}");
}
