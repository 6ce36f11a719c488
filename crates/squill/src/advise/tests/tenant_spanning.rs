//! An operation across every tenant (`all_tenants: true`, review46 item
//! 7): a purge of every clinic's blocked slots names no clinic, is priced
//! over every clinic's slots at its own rate, is served by an index that
//! does not lead with the clinic, writes with no test of a clinic, and the
//! report says it spans every clinic. The near miss: without the word it
//! is one clinic's purge.

use super::{design_of, plan_of};

const CLINIC: &str = r"
name: clinic
tenant: clinic
entities:
  clinic: {count: 1000, fields: {name: string(20)}}
  slot:
    count: 10000000
    fields:
      status: {type: string(8), enum: [open, blocked]}
      starts_at: date
relationships:
  slots: {parent: clinic, child: slot, children: {typical: 10000, max: 1000000}, child_field: clinic}
operations:
  day: {read: slot, filter: {status: eq, starts_at: range}, rate: 100}
  purge: {delete: slot, filter: {status: eq, starts_at: range(0.5)}, rate: 0.01FLAG}
";

#[test]
fn a_purge_of_every_clinic_is_priced_over_every_clinic() {
    let all = design_of(&CLINIC.replace("FLAG", ", all_tenants: true"));
    let one = design_of(&CLINIC.replace("FLAG", ""));
    let step = &plan_of(&all, "purge").steps[0];
    let paths: Vec<&str> = step.filter.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["status", "starts_at"]);
    let index = all
        .collections
        .iter()
        .flat_map(|c| &c.indexes)
        .find(|i| Some(&i.name) == step.index.as_ref())
        .expect("an index");
    assert_ne!(index.keys[0].0, "clinic", "{index:?}");
    // Every clinic's slots against one clinic's: the typical clinic holds
    // 10,000 of the 10,000,000, so the purge reaches 1,000 times as many.
    let per_clinic = plan_of(&one, "purge").steps[0].documents;
    assert_eq!(plan_of(&one, "purge").steps[0].filter[0].path, "clinic");
    assert!(
        (step.documents / per_clinic - 1000.0).abs() < 1e-6,
        "{} vs {per_clinic}",
        step.documents
    );
    assert!(all.totals.documents_written > one.totals.documents_written * 100.0);
    let t = all.tenancy.as_ref().expect("tenancy");
    assert_eq!(t.all_tenants, ["purge"]);
    assert!(t.operations.iter().all(|o| o.operation != "purge"));
    assert!(
        one.tenancy
            .as_ref()
            .expect("tenancy")
            .all_tenants
            .is_empty()
    );
    // The other read still names its clinic first.
    assert_eq!(plan_of(&all, "day").steps[0].filter[0].path, "clinic");
    let text = crate::outputs::design::text::render(&all, false);
    assert!(
        text.contains("every operation names its clinic but purge, which spans every clinic"),
        "{text}"
    );
    assert!(text.contains("spans every clinic (all_tenants)"), "{text}");
}
