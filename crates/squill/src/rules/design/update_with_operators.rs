//! `update-with-operators`: Change documents with update operators, never by replacing the whole document.

crate::rules::declare_rule! {
    id: "update-with-operators",
    summary: "Change documents with update operators, never by replacing the whole document",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Design(check),
}

use crate::design::{Action, UpdateOp};
use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;

/// Reports updates of a field inside an embedded array or of a large document:
/// they must use update operators (`$set` on the path, `$inc`, `$push`), never
/// a replacement of the whole document.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for op in &cx.design.operations {
        for step in &op.steps {
            if !matches!(step.action, Action::UpdateOne | Action::UpdateMany) {
                continue;
            }
            let Some(coll) = cx
                .design
                .collections
                .iter()
                .find(|c| c.name == step.collection)
            else {
                continue;
            };
            let paths: Vec<&str> = step
                .updates
                .iter()
                .filter_map(|u| match u {
                    UpdateOp::Set { path } => Some(path.as_str()),
                    _ => None,
                })
                .collect();
            let positional = paths.iter().any(|p| p.contains(".$"));
            if positional || coll.size.typical_bytes >= 16 * 1024 {
                out.push(Finding {
                    rule: RULE.id,
                    severity: RULE.default_severity,
                    message: format!(
                        "{} updates {} in {} documents of {}: send only the changed paths with update operators",
                        op.operation,
                        if paths.is_empty() { "fields".to_string() } else { paths.join(", ") },
                        coll.name,
                        crate::words::bytes(coll.size.typical_bytes as f64)
                    ),
                    location: DesignCheck::at(format!("operations.{}", op.operation)),
                    evidence: vec![Evidence::new("document_bytes", coll.size.typical_bytes)],
                    help: Some(if positional {
                        "use $set with the positional operator ($ or $[<id>]) on the element".to_string()
                    } else {
                        "use $set/$inc on the changed fields, never replaceOne".to_string()
                    }),
                });
                break;
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
            "edit_address updates addresses.$.street, addresses.$.city in person documents of 312 B: send only the changed paths with update operators"
            ]
        );
    }

    #[test]
    fn stays_quiet() {
        assert!(judge_design(&RULE, &example("user-address.yaml")).iter().all(|v| v == "-"));
    }
}
