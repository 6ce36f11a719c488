//! Design-level findings: what the rules say about the finished design
//! (covered queries, a natural `_id`, index upkeep, update style, MMAPv1-era
//! advice) and choices that had to break a rule.

use super::verdicts::ChoiceBreaksRule;
use crate::candidates::facts::Facts;
use crate::candidates::space::{Space, State};
use crate::design::Design;
use crate::design::Explain;
use crate::finding::{Evidence, Finding, Location, Severity, sort_findings};
use crate::rules::design as r;
use crate::rules::judge::DesignCheck;

pub(super) fn findings(
    facts: &Facts<'_>,
    space: &Space,
    state: &State,
    design: &Design,
) -> Vec<Finding> {
    let cx = DesignCheck { facts, design };
    let mut out = too_large(facts, design);
    for rule in r::ALL {
        if let crate::rules::Check::Design(check) = rule.check {
            out.extend(check(&cx));
        }
    }
    for (ri, choice) in state.rel.iter().enumerate() {
        let c = &space.rels[ri][*choice];
        let rel = &facts.model.relationships[ri];
        if let Some(hit) = &c.forbidden {
            let rule = crate::rules::by_id(hit.rule);
            let pinned = rel.layout.is_some();
            let help = if pinned {
                "remove `layout:` from the relationship to let advise choose"
            } else {
                "revisit the relationship's cardinality or the workload"
            };
            let message = ChoiceBreaksRule {
                relationship: rel.name.clone(),
                layout: c.layout.kind(),
                pinned,
                broken: hit.reason.clone(),
            };
            out.push(Finding {
                rule: hit.rule,
                severity: rule.map_or(Severity::Warning, |x| {
                    x.default_severity.max(Severity::Warning)
                }),
                message: message.words(),
                location: Location::Model {
                    path: format!("relationships.{}", facts.model.relationships[ri].name),
                },
                evidence: vec![Evidence::new("layout", c.layout.kind())],
                help: Some(help.to_string()),
            });
        }
    }
    out.extend(costly_pins(design));
    sort_findings(&mut out);
    out
}

/// A pinned layout that another would beat on this workload: what the pin
/// costs, so keeping today's design is a decision taken with the number.
fn costly_pins(design: &Design) -> Vec<Finding> {
    design
        .relationships
        .iter()
        .filter_map(|d| {
            let (layout, delta) = d
                .alternatives
                .iter()
                .filter_map(|a| match &a.verdict {
                    crate::design::Verdict::Cheaper { delta, .. } => Some((&a.layout, delta)),
                    _ => None,
                })
                .min_by(|a, b| a.1.score.total_cmp(&b.1.score))?;
            Some(Finding {
                rule: r::design_for_workload::RULE.id,
                severity: Severity::Info,
                message: format!(
                    "{}: the pinned layout `{}` costs {}/s more on this workload than `{}`",
                    d.relationship,
                    d.chosen.kind(),
                    crate::words::num(-delta.score),
                    layout.kind()
                ),
                location: Location::Model {
                    path: format!("relationships.{}", d.relationship),
                },
                evidence: vec![Evidence::new(
                    "score difference",
                    format!("{:.1}", delta.score),
                )],
                help: Some(format!(
                    "set `layout: {}` or remove `layout:` to let advise choose",
                    layout.kind()
                )),
            })
        })
        .collect()
}

/// Documents of the design that MongoDB would refuse: larger than the limit
/// typically (on their own fields, or with what is embedded in them), whatever
/// the relationships' rules said link by link (issue 23: a 19 MiB entity was
/// advised with no finding).
fn too_large(facts: &Facts<'_>, design: &Design) -> Vec<Finding> {
    let mut out = too_large_typically(facts, design);
    out.extend(too_large_at_max(facts, design));
    out
}

/// Documents within the limit typically that would pass it with every
/// array at its maximum at once (a chain of embedded one-to-manys, each
/// within the limit alone): the relationships' own rules judge one array
/// each, so this is said of the whole document, as a warning.
fn too_large_at_max(facts: &Facts<'_>, design: &Design) -> Vec<Finding> {
    let limit = facts.settings.design.max_document_bytes;
    let rule = r::document_size_limit::RULE;
    design
        .collections
        .iter()
        .filter(|c| c.size.typical_bytes <= limit)
        .filter_map(|c| Some((c, c.size.max_bytes.filter(|m| *m > limit)?)))
        .map(|(c, max)| Finding {
            rule: rule.id,
            severity: Severity::Warning,
            message: format!(
                "with every embedded array at the model's maximum, a document of {} takes {}, over MongoDB's limit of {} ({} typically)",
                c.name,
                crate::words::bytes(max as f64),
                crate::words::bytes(limit as f64),
                crate::words::bytes(c.size.typical_bytes as f64)
            ),
            location: Location::Model {
                path: format!("entities.{}", c.entities.first().cloned().unwrap_or_default()),
            },
            evidence: vec![
                Evidence::new("max_bytes", max),
                Evidence::new("typical_bytes", c.size.typical_bytes),
                Evidence::new("limit_bytes", limit),
            ],
            help: Some(
                "reference the deepest embedded children instead, or give the relationships maximums that hold together".to_string(),
            ),
        })
        .collect()
}

fn too_large_typically(facts: &Facts<'_>, design: &Design) -> Vec<Finding> {
    let limit = facts.settings.design.max_document_bytes;
    let rule = r::document_size_limit::RULE;
    design
        .collections
        .iter()
        .filter(|c| c.size.typical_bytes > limit)
        .map(|c| Finding {
            rule: rule.id,
            severity: Severity::Error,
            message: format!(
                "a document of {} takes {} typically, over MongoDB's limit of {}: it cannot be stored",
                c.name,
                crate::words::bytes(c.size.typical_bytes as f64),
                crate::words::bytes(limit as f64)
            ),
            location: Location::Model {
                path: format!("entities.{}", c.entities.first().cloned().unwrap_or_default()),
            },
            evidence: vec![
                Evidence::new("typical_bytes", c.size.typical_bytes),
                Evidence::new("limit_bytes", limit),
            ],
            help: Some(
                "split the entity: move its large fields (files, long texts) into documents of their own, or into GridFS".to_string(),
            ),
        })
        .collect()
}
