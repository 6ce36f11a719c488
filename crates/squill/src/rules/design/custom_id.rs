//! `custom-id`: Use a natural unique key as _id to save an index.

crate::rules::declare_rule! {
    id: "custom-id",
    summary: "Use a natural unique key as _id to save an index",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;

/// Reports a unique, never-updated field that reads look documents up by
/// alone: as `_id` it would save an index.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for c in &cx.design.collections {
        if c.entities.len() != 1 {
            continue;
        }
        let Some(e) = model.entity_by_name(&c.entities[0]) else {
            continue;
        };
        let entity = model.entity(e);
        for ix in &c.indexes {
            let [(key, _)] = ix.keys.as_slice() else {
                continue;
            };
            let Some(field) = entity.field(key) else {
                continue;
            };
            let unique = field
                .distinct
                .is_some_and(|d| d >= entity.count && entity.count > 0);
            if unique && cx.facts.field_update_rate(e, key) == 0.0 {
                out.push(Finding {
                    rule: RULE.id,
                    severity: RULE.default_severity,
                    message: format!(
                        "{}.{key} is unique and never changes; as _id it would replace index {} ({} entries)",
                        c.name,
                        ix.name,
                        crate::words::num(c.documents as f64)
                    ),
                    location: DesignCheck::at(format!("entities.{}.fields.{key}", entity.name)),
                    evidence: vec![Evidence::new("index", ix.name.clone()), Evidence::new("used_by", ix.used_by.clone())],
                    help: Some(format!("store {key} in _id and drop the index")),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_design};

    #[test]
    fn fires() {
        assert_eq!(
            judge_design(&RULE, &example("person-addresses.yaml")),
            [
            "person.ssn is unique and never changes; as _id it would replace index ssn_1 (1,000,000 entries)"
            ]
        );
    }

    /// Near miss: the same ssn index, with one person fewer distinct ssn
    /// values than people: not unique, so no `_id`.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("person-addresses.yaml").replace("distinct: 1000000}", "distinct: 999999}");
        assert!(model.contains("distinct: 999999}"));
        assert!(judge_design(&RULE, &model).is_empty());
    }
}
