//! Suggested indexes: for each shape whose plan scanned the collection,
//! sorted in memory or examined far more than it returned, the keys in
//! MongoDB's equality–sort–range order; suggestions on one namespace where
//! one is a prefix of another become the longer one, serving both.

use super::poor_selectivity::is_poorly_selective;
use crate::workload::WorkloadReport;
use crate::workload::report::{GeoKey, IndexSuggestion, NamespaceReport, ShapeReport, key_pattern};
use crate::workload::shape::{FieldUse, GEO_NEAR_UNNAMED, OpClass, OpKind, SortKey};
use rustc_hash::FxHashMap;

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

pub(super) fn suggest(report: &WorkloadReport) -> Vec<IndexSuggestion> {
    let mut out: Vec<IndexSuggestion> = Vec::new();
    for ns in &report.namespaces {
        suggest_for(ns, &mut out);
    }
    out.sort_by(|a, b| {
        b.total_ms
            .cmp(&a.total_ms)
            .then_with(|| a.namespace.cmp(&b.namespace))
    });
    out
}

/// One namespace's suggestions, appended to `out`. A shape's keys join the
/// first suggestion (in the order they were made) whose keys start with
/// them or that they start with. Looking that up among all earlier
/// suggestions made this quadratic in shapes (issue 40, item 19: 80,000
/// scans of distinct fields took 100 s), so two maps answer it instead:
/// `exact` from a suggestion's keys to it, `prefixes` from every prefix of
/// a suggestion's keys to the first suggestion that has it. A shape's keys
/// are a few fields, so each shape costs a few lookups.
fn suggest_for(ns: &NamespaceReport, out: &mut Vec<IndexSuggestion>) {
    let start = out.len();
    let mut exact: FxHashMap<Vec<SortKey>, usize> = FxHashMap::default();
    let mut prefixes: FxHashMap<Vec<SortKey>, usize> = FxHashMap::default();
    for s in ns.shapes.iter().filter(|s| needs_index(s)) {
        if let Some(g) = geo_keys(s) {
            if let Some(new) = suggest_geo(ns, s, g, &mut out[start..]) {
                out.push(new);
            }
            continue;
        }
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
        // A suggestion whose keys start with these (`prefixes`), or whose
        // keys these start with (`exact` of each prefix of these): the first made.
        let covering = (1..=keys.len())
            .filter_map(|n| exact.get(&keys[..n]))
            .chain(prefixes.get(&keys[..]))
            .copied()
            .min();
        match covering {
            Some(i) => {
                let at = start + i;
                if keys.len() > out[at].keys.len() {
                    if exact.get(&out[at].keys) == Some(&i) {
                        exact.remove(&out[at].keys);
                    }
                    remember(&mut prefixes, &keys, i);
                    exact.entry(keys.clone()).or_insert(i);
                    out[at].keys = keys;
                }
                let i = &mut out[at];
                i.serves.push(s.id.clone());
                i.count += s.count;
                i.total_ms = i.total_ms.saturating_add(s.total_ms);
            }
            None => {
                let i = out.len() - start;
                remember(&mut prefixes, &keys, i);
                exact.entry(keys.clone()).or_insert(i);
                out.push(IndexSuggestion {
                    namespace: ns.namespace.clone(),
                    keys,
                    serves: vec![s.id.clone()],
                    count: s.count,
                    total_ms: s.total_ms,
                    geo: None,
                });
            }
        }
    }
}

/// The key pattern of the index a finding names for a shape, or `None`
/// when no key list can say it: the `2dsphere` index of a place search (a
/// `$near` or `$geoNear` cannot run without one, and a `$geoWithin` or
/// `$geoIntersects` is served by none other), as the suggested indexes
/// name it; the equality–sort–range keys otherwise.
pub fn index_for(s: &ShapeReport) -> Option<String> {
    if let Some((keys, geo)) = geo_keys(s) {
        return Some(key_pattern(&keys, Some(&geo)));
    }
    let keys = esr_keys(s);
    (!keys.is_empty()).then(|| key_pattern(&keys, None))
}

/// The filter of a shape that searches by place (`$near`, `$geoWithin`,
/// `$geoIntersects`, a `$geoNear` stage), or `None`.
fn geo_filter(s: &ShapeReport) -> Option<(&[FieldUse], &[SortKey])> {
    let (filter, sort) = match s.shape.kind {
        OpKind::Aggregate => {
            let first = s.shape.stages.first()?;
            if !matches!(first.name.as_str(), "$geoNear" | "$match") {
                return None;
            }
            let sort = s
                .shape
                .stages
                .get(1)
                .filter(|st| st.name == "$sort")
                .map_or(&[][..], |st| &st.sort[..]);
            (&first.fields[..], sort)
        }
        _ => (&s.shape.filter[..], &s.shape.sort[..]),
    };
    filter
        .iter()
        .any(|f| f.op.is_geo())
        .then_some((filter, sort))
}

/// The keys of the `2dsphere` index a place search needs, in MongoDB's
/// equality–sort–range order with the geo field as the range: its
/// equality fields first (the search then walks the cells of matching
/// documents only), then, for `$geoWithin` and `$geoIntersects`, the sort
/// (after the equalities the index entries are in its order, so the
/// server walks them in order and tests each one's cells; keyed after the
/// geo field, whose bounds are many cell ranges, it could not), then the
/// geo field. A `$near` orders by distance itself: its sort is not keyed.
/// `None` when the shape searches no place, or when a `$geoNear` names no
/// field (the server found its one geo index: it has one already).
fn geo_keys(s: &ShapeReport) -> Option<(Vec<SortKey>, GeoKey)> {
    let (filter, sort) = geo_filter(s)?;
    if s.shape.or {
        return None;
    }
    let geo = filter.iter().find(|f| f.op.is_geo())?;
    if geo.path == GEO_NEAR_UNNAMED {
        return None;
    }
    let mut keys: Vec<SortKey> = Vec::new();
    for f in filter
        .iter()
        .filter(|f| f.op == OpClass::Eq && f.path != geo.path)
    {
        if !keys.iter().any(|k| k.path == f.path) {
            keys.push(SortKey {
                path: f.path.clone(),
                descending: false,
            });
        }
    }
    if geo.op != OpClass::Near {
        for k in sort {
            if !keys.iter().any(|x| x.path == k.path) && k.path != geo.path {
                keys.push(k.clone());
            }
        }
    }
    let at = keys.len();
    Some((
        keys,
        GeoKey {
            path: geo.path.clone(),
            at,
        },
    ))
}

/// A place search's suggestion: joined to an earlier one of the same keys
/// in `made` (this namespace's), or the new one. Already served when a
/// plan used a `2dsphere` index on the field.
fn suggest_geo(
    ns: &NamespaceReport,
    s: &ShapeReport,
    (keys, geo): (Vec<SortKey>, GeoKey),
    made: &mut [IndexSuggestion],
) -> Option<IndexSuggestion> {
    let served = s.plans.iter().any(|p| {
        p.name.contains(&format!("{}: \"2dsphere\"", geo.path)) && !p.name.contains("COLLSCAN")
    });
    if served {
        return None;
    }
    if let Some(i) = made
        .iter_mut()
        .find(|i| i.keys == keys && i.geo.as_ref() == Some(&geo))
    {
        i.serves.push(s.id.clone());
        i.count += s.count;
        i.total_ms = i.total_ms.saturating_add(s.total_ms);
        return None;
    }
    Some(IndexSuggestion {
        namespace: ns.namespace.clone(),
        keys,
        serves: vec![s.id.clone()],
        count: s.count,
        total_ms: s.total_ms,
        geo: Some(geo),
    })
}

/// Records suggestion `i` under every prefix of `keys` that no earlier
/// suggestion holds.
fn remember(prefixes: &mut FxHashMap<Vec<SortKey>, usize>, keys: &[SortKey], i: usize) {
    for n in 1..=keys.len() {
        let held = prefixes.entry(keys[..n].to_vec()).or_insert(i);
        *held = (*held).min(i);
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::workload::testing::{find, judged};

    /// The maps of `suggest_for` give what asking every earlier suggestion
    /// gave: on shapes whose keys are prefixes of each other in every order
    /// (equalities on `a`, `b`, `c`, sorts that extend them).
    #[test]
    fn the_lookup_merges_as_a_scan_of_every_suggestion_did() {
        let filters = [
            "{ a: 1 }",
            "{ b: 1 }",
            "{ a: 1, b: 1 }",
            "{ c: 1 }",
            "{ a: 1, c: 1 }",
        ];
        let sorts = [
            "",
            ", sort: { x: 1 }",
            ", sort: { x: 1, y: -1 }",
            ", sort: { y: 1 }",
        ];
        let mut log = String::new();
        let mut ms = 500;
        for f in filters {
            for s in sorts {
                log.push_str(&find(f, s, "COLLSCAN", "docsExamined:5000 nreturned:5", ms));
                ms -= 7;
            }
        }
        let r = judged(&log);
        assert!(r.suggested_indexes.len() > 2, "{:?}", r.suggested_indexes);
        assert_eq!(r.suggested_indexes, scan_every_suggestion(&r));
    }

    /// The merge as it was: each shape's keys looked up among all earlier
    /// suggestions.
    fn scan_every_suggestion(
        report: &crate::workload::WorkloadReport,
    ) -> Vec<crate::workload::report::IndexSuggestion> {
        let mut out: Vec<crate::workload::report::IndexSuggestion> = Vec::new();
        for ns in &report.namespaces {
            for s in ns.shapes.iter().filter(|s| super::needs_index(s)) {
                let keys = super::esr_keys(s);
                if keys.is_empty() {
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
                        i.total_ms += s.total_ms;
                    }
                    None => out.push(crate::workload::report::IndexSuggestion {
                        namespace: ns.namespace.clone(),
                        keys,
                        serves: vec![s.id.clone()],
                        count: s.count,
                        total_ms: s.total_ms,
                        geo: None,
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

#[cfg(test)]
mod geo_tests;
