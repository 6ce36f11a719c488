//! `many-to-many-sides-disagree`: A many-to-many's links counted from
//! each side describe one fact; beyond 2× apart, squill follows the first
//! side and says so (audit46 D6).

crate::rules::declare_rule! {
    id: "many-to-many-sides-disagree",
    summary: "A many-to-many's links counted from either side are one fact; beyond 2× apart, squill follows the first side (`parent`, its `children`) everywhere and says so",
    kind: Design,
    severity: Warning,
    sources: ["003_8caca105590b9080.txt"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::model::{Model, RelationshipId, SIDES_DISAGREE_FACTOR, links_by_side};
use crate::rules::judge::DesignCheck;
use crate::words;

/// One warning per many-to-many whose stated sides `model::agree_sides`
/// made agree: both counts of the links, and the figure squill uses.
/// A many-to-many advise rewrote into an edge collection is no longer in
/// the design's model; advise asks `finding` of the model as written.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    model
        .relationship_ids()
        .filter_map(|r| finding(model, r))
        .collect()
}

/// The warning on `r` of `model`, when its stated sides disagreed.
pub fn finding(model: &Model, r: RelationshipId) -> Option<Finding> {
    let rel = model.relationship(r);
    let stated = rel.stated_parents?;
        let (first, second) = links_by_side(model, r);
        let (a, b) = (&model.entity(rel.parent).name, &model.entity(rel.child).name);
        let (a_count, b_count) = (model.entity(rel.parent).count, model.entity(rel.child).count);
        Some(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{}: counted from the {}, {} links ({} × {} each); counted from the {}, {} ({} × {} each): more than {}× apart. squill counts from the {} everywhere: {} links, a typical {} with {}",
                rel.name,
                words::plural(a),
                words::num(first),
                words::count(a_count as f64, a),
                words::count(rel.children.typical as f64, b),
                words::plural(b),
                words::num(second),
                words::count(b_count as f64, b),
                words::count(stated as f64, a),
                words::num(SIDES_DISAGREE_FACTOR),
                words::plural(a),
                words::num(first),
                words::singular(b),
                words::count(rel.parents.typical as f64, a),
            ),
            location: DesignCheck::at(format!("relationships.{}", rel.name)),
            evidence: vec![
                Evidence::new("links_by_parent_side", first),
                Evidence::new("links_by_child_side", second),
                Evidence::new("stated_parents_typical", stated),
                Evidence::new("used_parents_typical", rel.parents.typical),
            ],
            help: Some(format!(
                "make the two agree: {} × {} per {} must equal {} × {} per {}; measure the links once and state both sides from it",
                words::plural(a),
                words::plural(b),
                words::singular(a),
                words::plural(b),
                words::plural(a),
                words::singular(b),
            )),
        })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// audit46's ticketing: 100,000 organizers with 200 fans each, 20
    /// million fans following PARENTS organizers each.
    const FOLLOWS: &str = r"
entities:
  fan: {count: 20000000, fields: {handle: string(20)}}
  organizer: {count: 100000, fields: {brand: string(30)}}
relationships:
  follows:
    kind: many-to-many
    parent: organizer
    child: fan
    children: {typical: 200, max: 40000000}
    parents: {typical: PARENTS, max: 2000}
    parent_field: followers
    child_field: following
operations:
  follow: {link: follows, rate: 600}
  followed: {read: fan, filter: {_id: eq}, include: {follows: {}}, rate: 100}
";

    fn findings(parents: &str) -> Vec<crate::finding::Finding> {
        let yaml = FOLLOWS.replace("PARENTS", parents);
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        })
    }

    fn evidence(f: &crate::finding::Finding, name: &str) -> serde_json::Value {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// 20 M links one way, 200 M the other: both figures, and the first
    /// side's used (1 organizer per fan).
    #[test]
    fn fires_beyond_twice_with_both_figures() {
        let f = findings("10");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, RULE.id);
        assert_eq!(evidence(&f[0], "links_by_parent_side"), 20_000_000.0);
        assert_eq!(evidence(&f[0], "links_by_child_side"), 200_000_000.0);
        assert_eq!(evidence(&f[0], "stated_parents_typical"), 10);
        assert_eq!(evidence(&f[0], "used_parents_typical"), 1);
        insta::assert_snapshot!(f[0].message, @"follows: counted from the organizers, 20,000,000 links (100,000 organizers × 200 fans each); counted from the fans, 200,000,000 (20,000,000 fans × 10 organizers each): more than 2× apart. squill counts from the organizers everywhere: 20,000,000 links, a typical fan with 1 organizer");
    }

    /// The link as an edge collection (pinned here; advise may choose it
    /// too): the design's model holds two one-to-manys in its place, and
    /// the warning is still given, from the model as written (REVIEW47
    /// item 8: it went silent).
    #[test]
    fn fires_when_the_link_is_an_edge_collection() {
        let yaml = FOLLOWS
            .replace("PARENTS", "10")
            .replace("    child_field: following\n", "    child_field: following\n    layout: edge-collection\n");
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let design = crate::advise::advise(&model, &Settings::default(), None).expect("a design");
        assert!(
            design.collections.iter().any(|c| c.name == "follows"),
            "not an edge collection: {:?}",
            design.collections.iter().map(|c| &c.name).collect::<Vec<_>>()
        );
        let f: Vec<_> = design.findings.iter().filter(|f| f.rule == RULE.id).collect();
        assert_eq!(f.len(), 1, "{:?}", design.findings);
        assert_eq!(evidence(f[0], "links_by_child_side"), 200_000_000.0);
        assert_eq!(evidence(f[0], "used_parents_typical"), 1);
    }

    /// Near miss: 2 organizers per fan, 40 M links, exactly twice.
    #[test]
    fn stays_quiet_at_twice() {
        assert!(findings("2").is_empty(), "{:?}", findings("2"));
    }

    /// The design follows the one figure: the edge collection (or the
    /// fans' arrays) holds the first side's 20 M links, not 200 M.
    #[test]
    fn the_design_uses_the_first_side() {
        let yaml = FOLLOWS.replace("PARENTS", "10");
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let r = &model.relationships[0];
        assert_eq!(r.parents.typical, 1);
        assert_eq!(
            crate::model::links_by_side(&model, crate::model::RelationshipId::from_index(0)),
            (20_000_000.0, 200_000_000.0)
        );
    }
}
