//! A filter on a field whose values are each one tenant's (audit48 A9):
//! under `tenant: workspace`, a user's contacts are all in the user's
//! workspace, so the read finds the field's share of the whole collection
//! (contacts / owners), not that share again of one workspace's contacts.
//! A field with fewer values than tenants (a status), or fewer than one
//! tenant's instances (diagnosis codes every clinic uses), is shared by
//! the tenants, and the tenant keeps its own share. Fails on the code
//! before the fix: the owner's 50 contacts were priced as 0.025 documents.

use crate::advise::advise;
use crate::design::Design;
use crate::settings::Settings;

/// 2,000 workspaces of 500 contacts each (1,000,000), 20,000 owners (50
/// contacts each, at least as many owners as workspaces), a state of 5.
const CRM: &str = r"
name: crm
tenant: workspace
entities:
  workspace: {count: 2000, fields: {name: string(30)}}
  contact:
    count: 1000000
    fields:
      owner: {type: objectId, distinct: 20000}
      state: {type: string(8), enum: [a, b, c, d, e]}
      name: string(30)
      updated_at: date
relationships:
  contacts: {parent: workspace, child: contact, children: {typical: 500, max: 200000}, child_field: workspace}
operations:
  by_owner: {read: contact, rate: 1000, filter: {owner: eq}, sort: -updated_at, limit: 1000}
  by_state: {read: contact, rate: 1000, filter: {state: eq}, sort: -updated_at, limit: 1000}
  owner_pages:
    read: contact
    rate: 1000
    filter: {owner: eq}
    sort: -updated_at
    limit: 50
    paging: {by: skip, past_first: 0.2, depth: {typical: 2, max: 40}}
";

/// 500 clinics of 10,000 visits each, and 2,000 codes: more codes than
/// clinics, but fewer than one clinic's visits, so every clinic uses them.
const CLINICS: &str = r"
name: clinics
tenant: clinic
entities:
  clinic: {count: 500, fields: {name: string(30)}}
  visit: {count: 5000000, fields: {code: {type: string(8), distinct: 2000}, at: date}}
relationships:
  visits: {parent: clinic, child: visit, children: {typical: 10000, max: 400000}, child_field: clinic}
operations:
  by_code: {read: visit, rate: 5, filter: {code: eq}, sort: -at, limit: 1000}
";

fn design_of(text: &str) -> Design {
    let model = crate::inputs::model_file::parse("m.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    advise(&model, &Settings::default(), None).unwrap_or_else(|e| panic!("{e}"))
}

fn design() -> Design {
    design_of(CRM)
}

/// The documents the first step of operation `name` finds.
fn found(d: &Design, name: &str) -> f64 {
    let op = d
        .operations
        .iter()
        .find(|p| p.operation == name)
        .expect(name);
    op.steps[0].documents
}

#[test]
fn an_owners_contacts_are_all_in_one_workspace() {
    let d = design();
    // 1,000,000 contacts / 20,000 owners: 50, whatever the workspace.
    let n = found(&d, "by_owner");
    assert!((n - 50.0).abs() < 0.5, "an owner's contacts: {n}");
    // The largest workspace holds no more of one owner's contacts.
    let t = d.tenancy.as_ref().expect("a tenancy report");
    let cost = t
        .operations
        .iter()
        .find(|c| c.operation == "by_owner")
        .expect("by_owner");
    assert_eq!(
        cost.typical.documents_examined,
        cost.largest.documents_examined
    );
}

#[test]
fn a_state_is_every_workspaces_and_the_workspace_keeps_its_share() {
    // A state of 5 is shared by every workspace: 500 contacts / 5.
    let n = found(&design(), "by_state");
    assert!(
        (n - 100.0).abs() < 0.5,
        "a workspace's contacts in a state: {n}"
    );
}

#[test]
fn an_owners_deep_pages_are_not_past_the_matches() {
    // The owner's 50 contacts do not grow with the workspace, and the
    // model bounds no owner's: the stated depth is priced as stated, not
    // said to lie past the matches of the largest workspace.
    let d = design();
    let op = d
        .operations
        .iter()
        .find(|p| p.operation == "owner_pages")
        .expect("owner_pages");
    let paging = op.steps[0].paging.as_ref().expect("paged");
    assert!(paging.past_the_matches.is_none(), "{paging:?}");
}

#[test]
fn codes_every_clinic_uses_keep_the_clinics_share() {
    // One clinic's 10,000 visits / 2,000 codes: 5, not a code's 2,500
    // visits over every clinic.
    let n = found(&design_of(CLINICS), "by_code");
    assert!((n - 5.0).abs() < 0.5, "a clinic's visits of a code: {n}");
}
