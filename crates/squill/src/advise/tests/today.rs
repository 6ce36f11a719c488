//! `current:` gives the layouts a deployment has today: advise prices the
//! workload on them beside its own design, says what each change gains
//! alone, and says so when there is nothing to change.

use super::golden::example;
use crate::advise::advise;
use crate::design::Layout;
use crate::finding::Severity;
use crate::model::{CurrentLayout, LayoutKind, Model, Scope};
use crate::settings::Settings;

fn today(name: &str, rel: &str, layout: LayoutKind, copies: &[&str]) -> Model {
    let mut m = example(name);
    let r = m
        .relationship_ids()
        .find(|&r| m.relationship(r).name == rel)
        .unwrap();
    m.current.push(CurrentLayout {
        relationship: r,
        layout,
        copies: copies.iter().map(|c| c.to_string()).collect(),
    });
    m
}

#[test]
fn a_normalized_design_is_priced_against_the_recommendation() {
    // product-reviews alone keeps the latest reviews in the product.
    let m = today(
        "product-reviews",
        "reviews",
        LayoutKind::ParentReference,
        &[],
    );
    let d = advise(&m, &Settings::default(), None).unwrap();
    let c = d.current.as_ref().expect("a comparison");
    assert!(!c.already_best);
    assert!(c.current_totals.score > c.recommended_totals.score);
    assert_eq!(c.recommended_totals, d.totals);
    let [r] = c.relationships.as_slice() else {
        panic!("{:?}", c.relationships)
    };
    assert_eq!(r.current, Layout::ParentReference);
    assert_ne!(r.recommended, Layout::ParentReference);
    let gain = r.gain.expect("priced alone");
    assert!(gain.score > 0.0 && gain.round_trips > 0.0, "{gain:?}");
    assert_eq!(c.operations.len(), d.operations.len());
    let page = c
        .operations
        .iter()
        .find(|o| o.operation == "product_page")
        .unwrap();
    assert!(page.current.round_trips > page.recommended.round_trips);
}

#[test]
fn copies_of_today_are_priced_as_written() {
    let m = today(
        "order-customer",
        "orders",
        LayoutKind::ExtendedReference,
        &["name"],
    );
    let d = advise(&m, &Settings::default(), None).unwrap();
    let c = d.current.as_ref().unwrap();
    let Layout::ExtendedReference { fields, .. } = &c.relationships[0].current else {
        panic!("{:?}", c.relationships[0].current)
    };
    assert_eq!(fields, &["name"]);
    assert!(!c.already_best);
}

#[test]
fn a_design_of_today_that_is_the_recommendation_is_said_to_be_best() {
    let recommended = advise(&example("order-customer"), &Settings::default(), None).unwrap();
    let Layout::ExtendedReference { fields, .. } = &recommended.relationships[0].chosen else {
        panic!("order-customer copies into its orders")
    };
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    let m = today(
        "order-customer",
        "orders",
        LayoutKind::ExtendedReference,
        &fields,
    );
    let d = advise(&m, &Settings::default(), None).unwrap();
    let c = d.current.as_ref().unwrap();
    assert!(c.already_best);
    assert_eq!(c.relationships[0].gain, None);
    assert_eq!(c.current_totals.score, c.recommended_totals.score);
}

#[test]
fn without_current_there_is_no_comparison_and_an_impossible_one_is_a_finding() {
    let d = advise(&example("order-customer"), &Settings::default(), None).unwrap();
    assert!(d.current.is_none());
    // A tree path needs a tree.
    let m = today("order-customer", "orders", LayoutKind::TreePath, &[]);
    let d = advise(&m, &Settings::default(), None).unwrap();
    assert!(d.current.is_none());
    let f = d
        .findings
        .iter()
        .find(|f| f.message.contains("`current:`"))
        .expect("a finding on the design of today");
    assert_eq!(f.severity, Severity::Warning);
}

/// S11 recommends an archive of orders: a deployment that keeps every
/// order in one collection (`current: without: {archive: [order]}`) is
/// priced without it, and the archive's saving shows; without the entry
/// both designs had the archive and nothing was to change.
#[test]
fn an_archive_not_used_today_is_priced_without_it() {
    let plain = example("scenarios/s11-orders");
    let recommended = advise(&plain, &Settings::default(), None).unwrap();
    let orders = plain.relationship_by_name("orders").unwrap();
    let chosen = |d: &crate::design::Design| {
        d.relationships
            .iter()
            .find(|r| r.relationship == "orders")
            .unwrap()
            .chosen
            .layout_kind()
    };
    let mut m = plain.clone();
    m.current.push(CurrentLayout {
        relationship: orders,
        layout: chosen(&recommended),
        copies: Vec::new(),
    });
    let same = advise(&m, &Settings::default(), None).unwrap();
    let c = same.current.as_ref().expect("a comparison");
    assert!(c.already_best);
    assert_eq!(c.current_totals, c.recommended_totals);

    m.without.archive = Scope::Entities(vec![m.entity_by_name("order").unwrap()]);
    let d = advise(&m, &Settings::default(), None).unwrap();
    assert_eq!(
        d.totals, recommended.totals,
        "the recommendation is unchanged"
    );
    let archived = |d: &crate::design::Design| {
        d.entities
            .iter()
            .any(|e| matches!(e, crate::design::EntityDecision::Archive { .. }))
    };
    assert!(archived(&d));
    let (_, now) = crate::advise::today_design(&m, &Settings::default(), None)
        .unwrap()
        .unwrap();
    assert!(!archived(&now));
    assert!(!now.collections.iter().any(|c| c.name == "order_archive"));
    let c = d.current.as_ref().expect("a comparison");
    assert!(!c.already_best);
    assert!(
        c.current_totals.score > c.recommended_totals.score,
        "{:?} against {:?}",
        c.current_totals,
        c.recommended_totals
    );
    assert!(c.relationships.iter().all(|r| r.current == r.recommended));
    assert_eq!(c.patterns_added, ["order_archive"]);
    assert!(c.patterns_dropped.is_empty());
}
