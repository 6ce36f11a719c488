//! `unlinked-parent`: the model gives every child of a relationship a
//! parent (`parents.min` is 1 unless stated), and an insert of the child
//! does not link through it. The insert writes children that have no
//! parent there, which the model says none has: one of the two figures
//! is wrong. A validator that followed the stated minimum would refuse
//! every such insert (audit49 B2: an order placed before a courier takes
//! it failed validation on the server), so squill's leaves the reference
//! optional and says which figure to correct.

crate::rules::declare_rule! {
    id: "unlinked-parent",
    summary: "An insert writes a child without the parent the model says every child has: the model contradicts itself, and the reference is left optional",
    kind: Design,
    severity: Warning,
    sources: ["000_34acd10fa9a500cb.txt"],
    check: Design(check),
}

use crate::design::Layout;
use crate::finding::{Evidence, Finding};
use crate::model::RelationshipId;
use crate::rules::judge::DesignCheck;
use crate::words;

/// One warning per insert that writes a relationship's child without
/// linking it, where every child has one parent there.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for (i, rel) in model.relationships.iter().enumerate() {
        let r = RelationshipId::from_index(i);
        let inserts = crate::model::inserts_without_parent(model, r);
        // A copy kept through the relationship: `unmaintained-copy` says
        // what the unlinked insert leaves stale, which is the worse of
        // the two consequences of one cause.
        if inserts.is_empty() || super::unmaintained_copy::kept(cx, r).is_some() {
            continue;
        }
        // The child's document holds the reference (not embedded in its
        // parent): it is the field a validator would require.
        let referenced = cx
            .design
            .relationships
            .iter()
            .find(|d| d.relationship == rel.name)
            .is_some_and(|d| {
                matches!(
                    d.chosen,
                    Layout::ParentReference
                        | Layout::TwoWayReferences
                        | Layout::Subset { .. }
                        | Layout::Outlier { .. }
                )
            });
        let parent = words::singular(&model.entity(rel.parent).name);
        let child = words::singular(&model.entity(rel.child).name);
        for op in inserts {
            let rate = op.rate(cx.facts.mix);
            let kept = if referenced {
                format!(
                    "; the validator leaves `{}` optional, so that the insert is accepted",
                    rel.child_field
                )
            } else {
                String::new()
            };
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{}: inserts {} {}/s without linking them through {} (no `links: [{}]`), though the model gives every {child} {} {parent} there (`parents.min` {}): the model contradicts itself{kept}",
                    op.name,
                    words::num(rate),
                    words::plural(&model.entity(rel.child).name),
                    rel.name,
                    rel.name,
                    words::article(&parent),
                    rel.parents.min,
                ),
                location: DesignCheck::at(format!("operations.{}", op.name)),
                evidence: vec![
                    Evidence::new("operation", op.name.as_str()),
                    Evidence::new("entity", model.entity(rel.child).name.as_str()),
                    Evidence::new("relationship", rel.name.as_str()),
                    Evidence::new("parents_min", rel.parents.min),
                    Evidence::new("inserts_per_second", rate),
                ],
                help: Some(format!(
                    "if {} knows the {child}'s {parent}, add `links: [{}]` to it; if {} gets its {parent} later (a claim or an update sets it), say `parents: {{min: 0}}` on {}",
                    op.name,
                    rel.name,
                    words::a(&child),
                    rel.name
                )),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// Orders placed at a restaurant and later taken by a courier: the
    /// insert links the restaurant only. `PARENTS` states the couriers'
    /// minimum, `LINKS` what the insert names.
    const DELIVERY: &str = r"
entities:
  restaurant: {count: 50000, fields: {name: string(40)}}
  courier: {count: 20000, fields: {name: string(40)}}
  order:
    count: 10000000
    fields:
      total: double
      status: {type: string(10), enum: [placed, taken, delivered]}
relationships:
  restaurant_orders:
    parent: restaurant
    child: order
    children: {min: 0, typical: 200, max: 100000}
    child_field: restaurant
  courier_orders:
    parent: courier
    child: order
    children: {min: 0, typical: 500, max: 100000}
    child_field: courier
    layout: parent-reference
    PARENTS
operations:
  place_order:
    insert: order
    links: [restaurant_orders LINKS]
    rate: 50
  courier_orders_page:
    read: order
    filter: {courier: eq}
    limit: 20
    rate: 20
";

    fn run(parents: &str, links: &str) -> (Vec<crate::finding::Finding>, crate::design::Design) {
        let yaml = DELIVERY.replace("PARENTS", parents).replace("LINKS", links);
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        let f = (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        });
        (f, design)
    }

    /// Whether the order's `courier` is a required field of its collection.
    fn courier_required(d: &crate::design::Design) -> bool {
        d.collections
            .iter()
            .flat_map(|c| &c.shape.fields)
            .find(|f| f.name == "courier")
            .unwrap_or_else(|| panic!("no courier field: {:?}", d.collections))
            .required
    }

    /// The insert names no courier while every order has one by default:
    /// the rule fires, and the validator leaves `courier` optional (it
    /// refused every insert on the server, audit49 B2).
    #[test]
    fn fires_on_an_insert_that_leaves_a_required_parent_unset() {
        let (f, d) = run("", "");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, RULE.id);
        insta::assert_snapshot!(f[0].message, @"place_order: inserts 50 orders/s without linking them through courier_orders (no `links: [courier_orders]`), though the model gives every order a courier there (`parents.min` 1): the model contradicts itself; the validator leaves `courier` optional, so that the insert is accepted");
        assert!(!courier_required(&d));
    }

    /// Near misses: the model says an order may have no courier, or the
    /// insert names it: quiet, and the field is required only when the
    /// insert writes it and every order has one.
    #[test]
    fn stays_quiet_when_the_minimum_is_zero_or_the_insert_links() {
        let (f, d) = run("parents: {min: 0, typical: 1, max: 1}", "");
        assert!(f.is_empty(), "{f:?}");
        assert!(!courier_required(&d));
        let (f, d) = run("", ", courier_orders");
        assert!(f.is_empty(), "{f:?}");
        assert!(courier_required(&d));
    }
}
