//! `hot-document`: writes made once per child land on the parent's one
//! document; at the largest parent (the relationship's `max`) they can
//! come faster than one document takes them.

crate::rules::declare_rule! {
    id: "hot-document",
    summary: "Writes made once per child all land on the parent's one document: at the largest parent they come faster than one document takes them",
    kind: Design,
    severity: Warning,
    sources: ["MongoDB manual: FAQ: Concurrency", "MongoDB blog: Building with Patterns: The Approximation Pattern", "004_16209cf0db7b32ff.txt"],
    check: Design(check),
}

use crate::design::{Action, OperationPlan, Step, UpdateOp};
use crate::finding::{Evidence, Finding};
use crate::model::{OperationKind, RelationshipId};
use crate::rules::judge::DesignCheck;
use crate::words;

/// Writes a second that one document takes, sustained: past it the
/// writers queue on the document (squill's figure; the rule's docs say
/// why, and that MongoDB publishes none).
pub const DOCUMENT_WRITES_PER_SECOND: f64 = 100.0;

/// One operation's writes to the parent's document, per second, at the
/// largest parent.
#[derive(Debug, Clone, PartialEq)]
pub struct Hot {
    pub operation: String,
    pub relationship: String,
    pub parent: String,
    pub child: String,
    /// The largest parent's children, and which figure of the model says
    /// so (`max`, else the highest percentile).
    pub largest: f64,
    pub figure: &'static str,
    /// Every child of the relationship (links, as the children hold them).
    pub children: f64,
    /// The operation's writes of the parent's document, per second.
    pub writes: f64,
    /// `writes × largest / children`: the largest parent's share of them.
    pub per_document: f64,
    /// Every write only moves counters (`$inc`): a counter's remedies.
    pub counter: bool,
}

/// Every operation whose writes follow the children of a relationship
/// (an insert linked to the parent, or a write of an atomic group that
/// says `same:` the parent beside such an insert) and write the parent's
/// own document: the writes the largest parent gets, against what one
/// document takes.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    hot(cx)
        .into_iter()
        .filter(|h| h.per_document > DOCUMENT_WRITES_PER_SECOND)
        .map(|h| finding(&h))
        .collect()
}

/// The writes per document at the largest parent of every operation that
/// writes a parent once per child, over the threshold or not.
pub fn hot(cx: &DesignCheck<'_>) -> Vec<Hot> {
    let model = cx.facts.model;
    // (operation, relationship) pairs whose writes follow the children.
    let mut pairs: Vec<(usize, RelationshipId)> = Vec::new();
    for (i, op) in model.workload.operations.iter().enumerate() {
        if let OperationKind::Insert { links, .. } = &op.kind {
            pairs.extend(links.iter().map(|r| (i, *r)));
        }
    }
    for g in &model.workload.atomic_groups {
        let Some(same) = g.same else { continue };
        // The insert of the group that names the instance: its
        // relationship tells how the group's runs spread over parents.
        let rel = g.operations.iter().find_map(|o| match &model.operation(*o).kind {
            OperationKind::Insert { links, .. } => {
                let mut to = links.iter().filter(|r| model.relationship(**r).parent == same);
                match (to.next(), to.next()) {
                    (Some(r), None) => Some(*r),
                    _ => None,
                }
            }
            _ => None,
        });
        if let Some(r) = rel {
            pairs.extend(g.operations.iter().map(|o| (o.index(), r)));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut out = Vec::new();
    for (i, r) in pairs {
        let op = &model.workload.operations[i];
        let rel = model.relationship(r);
        let parent = &model.entity(rel.parent).name;
        let Some(plan) = cx.design.operations.iter().find(|p| p.operation == op.name) else {
            continue;
        };
        let Some(collection) = cx
            .design
            .collections
            .iter()
            .find(|c| c.entities.iter().any(|e| e == parent))
        else {
            continue;
        };
        let steps: Vec<&Step> = writes_of(plan, &collection.name).collect();
        if steps.is_empty() {
            continue;
        }
        let Some((largest, figure)) = largest(&rel.children.spread_from_growth()) else {
            continue;
        };
        let children = cx.facts.count(rel.child) * cx.facts.typical_parents(r);
        let share = (largest / children.max(1.0)).min(1.0);
        // A counter written once every `every` children runs that much
        // less often (the approximate counter is the remedy already).
        let writes: f64 = steps
            .iter()
            .map(|s| plan.rate / s.every.unwrap_or(1).max(1) as f64)
            .sum();
        let counter = steps
            .iter()
            .all(|s| s.updates.iter().all(|u| matches!(u, UpdateOp::Inc { .. })));
        out.push(Hot {
            operation: op.name.clone(),
            relationship: rel.name.clone(),
            parent: parent.clone(),
            child: model.entity(rel.child).name.clone(),
            largest,
            figure,
            children,
            writes,
            per_document: writes * share,
            counter,
        });
    }
    out
}

/// The plan's writes of one document of `collection` (not `updateMany`,
/// which spreads over many).
fn writes_of<'a>(plan: &'a OperationPlan, collection: &'a str) -> impl Iterator<Item = &'a Step> {
    plan.steps.iter().filter(move |s| {
        s.collection == collection
            && matches!(
                s.action,
                Action::UpdateOne | Action::Upsert | Action::FindOneAndUpdate
            )
    })
}

/// The largest parent's children: the model's `max` (with a growth
/// spread, the one it implies), else its highest percentile.
fn largest(c: &crate::model::Cardinality) -> Option<(f64, &'static str)> {
    match (c.max.finite(), c.highest_percentile()) {
        (Some(m), _) => Some((m as f64, "max")),
        (None, Some((name, p))) => Some((p as f64, name)),
        (None, None) => None,
    }
}

fn finding(h: &Hot) -> Finding {
    let shards = (h.per_document / DOCUMENT_WRITES_PER_SECOND).ceil();
    let help = if h.counter {
        format!(
            "count in batches where readers accept an error (`aggregates: [count({}) within 1%]`, rule approximate-counter: one $inc of N every N {}), or spread the counter over {} documents (a sharded counter: each write $incs one picked at random, a read sums them)",
            h.relationship,
            words::plural(&h.child),
            words::num(shards.max(2.0)),
        )
    } else {
        format!(
            "keep the largest {}'s {} out of its document: a reference to the {} in each {} (parent-reference), or only the outliers' {} apart (outlier)",
            h.parent,
            words::plural(&h.child),
            h.parent,
            h.child,
            words::plural(&h.child),
        )
    };
    Finding {
        rule: RULE.id,
        severity: RULE.default_severity,
        message: format!(
            "{} writes one {}'s document for each {}: the largest {} (`{}` of {}: {} of the {} {}) gets about {} writes/s, past the {} a document takes",
            h.operation,
            h.parent,
            h.child,
            h.parent,
            h.figure,
            h.relationship,
            words::num(h.largest),
            words::num(h.children),
            words::plural(&h.child),
            words::num(h.per_document),
            words::num(DOCUMENT_WRITES_PER_SECOND),
        ),
        location: DesignCheck::at(format!("operations.{}", h.operation)),
        evidence: vec![
            Evidence::new("writes_per_second", h.writes),
            Evidence::new("largest_children", h.largest),
            Evidence::new("children", h.children),
            Evidence::new("per_document_writes", h.per_document),
            Evidence::new("document_writes_limit", DOCUMENT_WRITES_PER_SECOND),
        ],
        help: Some(help),
    }
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// A view recorded and counted on its story, one story's views at
    /// most `MAX` of 50,000,000: the counter's writes follow the views
    /// only where the model says so (`GROUP`).
    const STORIES: &str = r"
entities:
  story:
    count: 1000000
    fields: {caption: string(100), view_count: int}
  view:
    count: 50000000
    fields: {at: date}
relationships:
  story_views:
    parent: story
    child: view
    children: {min: 0, typical: 50, max: MAX}
    child_field: story
operations:
  record_view:
    insert: view
    links: [story_views]
    rate: 20000
  count_views:
    update: story
    filter: {_id: eq}
    increments: {view_count: 1}
    rate: 20000
GROUP";

    const GROUP: &str = "atomic:\n  viewed: {writes: [record_view, count_views], same: story}\n";

    fn findings(max: &str, group: &str) -> Vec<crate::finding::Finding> {
        let yaml = STORIES.replace("MAX", max).replace("GROUP", group);
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        })
    }

    fn evidence(f: &crate::finding::Finding, name: &str) -> f64 {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.value.as_f64())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// The largest story holds 1,000,000 of the 50,000,000 views (2%), so
    /// it gets 2% of 20,000 $inc/s: 400 a second on one document.
    #[test]
    fn fires_at_the_largest_parent() {
        let f = findings("1000000", GROUP);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].rule, RULE.id);
        assert!((evidence(&f[0], "per_document_writes") - 400.0).abs() < 1e-6);
        assert_eq!(evidence(&f[0], "largest_children"), 1_000_000.0);
        assert_eq!(evidence(&f[0], "children"), 50_000_000.0);
        insta::assert_snapshot!(f[0].message, @"count_views writes one story's document for each view: the largest story (`max` of story_views: 1,000,000 of the 50,000,000 views) gets about 400 writes/s, past the 100 a document takes");
        insta::assert_snapshot!(f[0].help.clone().unwrap_or_default(), @"count in batches where readers accept an error (`aggregates: [count(story_views) within 1%]`, rule approximate-counter: one $inc of N every N views), or spread the counter over 4 documents (a sharded counter: each write $incs one picked at random, a read sums them)");
    }

    /// Near miss: 250,000 views at most, 0.5% of 20,000/s: 100 writes a
    /// second, what one document takes, not past it.
    #[test]
    fn stays_quiet_just_under() {
        assert!(findings("250000", GROUP).is_empty());
    }

    /// Without the group nothing ties the counter to the views: an update
    /// by `_id` spreads over every story as far as the model says.
    #[test]
    fn stays_quiet_when_nothing_ties_the_write_to_the_children() {
        assert!(findings("1000000", "").is_empty());
    }
}
