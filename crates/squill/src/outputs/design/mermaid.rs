//! The collections of a design as a Mermaid `erDiagram`, which GitHub and
//! most Markdown viewers draw: one box per collection with its top-level
//! fields (type, and where a value comes from when it is not the entity's
//! own: embedded, a copy, computed), and one line per reference between
//! collections, with its cardinality.

use crate::design::{Design, FieldOrigin, ShapeType};
use std::fmt::Write as _;

/// The diagram, as a fenced `mermaid` block.
pub fn diagram(design: &Design) -> String {
    let mut out = String::from("```mermaid\nerDiagram\n");
    for c in &design.collections {
        let _ = writeln!(out, "  {} {{", ident(&c.name));
        for f in &c.shape.fields {
            let note = match &f.origin {
                FieldOrigin::Embedded { relationship } => format!("embedded {relationship}"),
                FieldOrigin::Copy { entity, field, .. } => format!("copy of {entity}.{field}"),
                FieldOrigin::Computed { description, .. } => format!("computed: {description}"),
                FieldOrigin::Reference { relationship, .. } => {
                    format!("reference ({relationship})")
                }
                FieldOrigin::Path { tree, .. } => format!("path in {tree}"),
                FieldOrigin::Timeline { entity, .. } => {
                    format!("newest {entity} of those followed")
                }
                FieldOrigin::Bucket { description, .. } => description.clone(),
                FieldOrigin::Attribute { relationship, .. } => {
                    format!("of the link {relationship}")
                }
                FieldOrigin::Id
                | FieldOrigin::Own { .. }
                | FieldOrigin::Discriminator
                | FieldOrigin::Outliers { .. } => String::new(),
            };
            let _ = write!(out, "    {} {}", type_name(&f.ty), ident(&f.name));
            if !note.is_empty() {
                let _ = write!(out, " \"{}\"", note.replace('"', "'"));
            }
            out.push('\n');
        }
        out.push_str("  }\n");
    }
    for c in &design.collections {
        for f in &c.shape.fields {
            let FieldOrigin::Reference { relationship, .. } = &f.origin else {
                continue;
            };
            let Some(d) = design
                .relationships
                .iter()
                .find(|d| &d.relationship == relationship)
            else {
                continue;
            };
            // The other side of the relationship, in the collection that holds it.
            let here = c.entities.first().map(String::as_str);
            let other = if here == Some(d.parent.as_str()) {
                &d.child
            } else {
                &d.parent
            };
            let Some(target) = design
                .collections
                .iter()
                .find(|t| t.entities.iter().any(|e| e == other))
            else {
                continue;
            };
            // Many ids in this document, or one.
            let many = matches!(f.ty, ShapeType::Array { .. });
            let line = if many { "}o--o{" } else { "}o--o|" };
            let _ = writeln!(
                out,
                "  {} {line} {} : \"{}\"",
                ident(&c.name),
                ident(&target.name),
                f.name.replace('"', "'")
            );
        }
    }
    out.push_str("```\n");
    out
}

fn type_name(ty: &ShapeType) -> &str {
    match ty {
        ShapeType::Scalar { bson_type, .. } => bson_type,
        ShapeType::Object { .. } => "object",
        ShapeType::Array { .. } => "array",
    }
}

/// A name Mermaid takes: letters, digits, `_` and `-`.
fn ident(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::diagram;
    use std::collections::BTreeSet;

    /// One box per collection, and every line between two boxes drawn.
    #[test]
    fn one_box_per_collection_and_lines_between_boxes() {
        for design in [
            crate::outputs::design::sample::product_parts(),
            crate::fixtures::sensor_readings().1,
            crate::fixtures::shop().1,
        ] {
            let text = diagram(&design);
            let boxes: BTreeSet<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(" {"))
                .collect();
            assert_eq!(boxes.len(), design.collections.len(), "{text}");
            for line in text.lines().filter(|l| l.contains("}o--")) {
                let mut words = line.split_whitespace();
                let (from, _, to) = (words.next(), words.next(), words.next());
                assert!(
                    boxes.contains(from.unwrap()) && boxes.contains(to.unwrap()),
                    "{line}"
                );
            }
            assert!(text.starts_with("```mermaid\nerDiagram\n") && text.ends_with("```\n"));
        }
    }
}
