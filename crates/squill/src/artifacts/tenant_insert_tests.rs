//! An insert under a tenant (review46 item 8): the cookbook function takes
//! the tenant's id and the parent's, finds the parent in that tenant,
//! raises when it is not there, and sets both ids on the new document.
//! The server check is in external_tests.rs
//! (`an_insert_under_a_tenant_refuses_a_parent_of_another_tenant_against_a_server`).

use super::*;

/// tests/fixtures/tenant-depth.yaml: a visit belongs to its clinic through
/// its patient.
const CLINIC: &str = include_str!("../../tests/fixtures/tenant-depth.yaml");

#[test]
fn an_insert_takes_and_sets_the_tenant_and_its_parent_in_each_language() {
    let model = crate::inputs::model_file::parse("tenant-depth.yaml", CLINIC).expect("parses");
    let d =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    let ops = cookbook::op_codes(&d);
    let py = cookbook::python(&d, &ops);
    assert!(
        py.contains("def record_visit(db, clinic_id, patient_id, new_visit):"),
        "{py}"
    );
    assert!(
        py.contains(
            r#"db["patient"].find({"clinic": clinic_id, "_id": patient_id}, {"_id": 1}).limit(1)"#
        ),
        "{py}"
    );
    assert!(
        py.contains(
            r#"raise RuntimeError("record_visit: no patient with that id in this clinic")"#
        ),
        "{py}"
    );
    assert!(
        py.contains(r#"insert_one({**new_visit, "clinic": clinic_id, "patient": patient_id})"#),
        "{py}"
    );
    for text in [cookbook::node(&d, &ops), cookbook::mongosh(&d, &ops)] {
        assert!(
            text.contains(
                r#"insertOne({...new_visit, "clinic": clinic_id, "patient": patient_id})"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#"throw new Error("record_visit: no patient with that id in this clinic")"#
            ),
            "{text}"
        );
    }
}
