//! Design-level findings: what the rules say about the finished design
//! (covered queries, a natural `_id`, index upkeep, update style, MMAPv1-era
//! advice) and choices that had to break a rule.

use crate::candidates::facts::Facts;
use crate::candidates::space::{Space, State};
use crate::design::Design;
use crate::finding::{Evidence, Finding, Location, Severity, sort_findings};
use crate::rules::design as r;
use crate::rules::judge::DesignCheck;

pub fn findings(facts: &Facts<'_>, space: &Space, state: &State, design: &Design) -> Vec<Finding> {
    let cx = DesignCheck { facts, design };
    let mut out = Vec::new();
    for rule in r::ALL {
        if let crate::rules::Check::Design(check) = rule.check {
            out.extend(check(&cx));
        }
    }
    for (ri, choice) in state.rel.iter().enumerate() {
        let c = &space.rels[ri][*choice];
        if let Some(hit) = &c.forbidden {
            let rule = crate::rules::by_id(hit.rule);
            out.push(Finding {
                rule: hit.rule,
                severity: rule.map_or(Severity::Warning, |x| {
                    x.default_severity.max(Severity::Warning)
                }),
                message: format!(
                    "{}: every layout breaks a rule; the chosen one: {}",
                    facts.model.relationships[ri].name, hit.reason
                ),
                location: Location::Model {
                    path: format!("relationships.{}", facts.model.relationships[ri].name),
                },
                evidence: vec![Evidence::new("layout", c.layout.kind())],
                help: Some("revisit the relationship's cardinality or the workload".to_string()),
            });
        }
    }
    sort_findings(&mut out);
    out
}
