//! Writes under a tenant (issue 41): every write a plan sends to a
//! collection whose documents carry the tenant's id tests the tenant the
//! operation names, the writes the plan adds as well as the instance's
//! own, so that an id of another tenant's document matches nothing. The
//! test costs nothing: a write by `_id` stays on `_id_`, one document.

use crate::design::{Action, Design, OperationPlan, Step, ValueSource};

/// Steps that pick the documents they write by their filter.
fn writes_by_filter(s: &Step) -> bool {
    matches!(
        s.action,
        Action::UpdateOne
            | Action::UpdateMany
            | Action::Upsert
            | Action::DeleteOne
            | Action::DeleteMany
            | Action::FindOneAndUpdate
            | Action::BulkWrite
    )
}

fn plan<'d>(d: &'d Design, name: &str) -> &'d OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan for {name}"))
}

/// The writes of `p` on `scoped` collections that do not test `path` (the
/// tenant) with the value the caller passes, as `op collection`.
fn unscoped(p: &OperationPlan, scoped: &[&str], path: &str) -> Vec<String> {
    p.steps
        .iter()
        .filter(|s| writes_by_filter(s) && scoped.contains(&s.collection.as_str()))
        .filter(|s| {
            !s.filter
                .iter()
                .any(|f| f.path == path && f.value_from == ValueSource::Param)
        })
        .map(|s| format!("{} {:?} {}", p.operation, s.action, s.collection))
        .collect()
}

/// Class: a write the plan adds, not filtered on the tenant. A review's
/// insert, edit and delete keep the product's count and sum (`$inc`), a
/// delete of many counts them down (bulk writes), a customer's rename
/// refreshes her name in her orders (`updateMany`), a line is shipped
/// through its order's `_id`: each tested only the ids, so a call with
/// one store's id and another store's product, customer or order wrote
/// the other store's documents. Each such write on `_id` stays on `_id_`,
/// one document.
#[test]
fn every_write_on_a_tenants_documents_tests_the_tenant() {
    let (_, d) = crate::fixtures::load("tenant-writes");
    let scoped = ["customer", "product", "order", "review"];
    let mut missing = Vec::new();
    let mut checked = 0;
    for p in d
        .operations
        .iter()
        .filter(|p| p.operation != "rename_brand")
    {
        missing.extend(unscoped(p, &scoped, "store"));
        checked += p.steps.iter().filter(|s| writes_by_filter(s)).count();
    }
    assert!(missing.is_empty(), "{missing:#?}");
    assert!(checked >= 12, "the fixture's writes: {checked}");
    for (op, coll) in [
        ("write_review", "product"),
        ("edit_review", "product"),
        ("drop_review", "product"),
        ("ship_line", "order"),
        ("sell", "product"),
    ] {
        let s = plan(&d, op)
            .steps
            .iter()
            .find(|s| writes_by_filter(s) && s.collection == coll)
            .unwrap_or_else(|| panic!("{op}: no write of {coll}"));
        assert_eq!(s.filter[0].path, "store", "{op}: {:?}", s.filter);
        assert!(s.filter.iter().any(|f| f.path == "_id"), "{op}");
        assert_eq!(s.index.as_deref(), Some("_id_"), "{op}");
        assert!((s.documents - 1.0).abs() < 1e-9, "{op}: {}", s.documents);
    }
    let purge = plan(&d, "purge_old_reviews");
    assert!(
        purge
            .steps
            .iter()
            .filter(|s| s.action == Action::BulkWrite)
            .count()
            == 2,
        "{:#?}",
        purge.steps
    );
}

/// Near miss: a brand is global, its rename reaches the products of every
/// store that copies its name. Its fan-out is the same `updateMany` on a
/// store's documents as a customer's rename, and must not test a store.
#[test]
fn a_global_entitys_fan_out_tests_no_tenant() {
    let (_, d) = crate::fixtures::load("tenant-writes");
    let p = plan(&d, "rename_brand");
    let fan_out = p
        .steps
        .iter()
        .find(|s| s.action == Action::UpdateMany && s.collection == "product")
        .unwrap_or_else(|| panic!("{:#?}", p.steps));
    assert!(
        fan_out.filter.iter().all(|f| f.path != "store"),
        "{:?}",
        fan_out.filter
    );
}

/// S19's order pushes its id into its customer (a link the plan adds):
/// the push tests the store too, on `_id_`.
#[test]
fn a_link_pushed_to_the_parent_tests_the_tenant() {
    let text = crate::rules::testing::example("scenarios/s19-stores.yaml");
    let model = crate::inputs::model_file::parse("s19-stores.yaml", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let p = plan(&d, "place_order");
    assert!(
        unscoped(p, &["customer", "product", "order"], "store").is_empty(),
        "{:#?}",
        p.steps
    );
    let push = p
        .steps
        .iter()
        .find(|s| s.collection == "customer")
        .unwrap_or_else(|| panic!("{:#?}", p.steps));
    assert_eq!(push.index.as_deref(), Some("_id_"));
}

/// Teams embedded in their org (the tenant), users on their own: closing a
/// team writes the org's document through the team's id, and tests the
/// org as that document's `_id`, which `_id_` finds: no index on the
/// teams' ids. The pass that adds the test once left the step on the
/// index of the element's id the write had asked for.
#[test]
fn an_element_of_the_tenants_document_is_written_through_id() {
    let text = r"
name: org-teams
tenant: org
entities:
  org: {count: 10, fields: {name: string(20)}}
  team: {count: 200, fields: {name: string(20), open: bool}}
  user: {count: 2000, fields: {name: string(24)}}
relationships:
  org_teams: {parent: org, child: team, children: {typical: 20, max: 100}, child_field: org, layout: embed}
  org_users: {parent: org, child: user, children: {typical: 200, max: 1000}, child_field: org, layout: parent-reference}
operations:
  my_profile: {read: user, rate: 500, filter: {_id: eq}}
  close_team: {update: team, rate: 1, filter: {_id: eq}, changes: [open]}
  rename_user: {update: user, rate: 1, filter: {_id: eq}, changes: [name]}
";
    let model =
        crate::inputs::model_file::parse("org-teams.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let p = plan(&d, "close_team");
    let s = p
        .steps
        .iter()
        .find(|s| writes_by_filter(s) && s.collection == "org")
        .unwrap_or_else(|| panic!("{:#?}", p.steps));
    let paths: Vec<&str> = s.filter.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["_id", "org_teams._id"]);
    assert_eq!(s.index.as_deref(), Some("_id_"));
    let org = d.collections.iter().find(|c| c.name == "org").expect("org");
    assert!(
        org.indexes
            .iter()
            .all(|i| i.keys.iter().all(|(k, _)| k != "org_teams._id")),
        "{:?}",
        org.indexes
    );
    assert!(unscoped(plan(&d, "rename_user"), &["user"], "org").is_empty());
}
