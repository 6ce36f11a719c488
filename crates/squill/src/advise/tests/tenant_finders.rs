//! A read that finds its tenant (`finds_tenant: true`, issue 41): a login
//! by email under `tenant: org` names no org, so its index does not lead
//! with the org, its documents are priced over all users, and the tenancy
//! report leaves it out of the costs that grow with the tenant.

use super::{design_of, plan_of};

const LOGIN: &str = r"
name: login
tenant: org
entities:
  org: {count: 1000, fields: {name: string(20)}}
  user:
    count: 1000000
    fields:
      email: {type: string(40), distinct: 1000000}
      name: string(20)
relationships:
  members: {parent: org, child: user, children: {min: 1, typical: 1000, max: 50000}, child_field: org}
operations:
  log_in: {read: user, FLAG filter: {email: eq}, rate: 100}
  by_name: {read: user, filter: {name: eq}, rate: 10}
";

#[test]
fn a_login_that_finds_its_org_is_keyed_and_priced_without_it() {
    let d = design_of(&LOGIN.replace("FLAG", "finds_tenant: true,"));
    let step = &plan_of(&d, "log_in").steps[0];
    let paths: Vec<&str> = step.filter.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["email"]);
    let users = d
        .collections
        .iter()
        .find(|c| c.name == "user")
        .expect("user");
    let index = users
        .indexes
        .iter()
        .find(|i| Some(&i.name) == step.index.as_ref())
        .expect("an index");
    let keys: Vec<&str> = index.keys.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["email"]);
    // One email among all 1,000,000 users: one document, not one of an
    // org's 1,000 users times the share an email keeps of the whole.
    assert!((step.documents - 1.0).abs() < 1e-9, "{}", step.documents);
    let t = d.tenancy.as_ref().expect("tenancy");
    assert_eq!(t.finders, ["log_in"]);
    assert!(t.operations.iter().all(|o| o.operation != "log_in"));
    // The other read still names its org first.
    let other = &plan_of(&d, "by_name").steps[0];
    assert_eq!(other.filter[0].path, "org");
}

/// The near miss: the same read without the word names its org.
#[test]
fn without_the_word_the_login_names_its_org() {
    let d = design_of(&LOGIN.replace("FLAG", ""));
    let step = &plan_of(&d, "log_in").steps[0];
    assert_eq!(step.filter[0].path, "org");
    assert!(d.tenancy.as_ref().expect("tenancy").finders.is_empty());
}

/// A tenant's small children found by a key of their own (an API key by
/// its hash): the tenant's document is large, so the search found ids
/// kept in it cheapest, and the key then held no workspace (audit48 A2).
/// Every scoped document carries its tenant's id, so that layout is no
/// candidate for a relationship to the tenant, and the read that finds
/// the tenant returns it.
const KEYS: &str = r"
name: keys
tenant: workspace
entities:
  workspace: {count: 200000, fields: {name: string(30), settings: string(2000)}}
  api_key:
    count: 600000
    fields: {hash: {type: string(44), unique: true}, label: string(20)}
relationships:
  keys: {parent: workspace, child: api_key, children: {min: 1, typical: 3, max: 50}, child_field: workspace}
operations:
  auth: {read: api_key, filter: {hash: eq}, finds_tenant: true, rate: 20000}
";

#[test]
fn a_key_that_finds_its_workspace_holds_the_workspace_id() {
    use crate::design::{Layout, Side};
    let d = design_of(KEYS);
    let keys = d
        .relationships
        .iter()
        .find(|r| r.relationship == "keys")
        .expect("keys");
    assert!(
        !matches!(
            keys.chosen,
            Layout::ChildReferences
                | Layout::ExtendedReference {
                    copies_into: Side::Parent,
                    ..
                }
        ),
        "{:?}",
        keys.chosen
    );
    assert!(
        keys.alternatives
            .iter()
            .all(|a| !matches!(a.layout, Layout::ChildReferences)),
        "{:?}",
        keys.alternatives
    );
}
