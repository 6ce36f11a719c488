//! `tenant-largest-and-max-disagree`: under a tenant, the `largest` share
//! and a scoped relationship's `max` children both say how many instances
//! the largest tenant holds; beyond 2× apart, the model says two things,
//! and squill says which it uses.

crate::rules::declare_rule! {
    id: "tenant-largest-and-max-disagree",
    summary: "The tenant's largest share and a scoped relationship's max describe one fact, the largest tenant's instances; beyond 2× apart, squill keeps the share for the Tenants section and says so",
    kind: Design,
    severity: Warning,
    sources: ["MongoDB manual: db.collection.countDocuments()"],
    check: Design(check),
}

use crate::candidates::growth::DISAGREE_FACTOR;
use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;
use crate::words;

/// One warning per scoped entity whose relationship to the tenant states a
/// bounded `max` beyond `DISAGREE_FACTOR` of the `largest` share times the
/// entity's count. The Tenants section prices the largest tenant at the
/// share (`advise::tenancy`), raised to the typical where the share is
/// smaller still.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let Some(tenant) = model.tenant else {
        return Vec::new();
    };
    let Some(share) = tenant.largest else {
        return Vec::new();
    };
    let tenant_name = &model.entity(tenant.entity).name;
    let mut out = Vec::new();
    for e in model.entity_ids() {
        let Some(r) = model.tenant_relationship(e) else {
            continue;
        };
        let rel = model.relationship(r);
        let Some(max) = rel.children.max.finite() else {
            continue;
        };
        let entity = model.entity(e);
        let by_share = (share * entity.count as f64).round();
        let max = max as f64;
        if by_share <= 0.0 || max <= 0.0 {
            continue;
        }
        if by_share <= max * DISAGREE_FACTOR && max <= by_share * DISAGREE_FACTOR {
            continue;
        }
        let used = by_share.max(rel.children.typical as f64);
        let plural = words::plural(&entity.name);
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{name}: the largest {tenant_name} holds {} {plural} by the tenant's `largest: {}` ({} × {}), and at most {} by `{}`'s `max`: more than {}× apart. squill prices the largest {tenant_name} at {}",
                words::num(by_share),
                share,
                share,
                words::num(entity.count as f64),
                words::num(max),
                rel.name,
                words::num(DISAGREE_FACTOR),
                words::num(used),
                name = entity.name,
            ),
            location: DesignCheck::at(format!("relationships.{}.children.max", rel.name)),
            evidence: vec![
                Evidence::new("largest_by_share", by_share),
                Evidence::new("relationship_max", max),
                Evidence::new("largest_priced", used),
            ],
            help: Some(format!(
                "make the two agree: the largest {tenant_name}'s {plural} are the share times the count, and the relationship's `max` children bounds every {tenant_name}; drop `largest` to use the `max`, or set the `max` to what the largest really holds"
            )),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::judge_design_findings;

    /// The analytics model of audit44 J, small: 165,000,000 events, the
    /// largest project 8% of them (13,200,000), its `max` MAX.
    const PROJECTS: &str = r"
tenant: {entity: project, largest: 0.08}
entities:
  project:
    count: 50000
    fields: {name: string(30)}
  event:
    count: 165000000
    fields: {name: string(20), ts: date}
relationships:
  events:
    parent: project
    child: event
    children: {min: 0, typical: 3300, max: MAX}
    child_field: project
operations:
  track:
    insert: event
    links: [events]
    rate: 100
  recent:
    read: event
    filter: {project: eq, name: eq}
    sort: -ts
    limit: 50
    rate: 20
";

    fn ev(f: &crate::finding::Finding, name: &str) -> Option<f64> {
        f.evidence.iter().find(|e| e.name == name).and_then(|e| e.value.as_f64())
    }

    /// 13,200,000 by the share against a `max` of 132,000: 100× apart.
    #[test]
    fn fires_with_both_figures() {
        let found = judge_design_findings(&RULE, &PROJECTS.replace("MAX", "132000"));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(ev(&found[0], "largest_by_share"), Some(13_200_000.0));
        assert_eq!(ev(&found[0], "relationship_max"), Some(132_000.0));
        assert_eq!(ev(&found[0], "largest_priced"), Some(13_200_000.0));
        insta::assert_snapshot!(found[0].message, @"event: the largest project holds 13,200,000 events by the tenant's `largest: 0.08` (0.08 × 165,000,000), and at most 132,000 by `events`'s `max`: more than 2× apart. squill prices the largest project at 13,200,000");
    }

    /// A `max` far above the share disagrees too.
    #[test]
    fn fires_on_a_max_far_above_the_share() {
        assert_eq!(judge_design_findings(&RULE, &PROJECTS.replace("MAX", "26400001")).len(), 1);
    }

    /// Near misses: within 2× on either side.
    #[test]
    fn stays_quiet_within_the_factor() {
        assert!(judge_design_findings(&RULE, &PROJECTS.replace("MAX", "6600000")).is_empty());
        assert!(judge_design_findings(&RULE, &PROJECTS.replace("MAX", "26400000")).is_empty());
    }
}
