//! Places beyond S15 (issue 41): the worst case of a search where the
//! places are densest, and several places in one instance (an array of
//! points, a multikey `2dsphere` index). Each beside the case that
//! shows nothing more.

use crate::advise::advise;
use crate::design::{Design, OperationPlan, SPHERE_2D};
use crate::settings::Settings;

/// Restaurants at `density`, read near a point by `filter` with `limit`.
fn restaurants(density: &str, location: &str, limit: Option<u64>) -> Design {
    let limit = limit.map_or(String::new(), |l| format!("    limit: {l}\n"));
    let text = format!(
        "name: places
entities:
  restaurant:
    count: 2000000
    density: {density}
    fields:
      name: string(30)
      open: bool
      {location}
operations:
  nearby_open:
    read: restaurant
    rate: 3000
    filter: {{open: eq, location: near(3 km)}}
{limit}    fields: [name, location]
  move:
    update: restaurant
    filter: {{_id: eq}}
    changes: [location]
    rate: 0.001
"
    );
    let model = crate::inputs::model_file::parse("places.yaml", &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    advise(&model, &Settings::default(), None).unwrap()
}

fn plan<'d>(d: &'d Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

/// Open restaurants inside the 3 km circle at `per_km2`.
fn open_inside(per_km2: f64) -> f64 {
    per_km2 * std::f64::consts::PI * 9.0 / 2.0
}

/// Without a limit the search finds every open restaurant inside the
/// radius: priced at the typical 50 a km², it states the 400 of the
/// densest centre beside it, found, examined and read.
#[test]
fn a_search_states_what_it_finds_where_places_are_densest() {
    let d = restaurants("{typical: 50, max: 400}", "location: point", None);
    let step = &plan(&d, "nearby_open").steps[0];
    assert!((step.documents - open_inside(50.0)).abs() < 1e-6);
    let dense = step.densest.as_deref().expect("a worst case");
    assert!(
        (dense.documents - open_inside(400.0)).abs() < 1e-6,
        "{dense:?}"
    );
    assert!(
        (dense.examined - open_inside(400.0)).abs() < 1e-6,
        "{dense:?}"
    );
    let cost = &plan(&d, "nearby_open").cost;
    // The plan's cost stays the typical one; the worst case is beside it.
    assert!((cost.documents_examined - open_inside(50.0)).abs() < 1e-6);
    assert!(
        dense.bytes_read > cost.bytes_read * 7.9,
        "{dense:?} {cost:?}"
    );
    let text = crate::outputs::design::text::render(&d, false);
    assert!(
        text.contains("where the places are densest (the density's max): 5,655 documents found"),
        "{text}"
    );
    assert!(
        text.contains("read; not in the price: the model gives no `densest_share`"),
        "{text}"
    );
}

/// With `densest_share: 0.1`, a tenth of the searches find the centre's
/// 400 a km² and the rest the typical 50: the step's documents, the
/// documents it examines and what it reads are the mixture,
/// 0.9 × 706.9 + 0.1 × 5,654.9 = 1,201.7 documents; a share of 0 keeps
/// the typical price.
#[test]
fn a_densest_share_prices_the_mixture_of_both_places() {
    let d = restaurants(
        "{typical: 50, max: 400, densest_share: 0.1}",
        "location: point",
        None,
    );
    let expected = 0.9 * open_inside(50.0) + 0.1 * open_inside(400.0);
    let p = plan(&d, "nearby_open");
    let step = &p.steps[0];
    assert!((step.documents - expected).abs() < 1e-6, "{step:?}");
    assert!((p.cost.documents_examined - expected).abs() < 1e-6, "{p:?}");
    let dense = step.densest.as_deref().expect("a worst case");
    assert_eq!(dense.share, Some(0.1));
    assert!((dense.documents - open_inside(400.0)).abs() < 1e-6);
    let text = crate::outputs::design::text::render(&d, false);
    assert!(
        text.contains("read; priced for 10% of the searches"),
        "{text}"
    );
    let none = restaurants(
        "{typical: 50, max: 400, densest_share: 0}",
        "location: point",
        None,
    );
    let p = plan(&none, "nearby_open");
    assert!((p.cost.documents_examined - open_inside(50.0)).abs() < 1e-6);
    // A limit both places reach: the mixture of two equal figures.
    let limited = restaurants(
        "{typical: 50, max: 400, densest_share: 0.1}",
        "location: point",
        Some(20),
    );
    assert!((plan(&limited, "nearby_open").cost.documents_examined - 20.0).abs() < 1e-9);
}

/// A share outside 0..1 is refused at its line and column.
#[test]
fn a_densest_share_above_one_is_an_error_at_its_place() {
    let text = "name: places
entities:
  restaurant:
    count: 100
    density: {typical: 50, max: 400, densest_share: 1.5}
    fields:
      location: point
";
    let err = crate::inputs::model_file::parse("places.yaml", text)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("places.yaml:5:53"), "{err}");
    assert!(
        err.contains("`densest_share` is a share of the searches, found 1.5"),
        "{err}"
    );
    let negative = text.replace("1.5", "-0.2");
    let err = crate::inputs::model_file::parse("places.yaml", &negative)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("places.yaml:5:53"), "{err}");
}

/// A limit reached at both densities finds as many at either: no worst
/// case to state. One reached only in the centre: the centre finds the
/// limit where the typical place finds fewer.
#[test]
fn a_limit_reached_at_both_densities_states_nothing_more() {
    let d = restaurants("{typical: 50, max: 400}", "location: point", Some(20));
    assert_eq!(plan(&d, "nearby_open").steps[0].densest, None);
    let even = restaurants("{typical: 50, max: 50}", "location: point", None);
    assert_eq!(plan(&even, "nearby_open").steps[0].densest, None);
    let sparse = restaurants("{typical: 0.25, max: 400}", "location: point", Some(20));
    let step = &plan(&sparse, "nearby_open").steps[0];
    assert!((step.documents - open_inside(0.25)).abs() < 1e-6);
    assert_eq!(step.densest.as_deref().map(|x| x.documents), Some(20.0));
}

/// A chain's shops in one document: `locations: point[3]` is searched
/// near a point as a single location is, with a `2dsphere` index after
/// the equality; the index is multikey, three entries an instance.
#[test]
fn an_array_of_points_is_searched_and_indexed_per_element() {
    let one = restaurants("{typical: 50, max: 400}", "location: point", Some(20));
    let three = restaurants("{typical: 50, max: 400}", "location: point[3]", Some(20));
    let c = three
        .collections
        .iter()
        .find(|c| c.name == "restaurant")
        .unwrap();
    assert!(
        c.indexes
            .iter()
            .any(|i| i.keys == vec![("open".to_string(), 1), ("location".to_string(), SPHERE_2D)]),
        "{:?}",
        c.indexes
    );
    assert!((plan(&three, "nearby_open").cost.documents_examined - 20.0).abs() < 1e-9);
    let extra = three.totals.index_entries - one.totals.index_entries;
    assert!((extra - 2.0 * 2_000_000.0).abs() < 1.0, "{extra}");
}
