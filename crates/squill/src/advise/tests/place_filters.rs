//! A place filter outside the plain read (audit43 O, U, P): a claim, a
//! read a tenant scopes, a search sorted by another field. Each gets the
//! read's `2dsphere` key after its equalities (the tenant first) and its
//! radius, from the one place that makes a step's tests and keys
//! (`costs/plan/filter_keys.rs`).

use super::design_of as design;
use crate::design::{Action, Design, OperationPlan, SPHERE_2D};
use crate::model::FilterOp;

fn plan<'d>(d: &'d Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

/// The keys of `coll`'s index the step `op` uses.
fn keys_used(d: &Design, coll: &str, op: &str) -> Vec<(String, i32)> {
    let c = d.collections.iter().find(|c| c.name == coll).unwrap();
    let name = plan(d, op).steps[0].index.clone().unwrap_or_default();
    c.indexes
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("{name} in {:?}", c.indexes))
        .keys
        .clone()
}

/// Orders at 20 a km² (300 where densest), one in 6 of each status; a
/// courier claims a ready one near them (`sort` given or not).
fn orders(sort: &str) -> String {
    format!(
        "name: dispatch
entities:
  order:
    count: 200000000
    density: {{typical: 20, max: 300}}
    fields:
      status: {{type: string(10), enum: [placed, ready, assigned, picked, delivered, cancelled]}}
      ready_at: date
      pickup: point
operations:
  place:
    insert: order
    rate: 300
  grab_nearby:
    claim: order
    filter: {{status: eq, pickup: near(3 km)}}
{sort}    when: [\"status = ready\"]
    changes: [status]
    rate: 100
"
    )
}

/// The ready orders inside 3 km at `per_km2`.
fn ready_inside(per_km2: f64) -> f64 {
    per_km2 * std::f64::consts::PI * 9.0 / 6.0
}

/// O: a claim near a point is one `findOneAndUpdate` with `$near` within
/// the model's radius (the nearest first), on `{status: 1, pickup:
/// "2dsphere"}` partial on the ready orders. The nearest is the first the
/// walk finds that passes: one key and one document, as a read near a
/// point stops at its limit (audit46 D4: it was priced at every ready
/// order in the circle, while a read of the 25 nearest was priced at
/// 25). It once keyed the point on a B-tree and tested
/// `$maxDistance: 0`.
#[test]
fn a_claim_near_a_point_keys_the_place_and_keeps_its_radius() {
    let d = design(&orders(""));
    let p = plan(&d, "grab_nearby");
    assert_eq!(p.steps.len(), 1);
    let step = &p.steps[0];
    assert_eq!(step.action, Action::FindOneAndUpdate);
    let near = step.filter.iter().find(|f| f.path == "pickup").unwrap();
    assert_eq!(near.op, FilterOp::Near);
    assert_eq!(near.radius_m, Some(3000.0));
    assert_eq!(
        keys_used(&d, "order", "grab_nearby"),
        vec![("status".to_string(), 1), ("pickup".to_string(), SPHERE_2D)]
    );
    let index = d.collections[0]
        .indexes
        .iter()
        .find(|i| i.keys.iter().any(|(_, t)| *t == SPHERE_2D))
        .unwrap();
    assert!(!index.partial.is_empty(), "{index:?}");
    assert!(
        (p.cost.index_keys_examined - 1.0).abs() < 1e-9,
        "{:?}",
        p.cost
    );
    assert!((p.cost.documents_examined - 1.0).abs() < 1e-9);
    assert!(step.densest.is_none(), "{:?}", step.densest);
    // The cookbook: `$near` with the radius in metres, in each language.
    let ops = crate::artifacts::cookbook::op_codes(&d);
    let py = crate::artifacts::cookbook::python(&d, &ops);
    assert!(
        py.contains(r#""pickup": {"$near": {"$geometry": pickup, "$maxDistance": 3000}}"#),
        "{py}"
    );
}

/// O, with the claim's own order (the oldest ready order within 3 km):
/// `$near` would impose the distance's order, so the area is a
/// `$geoWithin` circle of the same radius and the sort picks; the index
/// keys no sort after the place (it gives no order there).
#[test]
fn a_claim_in_an_area_with_its_own_order_tests_a_circle() {
    let d = design(&orders("    sort: ready_at\n"));
    let step = &plan(&d, "grab_nearby").steps[0];
    let within = step.filter.iter().find(|f| f.path == "pickup").unwrap();
    assert_eq!(within.op, FilterOp::Within);
    assert_eq!(within.radius_m, Some(3000.0));
    assert_eq!(step.sort, vec![("ready_at".to_string(), 1)]);
    // Sorted by its own field: every ready order in the circle is read
    // and sorted, at the typical density and where densest (audit43 O).
    let p = plan(&d, "grab_nearby");
    assert!(
        (p.cost.index_keys_examined - ready_inside(20.0)).abs() < 1e-6,
        "{:?}",
        p.cost
    );
    let dense = step.densest.as_deref().expect("a worst case");
    assert!(
        (dense.examined - ready_inside(300.0)).abs() < 1e-6,
        "{dense:?}"
    );
    assert_eq!(
        keys_used(&d, "order", "grab_nearby"),
        vec![("status".to_string(), 1), ("pickup".to_string(), SPHERE_2D)]
    );
    let ops = crate::artifacts::cookbook::op_codes(&d);
    let py = crate::artifacts::cookbook::python(&d, &ops);
    assert!(
        py.contains(r#""pickup": {"$geoWithin": {"$centerSphere": [pickup["coordinates"], 3000 / 6378100]}}"#),
        "{py}"
    );
}

/// U: S15's `nearby_open` under a tenant (restaurants belong to a chain):
/// the read keys the tenant, then the equality, then the place's
/// `2dsphere` key, and keeps its 3 km. The tenant's filter once sent the
/// read down a path that keyed the point on a B-tree, with radius 0.
#[test]
fn s15_nearby_open_under_a_tenant_keys_the_tenant_then_the_place() {
    let text = super::golden::example_text("scenarios/s15-restaurants")
        .replace("name: s15-restaurants\n", "name: s15-restaurants\ntenant: chain\n")
        .replace(
            "entities:\n",
            "entities:\n  chain:\n    count: 2000\n    fields:\n      name: string(30)\n",
        )
        .replace(
            "relationships:\n",
            "relationships:\n  chain_restaurants:\n    parent: chain\n    child: restaurant\n    children: {min: 1, typical: 1000, max: 40000}\n    child_field: chain\n",
        );
    let d = design(&text);
    let step = &plan(&d, "nearby_open").steps[0];
    let near = step.filter.iter().find(|f| f.path == "location").unwrap();
    assert_eq!(near.op, FilterOp::Near);
    assert_eq!(near.radius_m, Some(3000.0));
    assert_eq!(
        keys_used(&d, "restaurant", "nearby_open"),
        vec![
            ("chain".to_string(), 1),
            ("open".to_string(), 1),
            ("location".to_string(), SPHERE_2D)
        ]
    );
}

/// P: the best-rated open restaurants within 2 km. A `2dsphere` key gives
/// no order on the rating: every open restaurant in the circle is read
/// and sorted before the limit (5 a km² × 4π km² × ½), 60 a km² where
/// densest; the index keys no rating after the place. Ordered by the
/// distance (no sort) the same search stops at the limit.
#[test]
fn a_search_sorted_by_another_field_reads_the_whole_area() {
    let text = |sort: &str| {
        format!(
            "name: places
entities:
  restaurant:
    count: 300000
    density: {{typical: 5, max: 60}}
    fields:
      name: string(40)
      location: point
      open: bool
      rating: double
operations:
  best_nearby:
    read: restaurant
    filter: {{open: eq, location: near(2 km)}}
{sort}    limit: 10
    rate: 500
"
        )
    };
    let inside = |per_km2: f64| per_km2 * std::f64::consts::PI * 4.0 / 2.0;
    let d = design(&text("    sort: -rating\n"));
    let p = plan(&d, "best_nearby");
    assert_eq!(p.steps[0].documents, 10.0);
    assert!(
        (p.cost.documents_examined - inside(5.0)).abs() < 1e-6,
        "{:?}",
        p.cost
    );
    assert!((p.cost.index_keys_examined - inside(5.0)).abs() < 1e-6);
    let dense = p.steps[0].densest.as_deref().expect("a densest line");
    assert!((dense.examined - inside(60.0)).abs() < 1e-6, "{dense:?}");
    assert_eq!(dense.documents, 10.0);
    assert_eq!(
        keys_used(&d, "restaurant", "best_nearby"),
        vec![("open".to_string(), 1), ("location".to_string(), SPHERE_2D)]
    );
    // Nearest first: the walk stops at the limit (31 in the area).
    let d = design(&text(""));
    let p = plan(&d, "best_nearby");
    assert!(
        (p.cost.documents_examined - 10.0).abs() < 1e-9,
        "{:?}",
        p.cost
    );
}
