//! An entity split by age under a tenant (audit49 A3): the archiving job
//! finds its batch by age alone, across every tenant, so its delete takes
//! the ids it found and no tenant. Scoped, the delete named one tenant and
//! left the rest of the batch in both collections.

use super::{design_of, plan_of};

pub(super) const LOG: &str = r"
name: archive-tenant
tenant: account
entities:
  account:
    count: 20000
    fields: {name: string(30)}
  entry:
    count: 2000000000
    fields:
      at: date
      actor: {type: string(30), distinct: 500000}
      diff: string(400)
relationships:
  entries:
    parent: account
    child: entry
    children: {min: 0, typical: 100000, max: 40000000}
    child_field: account
operations:
  log:
    insert: entry
    rate: 30
  recent_by_actor:
    read: entry
    filter: {actor: eq, at: since(30 days)}
    sort: -at
    limit: 50
    rate: 10
";

#[test]
fn the_archive_job_under_a_tenant_moves_its_whole_batch() {
    let d = design_of(LOG);
    let paths = |op: &str| -> Vec<String> {
        plan_of(&d, op).steps[0]
            .filter
            .iter()
            .map(|f| f.path.clone())
            .collect()
    };
    assert_eq!(paths("archive_entry_find"), ["at"]);
    assert_eq!(paths("archive_entry_delete"), ["_id"]);
    let t = d.tenancy.as_ref().expect("tenancy");
    for step in ["find", "insert", "delete"] {
        let name = format!("archive_entry_{step}");
        assert!(t.all_tenants.contains(&name), "{:?}", t.all_tenants);
    }
}

/// audit49 A4: a read paged by `skip` that runs on both collections pages
/// by keyset in each: page N of the whole history is no `skip` of either
/// half, and a cursor (the last entry's date, then its `_id`) is valid in
/// both. The model's depth is kept, and each half is priced as keyset.
#[test]
fn a_skip_read_over_the_split_pages_by_keyset_in_both_halves() {
    let text = format!(
        "{LOG}  history:\n    read: entry\n    filter: {{}}\n    sort: -at\n    limit: 100\n    paging: {{by: skip, past_first: 0.5, depth: {{typical: 20, max: 5000}}}}\n    rate: 40\n"
    );
    let d = design_of(&text);
    for op in ["history", "history_in_archive"] {
        let step = &plan_of(&d, op).steps[0];
        let paging = step.paging.as_ref().expect("paged");
        assert_eq!(paging.by, crate::model::PagingBy::Keyset, "{op}");
        assert_eq!(paging.after.as_deref(), Some("at"), "{op}");
        assert_eq!(paging.skipped, 0.0, "{op}");
    }
}
