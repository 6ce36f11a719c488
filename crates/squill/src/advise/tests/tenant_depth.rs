//! Tenants two steps down (audit45 gap 1): under `tenant: clinic`, an
//! entity that belongs to the clinic through a parent (a visit of a
//! clinic's patient, a slot of a clinic's doctor) carries the clinic's id,
//! and every read, update and delete of it filters on it, on an index that
//! leads with it. An entity no one-parent chain ties to the tenant (a
//! catalogue of codes every clinic shares) stays global.

use super::{design_of, plan_of};
use crate::design::{Action, Design, OperationPlan};

/// The model (tests/fixtures/tenant-depth.yaml): clinics, their doctors'
/// slots and their patients' visits, and a code book every clinic shares.
const CLINIC: &str = include_str!("../../../tests/fixtures/tenant-depth.yaml");

/// The first step of `p` on `coll`, with its filter's paths and its
/// index's keys.
fn step_on(d: &Design, p: &OperationPlan, coll: &str) -> (Action, Vec<String>, Vec<String>) {
    let s = p
        .steps
        .iter()
        .find(|s| s.collection == coll)
        .unwrap_or_else(|| panic!("{}: no step on {coll}", p.operation));
    let keys = s
        .index
        .as_ref()
        .and_then(|n| {
            d.collections
                .iter()
                .find(|c| c.name == coll)?
                .indexes
                .iter()
                .find(|i| &i.name == n)
        })
        .map(|i| i.keys.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    (
        s.action,
        s.filter.iter().map(|f| f.path.clone()).collect(),
        keys,
    )
}

/// Class: the tenant scope reached only the tenant's direct children. A
/// visit (patient → clinic) and a slot (doctor → clinic) held no clinic,
/// so `visits_by_code` returned every clinic's visits of a code and
/// `purge_blocked` deleted every clinic's blocked slots.
#[test]
fn entities_below_the_tenants_children_filter_on_the_tenant() {
    let d = design_of(CLINIC);
    for (op, coll) in [
        ("visits_by_code", "visit"),
        ("patient_history", "visit"),
        ("purge_blocked", "slot"),
        ("cancel_slot", "slot"),
    ] {
        let (action, filter, keys) = step_on(&d, plan_of(&d, op), coll);
        assert_eq!(
            filter.first().map(String::as_str),
            Some("clinic"),
            "{op} {action:?}: {filter:?}"
        );
        // A write by `_id` stays on `_id_` and tests the clinic; any other
        // access leads its index with the clinic.
        if op != "cancel_slot" {
            assert_eq!(
                keys.first().map(String::as_str),
                Some("clinic"),
                "{op}: {keys:?}"
            );
        }
    }
    // The global catalogue is no clinic's: its read names none.
    let (_, filter, _) = step_on(&d, plan_of(&d, "label"), "code_book");
    assert_eq!(filter, ["code"]);
}

/// The model: the visit belongs to the clinic through its patient, the
/// insert links it to its clinic, and the carried relationship says the
/// chain it copies; the catalogue is not scoped.
#[test]
fn the_tenant_is_carried_down_one_parent_chains_only() {
    let m =
        crate::inputs::model_file::parse("clinic.yaml", CLINIC).unwrap_or_else(|e| panic!("{e}"));
    let visit = m.entity_by_name("visit").unwrap();
    let r = m
        .tenant_relationship(visit)
        .expect("the visit is the clinic's");
    let rel = m.relationship(r);
    assert_eq!(rel.child_field, "clinic");
    let chain: Vec<&str> = rel
        .tenant_chain
        .iter()
        .map(|&x| m.relationship(x).name.as_str())
        .collect();
    assert_eq!(chain, ["visits", "patients"]);
    // A clinic's visits: its patients times each one's visits.
    assert_eq!(rel.children.typical, 4000 * 20);
    let book = m.entity_by_name("code_book").unwrap();
    assert_eq!(m.tenant_relationship(book), None);
    let insert = m
        .workload
        .operations
        .iter()
        .find(|o| o.name == "record_visit")
        .unwrap();
    let crate::model::OperationKind::Insert { links, .. } = &insert.kind else {
        panic!("an insert");
    };
    assert!(links.contains(&r), "{links:?}");
}
