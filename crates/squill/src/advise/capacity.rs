//! The capacity projection (`advise --horizon`): the chosen layouts laid
//! out again on the model grown month by month (`model::grown`), with the
//! same placement and sizes the design was built from (`build::size_of`),
//! then each month's figures against MongoDB's limits and the
//! deployment's, and what to change before the first one is reached.
//! Thresholds and their sources: docs/capacity.md.

use super::build::{size_of, timeline_sizes};
use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::placement::{Home, Placement};
use crate::candidates::space::{Space, State};
use crate::design::capacity::{
    ArrayGrowth, Capacity, CapacityMonth, CollectionGrowth, DeploymentUsed, LimitKind,
    LimitReached, Remedy,
};
use crate::design::{Action, Collection, Design, FieldOrigin, Shape, ShapeType, Verdict};
use crate::model::{
    Count, DAYS_A_MONTH, Deployment, EntityId, Horizon, Model, RelationshipKind, archive_horizon,
    count_at, grown,
};
use crate::settings::Settings;

/// Data past which a replica set is usually sharded: "3TB of data or
/// more" (MongoDB manual, "Distribute Collection Data", When to Consider
/// Sharding). Decimal terabytes, as the manual writes them.
pub(crate) const SHARDING_BYTES: u64 = 3_000_000_000_000;

/// On-disk bytes per byte of data when the deployment does not say: no
/// compression assumed. WiredTiger compresses collections with snappy by
/// default, but how much depends on the data; no published figure holds
/// for all (docs/capacity.md).
pub(crate) const DEFAULT_COMPRESSION: f64 = 1.0;

/// Bytes of a record id in every index entry.
pub(super) const RECORD_ID: u64 = 8;

/// What the search chose, with the model it chose it for.
pub(super) struct Chosen<'a> {
    pub model: &'a Model,
    pub design: &'a Design,
    pub space: &'a Space,
    pub state: &'a State,
    pub mix: usize,
}

pub(super) fn project(
    c: &Chosen<'_>,
    settings: &Settings,
    horizon: Horizon,
    deployment: Deployment,
) -> Capacity {
    let used = deployment_used(deployment);
    let mut arrays: Vec<Vec<Vec<ArrayGrowth>>> = Vec::new();
    let months: Vec<CapacityMonth> = (0..=horizon.months)
        .map(|m| {
            let (month, all) = month(c, settings, m, &used);
            arrays.push(all);
            month
        })
        .collect();
    finish(Some(c), settings, horizon, used, months, &arrays)
}

/// The deployment figures a projection checks against.
pub(super) fn deployment_used(deployment: Deployment) -> DeploymentUsed {
    DeploymentUsed {
        ram_bytes: deployment.ram_bytes,
        disk_bytes: deployment.disk_bytes,
        cache_bytes: deployment.cache_bytes(),
        shards: deployment.shards.unwrap_or(1).max(1),
        compression: deployment.compression.unwrap_or(DEFAULT_COMPRESSION),
        compression_stated: deployment.compression.is_some(),
        sharding_bytes: SHARDING_BYTES,
    }
}

/// The projection from its months, whoever grew them (a design grown on
/// its model here, a deployment's measured collections in
/// `deployment_capacity`): the limits reached, those left unchecked, and
/// what to change. `arrays[m][c]`: every array of collection `c` in month
/// `m`. Without the design (`chosen`), the changes are the ones the data
/// alone supports (shards).
pub(super) fn finish(
    chosen: Option<&Chosen<'_>>,
    settings: &Settings,
    horizon: Horizon,
    used: DeploymentUsed,
    months: Vec<CapacityMonth>,
    arrays: &[Vec<Vec<ArrayGrowth>>],
) -> Capacity {
    let limits = limits(&months, arrays, &used, settings);
    let mut unchecked = Vec::new();
    if used.cache_bytes.is_none() {
        unchecked.push(LimitKind::WorkingSet);
    }
    if used.disk_bytes.is_none() {
        unchecked.push(LimitKind::DiskFull);
    }
    let remedies = remedies(chosen, &limits, &months, &used);
    Capacity {
        horizon_months: horizon.months,
        deployment: used,
        months,
        limits,
        unchecked,
        remedies,
    }
}

/// One month's figures, and every array of every collection (the largest
/// is reported; each is checked against its rule).
fn month(
    c: &Chosen<'_>,
    settings: &Settings,
    m: u32,
    used: &DeploymentUsed,
) -> (CapacityMonth, Vec<Vec<ArrayGrowth>>) {
    let days = f64::from(m) * DAYS_A_MONTH;
    let model = grown(c.model, days);
    let facts = Facts::new(&model, settings, c.mix);
    let placed = Placement::build(&facts, c.space, c.state);
    let mut rows = Vec::new();
    let mut all_arrays = Vec::new();
    for coll in &c.design.collections {
        let (documents, typical, max, roots) = match &placed {
            Some(p) => sizes(&facts, c.space, p, &coll.name),
            None => (0, 0, None, Vec::new()),
        };
        // A collection no entity is the root of: a timeline grows with its
        // readers and their follows; anything else keeps its size of today.
        let (documents, typical, max) = if roots.is_empty() {
            placed
                .as_ref()
                .and_then(|p| timeline_of(c.space, p, &coll.name))
                .map_or(
                    (coll.documents, coll.size.typical_bytes, coll.size.max_bytes),
                    |(feed, threshold)| timeline_sizes(&facts, feed, threshold),
                )
        } else {
            (documents, typical, max)
        };
        let arrays = arrays_of(c.model, &model, settings, coll);
        let index_bytes = index_bytes(&model, coll, documents, &arrays);
        let data_bytes = documents.saturating_mul(typical);
        let touched = touched_documents(c, &model, &facts, coll, &roots, documents, days);
        let held = roots
            .iter()
            .map(|e| facts.held_share(*e))
            .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
            .unwrap_or(1.0);
        let working_set_bytes =
            (index_bytes as f64 * held) as u64 + touched.saturating_mul(typical);
        let largest_array = arrays.iter().max_by_key(|a| a.items).cloned();
        rows.push(CollectionGrowth {
            collection: coll.name.clone(),
            documents,
            typical_bytes: typical,
            max_bytes: max,
            largest_array,
            data_bytes,
            disk_bytes: (data_bytes as f64 * used.compression) as u64 + index_bytes,
            index_bytes,
            working_set_bytes,
        });
        all_arrays.push(arrays);
    }
    let sum = |f: fn(&CollectionGrowth) -> u64| rows.iter().map(f).fold(0u64, u64::saturating_add);
    let month = CapacityMonth {
        month: m,
        data_bytes: sum(|r| r.data_bytes),
        disk_bytes: sum(|r| r.disk_bytes),
        index_bytes: sum(|r| r.index_bytes),
        working_set_bytes: sum(|r| r.working_set_bytes),
        collections: rows,
    };
    (month, all_arrays)
}

/// The feed and outlier threshold of the timeline the placement keeps in
/// collection `name`, if it keeps one there.
fn timeline_of<'s>(
    space: &'s Space,
    p: &Placement<'_>,
    name: &str,
) -> Option<(&'s crate::candidates::feed::Feed, Option<u64>)> {
    p.timelines
        .iter()
        .find_map(|&i| match space.entity.get(i)? {
            EntityCandidate::Timeline {
                feed,
                collection,
                threshold,
            } if collection == name => Some((feed, *threshold)),
            _ => None,
        })
}

/// Documents, typical and largest bytes of collection `name` under the
/// grown placement, and the entities that are its top-level documents.
fn sizes(
    facts: &Facts<'_>,
    space: &Space,
    p: &Placement<'_>,
    name: &str,
) -> (u64, u64, Option<u64>, Vec<EntityId>) {
    let mut documents = 0u64;
    let mut typical = 0u64;
    let mut max: Option<Option<u64>> = None;
    let mut roots = Vec::new();
    for e in facts.model.entity_ids() {
        if matches!(p.home[e.index()], Home::Embedded { .. })
            || p.collection(facts, space, e) != name
        {
            continue;
        }
        let Some((size, n)) = size_of(facts, space, p, e) else {
            continue;
        };
        roots.push(e);
        documents = documents.saturating_add(n);
        typical = typical.max(size.typical_bytes);
        max = Some(match max {
            None => size.max_bytes,
            Some(m) => m.zip(size.max_bytes).map(|(a, b)| a.max(b)),
        });
    }
    (documents, typical, max.flatten(), roots)
}

/// Every array field of `coll`'s documents that holds a relationship's
/// ids or documents, at the largest owner of `grown`: the count of today
/// grown the way the relationship grows, or the layout's cap (a subset's
/// latest K) when the design keeps fewer than the relationship has.
fn arrays_of(
    today: &Model,
    grown: &Model,
    settings: &Settings,
    coll: &Collection,
) -> Vec<ArrayGrowth> {
    let mut out = Vec::new();
    walk(today, grown, settings, coll, &coll.shape, "", &mut out);
    out
}

fn walk(
    today: &Model,
    grown: &Model,
    settings: &Settings,
    coll: &Collection,
    shape: &Shape,
    prefix: &str,
    out: &mut Vec<ArrayGrowth>,
) {
    for f in &shape.fields {
        let path = format!("{prefix}{}", f.name);
        match &f.ty {
            ShapeType::Object { shape } => {
                walk(
                    today,
                    grown,
                    settings,
                    coll,
                    shape,
                    &format!("{path}."),
                    out,
                );
            }
            ShapeType::Array { items, max_items } => {
                if let ShapeType::Object { shape } = items.as_ref() {
                    walk(
                        today,
                        grown,
                        settings,
                        coll,
                        shape,
                        &format!("{path}."),
                        out,
                    );
                }
                let (name, ids) = match &f.origin {
                    FieldOrigin::Embedded { relationship } => (relationship, false),
                    FieldOrigin::Reference { relationship, .. } => (relationship, true),
                    _ => continue,
                };
                let Some(r) = today.relationship_by_name(name) else {
                    continue;
                };
                let side = |m: &Model| {
                    let rel = m.relationship(r);
                    // The parent's documents hold its children; a child's its parents.
                    let parent_side = coll.entities.contains(&m.entity(rel.parent).name)
                        || rel.kind != RelationshipKind::ManyToMany;
                    if parent_side {
                        rel.children.max
                    } else {
                        rel.parents.max
                    }
                };
                let Count::Finite(now) = side(grown) else {
                    continue;
                };
                let capped =
                    max_items.filter(|cap| side(today).finite().is_none_or(|was| *cap < was));
                let rule_max = if ids {
                    settings.cardinality.reference_array_max
                } else {
                    settings.cardinality.embed_max
                };
                out.push(ArrayGrowth {
                    field: path,
                    relationship: name.clone(),
                    items: capped.map_or(now, |cap| cap.min(now)),
                    rule_max: capped.is_none().then_some(rule_max),
                });
            }
            _ => {}
        }
    }
}

/// Bytes of `coll`'s indexes over `documents`: per entry, the keys' bytes
/// and a record id; an index on a path inside an array has an entry per
/// element (multikey), as many as the typical owner holds, and per
/// element of an array field of the documents' own (`tags`).
fn index_bytes(model: &Model, coll: &Collection, documents: u64, arrays: &[ArrayGrowth]) -> u64 {
    // Every collection has its `_id` index, listed in the design or not.
    let listed = coll
        .indexes
        .iter()
        .any(|i| i.keys.len() == 1 && i.keys[0].0 == "_id");
    let mut total = if listed {
        0
    } else {
        documents.saturating_mul(super::archive::key_bytes(model, coll, "_id") + RECORD_ID)
    };
    for index in &coll.indexes {
        let per: u64 = index
            .keys
            .iter()
            .map(|(k, _)| super::archive::key_bytes(model, coll, k))
            .sum::<u64>()
            + RECORD_ID;
        let elements = index
            .keys
            .iter()
            .map(|(k, _)| {
                // An array the projection grows (embedded children, ids)
                // at its owner's typical count, else the documents' own.
                typical_items(model, coll, arrays, k)
                    .unwrap_or_else(|| super::archive::array_entries(model, coll, k))
            })
            .fold(1.0f64, f64::max);
        total = total.saturating_add((documents as f64 * elements) as u64 * per);
    }
    total
}

/// Elements of the array `key` lies in, at the typical owner (as many as
/// the largest when the layout caps it).
fn typical_items(
    model: &Model,
    coll: &Collection,
    arrays: &[ArrayGrowth],
    key: &str,
) -> Option<f64> {
    let a = arrays
        .iter()
        .find(|a| key == a.field || key.starts_with(&format!("{}.", a.field)))?;
    let r = model.relationship_by_name(&a.relationship)?;
    let rel = model.relationship(r);
    let parent_side = coll.entities.contains(&model.entity(rel.parent).name)
        || rel.kind != RelationshipKind::ManyToMany;
    let typical = if parent_side {
        rel.children.typical
    } else {
        rel.parents.typical
    };
    Some((typical.min(a.items)) as f64)
}

/// Documents of `coll` the workload touches: none when no operation reads
/// or changes them (inserts only); those younger than the reads' horizon
/// when its reads keep to recent instances (`since`); else all.
fn touched_documents(
    c: &Chosen<'_>,
    grown: &Model,
    facts: &Facts<'_>,
    coll: &Collection,
    roots: &[EntityId],
    documents: u64,
    days: f64,
) -> u64 {
    let touched = c.design.operations.iter().any(|op| {
        op.steps.iter().any(|s| {
            s.collection == coll.name && !matches!(s.action, Action::InsertOne | Action::InsertMany)
        })
    });
    if !touched {
        return 0;
    }
    let mut recent = 0.0;
    for &e in roots {
        let count = facts.count(e);
        let Some((_, horizon)) = archive_horizon(grown, e) else {
            return documents;
        };
        let grew = count_at(c.model, e, days) - count_at(c.model, e, days - horizon);
        let inserted = facts.entity_writes[e.index()] * 86_400.0 * horizon;
        recent += grew.max(inserted).min(count) / count;
    }
    let share = if roots.is_empty() {
        1.0
    } else {
        recent / roots.len() as f64
    };
    (documents as f64 * share.min(1.0)).round() as u64
}

/// Each limit the months reach, first reached first.
fn limits(
    months: &[CapacityMonth],
    arrays: &[Vec<Vec<ArrayGrowth>>],
    used: &DeploymentUsed,
    settings: &Settings,
) -> Vec<LimitReached> {
    let mut out: Vec<LimitReached> = Vec::new();
    let shards = f64::from(used.shards);
    let note = |out: &mut Vec<LimitReached>, hit: LimitReached| {
        let seen = out.iter().any(|l| {
            l.limit == hit.limit && l.collection == hit.collection && l.field == hit.field
        });
        if !seen {
            out.push(hit);
        }
    };
    let document_limit = settings.design.max_document_bytes as f64;
    for (month, all) in months.iter().zip(arrays) {
        let m = month.month;
        for (row, arrays) in month.collections.iter().zip(all) {
            if let Some(max) = row.max_bytes.filter(|b| *b as f64 > document_limit) {
                note(
                    &mut out,
                    LimitReached {
                        limit: LimitKind::DocumentSize,
                        month: m,
                        collection: Some(row.collection.clone()),
                        field: row.largest_array.as_ref().map(|a| a.field.clone()),
                        value: max as f64,
                        threshold: document_limit,
                    },
                );
            }
            for a in arrays {
                if let Some(rule) = a.rule_max.filter(|r| a.items > *r) {
                    note(
                        &mut out,
                        LimitReached {
                            limit: LimitKind::ArrayRule,
                            month: m,
                            collection: Some(row.collection.clone()),
                            field: Some(a.field.clone()),
                            value: a.items as f64,
                            threshold: rule as f64,
                        },
                    );
                }
            }
            let per_shard = row.data_bytes as f64 / shards;
            if per_shard > used.sharding_bytes as f64 {
                note(
                    &mut out,
                    LimitReached {
                        limit: LimitKind::ShardingSize,
                        month: m,
                        collection: Some(row.collection.clone()),
                        field: None,
                        value: per_shard,
                        threshold: used.sharding_bytes as f64,
                    },
                );
            }
        }
        let whole = [
            (
                LimitKind::WorkingSet,
                month.working_set_bytes,
                used.cache_bytes,
            ),
            (LimitKind::DiskFull, month.disk_bytes, used.disk_bytes),
        ];
        for (kind, value, limit) in whole {
            let per_shard = value as f64 / shards;
            if let Some(limit) = limit.filter(|l| per_shard > *l as f64) {
                note(
                    &mut out,
                    LimitReached {
                        limit: kind,
                        month: m,
                        collection: None,
                        field: None,
                        value: per_shard,
                        threshold: limit as f64,
                    },
                );
            }
        }
    }
    out.sort_by_key(|l| (l.month, l.limit));
    out
}

/// What to change, for each kind of limit reached: the layout advise
/// priced for the relationship whose array breaks a document or its rule,
/// an archive for a working set whose reads keep to recent documents,
/// and the shards the data needs at the horizon. Without the design
/// (`c`), only the shards.
fn remedies(
    c: Option<&Chosen<'_>>,
    limits: &[LimitReached],
    months: &[CapacityMonth],
    used: &DeploymentUsed,
) -> Vec<Remedy> {
    let mut out: Vec<Remedy> = Vec::new();
    let last = months.last();
    let shards_for = |value: u64, limit: u64| -> u32 {
        if limit == 0 {
            return used.shards;
        }
        u32::try_from(value.div_ceil(limit))
            .unwrap_or(u32::MAX)
            .max(used.shards + 1)
    };
    for l in limits {
        let remedy = match l.limit {
            LimitKind::DocumentSize | LimitKind::ArrayRule => {
                c.and_then(|c| layout_change(c, l, last))
            }
            LimitKind::WorkingSet => c.and_then(|c| archive(c, l.limit)).or_else(|| {
                let ws = last.map_or(0, |m| m.working_set_bytes);
                used.cache_bytes.map(|cache| Remedy::Shard {
                    limit: l.limit,
                    shards: shards_for(ws, cache),
                })
            }),
            LimitKind::DiskFull => used.disk_bytes.map(|disk| Remedy::Shard {
                limit: l.limit,
                shards: shards_for(last.map_or(0, |m| m.disk_bytes), disk),
            }),
            LimitKind::ShardingSize => {
                let largest = last
                    .and_then(|m| m.collections.iter().map(|r| r.data_bytes).max())
                    .unwrap_or(0);
                Some(Remedy::Shard {
                    limit: l.limit,
                    shards: shards_for(largest, used.sharding_bytes),
                })
            }
        };
        if let Some(r) = remedy
            && !out.contains(&r)
        {
            out.push(r);
        }
    }
    // A working set past the cache is also moved by shards, archive or not.
    if let (Some(l), Some(cache)) = (
        limits.iter().find(|l| l.limit == LimitKind::WorkingSet),
        used.cache_bytes,
    ) {
        let ws = last.map_or(0, |m| m.working_set_bytes);
        let shard = Remedy::Shard {
            limit: l.limit,
            shards: shards_for(ws, cache),
        };
        if !out.contains(&shard) {
            out.push(shard);
        }
    }
    out
}

/// The cheapest layout advise priced for the relationship whose array
/// `l` names, other than the one chosen and not rejected by a rule.
fn layout_change(c: &Chosen<'_>, l: &LimitReached, last: Option<&CapacityMonth>) -> Option<Remedy> {
    let field = l.field.as_ref()?;
    let collection = l.collection.as_ref()?;
    let row = last?
        .collections
        .iter()
        .find(|r| &r.collection == collection)?;
    let relationship = row
        .largest_array
        .as_ref()
        .filter(|a| &a.field == field)
        .map(|a| a.relationship.clone())
        .or_else(|| relationship_of(c.design, collection, field))?;
    let decision = c
        .design
        .relationships
        .iter()
        .find(|d| d.relationship == relationship)?;
    let (to, score_delta) = decision
        .alternatives
        .iter()
        .filter(|a| a.layout.layout_kind() != decision.chosen.layout_kind())
        .filter_map(|a| match &a.verdict {
            Verdict::Costlier { delta, .. } | Verdict::Cheaper { delta, .. } => {
                Some((a.layout.clone(), delta.score))
            }
            Verdict::Rejected { .. } => None,
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(Remedy::Layout {
        relationship,
        limit: l.limit,
        from: decision.chosen.clone(),
        to,
        score_delta,
    })
}

/// The relationship a shape field at `path` of `collection` holds.
fn relationship_of(design: &Design, collection: &str, path: &str) -> Option<String> {
    let coll = design.collections.iter().find(|c| c.name == collection)?;
    let mut shape = &coll.shape;
    let mut origin = None;
    for part in path.split('.') {
        let f = shape.fields.iter().find(|f| f.name == part)?;
        origin = Some(&f.origin);
        match &f.ty {
            ShapeType::Object { shape: s } => shape = s,
            ShapeType::Array { items, .. } => {
                if let ShapeType::Object { shape: s } = items.as_ref() {
                    shape = s;
                }
            }
            _ => {}
        }
    }
    match origin? {
        FieldOrigin::Embedded { relationship } | FieldOrigin::Reference { relationship, .. } => {
            Some(relationship.clone())
        }
        _ => None,
    }
}

/// An archive by age for the entity whose reads keep to recent instances
/// and that is not split already.
fn archive(c: &Chosen<'_>, limit: LimitKind) -> Option<Remedy> {
    let archived: Vec<&str> = c
        .model
        .entities
        .iter()
        .filter_map(|e| e.archive_of.map(|a| c.model.entity(a).name.as_str()))
        .collect();
    c.model.entity_ids().find_map(|e| {
        let name = &c.model.entity(e).name;
        if archived.contains(&name.as_str()) || c.model.entity(e).archive_of.is_some() {
            return None;
        }
        let (_, days) = archive_horizon(c.model, e)?;
        Some(Remedy::Archive {
            entity: name.clone(),
            limit,
            days,
        })
    })
}
