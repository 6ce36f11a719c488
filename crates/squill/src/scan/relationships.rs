//! Relationships inferred from the data: a field whose values match the keys of
//! another collection of the same database.
//!
//! Keys are each collection's top-level `_id` and, as well, any top-level field
//! present in every document whose values (ObjectIds, strings, integers) are
//! distinct in at least 99 % of the documents (real data has the odd duplicate:
//! `sample_analytics.accounts.account_id` has 1,745 distinct values in 1,746
//! documents) — so `customers.accounts` is matched to `accounts.account_id`,
//! not only to `_id`s. ObjectIds are globally unique, so any ObjectId field is a
//! candidate reference. Strings and integers coincide by accident (a `rating`
//! 1–5 matches any integer `_id`s), so they are candidates only when the field's
//! name says so: it ends in `id`/`ids`, or names the target collection or key.
//! A candidate becomes a relationship when at least `min_match_share` of its
//! values match; the rest are dangling references.

use super::histogram::Histogram;
use super::profile::{CollectionProfile, FieldNode, type_slot};
use super::report::{CollectionMeta, CollectionRef, Direction, RelationshipReport};
use crate::inputs::bson::ElementType;
use crate::model::{Cardinality, Count, RelationshipKind};
use crate::settings::Settings;

struct Key<'a> {
    coll: usize,
    node: u32,
    name: &'a str,
    class: &'static str,
}

/// The value class of a node's fingerprinted values (scalars and array elements).
fn value_class(n: &FieldNode) -> Option<&'static str> {
    let count = |t: ElementType| {
        n.types[type_slot(t)]
            + n.array
                .as_ref()
                .map_or(0, |a| a.element_types[type_slot(t)])
    };
    let oid = count(ElementType::ObjectId);
    let s = count(ElementType::String);
    // Numbers of every type compare by value (issue 46: `customerId: 3.0`
    // against int `_id`s); only integral ones were fingerprinted.
    let i = count(ElementType::Int32)
        + count(ElementType::Int64)
        + count(ElementType::Double)
        + count(ElementType::Decimal128);
    let best = oid.max(s).max(i);
    if best == 0 {
        None
    } else if best == oid {
        Some("objectId")
    } else if best == s {
        Some("string")
    } else {
        Some("int")
    }
}

fn singular(s: &str) -> String {
    let s = s.to_ascii_lowercase();
    s.strip_suffix('s').map(str::to_string).unwrap_or(s)
}

/// The number types a node's values (scalars and array elements) have, in
/// BSON's order: what a reference and its key are kept as.
pub(crate) fn number_types(n: &FieldNode) -> Vec<&'static str> {
    [
        ElementType::Int32,
        ElementType::Int64,
        ElementType::Double,
        ElementType::Decimal128,
    ]
    .into_iter()
    .filter(|&t| {
        n.types[type_slot(t)]
            + n.array
                .as_ref()
                .map_or(0, |a| a.element_types[type_slot(t)])
            > 0
    })
    .map(ElementType::name)
    .collect()
}

/// Whether a string or integer field's name makes it a plausible reference.
pub(crate) fn name_says_reference(field: &str, target: &str, key: &str) -> bool {
    let f = field.to_ascii_lowercase();
    let leaf = f.rsplit('.').next().unwrap_or(&f);
    leaf.ends_with("id")
        || leaf.ends_with("ids")
        || singular(leaf) == singular(target)
        || leaf == key.to_ascii_lowercase()
}

/// Infers relationships among `collections` (profiles already finished).
pub fn infer(
    collections: &[(CollectionMeta, CollectionProfile)],
    settings: &Settings,
) -> Vec<RelationshipReport> {
    let keys = find_keys(collections);
    let mut out = Vec::new();
    for (ci, (meta, p)) in collections.iter().enumerate() {
        for (ni, node) in p.nodes.iter().enumerate() {
            let ni = ni as u32;
            let Some(refs) = &node.refs else { continue };
            if node.parent == 0 && &*node.name == "_id" {
                continue;
            }
            let Some(class) = value_class(node) else {
                continue;
            };
            let path = p.path(ni);
            let mut best: Option<RelationshipReport> = None;
            let self_key = keys.iter().any(|k| k.coll == ci && k.node == ni);
            for key in keys.iter().filter(|k| k.class == class) {
                // Two unique keys matching each other would be reported both ways.
                if self_key && key.name != "_id" {
                    continue;
                }
                let (tmeta, tp) = &collections[key.coll];
                if tmeta.database != meta.database || (key.coll == ci && key.node == ni) {
                    continue;
                }
                if class != "objectId" && !name_says_reference(&path, &tmeta.name, key.name) {
                    continue;
                }
                let ksample = &tp.nodes[key.node as usize]
                    .refs
                    .as_ref()
                    .expect("keys have samples")
                    .sample;
                let t = refs.sample.threshold().min(ksample.threshold());
                let values = refs.sample.sorted_below(t);
                if values.is_empty() {
                    continue;
                }
                // Sorted, repeats included: a binary search finds a value either way.
                let targets = ksample.sorted_below(t);
                let matched = values
                    .iter()
                    .filter(|v| targets.binary_search(v).is_ok())
                    .count() as u64;
                let share = matched as f64 / values.len() as f64;
                if share < settings.scan.min_match_share.value || matched == 0 {
                    continue;
                }
                if best.as_ref().is_some_and(|b| b.match_share >= share) {
                    continue;
                }
                let rate = if t == u64::MAX {
                    1.0
                } else {
                    (t as f64 + 1.0) / 18_446_744_073_709_551_616.0
                };
                let array_like = node.array.is_some() || p.under_array(ni);
                let from = cref(meta);
                let to = cref(tmeta);
                // Occurrences of each referenced value: parents per child (arrays)
                // or children per parent (parent references).
                let runs: Vec<u64> = values
                    .chunk_by(|a, b| a == b)
                    .filter(|run| targets.binary_search(&run[0]).is_ok())
                    .map(|run| run.len() as u64)
                    .collect();
                let most = runs.iter().copied().max().unwrap_or(0);
                let (direction, parent, child, fan_out, kind, max_parents) = if array_like {
                    let mut fan = refs.per_doc.clone();
                    fan.record_n(0, p.documents.saturating_sub(node.docs_present));
                    let kind = if most > 1 {
                        RelationshipKind::ManyToMany
                    } else {
                        RelationshipKind::OneToMany
                    };
                    (
                        Direction::ChildReferenceArray,
                        from.clone(),
                        to.clone(),
                        fan,
                        kind,
                        most,
                    )
                } else {
                    let mut fan = Histogram::default();
                    for &r in &runs {
                        fan.record(r);
                    }
                    let distinct_targets = targets.chunk_by(|a, b| a == b).count() as u64;
                    fan.record_n(0, distinct_targets.saturating_sub(runs.len() as u64));
                    let kind = if fan.max() <= 1 {
                        RelationshipKind::OneToOne
                    } else {
                        RelationshipKind::OneToMany
                    };
                    (
                        Direction::ParentReference,
                        to.clone(),
                        from.clone(),
                        fan,
                        kind,
                        1,
                    )
                };
                let dist = fan_out.distribution();
                let card = Cardinality {
                    mean: None,
                    min: dist.min,
                    typical: dist.p50,
                    max: Count::Finite(dist.max),
                    growth: None,
                    p95: Some(dist.p95.clamp(dist.p50, dist.max)),
                    p99: None,
                };
                best = Some(RelationshipReport {
                    from,
                    field: path.clone(),
                    to,
                    key: key.name.to_string(),
                    value_type: class,
                    reference_number_types: number_types(node),
                    key_number_types: number_types(&tp.nodes[key.node as usize]),
                    direction,
                    parent,
                    child,
                    values_checked: values.len() as u64,
                    values_matched: matched,
                    match_share: round4(share),
                    dangling_share: round4(1.0 - share),
                    sample_rate: rate,
                    fan_out: dist,
                    max_parents_per_child: max_parents,
                    estimate: None,
                    class: settings.cardinality.classify(kind, &card),
                    kind,
                });
            }
            out.extend(best);
        }
    }
    out
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn cref(meta: &CollectionMeta) -> CollectionRef {
    CollectionRef {
        database: meta.database.clone(),
        collection: meta.name.clone(),
    }
}

fn find_keys(collections: &[(CollectionMeta, CollectionProfile)]) -> Vec<Key<'_>> {
    let mut keys = Vec::new();
    for (ci, (_, p)) in collections.iter().enumerate() {
        for &ni in &p.nodes[0].children {
            let n = &p.nodes[ni as usize];
            let Some(refs) = &n.refs else { continue };
            let Some(class) = value_class(n) else {
                continue;
            };
            let is_id = &*n.name == "_id";
            let unique_scalar = n.array.is_none()
                && n.docs_present == p.documents
                && p.documents >= 2
                && n.occurrences() == p.documents
                && refs.sample.distinct_share() >= 0.99;
            if is_id || unique_scalar {
                keys.push(Key {
                    coll: ci,
                    node: ni,
                    name: &n.name,
                    class,
                });
            }
        }
    }
    keys
}
