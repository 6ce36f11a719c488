//! `attribute-pattern`: Keep named values that differ from instance to instance as `{k, v}` pairs under one index, not a field and an index per name.

crate::rules::declare_rule! {
    id: "attribute-pattern",
    summary: "Keep named values that differ from instance to instance as {k, v} pairs under one index, not a field and an index per name",
    kind: Design,
    severity: Info,
    sources: ["MongoDB manual: Attribute Pattern", "MongoDB manual: limits"],
    check: Design(check),
}

use crate::design::Collection;
use crate::finding::{Evidence, Finding};
use crate::model::FieldType;
use crate::rules::design::index_limit::MAX_INDEXES;
use crate::rules::judge::DesignCheck;
use crate::words;

/// Says, for each `attributes` field a design indexes, what the pairs
/// save against a field per name: one index instead of one per name, and
/// whether those would pass MongoDB's limit.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for c in &cx.design.collections {
        for f in c.shape.fields.iter().filter(|f| f.is_attributes()) {
            let crate::design::FieldOrigin::Own { entity, field } = &f.origin else {
                continue;
            };
            let Some(model_field) = model
                .entity_by_name(entity)
                .and_then(|e| model.entity(e).field(field))
            else {
                continue;
            };
            let FieldType::Attributes { keys } = model_field.ty else {
                continue;
            };
            let Some(index) = pair_index(c, &f.name) else {
                continue;
            };
            let others = c.indexes.iter().filter(|i| i.name != index).count();
            let per_name = others as u64 + keys;
            let past = per_name > MAX_INDEXES as u64;
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{}.{} keeps {} names as {{k, v}} pairs under one index, {index}; a field per name would need {} to be searched by any of them{}",
                    c.name,
                    f.name,
                    words::int(keys),
                    words::count(keys as f64, "index"),
                    if past {
                        format!(
                            ", {} in the collection, past MongoDB's limit of {MAX_INDEXES}",
                            words::int(per_name)
                        )
                    } else {
                        String::new()
                    }
                ),
                location: DesignCheck::at(format!("collections.{}.{}", c.name, f.name)),
                evidence: vec![
                    Evidence::new("names", keys),
                    Evidence::new("indexes_with_a_field_per_name", per_name),
                    Evidence::new("limit", MAX_INDEXES),
                ],
                help: Some(format!(
                    "query a name with {{{}: {{$elemMatch: {{k: name, v: value}}}}}} so the index bounds both",
                    f.name
                )),
            });
        }
    }
    out
}

/// The index of `c` whose keys take `field.k` then `field.v`.
fn pair_index<'c>(c: &'c Collection, field: &str) -> Option<&'c str> {
    let (k, v) = (format!("{field}.k"), format!("{field}.v"));
    c.indexes
        .iter()
        .find(|i| i.keys.windows(2).any(|w| w[0].0 == k && w[1].0 == v))
        .map(|i| i.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge_design};

    #[test]
    fn fires_on_searched_specs() {
        let found = judge_design(&RULE, &example("scenarios/s04-marketplace.yaml"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("listing.specs keeps 800 names as {k, v} pairs under one index"), "{found:?}");
        assert!(found[0].contains("past MongoDB's limit of 64"), "{found:?}");
    }

    /// Near miss: the same listings and specs, never searched by a spec:
    /// no index over the pairs to weigh.
    #[test]
    fn stays_quiet_just_under() {
        let model = example("scenarios/s04-marketplace.yaml").replace("filter: {kind: eq, specs: eq}", "filter: {kind: eq}");
        assert!(model.contains("filter: {kind: eq}"));
        assert!(judge_design(&RULE, &model).is_empty());
    }
}
