//! Each trade-off is listed under the relationship it belongs to (audit48
//! C4): moving a deal refreshes the copy of its stage in its contact, two
//! writes that are not atomic. That is a trade-off of `contact_deals`,
//! whose layout keeps the copy, not of the workspace's contacts or deals,
//! nor of a contact's activities.

use super::design_of as design;

/// audit48's CRM model as it was run.
const CRM: &str = r#"
name: crm-tradeoffs
tenant: {entity: workspace, largest: 0.04}
entities:
  workspace:
    count: 200000
    fields:
      name: string(30)
      plan: {type: string(8), enum: [free, team, enterprise]}
  api_key:
    count: 600000
    fields:
      hash: {type: string(44), unique: true}
      label: string(20)
  contact:
    count: 500000000
    fields:
      email: {type: string(28), unique_within: workspace}
      name: string(30)
      company: {type: string(30), distinct: 50000000}
      owner_user: {type: objectId, distinct: 2000000}
      updated_at: date
      tags: string(12)[4]
  deal:
    count: 100000000
    fields:
      title: string(40)
      stage: {type: string(12), enum: [lead, qualified, proposal, won, lost]}
      amount: decimal
      version: int
      updated_at: date
  activity:
    count: 5000000000
    fields:
      kind: {type: string(8), enum: [email, call, meeting, note]}
      at: date
      body: string(300)
relationships:
  keys:
    parent: workspace
    child: api_key
    children: {min: 1, typical: 3, max: 50}
    child_field: workspace
  contacts:
    parent: workspace
    child: contact
    children: {min: 0, typical: 2500, max: 20000000}
    child_field: workspace
  deals:
    parent: workspace
    child: deal
    children: {min: 0, typical: 500, max: 4000000}
    child_field: workspace
  contact_deals:
    parent: contact
    child: deal
    children: {min: 0, typical: 1, max: 200}
    child_field: contact
  timeline:
    parent: contact
    child: activity
    children:
      min: 0
      typical: 10
      p99: 2000
      max: 500000
      growth: {typical: 0.05, p99: 10, max: 2000, per: day}
    child_field: contact
operations:
  auth:
    read: api_key
    filter: {hash: eq}
    finds_tenant: true
    rate: 20000
  contact_by_email:
    read: contact
    filter: {email: eq}
    rate: 8000
  contact_by_id:
    read: contact
    filter: {_id: eq}
    rate: 6000
    include:
      contact_deals: {fields: [title, stage, amount]}
  contact_list:
    description: the contact list, 50 a page, most recently updated first; some users page very deep
    read: contact
    filter: {owner_user: eq}
    sort: -updated_at
    limit: 50
    paging: {by: skip, past_first: 0.2, depth: {typical: 5, max: 2000}}
    fields: [name, email, company, updated_at]
    rate: 1500
  contacts_by_tag:
    read: contact
    filter: {tags: eq}
    sort: name
    limit: 50
    rate: 300
  pipeline:
    read: deal
    filter: {stage: eq}
    sort: -amount
    limit: 100
    rate: 800
  open_deals_count:
    read: deal
    filter: {stage: in}
    returns: count
    rate: 400
  move_deal:
    update: deal
    filter: {_id: eq}
    when: ["version = :expected"]
    changes: [stage, updated_at]
    increments: {version: 1}
    rate: 200
  timeline_page:
    read: activity
    filter: {contact: eq}
    sort: -at
    limit: 20
    paging: {by: keyset, past_first: 0.05, depth: {typical: 4, max: 500}}
    rate: 2500
  log_activity:
    insert: activity
    links: [timeline]
    rate: 3000
  add_contact:
    insert: contact
    rate: 500
  nightly_stale_contacts:
    description: across all workspaces, contacts not updated for 2 years
    read: contact
    filter: {updated_at: before(730 days)}
    all_tenants: true
    fields: [email]
    rate: 0.0001
"#;

#[test]
fn a_copys_tradeoffs_are_its_relationships_alone() {
    let d = design(CRM);
    let tradeoffs = |name: &str| {
        d.relationships
            .iter()
            .find(|r| r.relationship == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .tradeoffs
            .clone()
    };
    let of_move = |name: &str| {
        tradeoffs(name)
            .into_iter()
            .filter(|t| t.starts_with("move_deal"))
            .collect::<Vec<_>>()
    };
    let kept = of_move("contact_deals");
    assert!(
        kept.iter().any(|t| t.contains("refresh the copy")),
        "{kept:?}"
    );
    assert!(kept.iter().any(|t| t.contains("not atomic")), "{kept:?}");
    for other in ["contacts", "deals", "timeline"] {
        assert!(of_move(other).is_empty(), "{other}: {:?}", tradeoffs(other));
    }
}
