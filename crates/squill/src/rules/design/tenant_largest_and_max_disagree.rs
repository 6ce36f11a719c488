//! `tenant-largest-and-max-disagree`: under a tenant, the `largest` share
//! and a scoped relationship's `max` children both say how many instances
//! the largest tenant holds. A `max` below the share is no disagreement:
//! it bounds every tenant, and one share is the largest tenant's where it
//! is largest (4% of a CRM's contacts, not 4% of its API keys), so squill
//! takes the `max` for that entity. They contradict when a `max` lies far
//! above the share, or when every stated `max` lies far below it (the
//! share then holds of nothing).

crate::rules::declare_rule! {
    id: "tenant-largest-and-max-disagree",
    summary: "The tenant's largest share and the scoped relationships' max children contradict each other: a max far above the share, or every max far below it; squill says which figure it uses",
    kind: Design,
    severity: Warning,
    sources: ["MongoDB manual: db.collection.countDocuments()"],
    check: Design(check),
}

use crate::candidates::growth::DISAGREE_FACTOR;
use crate::finding::{Evidence, Finding};
use crate::model::{EntityId, Model};
use crate::rules::judge::DesignCheck;
use crate::words;

/// One scoped entity's two figures: the share times its count, and the
/// stated `max` of its relationship to the tenant.
struct Figures {
    entity: EntityId,
    by_share: f64,
    max: f64,
}

fn figures(model: &Model, share: f64) -> Vec<Figures> {
    model
        .entity_ids()
        .filter_map(|e| {
            let rel = model.relationship(model.tenant_relationship(e)?);
            // A relationship squill adds (a carried tenant) takes its max
            // from the share: no figure of the user's.
            if !rel.tenant_chain.is_empty() {
                return None;
            }
            let max = rel.children.max.finite()? as f64;
            let by_share = (share * model.entity(e).count as f64).round();
            (by_share > 0.0 && max > 0.0).then_some(Figures {
                entity: e,
                by_share,
                max,
            })
        })
        .collect()
}

/// One warning per scoped entity whose relationship to the tenant states a
/// `max` beyond `DISAGREE_FACTOR` above the `largest` share times the
/// entity's count, and one per entity when every stated `max` lies that
/// far below. The Tenants section prices the largest tenant at the share
/// within the `max` (`Model::largest_tenant_holds`).
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let Some(tenant) = model.tenant else {
        return Vec::new();
    };
    let Some(share) = tenant.largest else {
        return Vec::new();
    };
    let all = figures(model, share);
    let below = |f: &Figures| f.max * DISAGREE_FACTOR < f.by_share;
    let nowhere = all.iter().all(below);
    let tenant_name = &model.entity(tenant.entity).name;
    let mut out = Vec::new();
    for f in &all {
        let above = f.by_share * DISAGREE_FACTOR < f.max;
        let contradicts = above || (nowhere && below(f));
        if !contradicts {
            continue;
        }
        let e = f.entity;
        let rel = model.relationship(model.tenant_relationship(e).expect("scoped"));
        let entity = model.entity(e);
        let used = model.largest_tenant_holds(e).unwrap_or(0) as f64;
        let plural = words::plural(&entity.name);
        let (says, then) = if above {
            (
                format!("lets {} have up to {}", words::a(tenant_name), words::num(f.max)),
                String::new(),
            )
        } else {
            (
                format!("lets {} have at most {}", words::a(tenant_name), words::num(f.max)),
                ", and no stated `max` leaves room for that share".to_string(),
            )
        };
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{name}: `largest: {share}` gives the largest {tenant_name} {} {plural} ({share} × {}), but `{}` {says}{then}. squill takes {} for the largest {tenant_name}",
                words::num(f.by_share),
                words::num(entity.count as f64),
                rel.name,
                words::num(used),
                name = entity.name,
            ),
            location: DesignCheck::at(format!("relationships.{}.children.max", rel.name)),
            evidence: vec![
                Evidence::new("largest_by_share", f.by_share),
                Evidence::new("relationship_max", f.max),
                Evidence::new("largest_priced", used),
            ],
            help: Some(format!(
                "make the two agree: `largest` is the share of each entity's instances the largest {tenant_name} holds, and a relationship's `max` bounds every {tenant_name}; set the `max` to what the largest {tenant_name} really holds, or change `largest`"
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

    /// 13,200,000 by the share against a `max` of 132,000, the only one:
    /// the share holds of nothing, and squill takes the `max`.
    #[test]
    fn fires_when_every_max_is_far_below_the_share() {
        let found = judge_design_findings(&RULE, &PROJECTS.replace("MAX", "132000"));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(ev(&found[0], "largest_by_share"), Some(13_200_000.0));
        assert_eq!(ev(&found[0], "relationship_max"), Some(132_000.0));
        assert_eq!(ev(&found[0], "largest_priced"), Some(132_000.0));
        insta::assert_snapshot!(found[0].message, @"event: `largest: 0.08` gives the largest project 13,200,000 events (0.08 × 165,000,000), but `events` lets a project have at most 132,000, and no stated `max` leaves room for that share. squill takes 132,000 for the largest project");
    }

    /// A `max` far above the share disagrees too; squill keeps the share.
    #[test]
    fn fires_on_a_max_far_above_the_share() {
        let found = judge_design_findings(&RULE, &PROJECTS.replace("MAX", "26400001"));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(ev(&found[0], "largest_priced"), Some(13_200_000.0));
        insta::assert_snapshot!(found[0].message, @"event: `largest: 0.08` gives the largest project 13,200,000 events (0.08 × 165,000,000), but `events` lets a project have up to 26,400,001. squill takes 13,200,000 for the largest project");
    }

    /// Near misses: within 2× on either side.
    #[test]
    fn stays_quiet_within_the_factor() {
        assert!(judge_design_findings(&RULE, &PROJECTS.replace("MAX", "6600000")).is_empty());
        assert!(judge_design_findings(&RULE, &PROJECTS.replace("MAX", "26400000")).is_empty());
    }

    /// audit48 C5: the largest project has 8% of the events, and every
    /// project at most 20 API keys. The share is the events'; the keys'
    /// `max` bounds the largest project's keys. No contradiction.
    #[test]
    fn a_max_below_the_share_beside_one_that_fits_is_quiet() {
        let keys = PROJECTS.replace("MAX", "13200000").replace(
            "relationships:\n",
            "  api_key:\n    count: 150000\n    fields: {hash: string(44)}\nrelationships:\n  keys:\n    parent: project\n    child: api_key\n    children: {min: 1, typical: 3, max: 20}\n    child_field: project\n",
        );
        let found = judge_design_findings(&RULE, &keys);
        assert!(found.is_empty(), "{found:#?}");
    }
}
