//! The collections of a design as a Mermaid `erDiagram`, which GitHub and
//! most Markdown viewers draw: one box per collection with its top-level
//! fields (type, and where a value comes from when it is not the entity's
//! own: embedded, a copy, computed), and one line per reference between
//! collections, with its cardinality.

use crate::design::{Design, FieldOrigin, ShapeType};
use crate::words::markdown as md;
use std::fmt::Write as _;

/// The diagram, as a fenced `mermaid` block, then a sentence naming the
/// collections drawn under a name of their own (`unique_idents`).
pub(super) fn diagram(design: &Design) -> String {
    let idents = unique_idents(design.collections.iter().map(|c| c.name.as_str()));
    let mut out = String::from("```mermaid\nerDiagram\n");
    for (c, name) in design.collections.iter().zip(&idents) {
        let _ = writeln!(out, "  {name} {{");
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
                let _ = write!(out, " \"{}\"", label(&note));
            }
            out.push('\n');
        }
        out.push_str("  }\n");
    }
    for (c, name) in design.collections.iter().zip(&idents) {
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
                .position(|t| t.entities.iter().any(|e| e == other))
            else {
                continue;
            };
            // Many ids in this document, or one.
            let many = matches!(f.ty, ShapeType::Array { .. });
            let line = if many { "}o--o{" } else { "}o--o|" };
            let _ = writeln!(
                out,
                "  {name} {line} {} : \"{}\"",
                idents[target],
                label(&f.name)
            );
        }
    }
    out.push_str("```\n");
    let renamed: Vec<String> = design
        .collections
        .iter()
        .zip(&idents)
        .filter(|(c, name)| ident(&c.name) != **name)
        .map(|(c, name)| {
            format!(
                "{} as {}",
                md::code_in_prose(&c.name),
                md::code_in_prose(name)
            )
        })
        .collect();
    if !renamed.is_empty() {
        // Two boxes would otherwise be one: say which is which.
        let _ = writeln!(
            out,
            "\nCollections whose names differ only in characters Mermaid cannot draw are drawn under names of their own: {}.",
            renamed.join(", ")
        );
    }
    out
}

/// The Mermaid name of each collection, in order: `ident` of its name, and
/// when that is taken (`a.b` and `a-b` are both `a_b`… or `a-b`), the
/// first of `_2`, `_3`, … that is free, so two collections never merge.
fn unique_idents<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let base: Vec<String> = names.map(ident).collect();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut first_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, b) in base.iter().enumerate() {
        first_of.entry(b.as_str()).or_insert(i);
    }
    // The first holder of each name keeps it; the others are suffixed.
    let mut out = Vec::with_capacity(base.len());
    for (i, b) in base.iter().enumerate() {
        if first_of.get(b.as_str()) == Some(&i) {
            taken.insert(b.clone());
        }
    }
    for (i, b) in base.iter().enumerate() {
        if first_of.get(b.as_str()) == Some(&i) {
            out.push(b.clone());
            continue;
        }
        let mut n = 2;
        let name = loop {
            let candidate = format!("{b}_{n}");
            if !taken.contains(&candidate) {
                break candidate;
            }
            n += 1;
        };
        taken.insert(name.clone());
        out.push(name);
    }
    out
}

/// A quoted label: Mermaid ends it at a `"`, and a line feed would end the
/// fenced block around the diagram.
fn label(text: &str) -> String {
    crate::words::visible(text).replace('"', "'")
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

    /// Issue 40: two collections whose names differ only by punctuation
    /// were one box; each has its own, and the report says which is which.
    #[test]
    fn names_that_differ_only_by_punctuation_stay_two_boxes() {
        let mut design = crate::outputs::design::sample::product_parts();
        assert_eq!(design.collections.len(), 2);
        design.collections[0].name = "order.items".into();
        design.collections[1].name = "order items".into();
        let text = diagram(&design);
        let boxes: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(" {"))
            .collect();
        assert_eq!(boxes, ["order_items", "order_items_2"], "{text}");
        assert!(
            text.contains("  order_items }o--o{ order_items_2 : "),
            "{text}"
        );
        assert!(
            text.ends_with("drawn under names of their own: `order items` as `order_items_2`.\n"),
            "{text}"
        );
    }

    /// A line feed in a label would end the fenced block and let the rest
    /// of a name be Markdown (raw HTML included).
    #[test]
    fn a_label_stays_on_its_line() {
        assert_eq!(super::label("a\n```\n<b>\"x\""), "a\\n```\\n<b>'x'");
    }

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
