//! `reference-type-mismatch`: References kept as another number type than the key they match.

crate::rules::declare_rule! {
    id: "reference-type-mismatch",
    summary: "References kept as another number type than the key they match",
    kind: Data,
    severity: Warning,
    sources: ["MongoDB manual: comparison/sort order"],
    check: Data(check),
}

use super::finding;
use crate::finding::{Evidence, Finding};
use crate::scan::analyze::{Analysis, location};

const HELP: &str = "Rewrite the references as the key's type (an update with $toInt or $toLong \
in a pipeline, or a fixed import), and declare that type in the collection's $jsonSchema \
validator; until then a validator that names the key's type rejects these documents, and \
drivers hand the application numbers of two types.";

/// Relationships whose references hold number types the key does not.
pub fn check(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    let severity = a.settings.scan.reference_type_mismatch;
    for r in a.relationships {
        let other: Vec<&str> = r
            .reference_number_types
            .iter()
            .copied()
            .filter(|t| !r.key_number_types.contains(t))
            .collect();
        if other.is_empty() || r.key_number_types.is_empty() {
            continue;
        }
        let Some(c) = a.collection(&r.from) else {
            continue;
        };
        out.push(finding(
            &RULE,
            severity,
            format!(
                "`{}` holds {} values where {}.{} holds {}: they match by value, but a \
                 $jsonSchema that names one type rejects the other",
                r.field,
                other.join(" and "),
                r.to,
                r.key,
                r.key_number_types.join(" and ")
            ),
            location(c, Some(&r.field), None),
            vec![
                Evidence::new("reference_types", r.reference_number_types.clone()),
                Evidence::new("key_types", r.key_number_types.clone()),
                Evidence::new("target", format!("{}.{}", r.to, r.key)),
            ],
            HELP,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::data::testing::{B, coll, doc, fired, scan};

    /// Customers with int `_id`s; orders whose `customerId` is `as_double`
    /// for every third order, an int otherwise.
    fn input(as_double: bool) -> Vec<crate::rules::data::testing::Coll> {
        let customers = (0..10).map(|i| doc(&[("_id", B::I32(i))])).collect();
        let orders = (0..30)
            .map(|i| {
                let customer = if as_double && i % 3 == 0 {
                    B::F64(f64::from(i % 10))
                } else {
                    B::I32(i % 10)
                };
                doc(&[("_id", B::I32(100 + i)), ("customerId", customer)])
            })
            .collect();
        vec![
            coll("shop", "customers", customers),
            coll("shop", "orders", orders),
        ]
    }

    #[test]
    fn fires_when_references_are_doubles_against_int_ids() {
        let r = scan(input(true), &Default::default());
        let f = fired(&r, "reference-type-mismatch");
        assert_eq!(f.len(), 1, "{:#?}", r.relationships);
        let evidence = |k: &str| {
            f[0].evidence
                .iter()
                .find(|e| e.name == k)
                .map(|e| e.value.to_string())
        };
        assert_eq!(evidence("reference_types").as_deref(), Some(r#"["int","double"]"#));
        assert_eq!(evidence("key_types").as_deref(), Some(r#"["int"]"#));
    }

    /// The same relationship with every reference an int: quiet.
    #[test]
    fn quiet_when_the_types_agree() {
        let r = scan(input(false), &Default::default());
        assert_eq!(r.relationships.len(), 1);
        assert!(fired(&r, "reference-type-mismatch").is_empty());
    }
}
