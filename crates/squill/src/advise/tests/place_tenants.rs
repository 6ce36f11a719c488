//! A place search under a tenant (review41 D4): a tenant's places lie in
//! its own area, so `density` counts the tenant's places where it has
//! them, and the tenant named beside a place thins nothing. The search
//! finds no more than the tenant holds.

use super::design_of as design;
use super::write_many::geo2;
use crate::design::{Design, OperationPlan};

fn plan<'d>(d: &'d Design, op: &str) -> &'d OperationPlan {
    d.operations.iter().find(|p| p.operation == op).unwrap()
}

/// The orders within 1 km at 20 a km²: the same with the city named as
/// without it (the city's share of all orders once multiplied them, 63 →
/// 0.63).
#[test]
fn the_tenant_does_not_thin_the_places_near_a_point() {
    let inside = 20.0 * std::f64::consts::PI;
    for tenant in ["", "tenant: city\n"] {
        let d = design(&geo2(tenant));
        let step = &plan(&d, "purge_near").steps[0];
        assert!((step.documents - inside).abs() < 1e-6, "{tenant}{:?}", step);
    }
}

/// Ten orders a city, 20 a km²: a search within 10 km holds 6,283 orders
/// at that density, but a city's search finds its ten at most.
#[test]
fn a_place_search_under_a_tenant_finds_no_more_than_the_tenant_holds() {
    let text = geo2("tenant: city\n")
        .replace("count: 2000000", "count: 1000")
        .replace("typical: 20000, max: 100000", "typical: 10, max: 40")
        .replace("near(1 km)", "near(10 km)");
    let d = design(&text);
    let step = &plan(&d, "purge_near").steps[0];
    assert!((step.documents - 10.0).abs() < 1e-6, "{step:?}");
}

/// audit49 A5: a read of the places near a point under a tenant finds
/// what the same filter on a write finds (one rule for both).
#[test]
fn a_place_read_under_a_tenant_finds_what_a_write_finds() {
    let inside = 20.0 * std::f64::consts::PI;
    for tenant in ["", "tenant: city\n"] {
        let text = geo2(tenant).replace(
            "  purge_near:\n",
            "  list_near:\n    read: order\n    filter: {pickup: near(1 km)}\n    rate: 5\n  purge_near:\n",
        );
        let d = design(&text);
        for op in ["list_near", "purge_near"] {
            let step = &plan(&d, op).steps[0];
            assert!(
                (step.documents - inside).abs() < 1e-6,
                "{tenant}{op} {step:?}"
            );
        }
    }
}
