//! `assumed-figures`: A decision that rests on figures the model only assumes (row counts, children per parent) says which, so they are measured before the design is trusted.

crate::rules::declare_rule! {
    id: "assumed-figures",
    summary: "A decision that rests on figures the model only assumes (row counts, children per parent) says which, so they are measured before the design is trusted",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;

/// One finding per relationship whose decision rests on an assumed figure:
/// its own cardinality, or the count of either side.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = upsert_shares(cx);
    if model.assumed.is_empty() {
        return out;
    }
    for d in &cx.design.relationships {
        let mut figures: Vec<String> = Vec::new();
        for f in ["children", "parents"] {
            if model.assumed.contains(&format!("relationships.{}.{f}", d.relationship)) {
                figures.push(format!("{f} of {}", d.relationship));
            }
        }
        for e in [&d.parent, &d.child] {
            let count = format!("count of {e}");
            if model.assumed.contains(&format!("entities.{e}.count")) && !figures.contains(&count) {
                figures.push(count);
            }
        }
        if figures.is_empty() {
            continue;
        }
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{}: the decision ({}) rests on assumed figures: {}",
                d.relationship,
                d.chosen.kind(),
                figures.join(", ")
            ),
            location: DesignCheck::at(format!("relationships.{}", d.relationship)),
            evidence: vec![Evidence::new("assumed", figures.join(", "))],
            help: Some(
                "measure them (row counts, children per parent from the data) and replace the `assumed:` figures before relying on this decision".to_string(),
            ),
        });
    }
    out
}

/// One finding per upsert (`otherwise: insert`) whose model does not say
/// what share of its calls add the instance: the plan prices the add on
/// every call (share 1, an upper bound), an assumption `inserts:` states.
fn upsert_shares(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    model
        .workload
        .operations
        .iter()
        .filter(|o| o.terms.upserts() && o.terms.inserts.is_none())
        .map(|o| {
            let entity = &model.entity(o.entity_in(model)).name;
            Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{}: the plan assumes every call adds a {entity} (`otherwise: insert` without `inserts:`), an upper bound on its writes",
                    o.name
                ),
                location: DesignCheck::at(format!("operations.{}", o.name)),
                evidence: vec![Evidence::new("assumed", "inserts: 1")],
                help: Some(format!(
                    "state the share of calls that find no {entity} and add one (`inserts: 0.2` for one call in five)"
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::judge_design;

    #[test]
    fn fires() {
        let yaml = "name: shop\nentities:\n  customer: {count: 1000, assumed: [count]}\n  orders: {count: 1000, fields: {total: decimal}}\nrelationships:\n  orders:\n    parent: customer\n    child: orders\n    children: {typical: 10, max: unbounded}\n    assumed: [children]\n";
        let found = judge_design(&RULE, yaml);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("rests on assumed figures: children of orders, count of customer"),
            "{found:?}"
        );
    }

    /// Near miss: the same shop, with the assumed figure a count no
    /// relationship's decision reads (a note standing alone).
    #[test]
    fn stays_quiet_just_under() {
        let yaml = "name: shop\nentities:\n  customer: {count: 1000}\n  note: {count: 10, assumed: [count]}\n  orders: {count: 1000, fields: {total: decimal}}\nrelationships:\n  orders:\n    parent: customer\n    child: orders\n    children: {typical: 10, max: unbounded}\n";
        assert!(judge_design(&RULE, yaml).is_empty());
    }

    /// An upsert without `inserts:` is priced as if every call added the
    /// stack: the report says so, and the near miss that states the share
    /// is quiet.
    #[test]
    fn an_upsert_without_its_share_says_it_is_assumed() {
        let yaml = "name: game\nentities:\n  player: {count: 1000, fields: {gold: long}}\n  stack: {count: 30000, fields: {kind: {type: string(20), distinct: 500}, qty: int}, unique: [[player, kind]]}\nrelationships:\n  inventory: {parent: player, child: stack, children: {typical: 30, max: 2000}, child_field: player}\noperations:\n  grant_item: {update: stack, filter: {player: eq, kind: eq}, increments: {qty: amount}, otherwise: insert, rate: 3000}\n";
        let found = judge_design(&RULE, yaml);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("grant_item: the plan assumes every call adds a stack"),
            "{found:?}"
        );
        let stated = yaml.replace("otherwise: insert,", "otherwise: insert, inserts: 0.2,");
        assert!(judge_design(&RULE, &stated).is_empty());
    }
}
