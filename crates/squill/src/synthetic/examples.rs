//! Example documents per collection: one at the model's typical cardinality
//! and one at its maximum (capped at `EXAMPLE_CAP` children when the maximum
//! is larger or unbounded), built by the same code as the synthetic data.

use super::documents::{Builder, EXAMPLE_CAP, Fanout};
use super::population::Population;
use super::roots::Root;
use super::value::Document;
use crate::design::Collection;

/// The example documents of one collection.
#[derive(Debug, Clone, PartialEq)]
pub struct Examples {
    pub collection: String,
    pub typical: Document,
    pub max: Document,
}

fn first_root(pop: &Population<'_>, coll: &Collection, fanout: Fanout) -> Option<Root> {
    if let Some(r) = pop.bucket_of(coll) {
        let rel = pop.model.relationship(r);
        let n = match fanout {
            Fanout::Max => super::population::effective_max(&rel.children).min(EXAMPLE_CAP),
            _ => rel.children.typical,
        };
        // The first bucket holds at most `per_bucket` of the first
        // children: numbering them all (130 M ticks of a symbol) is waste.
        let per = match pop.layout(r) {
            Some(crate::design::Layout::Bucket { per_bucket, .. }) => *per_bucket,
            _ => n,
        };
        let kids: Vec<u64> = (0..n.min(per.saturating_add(1)).max(1)).collect();
        let children = pop.buckets(r, &kids).into_iter().next().unwrap_or_default();
        return Some(Root::Bucket {
            relationship: r,
            parent: 0,
            children,
            number: 0,
            page: 0,
        });
    }
    let entity = *pop.root_entities(coll).first()?;
    Some(match pop.owner(entity) {
        Some(r) => Root::Entity {
            entity,
            index: pop.first_child_of(r, 0).unwrap_or(0),
            parent: Some((r, 0)),
        },
        None => Root::Entity {
            entity,
            index: 0,
            parent: None,
        },
    })
}

/// The example at typical cardinality of every collection of the design:
/// the document `squill advise` shows and `examples.json` holds as
/// `typical`, so the two always agree.
pub fn typical(pop: &Population<'_>) -> Vec<(String, Document)> {
    pop.design
        .collections
        .iter()
        .filter_map(|coll| {
            let root = first_root(pop, coll, Fanout::Typical)?;
            let doc = Builder::new(pop, Fanout::Typical).document(coll, &root);
            Some((coll.name.clone(), doc))
        })
        .collect()
}

/// Typical and maximum examples of every collection of the design.
pub fn examples(pop: &Population<'_>) -> Vec<Examples> {
    pop.design
        .collections
        .iter()
        .filter_map(|coll| {
            let build = |fanout| {
                let root = first_root(pop, coll, fanout)?;
                Some(Builder::new(pop, fanout).document(coll, &root))
            };
            Some(Examples {
                collection: coll.name.clone(),
                typical: build(Fanout::Typical)?,
                max: build(Fanout::Max)?,
            })
        })
        .collect()
}

/// `examples.json`: `{ COLLECTION: { "typical": DOC, "max": DOC } }` in
/// Extended JSON.
pub fn render(examples: &[Examples]) -> String {
    let mut out = String::from("{\n");
    for (i, ex) in examples.iter().enumerate() {
        let indent = |s: String| s.replace('\n', "\n    ");
        out.push_str(&format!(
            "  {}: {{\n    \"typical\": {},\n    \"max\": {}\n  }}{}\n",
            serde_json::json!(ex.collection),
            indent(ex.typical.to_ejson_pretty()),
            indent(ex.max.to_ejson_pretty()),
            if i + 1 < examples.len() { "," } else { "" }
        ));
    }
    out.push_str("}\n");
    out
}
