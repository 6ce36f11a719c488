//! `mixed-field-types`: The same field holds values of several types.

crate::rules::declare_rule! {
    id: "mixed-field-types",
    summary: "The same field holds values of several types",
    kind: Data,
    severity: Warning,
    sources: ["Compass schema analysis"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Store one type per field and enforce it with a $jsonSchema validator; when \
the variation is deliberate, say so with a type or version field (polymorphic or \
schema-versioning pattern) so readers need not guess.";

/// The type family a BSON type counts as: null and undefined are absence, the
/// number types are one family.
fn family(ty: &str) -> Option<&'static str> {
    match ty {
        "null" | "undefined" => None,
        "int" | "long" | "double" | "decimal" => Some("number"),
        "string" => Some("string"),
        "object" => Some("object"),
        "array" => Some("array"),
        "objectId" => Some("objectId"),
        "bool" => Some("bool"),
        "date" => Some("date"),
        "binData" => Some("binData"),
        "timestamp" => Some("timestamp"),
        "regex" => Some("regex"),
        _ => Some("other"),
    }
}

/// Fields holding values of more type families than the limit.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let limit = a.settings.scan.mixed_field_types;
    for c in a.collections {
        for f in &c.fields {
            let mut families: Vec<&str> = f.types.iter().filter_map(|t| family(t.ty)).collect();
            families.sort_unstable();
            families.dedup();
            if families.len() as u64 <= limit.max.value {
                continue;
            }
            let rarest = f
                .types
                .iter()
                .filter(|t| family(t.ty).is_some())
                .min_by_key(|t| t.count);
            let listed: Vec<String> = f
                .types
                .iter()
                .map(|t| format!("{} ({})", t.ty, t.count))
                .collect();
            out.push(finding(
                &RULE,
                limit.severity,
                format!(
                    "`{}` holds {} types: {}",
                    f.path,
                    families.len(),
                    listed.join(", ")
                ),
                location(c, Some(&f.path), rarest.and_then(|t| t.example_id.as_ref())),
                vec![
                    Evidence::new(
                        "types",
                        serde_json::Value::Object(
                            f.types
                                .iter()
                                .map(|t| (t.ty.to_string(), serde_json::Value::from(t.count)))
                                .collect(),
                        ),
                    ),
                    Evidence::new("type_families", families.len()),
                    Evidence::new("limit", limit.max.value),
                    Evidence::new("limit_source", limit.max.source),
                ],
                HELP,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    #[test]
    fn fires_on_string_and_number_with_the_rare_type_example() {
        let docs = vec![
            doc(&[("_id", B::I32(1)), ("zip", B::Str("10001"))]),
            doc(&[("_id", B::I32(2)), ("zip", B::Str("10002"))]),
            doc(&[("_id", B::I32(3)), ("zip", B::I32(10003))]),
        ];
        let r = scan(vec![coll("d", "c", docs)], &Default::default());
        let f = fired(&r, "mixed-field-types");
        assert_eq!(f.len(), 1);
        insta::assert_json_snapshot!(f[0]);
    }

    #[test]
    fn quiet_on_numbers_of_several_widths_and_nulls() {
        let docs = vec![
            doc(&[("_id", B::I32(1)), ("n", B::I32(1))]),
            doc(&[("_id", B::I32(2)), ("n", B::F64(1.5))]),
            doc(&[("_id", B::I32(3)), ("n", B::I64(1 << 40))]),
            doc(&[("_id", B::I32(4)), ("n", B::Null)]),
        ];
        let r = scan(vec![coll("d", "c", docs)], &Default::default());
        assert!(fired(&r, "mixed-field-types").is_empty());
    }
}
