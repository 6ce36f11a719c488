//! The design of today priced beside the recommended one: the model with
//! every relationship of its `current:` section pinned to the layout it has
//! today (with its copies), advised on the same workload; then, for each
//! relationship the recommendation changes, the design of today with only
//! that one changed, so that each change says what it gains alone. Both
//! leave out the entity-level patterns the deployment does not use
//! (`current: without:`): the same model would otherwise give the design of
//! today the archive or timeline only the recommendation has.

use super::AdviseError;
use super::search::advise_plain;
use crate::design::{
    CurrentComparison, Design, EntityDecision, Layout, LayoutChange, OperationComparison,
};
use crate::finding::{Evidence, Finding, Location, Severity};
use crate::model::{CurrentLayout, Model};
use crate::settings::Settings;

/// Changed relationships priced alone, at most (each is one more search).
const GAINS_PRICED: usize = 24;

/// `model` as it is today: each relationship with a layout of today pinned
/// to it; `instead` puts some relationships on another layout.
fn today(model: &Model, instead: &[(&str, &Layout)]) -> Model {
    let mut m = model.clone();
    for c in &mut m.current {
        let name = &model.relationship(c.relationship).name;
        if let Some((_, layout)) = instead.iter().find(|(r, _)| r == name) {
            c.layout = layout.layout_kind();
            c.copies = copies(layout);
        }
    }
    for c in &m.current {
        m.relationships[c.relationship.index()].layout = Some(c.layout);
    }
    m
}

/// The fields a layout copies, of either side.
fn copies(layout: &Layout) -> Vec<String> {
    match layout {
        Layout::ExtendedReference { fields, .. } => fields.clone(),
        Layout::TwoWayExtendedReference {
            copies_in_parent,
            copies_in_child,
        } => copies_in_parent
            .iter()
            .chain(copies_in_child)
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

fn chosen<'d>(design: &'d Design, relationship: &str) -> Option<&'d Layout> {
    design
        .relationships
        .iter()
        .find(|d| d.relationship == relationship)
        .map(|d| &d.chosen)
}

/// The design the deployment has today: `model` advised with every
/// relationship of its `current:` section pinned to its layout of today
/// (with the model it was made for); `None` when the model has no
/// `current:`. What a migration starts from.
pub fn today_design(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
) -> Result<Option<(Model, Design)>, AdviseError> {
    if model.current.is_empty() && model.without.is_empty() {
        return Ok(None);
    }
    advise_plain(&today(model, &[]), settings, mix, &model.without).map(Some)
}

/// The design of today with `relationships` as parent references instead
/// (their copies dropped), advised as `today_design` is: the stage a
/// migration passes through when no step turns their layout of today
/// into the recommended one directly, the parent reference being the form
/// every layout is built from and unwound to.
pub fn through_reference_design(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    relationships: &[String],
) -> Result<Design, AdviseError> {
    let layouts: Vec<(String, Layout)> = relationships
        .iter()
        .map(|r| (r.clone(), Layout::ParentReference))
        .collect();
    through_design(model, settings, mix, &layouts)
}

/// The design of today with some relationships on other layouts (with
/// their copies), advised as `today_design` is: a stage a migration passes
/// through (the parent references above, or the recommended layouts in the
/// collections of today before kinds merge into a polymorphic collection).
pub fn through_design(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    layouts: &[(String, Layout)],
) -> Result<Design, AdviseError> {
    let instead: Vec<(&str, &Layout)> = layouts.iter().map(|(r, l)| (r.as_str(), l)).collect();
    advise_plain(&today(model, &instead), settings, mix, &model.without).map(|(_, d)| d)
}

/// The comparison of the design of today with `recommended`.
pub(super) fn compare(
    model: &Model,
    settings: &Settings,
    mix: Option<&str>,
    recommended: &Design,
) -> Result<CurrentComparison, AdviseError> {
    let (_, now) = advise_plain(&today(model, &[]), settings, mix, &model.without)?;
    let mut relationships = Vec::new();
    let mut priced = 0usize;
    for CurrentLayout { relationship, .. } in &model.current {
        let name = &model.relationship(*relationship).name;
        let (Some(current), Some(better)) = (chosen(&now, name), chosen(recommended, name)) else {
            continue;
        };
        let gain = if current == better || priced >= GAINS_PRICED {
            None
        } else {
            priced += 1;
            // A change another one needs (an embed that moves a child's own
            // relationships) may not stand alone: then no figure of its own.
            advise_plain(
                &today(model, &[(name, better)]),
                settings,
                mix,
                &model.without,
            )
            .ok()
            .map(|(_, alone)| now.totals.minus(&alone.totals))
        };
        relationships.push(LayoutChange {
            relationship: name.clone(),
            current: current.clone(),
            recommended: better.clone(),
            gain,
        });
    }
    let operations = now
        .operations
        .iter()
        .filter_map(|op| {
            let other = recommended
                .operations
                .iter()
                .find(|o| o.operation == op.operation)?;
            Some(OperationComparison {
                operation: op.operation.clone(),
                rate: op.rate,
                current: op.cost,
                recommended: other.cost,
            })
        })
        .collect();
    let unstated = model
        .relationship_ids()
        .filter(|&r| model.current_of(r).is_none())
        .map(|r| model.relationship(r).name.clone())
        .collect();
    let (today_patterns, recommended_patterns) =
        (pattern_collections(&now), pattern_collections(recommended));
    let missing = |from: &[&str], to: &[&str]| -> Vec<String> {
        from.iter()
            .filter(|c| !to.contains(c))
            .map(|c| (*c).to_string())
            .collect()
    };
    let patterns_added = missing(&recommended_patterns, &today_patterns);
    let patterns_dropped = missing(&today_patterns, &recommended_patterns);
    Ok(CurrentComparison {
        already_best: now.totals.score <= recommended.totals.score
            || (relationships.iter().all(|c| c.current == c.recommended)
                && patterns_added.is_empty()
                && patterns_dropped.is_empty()),
        patterns_added,
        patterns_dropped,
        current_totals: now.totals,
        recommended_totals: recommended.totals,
        relationships,
        operations,
        unstated,
    })
}

/// The collections a design's entity-level patterns make (an archive, a
/// polymorphic collection, a timeline), sorted: when the design of today
/// leaves one out (`current: without:`), the recommendation changes the
/// deployment even with every relationship as it is.
fn pattern_collections(design: &Design) -> Vec<&str> {
    let mut out: Vec<&str> = design
        .entities
        .iter()
        .filter_map(|e| match e {
            EntityDecision::Archive { archive, .. } => Some(archive.as_str()),
            EntityDecision::Polymorphic { collection, .. }
            | EntityDecision::Timeline { collection, .. } => Some(collection.as_str()),
            EntityDecision::ComputedField { .. } => None,
        })
        .collect();
    out.sort_unstable();
    out
}

/// The finding when the design of today cannot be priced (a layout that is
/// no candidate for its relationship here, say).
pub(super) fn unpriced(e: &AdviseError) -> Finding {
    Finding {
        rule: crate::rules::design::design_for_workload::RULE.id,
        severity: Severity::Warning,
        message: format!("the design of today (`current:`) cannot be priced: {e}"),
        location: Location::Model {
            path: "current".to_string(),
        },
        evidence: vec![Evidence::new("current", "unpriced")],
        help: Some(
            "give each relationship in `current:` a layout its candidates include (advise lists them)"
                .to_string(),
        ),
    }
}
