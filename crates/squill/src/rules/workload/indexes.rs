//! Suggested indexes: for each shape whose plan scanned the collection,
//! sorted in memory or examined far more than it returned, the keys in
//! MongoDB's equality–sort–range order; suggestions on one namespace where
//! one is a prefix of another become the longer one, serving both.

use super::poor_selectivity::is_poorly_selective;
use crate::workload::WorkloadReport;
use crate::workload::report::{IndexSuggestion, ShapeReport};
use crate::workload::shape::{OpClass, OpKind, SortKey};

/// The keys an index needs to serve a shape: equality fields (and `$in`
/// when nothing is sorted), then the sort, then ranges (and `$in` before a
/// sort, which would otherwise need a merge). Fields with operators no
/// index bounds well (`$ne`, `$exists`, unanchored regex, `$expr`) are left out.
pub fn esr_keys(s: &ShapeReport) -> Vec<SortKey> {
    let (filter, sort) = match s.shape.kind {
        OpKind::Aggregate => {
            let Some(first) = s.shape.stages.first().filter(|st| st.name == "$match") else {
                return Vec::new();
            };
            let sort = s
                .shape
                .stages
                .get(1)
                .filter(|st| st.name == "$sort")
                .map_or(&[][..], |st| &st.sort[..]);
            (&first.fields[..], sort)
        }
        OpKind::Insert | OpKind::GetMore => return Vec::new(),
        _ => (&s.shape.filter[..], &s.shape.sort[..]),
    };
    if s.shape.or {
        // Each `$or` branch needs its own index: one key list cannot say it.
        return Vec::new();
    }
    let regex_usable = s.unanchored_regex == 0 && s.case_insensitive_regex == 0;
    let mut keys: Vec<SortKey> = Vec::new();
    let mut push = |path: &str, descending: bool| {
        if !keys.iter().any(|k| k.path == path) {
            keys.push(SortKey {
                path: path.to_string(),
                descending,
            });
        }
    };
    for f in filter {
        if f.op == OpClass::Eq || (f.op == OpClass::In && sort.is_empty()) {
            push(&f.path, false);
        }
    }
    for k in sort {
        push(&k.path, k.descending);
    }
    for f in filter {
        let range = matches!(f.op, OpClass::Range | OpClass::In)
            || (f.op == OpClass::Regex && regex_usable);
        if range && !f.path.starts_with('$') {
            push(&f.path, false);
        }
    }
    keys
}

/// Whether a shape's plans show it needs a better index.
fn needs_index(s: &ShapeReport) -> bool {
    s.collection_scans() > 0 || s.in_memory_sorts > 0 || is_poorly_selective(s)
}

/// An index's key pattern as mongod writes it in a plan (`{ a: 1, b: -1 }`).
fn plan_keys(keys: &[SortKey]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .map(|k| format!("{}: {}", k.path, if k.descending { -1 } else { 1 }))
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

pub fn suggest(report: &WorkloadReport) -> Vec<IndexSuggestion> {
    let mut out: Vec<IndexSuggestion> = Vec::new();
    for ns in &report.namespaces {
        for s in ns.shapes.iter().filter(|s| needs_index(s)) {
            let keys = esr_keys(s);
            if keys.is_empty() {
                continue;
            }
            // Already there: the plan used exactly this index.
            let pattern = plan_keys(&keys);
            if s.plans
                .iter()
                .any(|p| p.name.contains(&pattern) && !p.name.contains("COLLSCAN"))
                && s.in_memory_sorts == 0
            {
                continue;
            }
            let covering = out.iter_mut().find(|i| {
                i.namespace == ns.namespace
                    && (i.keys.starts_with(&keys) || keys.starts_with(&i.keys))
            });
            match covering {
                Some(i) => {
                    if keys.len() > i.keys.len() {
                        i.keys = keys;
                    }
                    i.serves.push(s.id.clone());
                    i.count += s.count;
                    i.total_ms = i.total_ms.saturating_add(s.total_ms);
                }
                None => out.push(IndexSuggestion {
                    namespace: ns.namespace.clone(),
                    keys,
                    serves: vec![s.id.clone()],
                    count: s.count,
                    total_ms: s.total_ms,
                }),
            }
        }
    }
    out.sort_by(|a, b| {
        b.total_ms
            .cmp(&a.total_ms)
            .then_with(|| a.namespace.cmp(&b.namespace))
    });
    out
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, judged};

    #[test]
    fn equality_then_sort_then_range() {
        let log = find(
            "{ status: \"A\", qty: { $gt: 5 }, tag: { $in: [1, 2] } }",
            ", sort: { at: -1 }",
            "COLLSCAN",
            "docsExamined:5000 nreturned:5",
            90,
        );
        let r = judged(&log);
        assert_eq!(r.suggested_indexes.len(), 1);
        let i = &r.suggested_indexes[0];
        let keys: Vec<String> = i
            .keys
            .iter()
            .map(|k| format!("{}{}", k.path, if k.descending { "-" } else { "" }))
            .collect();
        assert_eq!(keys, ["status", "at-", "qty", "tag"]);
        assert_eq!(i.serves, ["S1"]);
    }

    #[test]
    fn a_prefix_merges_into_the_longer_and_a_used_index_is_not_suggested() {
        let log = [
            find(
                "{ status: \"A\" }",
                "",
                "COLLSCAN",
                "docsExamined:5000 nreturned:5",
                90,
            ),
            find(
                "{ status: \"A\" }",
                ", sort: { at: -1 }",
                "COLLSCAN",
                "docsExamined:5000 hasSortStage:1 nreturned:5",
                80,
            ),
            find(
                "{ sku: 1 }",
                "",
                "IXSCAN { sku: 1 }",
                "keysExamined:1 docsExamined:1 nreturned:1",
                1,
            ),
            find(
                "{ $or: [ { a: 1 }, { b: 1 } ] }",
                "",
                "COLLSCAN",
                "docsExamined:5000 nreturned:5",
                70,
            ),
        ]
        .concat();
        let r = judged(&log);
        assert_eq!(r.suggested_indexes.len(), 1, "{:?}", r.suggested_indexes);
        let i = &r.suggested_indexes[0];
        assert_eq!(i.keys.len(), 2);
        assert_eq!(i.serves, ["S1", "S2"]);
    }
}
