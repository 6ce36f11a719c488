//! Buckets under a tenant (review46 items 1 and 5): the children of one
//! bucket share its parent and so its tenant, and the bucket holds the
//! tenant's id once, at its top level (`Model::bucket_tenant`). Before, the
//! carried id sat in each element (`ticks.org`): the window read of a
//! symbol's ticks lost its range on the bucket's key and its unwind (907
//! buckets priced, whole buckets returned), and the upsert of a new tick
//! named no org, so a caller could push a tick into another org's bucket.

use super::tenant_depth::step_on;
use super::{design_of, plan_of};
use crate::design::{Action, Design};

/// The model (tests/fixtures/bucket-tenant.yaml): an org's symbols with
/// their ticks in minute buckets, an org's articles with their comments
/// in buckets of a count.
const MODEL: &str = include_str!("../../../tests/fixtures/bucket-tenant.yaml");

fn shape_of<'d>(d: &'d Design, coll: &str) -> &'d crate::design::Shape {
    &d.collections
        .iter()
        .find(|c| c.name == coll)
        .unwrap_or_else(|| panic!("no collection {coll}"))
        .shape
}

/// Every step on the buckets, read or write, tests the org first, on an
/// index that leads with it; the window read keeps its range on the
/// bucket's key and returns each matching tick on its own, as without a
/// tenant; no element holds the org.
#[test]
fn buckets_hold_their_tenant_at_their_top_level() {
    let d = design_of(MODEL);
    for (op, coll, action) in [
        ("record", "symbol_ticks", Action::Upsert),
        ("candles", "symbol_ticks", Action::Find),
        ("minute_ticks", "symbol_ticks", Action::Find),
        ("add_comment", "article_comments", Action::Upsert),
        ("comments_in_order", "article_comments", Action::Find),
        ("article_page", "article_comments", Action::Find),
    ] {
        let (a, filter, keys) = step_on(&d, plan_of(&d, op), coll);
        assert_eq!(a, action, "{op}");
        assert_eq!(
            filter.first().map(String::as_str),
            Some("org"),
            "{op}: {filter:?}"
        );
        assert_eq!(
            keys.first().map(String::as_str),
            Some("org"),
            "{op}: {keys:?}"
        );
        assert!(
            !filter.iter().any(|p| p.ends_with(".org")),
            "{op}: {filter:?}"
        );
    }
    let (_, filter, keys) = step_on(&d, plan_of(&d, "minute_ticks"), "symbol_ticks");
    assert_eq!(filter, ["org", "symbol", "minute", "ticks.time"]);
    assert_eq!(keys, ["org", "symbol", "minute"]);
    let step = &plan_of(&d, "minute_ticks").steps[0];
    assert_eq!(step.elements.as_deref(), Some("ticks"));
    assert!(step.documents <= 2.0, "{}", step.documents);
    // The org is on the bucket, required there, and in no element.
    for (coll, array) in [("symbol_ticks", "ticks"), ("article_comments", "comments")] {
        let shape = shape_of(&d, coll);
        assert!(
            shape.fields.iter().any(|f| f.name == "org" && f.required),
            "{coll}"
        );
        let items = shape.fields.iter().find(|f| f.name == array).unwrap();
        let text = serde_json::to_string(&items.ty).unwrap();
        assert!(!text.contains("\"org\""), "{coll}.{array}: {text}");
    }
}
