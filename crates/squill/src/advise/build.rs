//! From the chosen state to the `Design` users read: collections with shapes,
//! examples, sizes and indexes; decisions with the rules behind them and what
//! each alternative would cost; operation plans; totals and findings.

use super::document::DocBuilder;
use super::optimize::Evaluator;
use super::priced::{Priced, price};
use super::reasons::{computes, differences, explanation, layout_words, tradeoffs};
use super::verdicts::{CannotCombine, ChosenDespite, Instead, Kept};
use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::placement::{Home, Placement};
use crate::candidates::space::{Space, State};
use crate::costs::plan::{IndexNeed, OpPlan};
use crate::design::{
    Alternative, Collection, Cost, DESIGN_SCHEMA_VERSION, Design, DocumentSize, EntityDecision,
    Index, OperationPlan, RelationshipDecision, RuleHit, Shape, Verdict,
};
use crate::design::{Layout, Reason};
use crate::model::{EntityId, OperationId};
use crate::rules::design as r;

pub(super) fn design(facts: &Facts<'_>, space: &Space, state: &State) -> Option<Design> {
    let model = facts.model;
    let p = Placement::build(facts, space, state)?;
    // Plans every operation once for the search's figures (the evaluator,
    // which also prices the alternatives) and once with words for the report.
    let eval = Evaluator::new(facts, space, state.clone())?;
    let priced = price(facts, space, &p, eval.total());
    let docs = DocBuilder {
        facts,
        space,
        p: &p,
        budget: std::cell::Cell::new(0),
    };
    let mut walked = Walked::default();
    let collections = collections(facts, space, &p, &docs, &priced, &mut walked);
    let relationships = model
        .relationship_ids()
        .map(|rel| {
            let mut d = decision(facts, space, state, &priced, &eval, rel);
            say_unindexed(facts, space, &p, &collections, rel, &mut d);
            d
        })
        .collect();
    let entities = entity_decisions(facts, space, state, &priced, &eval);
    let operations = model
        .operation_ids()
        .zip(&priced.plans)
        .map(|(op, plan)| OperationPlan {
            operation: model.operation(op).name.clone(),
            rate: model.operation(op).rate(facts.mix),
            steps: plan.steps.clone(),
            transaction: plan.transaction,
            cost: plan.cost,
            index_entries_rewritten: rewritten(&collections, &plan.steps),
            warnings: plan.warnings.clone(),
            set_to: set_to(model, op, &plan.warnings),
        })
        .collect();
    let mut totals = priced.totals;
    let mut operations: Vec<OperationPlan> = operations;
    walk_priced(facts, &walked, &mut operations, &mut totals);
    let mixes = mixes(facts, &operations, &totals);
    let mut design = Design {
        schema_version: DESIGN_SCHEMA_VERSION,
        model: model.name.clone(),
        mix: model
            .workload
            .mixes
            .get(facts.mix)
            .map_or_else(|| "default".to_string(), |m| m.name.clone()),
        collections,
        relationships,
        entities,
        operations,
        totals,
        mixes,
        findings: Vec::new(),
        current: None,
        tenancy: None,
        capacity: None,
    };
    rename_covered_indexes(&priced, &mut design);
    generated_examples(model, &mut design);
    design.findings = super::findings::findings(facts, space, state, &design);
    Some(design)
}

fn collections(
    facts: &Facts<'_>,
    space: &Space,
    p: &Placement<'_>,
    docs: &DocBuilder<'_>,
    priced: &Priced,
    walked: &mut Walked,
) -> Vec<Collection> {
    let model = facts.model;
    let mut out: Vec<Collection> = Vec::new();
    // Each collection's place in `out` by name: a search of `out` per
    // entity was quadratic in the model (issue 45).
    let mut at: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
    for e in model.entity_ids() {
        let Some((size, documents)) = size_of(facts, space, p, e) else {
            continue;
        };
        let (shape, example) = match p.home[e.index()] {
            Home::Embedded { .. } => continue,
            Home::Own => {
                docs.budget.set(super::document::EXAMPLE_BUDGET);
                docs.entity(e, 1, true)
            }
            Home::Bucketed { rel } => docs.bucket(rel, 1),
        };
        let name = p.collection(facts, space, e);
        if let Some(c) = at.get(&name).map(|&i| &mut out[i]) {
            // A polymorphic collection: one more entity, its fields merged in.
            c.entities.push(model.entity(e).name.clone());
            c.documents += documents;
            // A field some kind has not is required of none: a phone has
            // no mileage, though the cars came first.
            for x in c.shape.fields.iter_mut() {
                if !shape.iter().any(|f| f.name == x.name) {
                    x.required = false;
                }
            }
            for f in shape {
                if !c.shape.fields.iter().any(|x| x.name == f.name) {
                    let mut f = f;
                    f.required = false;
                    c.shape.fields.push(f);
                }
            }
            c.size.typical_bytes = c.size.typical_bytes.max(size.typical_bytes);
            c.size.max_bytes = c.size.max_bytes.zip(size.max_bytes).map(|(a, b)| a.max(b));
            c.size.nesting_depth = c.size.nesting_depth.max(size.nesting_depth);
            continue;
        }
        let discriminator = p.poly[e.index()].and_then(|i| match &space.entity[i] {
            EntityCandidate::Polymorphic { discriminator, .. } => Some(discriminator.clone()),
            EntityCandidate::Computed { .. } | EntityCandidate::Timeline { .. } => None,
        });
        at.insert(name.clone(), out.len());
        out.push(Collection {
            name,
            entities: vec![model.entity(e).name.clone()],
            discriminator,
            shape: Shape { fields: shape },
            example: serde_json::Value::Object(example),
            documents,
            size,
            indexes: Vec::new(),
            sharding: None,
        });
    }
    for &i in &p.timelines {
        if let EntityCandidate::Timeline {
            feed,
            collection,
            threshold,
        } = &space.entity[i]
        {
            out.push(timeline_collection(
                facts, docs, feed, collection, *threshold,
            ));
        }
    }
    // Each collection's index needs, in the order of the operations and of
    // their plans' steps, gathered in one pass (a pass over every plan per
    // collection was quadratic in the model, issue 45).
    let mut needs: rustc_hash::FxHashMap<&str, Vec<(OperationId, &IndexNeed)>> =
        rustc_hash::FxHashMap::default();
    let mut by_id: rustc_hash::FxHashMap<&str, Vec<OperationId>> = rustc_hash::FxHashMap::default();
    for (op, plan) in model.operation_ids().zip(&priced.plans) {
        for need in &plan.indexes {
            needs
                .entry(need.collection.as_str())
                .or_default()
                .push((op, need));
        }
        for step in plan
            .steps
            .iter()
            .filter(|s| s.index.as_deref() == Some("_id_"))
        {
            let ops = by_id.entry(step.collection.as_str()).or_default();
            if ops.last() != Some(&op) {
                ops.push(op);
            }
        }
    }
    for c in &mut out {
        let mine = needs.get(c.name.as_str()).map_or(&[][..], Vec::as_slice);
        let ids = by_id.get(c.name.as_str()).map_or(&[][..], Vec::as_slice);
        c.indexes = indexes(facts, mine, ids, walked);
        expiry_indexes(facts, p, c);
        data_unique_indexes(facts, space, p, c);
    }
    out
}

/// Entries of the secondary indexes of `collections` that `steps`' updates
/// rewrite per run: for each update step, each index of its collection
/// with a key at or below a path it writes (`status` in `{status, seen}`;
/// `lines` pushed to, in `{lines.sku}`), once per document updated, a
/// step run once in `every` counted at that share. `_id_` never changes.
fn rewritten(collections: &[Collection], steps: &[crate::design::Step]) -> f64 {
    use crate::design::Action;
    let mut n = 0.0;
    for step in steps {
        if !matches!(
            step.action,
            Action::UpdateOne
                | Action::UpdateMany
                | Action::Upsert
                | Action::FindOneAndUpdate
                | Action::BulkWrite
        ) {
            continue;
        }
        let Some(c) = collections.iter().find(|c| c.name == step.collection) else {
            continue;
        };
        // `lines.$.qty` and `lines.$[e].qty` write `lines.qty`; so does an
        // update pipeline's rewrite of `lines` that changes `qty` in the
        // matched elements: the server compares each index's keys before
        // and after, and the elements' other fields keep theirs.
        let paths: Vec<String> = step
            .updates
            .iter()
            .flat_map(|u| match u {
                crate::design::UpdateOp::SetElements { path, fields, adds } => fields
                    .iter()
                    .map(String::as_str)
                    .chain(adds.iter().map(crate::design::UpdateOp::path))
                    .map(|f| format!("{path}.{f}"))
                    .collect::<Vec<_>>(),
                u => vec![u.path().to_string()],
            })
            .map(|p| {
                p.split('.')
                    .filter(|s| !s.starts_with('$'))
                    .collect::<Vec<_>>()
                    .join(".")
            })
            .collect();
        let hit = |key: &str| {
            paths.iter().any(|p| {
                key == p
                    || key
                        .strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            })
        };
        let indexes = c
            .indexes
            .iter()
            .filter(|i| i.name != "_id_" && i.keys.iter().any(|(k, _)| hit(k)))
            .count();
        let share = step.every.map_or(1.0, |e| 1.0 / e.max(1) as f64);
        n += indexes as f64 * step.documents * share;
    }
    n
}

/// The unique indexes of the `unique:` combinations of `c`'s entities
/// that no plan carries: no operation of the workload inserts, reads or
/// writes the entity (its documents come from an admin tool or a
/// migration). A uniqueness is a constraint of the data, so the index is
/// kept whatever the workload (audit45 gap 8: `room_type.code` unique
/// within its hotel was dropped, "only the implicit _id_").
fn data_unique_indexes(facts: &Facts<'_>, space: &Space, p: &Placement<'_>, c: &mut Collection) {
    let planner = crate::costs::plan::Planner { facts, space, p };
    for e in facts.model.entity_ids() {
        if !c.entities.contains(&facts.model.entity(e).name) {
            continue;
        }
        for (keys, partial) in planner.data_unique(e) {
            let held = c.indexes.iter_mut().find(|i| {
                same_key_set(&i.keys, &keys)
                    && i.partial == partial
                    && i.expire_after_seconds.is_none()
            });
            match held {
                Some(i) if i.unique => {}
                // The same keys a read uses, made unique: the data says so.
                Some(i) => i.unique = true,
                None => c.indexes.push(Index {
                    name: keys
                        .iter()
                        .map(|(k, d)| format!("{k}_{}", crate::design::key_kind(*d)))
                        .chain((!partial.is_empty()).then(|| "partial".to_string()))
                        .collect::<Vec<_>>()
                        .join("_"),
                    keys,
                    unique: true,
                    used_by: Vec::new(),
                    partial,
                    expire_after_seconds: None,
                    expired_per_second: None,
                    monitor_delay_share: None,
                    kept_beside: None,
                    kept_by_data: true,
                    expires_buckets_of: None,
                }),
            }
        }
    }
}

/// The size of the documents that hold `e` at the top level, and how many
/// there are; `None` for an entity embedded in another. The capacity
/// projection asks the same of the model grown month by month.
pub(super) fn size_of(
    facts: &Facts<'_>,
    space: &Space,
    p: &Placement<'_>,
    e: EntityId,
) -> Option<(DocumentSize, u64)> {
    let model = facts.model;
    let size = match p.home[e.index()] {
        Home::Embedded { .. } => return None,
        Home::Own => DocumentSize {
            typical_bytes: p.typical[e.index()].round() as u64,
            max_bytes: p.max[e.index()].map(|m| m.round() as u64),
            nesting_depth: p.depth[e.index()],
        },
        Home::Bucketed { rel } => {
            let child = model.relationship(rel).child;
            let b = p.bucket_bytes(facts, rel);
            let per = match p.layouts[rel.index()] {
                Layout::Bucket { per_bucket, .. } => *per_bucket as f64,
                _ => 1.0,
            };
            let max =
                b + (per - p.bucket_items(facts, rel)).max(0.0) * (5.0 + p.typical[child.index()]);
            DocumentSize {
                typical_bytes: b.round() as u64,
                max_bytes: p.max[child.index()].map(|_| max.round() as u64),
                nesting_depth: 3 + p.depth[child.index()],
            }
        }
    };
    // The buckets thinned as the plans count them (issue 41).
    let fill = crate::costs::plan::Planner { facts, space, p }.root_fill(p.root(e));
    Some((size, p.documents(facts, e, fill).round() as u64))
}

/// The TTL index of each entity of `c` that expires (`expires:`) and has
/// documents of its own: the server deletes them, so no operation does.
/// An index of the reads on the date alone becomes the TTL index; else
/// one is added. Children kept in buckets expire with their bucket, by the
/// bucket's newest date (`last_<field>`, which every bucket of an expiring
/// child keeps: `candidates::enumerate`), as MongoDB's time-series
/// collections do: a bucket goes when its newest child expires, so its
/// older ones stay up to one bucket's span longer (audit44 D: they never
/// expired). An entity embedded in another cannot expire by TTL (the
/// index deletes whole documents); rule `expiry-lost` names it.
fn expiry_indexes(facts: &Facts<'_>, p: &Placement<'_>, c: &mut Collection) {
    for e in facts.model.entity_ids() {
        let entity = facts.model.entity(e);
        let Some(x) = &entity.expires else { continue };
        if !c.entities.contains(&entity.name) {
            continue;
        }
        // The date the TTL index keys, and the documents one deletes: a
        // child, or a bucket of `per_bucket` of them (costs::plan::expiry,
        // which prices those deletes with the inserts).
        let Some(t) = crate::costs::plan::expiry::ttl_key(facts, p, e) else {
            continue;
        };
        let (field, buckets_of) = (t.field, t.buckets_of);
        let keys = vec![(field.clone(), 1)];
        // In the steady state the monitor deletes what the workload inserts.
        let inserted = facts.entity_inserts[e.index()];
        let expired =
            (inserted > 0.0).then_some(crate::design::PerSecond(inserted / t.per_document));
        match c
            .indexes
            .iter_mut()
            .find(|i| i.keys.len() == 1 && i.keys[0].0 == field && i.partial.is_empty())
        {
            Some(i) => {
                i.expire_after_seconds = Some(x.seconds);
                i.expired_per_second = expired;
                i.monitor_delay_share =
                    crate::words::ttl_monitor_share(x.seconds).map(crate::design::Share);
                i.expires_buckets_of = buckets_of;
            }
            None => {
                c.indexes.push(Index {
                    name: format!("{field}_1"),
                    keys,
                    unique: false,
                    used_by: Vec::new(),
                    partial: Vec::new(),
                    expire_after_seconds: Some(x.seconds),
                    expired_per_second: expired,
                    monitor_delay_share: crate::words::ttl_monitor_share(x.seconds)
                        .map(crate::design::Share),
                    kept_beside: None,
                    kept_by_data: false,
                    expires_buckets_of: buckets_of,
                });
            }
        }
    }
}

/// A timeline collection's documents (one per reader), typical and
/// largest bytes on `facts`' model: the design's, and each month's of a
/// projection on the model grown (`capacity`).
pub(super) fn timeline_sizes(
    facts: &Facts<'_>,
    feed: &crate::candidates::feed::Feed,
    threshold: Option<u64>,
) -> (u64, u64, Option<u64>) {
    let model = facts.model;
    let reader = model.relationship(feed.following).parent;
    let size = crate::candidates::placement::timeline_size(facts, feed, threshold);
    (
        facts.count(reader).round() as u64,
        size.document.round() as u64,
        // The items are capped; the outliers followed are at most the follows.
        model
            .relationship(feed.following)
            .children
            .max
            .finite()
            .map(|m| (size.document + m as f64 * 17.0).round() as u64),
    )
}

/// A timeline's collection: a document per reader under its id, with the
/// newest items (each a copy of an item's document) and the outliers it
/// follows.
fn timeline_collection(
    facts: &Facts<'_>,
    docs: &DocBuilder<'_>,
    feed: &crate::candidates::feed::Feed,
    collection: &str,
    threshold: Option<u64>,
) -> Collection {
    use crate::design::{FieldOrigin, ShapeField, ShapeType};
    let model = facts.model;
    let reader = model.relationship(feed.following).parent;
    let item = model.relationship(feed.items).child;
    let parent = model.relationship(feed.followers).parent;
    let (documents, typical_bytes, max_bytes) = timeline_sizes(facts, feed, threshold);
    let op = model.operation(feed.operation).name.clone();
    docs.budget.set(super::document::EXAMPLE_BUDGET);
    let (item_shape, _) = docs.entity(item, 1, true);
    let items: Vec<serde_json::Value> = (1..=feed.limit.min(3))
        .map(|n| serde_json::Value::Object(docs.entity(item, n, true).1))
        .collect();
    let mut shape = vec![
        ShapeField {
            name: "_id".into(),
            ty: docs.id_of(reader),
            required: true,
            origin: FieldOrigin::Id,
        },
        ShapeField {
            name: "items".into(),
            ty: ShapeType::Array {
                items: Box::new(ShapeType::Object {
                    shape: Shape { fields: item_shape },
                }),
                max_items: Some(feed.limit),
            },
            required: true,
            origin: FieldOrigin::Timeline {
                feed: op.clone(),
                entity: model.entity(item).name.clone(),
            },
        },
    ];
    let mut example = serde_json::Map::new();
    example.insert(
        "_id".into(),
        docs.entity(reader, 1, true)
            .1
            .get("_id")
            .cloned()
            .unwrap_or_default(),
    );
    example.insert("items".into(), serde_json::Value::Array(items));
    if threshold.is_some() {
        shape.push(ShapeField {
            name: "outliers".into(),
            ty: ShapeType::Array {
                items: Box::new(docs.id_of(parent)),
                max_items: Some(
                    facts.count(parent).min(
                        model
                            .relationship(feed.following)
                            .children
                            .max
                            .finite()
                            .unwrap_or(u64::MAX) as f64,
                    ) as u64,
                ),
            },
            required: false,
            origin: FieldOrigin::Outliers {
                feed: op,
                entity: model.entity(parent).name.clone(),
            },
        });
        example.insert("outliers".into(), serde_json::Value::Array(Vec::new()));
    }
    Collection {
        name: collection.to_string(),
        entities: Vec::new(),
        discriminator: None,
        shape: Shape { fields: shape },
        example: serde_json::Value::Object(example),
        documents,
        size: DocumentSize {
            typical_bytes,
            max_bytes,
            nesting_depth: 3,
        },
        indexes: Vec::new(),
        sharding: None,
    }
}

/// Each collection's example: the typical document `squill generate`
/// writes for it (`examples.json`, seed 1, its default), so advise and
/// generate show the same documents, with references that point at the
/// examples of the other collections and copies that match their source.
/// A model whose instances at scale 1 cannot be numbered keeps the
/// examples of the shape's walk.
fn generated_examples(model: &crate::model::Model, design: &mut Design) {
    if crate::synthetic::estimate::too_many(model, 1, None).is_some() {
        return;
    }
    let examples = {
        let pop = crate::synthetic::Population::for_examples(model, design, 1, None);
        crate::synthetic::examples::typical(&pop)
    };
    for (name, doc) in examples {
        if let Some(c) = design.collections.iter_mut().find(|c| c.name == name)
            && let Ok(v) = serde_json::from_str(&doc.to_ejson_pretty())
        {
            c.example = v;
        }
    }
}

/// The design priced under each mix of a model that has several: the
/// operations' costs weighted by that mix's rates, and the part of the
/// score no operation accounts for (the indexes held) as it is. The
/// operations' costs are the report's, with the walks of claims whose
/// partial index went (`walk_priced`): a walk is paid at its claims' rate
/// in each mix.
fn mixes(
    facts: &Facts<'_>,
    operations: &[OperationPlan],
    total: &Cost,
) -> Vec<crate::design::MixTotals> {
    let model = facts.model;
    if model.workload.mixes.len() < 2 {
        return Vec::new();
    }
    let weighted = |mix: usize| {
        let mut c = Cost::default();
        for (op, plan) in model.operation_ids().zip(operations) {
            c.add_scaled(&plan.cost, model.operation(op).rate(mix));
        }
        c
    };
    let held = total.score - weighted(facts.mix).score;
    model
        .workload
        .mixes
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut totals = weighted(i);
            totals.index_entries = total.index_entries;
            totals.score += held;
            crate::design::MixTotals {
                mix: m.name.clone(),
                totals,
            }
        })
        .collect()
}

/// Steps name the index they need; one that is the prefix of another is not
/// created, so its steps are pointed at the one that serves them.
fn rename_covered_indexes(priced: &Priced, design: &mut Design) {
    let Design {
        operations,
        collections,
        ..
    } = design;
    for (op, plan) in operations.iter_mut().zip(&priced.plans) {
        for need in plan.indexes.iter().filter(|n| !n.unique) {
            let (Some(step), Some(coll)) = (
                op.steps.get_mut(need.step),
                collections.iter().find(|c| c.name == need.collection),
            ) else {
                continue;
            };
            let exists = coll
                .indexes
                .iter()
                .any(|i| step.index.as_ref() == Some(&i.name));
            // (Or the unique index of the same keys in another order that
            // this step's keys were merged into, `indexes` below.)
            // A partial index serves only the steps that test its
            // condition. The index the list of indexes names the
            // operation a user of comes first: the one the need was
            // merged into (a bucket deleted by its parent through
            // `{post: 1, page: 1}`, not through a multikey index that
            // happens to sort first).
            // Keys the step tests by equality match by name alone (a
            // claim's partial index dropped for a full one, `indexes`).
            let serves = |i: &&crate::design::Index| {
                crate::costs::plan::covers_after_equalities(&i.keys, &need.keys, need.equalities)
                    && (i.partial.is_empty() || i.partial == need.partial)
            };
            if let Some(by) = coll
                .indexes
                .iter()
                .filter(serves)
                .find(|i| i.used_by.contains(&op.operation))
                .or_else(|| coll.indexes.iter().find(serves))
                .or_else(|| {
                    coll.indexes
                        .iter()
                        .find(|i| i.unique && same_key_set(&i.keys, &need.keys))
                })
                && !exists
            {
                step.index = Some(by.name.clone());
            }
        }
    }
}

/// The partial indexes that went for a full one (`walk`): the walks of
/// their claims, and the entries they would have held.
#[derive(Default)]
struct Walked {
    /// Each claim with the keys and documents it walks past per run.
    claims: Vec<(OperationId, f64)>,
    /// Entries the partial indexes would hold (`price` counted them).
    entries: f64,
}

/// The claims whose partial index went for a full one another operation
/// wants (`walk`: the walk costs less than the partial index's upkeep)
/// examine the documents that fail their condition on the way: each
/// claim's cost, and the totals' keys and documents at its rate, count
/// them. The score already does: the search priced the walk in place of
/// the partial index's upkeep (`optimize::wanted_cost`).
fn walk_priced(
    facts: &Facts<'_>,
    walked: &Walked,
    operations: &mut [OperationPlan],
    totals: &mut Cost,
) {
    let c = &facts.settings.design.costs;
    totals.index_entries -= walked.entries;
    for &(op, past) in &walked.claims {
        let Some(plan) = operations.get_mut(op.index()) else {
            continue;
        };
        plan.cost.index_keys_examined += past;
        plan.cost.documents_examined += past;
        plan.cost.rescore(c);
        let rate = plan.rate;
        totals.index_keys_examined += rate * past;
        totals.documents_examined += rate * past;
    }
}

/// Each claim with the keys and documents it walks past per run.
type Claims = Vec<(OperationId, f64)>;

/// The claims that use `list[i]` (a partial index over the documents their
/// condition selects, `status = free`) over the full index of `list` that
/// can stand in for it with the shortest walk (`walk::past`): that index,
/// whether the walk costs more per second than `list[i]`'s upkeep, and
/// each claim with the keys and documents it walks past per run. The
/// search priced the same choice (`optimize::wanted_cost`).
fn walk(
    facts: &Facts<'_>,
    needs: &[(OperationId, &IndexNeed)],
    list: &[Index],
    i: usize,
) -> Option<(usize, bool, Claims)> {
    let model = facts.model;
    let c = &facts.settings.design.costs;
    let of = |x: &Index| -> Vec<&(OperationId, &IndexNeed)> {
        needs
            .iter()
            .filter(|(_, n)| n.keys == x.keys && n.partial == x.partial)
            .collect()
    };
    let side = |x: &Index| {
        let mine = of(x);
        let first = mine.first()?.1;
        Some(super::walk::Side {
            keys: &first.keys,
            partial: &first.partial,
            entries: first.entries,
            equalities: mine.iter().map(|(_, n)| n.equalities).min().unwrap_or(0),
            unique: x.unique,
        })
    };
    let me = side(&list[i])?;
    let mut best = None;
    for (j, x) in list.iter().enumerate() {
        if j == i || x.expire_after_seconds.is_some() {
            continue;
        }
        if let Some(past) = side(x).and_then(|full| super::walk::past(&me, &full)) {
            best = super::walk::shorter(best, (j, past));
        }
    }
    let (j, past) = best?;
    let mine = of(&list[i]);
    let mut claims: Vec<(OperationId, f64)> = Vec::new();
    for (op, _) in &mine {
        if model.operation(*op).terms.claim.is_some() && !claims.iter().any(|(o, _)| o == op) {
            claims.push((*op, past));
        }
    }
    let rate: f64 = claims
        .iter()
        .map(|(op, _)| model.operation(*op).rate(facts.mix))
        .sum();
    let need = mine.first()?.1;
    let upkeep = crate::costs::index_score(need.held, need.writes, need.keys_per_write, c);
    let claims = if past > 0.0 { claims } else { Vec::new() };
    Some((j, super::walk::per_second(past, rate, c) > upkeep, claims))
}

/// Whether two indexes hold the same fields, in any order and direction.
fn same_key_set(a: &[(String, i32)], b: &[(String, i32)]) -> bool {
    a.len() == b.len() && a.iter().all(|(k, _)| b.iter().any(|(l, _)| l == k))
}

/// The indexes the plans use on one collection, without any that is a prefix of another.
/// One collection's indexes from its needs and the operations with a step
/// on its `_id_` index (`collections`), each in the operations' order.
fn indexes(
    facts: &Facts<'_>,
    needs: &[(OperationId, &IndexNeed)],
    by_id: &[OperationId],
    walked: &mut Walked,
) -> Vec<Index> {
    let mut list: Vec<Index> = Vec::new();
    for &(op, need) in needs {
        let name = facts.model.operation(op).name.clone();
        match list
            .iter_mut()
            .find(|i| i.keys == need.keys && i.partial == need.partial)
        {
            // A unique index carried for the data names no user: the
            // operation that carries it does not use it (review46 item 6).
            Some(i) => {
                i.unique |= need.unique;
                if !need.by_data && !i.used_by.contains(&name) {
                    i.used_by.push(name);
                    i.kept_by_data = false;
                }
            }
            None => list.push(Index {
                name: need
                    .keys
                    .iter()
                    .map(|(k, d)| format!("{k}_{}", crate::design::key_kind(*d)))
                    .chain(
                        // Apart from an index of the same keys over all documents.
                        (!need.partial.is_empty()).then(|| "partial".to_string()),
                    )
                    .collect::<Vec<_>>()
                    .join("_"),
                keys: need.keys.clone(),
                unique: need.unique,
                used_by: if need.by_data { Vec::new() } else { vec![name] },
                partial: need.partial.clone(),
                expire_after_seconds: None,
                expired_per_second: None,
                monitor_delay_share: None,
                kept_beside: None,
                kept_by_data: need.by_data,
                expires_buckets_of: None,
            }),
        }
    }
    // A unique combination whose keys an index of the reads holds in
    // another order is that index, made unique ({user, repo} = {repo, user}).
    let mut i = 0;
    while i < list.len() {
        let same = (0..list.len()).find(|&j| {
            j != i
                && list[i].unique
                && !list[j].unique
                && list[i].partial.is_empty()
                // Not into a partial index: that one enforces nothing on
                // the documents it leaves out (a unique page of count
                // buckets must hold for the emptied ones too).
                && list[j].partial.is_empty()
                && same_key_set(&list[i].keys, &list[j].keys)
        });
        if let Some(j) = same {
            let users = std::mem::take(&mut list[i].used_by);
            for u in users {
                if !list[j].used_by.contains(&u) {
                    list[j].used_by.push(u);
                }
            }
            list[j].unique = true;
            list.remove(i);
        } else {
            i += 1;
        }
    }
    // A partial index beside one over every document that starts with
    // its keys is a second copy of the same entries: the full one serves
    // every read the partial one serves (those reads test the partial
    // condition in their filter, which the full index's documents are
    // then checked against), so the partial one goes and its users move
    // over. A unique partial index stays: it enforces its uniqueness over
    // the documents it holds, which the full one does not (issue 41).
    // The keys its users test by equality (a claim's `{org, status}`)
    // match by name alone: an equality reads one value either way, so only
    // the sort keys after them must run the same way or all reversed.
    let mut i = 0;
    while i < list.len() {
        let found = walk(facts, needs, &list, i);
        let full = found.as_ref().map(|(j, ..)| *j);
        let (dearer, claims) = found.map_or((false, Vec::new()), |(_, d, c)| (d, c));
        if let Some(j) = full
            && dearer
        {
            list[i].kept_beside = Some(crate::design::KeptBeside {
                index: list[j].name.clone(),
                why: crate::design::BesideWhy::Walk,
            });
            i += 1;
        } else if let Some(j) = full {
            // The claims walk the full index: priced so (`walked`).
            for w in claims {
                if !walked.claims.contains(&w) {
                    walked.claims.push(w);
                }
            }
            walked.entries += needs
                .iter()
                .find(|(_, n)| n.keys == list[i].keys && n.partial == list[i].partial)
                .map_or(0.0, |(_, n)| n.held);
            let users = std::mem::take(&mut list[i].used_by);
            for u in users {
                if !list[j].used_by.contains(&u) {
                    list[j].used_by.push(u);
                }
            }
            list.remove(i);
            i = 0;
        } else {
            i += 1;
        }
    }
    // A unique partial index that stays beside such a full one says why.
    for i in 0..list.len() {
        if list[i].partial.is_empty() || !list[i].unique {
            continue;
        }
        if let Some(j) = (0..list.len()).find(|&j| {
            list[j].partial.is_empty()
                && list[j].expire_after_seconds.is_none()
                && super::optimize::covers(&list[j].keys, &list[i].keys)
        }) {
            list[i].kept_beside = Some(crate::design::KeptBeside {
                index: list[j].name.clone(),
                why: crate::design::BesideWhy::Unique,
            });
        }
    }
    // Drop an index that is a prefix of another; its users move to the
    // longer one. A unique index stays: the longer one does not enforce it.
    let mut i = 0;
    while i < list.len() {
        let prefix_of = (0..list.len()).find(|&j| {
            j != i
                // A partial index covers only some documents: neither
                // serves for the other.
                && list[i].partial == list[j].partial
                && (!list[i].unique || list[j].keys.len() == list[i].keys.len())
                && super::optimize::covers(&list[j].keys, &list[i].keys)
                && (list[j].keys.len() > list[i].keys.len() || j < i)
        });
        if let Some(j) = prefix_of {
            list[j].unique |= list[i].unique;
            let users = list[i].used_by.clone();
            for u in users {
                if !list[j].used_by.contains(&u) {
                    list[j].used_by.push(u);
                }
            }
            list.remove(i);
            i = 0;
        } else {
            i += 1;
        }
    }
    list.sort_by(|a, b| a.name.cmp(&b.name));
    // The implicit `_id_` index, first, when steps use it (it costs nothing
    // and `generate` never creates it, but readers look for it here).
    let mut id_users: Vec<String> = Vec::new();
    for &op in by_id {
        let name = &facts.model.operation(op).name;
        if !id_users.contains(name) {
            id_users.push(name.clone());
        }
    }
    if !id_users.is_empty() {
        list.insert(
            0,
            Index {
                name: "_id_".to_string(),
                keys: vec![("_id".to_string(), 1)],
                unique: true,
                used_by: id_users,
                partial: Vec::new(),
                expire_after_seconds: None,
                expired_per_second: None,
                monitor_delay_share: None,
                kept_beside: None,
                kept_by_data: false,
                expires_buckets_of: None,
            },
        );
    }
    list
}

fn decision(
    facts: &Facts<'_>,
    space: &Space,
    state: &State,
    priced: &Priced,
    eval: &Evaluator<'_, '_>,
    rel: crate::model::RelationshipId,
) -> RelationshipDecision {
    let model = facts.model;
    let rr = model.relationship(rel);
    let ri = rel.index();
    let chosen = &space.rels[ri][state.rel[ri]];
    let mut rules = chosen.support.clone();
    let mut alternatives = Vec::new();
    let mut costlier = 0usize;
    let mut nearest: Option<f64> = None;
    for (i, cand) in space.rels[ri].iter().enumerate() {
        if i == state.rel[ri] {
            continue;
        }
        let verdict = if let Some(hit) = &cand.forbidden {
            Verdict::Rejected {
                rule: hit.rule,
                reason: hit.reason.clone(),
            }
        } else {
            // Priced as it is when it can exist (what `repair_keeping` would
            // leave it as), repaired first only when it cannot.
            let alone = crate::candidates::placement::Change {
                rels: vec![(ri, i)],
                entities: Vec::new(),
            };
            let alt = eval.total_of(&alone).or_else(|| {
                let mut st = state.clone();
                st.rel[ri] = i;
                let st = super::optimize::repair_keeping(facts, space, st, ri)?;
                let changed: Vec<usize> = (0..st.rel.len())
                    .filter(|r| st.rel[*r] != state.rel[*r])
                    .collect();
                // The repair may also have switched entity candidates off.
                let off: Vec<usize> = (0..st.entity.len())
                    .filter(|i| st.entity[*i] != state.entity[*i])
                    .collect();
                eval.total_with_entities(&st, &changed, &off)
            });
            match alt {
                Some((total, plans)) => {
                    costlier += 1;
                    let mut delta = Cost::default();
                    let pairs: Vec<(OperationId, &OpPlan, &OpPlan)> = plans
                        .iter()
                        .map(|(o, p)| (*o, &priced.plans[o.index()], p))
                        .collect();
                    for (o, a, b) in &pairs {
                        delta.add_scaled(
                            &b.cost.minus(&a.cost),
                            model.operation(*o).rate(facts.mix),
                        );
                    }
                    // Index entries the changed operations' indexes hold, after minus before.
                    let entries = |plans: &mut dyn Iterator<Item = &OpPlan>| {
                        let mut seen: Vec<(&str, &[(String, i32)])> = Vec::new();
                        let mut n = 0.0;
                        for p in plans {
                            for i in &p.indexes {
                                let k = (i.collection.as_str(), i.keys.as_slice());
                                if !seen.contains(&k) {
                                    seen.push(k);
                                    n += i.held;
                                }
                            }
                        }
                        n
                    };
                    delta.index_entries = entries(&mut pairs.iter().map(|(_, _, b)| *b))
                        - entries(&mut pairs.iter().map(|(_, a, _)| *a));
                    delta.score = total - eval.total();
                    nearest = Some(nearest.map_or(delta.score, |n: f64| n.min(delta.score)));
                    let explanation = explanation(
                        facts,
                        &pairs,
                        delta.score,
                        eval.total(),
                        &layout_words(facts, rel, &cand.layout),
                    );
                    let by_operation = pairs
                        .iter()
                        .map(|(o, a, b)| crate::design::OperationDelta {
                            operation: model.operation(*o).name.clone(),
                            score: (b.cost.score - a.cost.score)
                                * model.operation(*o).rate(facts.mix),
                        })
                        .filter(|d| d.score.abs() > 1e-9)
                        .collect();
                    if super::optimize::lower(total, eval.total()) {
                        Verdict::Cheaper {
                            delta,
                            explanation,
                            by_operation,
                        }
                    } else {
                        Verdict::Costlier {
                            delta,
                            explanation,
                            by_operation,
                        }
                    }
                }
                None => Verdict::Rejected {
                    rule: r::design_for_workload::RULE.id,
                    reason: crate::design::Reason::new(CannotCombine {
                        parent: model.entity(rr.parent).name.clone(),
                        child: model.entity(rr.child).name.clone(),
                        layout: cand.layout.clone(),
                    }),
                },
            }
        };
        alternatives.push(Alternative {
            layout: cand.layout.clone(),
            verdict,
        });
    }
    let pinned = rr.layout.is_some();
    // A tenant's id squill carries (model/tenant_carry.rs) is no choice of
    // the model's nor of the workload's: the parent-reference reason says it.
    let reason = if !rr.tenant_chain.is_empty() {
        None
    } else if pinned {
        Some(Reason::new(r::design_for_workload::pinned(
            nearest,
            priced.totals.score,
        )))
    } else {
        r::design_for_workload::check(costlier, nearest, priced.totals.score).map(Reason::new)
    };
    if let Some(reason) = reason {
        rules.push(RuleHit {
            rule: r::design_for_workload::RULE.id,
            reason,
        });
    }
    if let Some(hit) = &chosen.forbidden {
        rules.push(RuleHit {
            rule: hit.rule,
            reason: Reason::new(ChosenDespite {
                pinned,
                broken: hit.reason.clone(),
            }),
        });
    }
    RelationshipDecision {
        relationship: rr.name.clone(),
        parent: model.entity(rr.parent).name.clone(),
        child: model.entity(rr.child).name.clone(),
        class: if rr.kind == crate::model::RelationshipKind::ManyToMany {
            "many-to-many".to_string()
        } else {
            facts
                .settings
                .cardinality
                .classify(rr.kind, &rr.children)
                .to_string()
        },
        chosen: chosen.layout.clone(),
        rules,
        alternatives,
        tradeoffs: tradeoffs(facts, priced, rel, &chosen.layout),
        snapshot: rr.snapshot.clone(),
    }
}

/// A parent's id kept in each child is "indexed" in the rule's reason only
/// where the design has an index that serves a query of the children by
/// their parent, as the planner plans it (under a tenant, led by the
/// tenant: `{store, customer, …}` serves a store's customer's orders), and
/// holds every child (not a partial one): with no operation that looks
/// children up by their parent, it has none, and the reason says so.
fn say_unindexed(
    facts: &Facts<'_>,
    space: &Space,
    p: &Placement<'_>,
    collections: &[Collection],
    rel: crate::model::RelationshipId,
    d: &mut RelationshipDecision,
) {
    if !matches!(d.chosen, Layout::ParentReference) {
        return;
    }
    let rr = facts.model.relationship(rel);
    let name = p.collection(facts, space, rr.child);
    let planner = crate::costs::plan::Planner { facts, space, p };
    let Some(eq) = planner.children_by_parent(rel) else {
        return;
    };
    let query = crate::costs::plan::QueryShape {
        eq: eq.iter().map(String::as_str).collect(),
        pairs: &[],
        geo: None,
        sort: Vec::new(),
        range: Vec::new(),
    };
    let indexed = collections
        .iter()
        .filter(|c| c.name == name)
        .flat_map(|c| &c.indexes)
        .any(|i| i.partial.is_empty() && crate::costs::plan::serves(&i.keys, &query));
    if indexed {
        return;
    }
    let cx = crate::rules::judge::RelCheck {
        facts,
        r: rel,
        layout: &d.chosen,
    };
    for hit in &mut d.rules {
        if hit.rule == r::parent_reference::RULE.id {
            hit.reason = r::parent_reference::unindexed(&cx);
        }
    }
}

fn entity_decisions(
    facts: &Facts<'_>,
    space: &Space,
    state: &State,
    priced: &Priced,
    eval: &Evaluator<'_, '_>,
) -> Vec<EntityDecision> {
    let model = facts.model;
    let mut out = Vec::new();
    for (i, on) in state.entity.iter().enumerate() {
        if !on {
            continue;
        }
        let mut rules = space.entity_support[i].clone();
        rules.extend(without_entity(facts, space, state, priced, eval, i));
        match &space.entity[i] {
            EntityCandidate::Polymorphic {
                entities,
                collection,
                discriminator,
                ..
            } => out.push(EntityDecision::Polymorphic {
                collection: collection.clone(),
                entities: entities
                    .iter()
                    .map(|e: &EntityId| model.entity(*e).name.clone())
                    .collect(),
                discriminator: discriminator.clone(),
                rules: rules.clone(),
            }),
            EntityCandidate::Computed {
                relationship,
                function,
                field,
                name,
                count,
                filter,
                ..
            } => {
                let rel = model.relationship(*relationship);
                // A figure over a subset says its test (`… where status = open`).
                let only = filter
                    .as_ref()
                    .map_or(String::new(), |c| format!(" where {}", c.written()));
                let maintained_by = model
                    .operation_ids()
                    .zip(&priced.plans)
                    .filter(|(_, p)| {
                        p.steps.iter().any(|s| {
                            s.updates
                                .iter()
                                .any(|u| update_path(u).ends_with(name.as_str()))
                        })
                    })
                    .map(|(o, _)| model.operation(o).name.clone())
                    .collect();
                out.push(EntityDecision::ComputedField {
                    entity: model.entity(rel.parent).name.clone(),
                    field: name.clone(),
                    computes: match count {
                        // An average: this field is its sum.
                        Some(c) => format!(
                            "{}, kept as this sum over {c}",
                            computes(model, rel, *function, field.as_deref())
                        ),
                        None => format!(
                            "{}{only}",
                            computes(model, rel, *function, field.as_deref())
                        ),
                    },
                    maintained_by,
                    rules: rules.clone(),
                });
            }
            EntityCandidate::Timeline {
                feed,
                collection,
                threshold,
            } => {
                let size = crate::candidates::placement::timeline_size(facts, feed, *threshold);
                let maintained_by = model
                    .operation_ids()
                    .zip(&priced.plans)
                    .filter(|(_, p)| {
                        p.steps.iter().any(|s| {
                            s.collection == *collection && s.action != crate::design::Action::Find
                        })
                    })
                    .map(|(o, _)| model.operation(o).name.clone())
                    .collect();
                out.push(EntityDecision::Timeline {
                    collection: collection.clone(),
                    reader: model
                        .entity(model.relationship(feed.following).parent)
                        .name
                        .clone(),
                    items: model
                        .entity(model.relationship(feed.items).child)
                        .name
                        .clone(),
                    feed: model.operation(feed.operation).name.clone(),
                    limit: feed.limit,
                    threshold: *threshold,
                    pushed: size.pushed,
                    maintained_by,
                    rules: rules.clone(),
                });
            }
        }
    }
    out
}

/// What the design would cost without entity candidate `i` (separate
/// collections instead of a polymorphic one, a figure computed at read time
/// instead of kept), as a `design-for-workload` reason; `None` when the
/// design cannot do without it.
fn without_entity(
    facts: &Facts<'_>,
    space: &Space,
    state: &State,
    priced: &Priced,
    eval: &Evaluator<'_, '_>,
    i: usize,
) -> Option<RuleHit> {
    let mut st = state.clone();
    st.entity[i] = false;
    let (total, plans) = eval.total_with_entities(&st, &[], &[i])?;
    let pairs: Vec<(OperationId, &OpPlan, &OpPlan)> = plans
        .iter()
        .map(|(o, p)| (*o, &priced.plans[o.index()], p))
        .collect();
    let delta = total - eval.total();
    let model = facts.model;
    let instead = match &space.entity[i] {
        EntityCandidate::Polymorphic { entities, .. } => Instead::SeparateCollections {
            entities: entities
                .iter()
                .map(|e| model.entity(*e).name.clone())
                .collect(),
        },
        EntityCandidate::Computed { name, .. } => Instead::ComputedAtRead {
            field: name.clone(),
        },
        EntityCandidate::Timeline { feed, .. } => Instead::FanOutOnRead {
            operation: model.operation(feed.operation).name.clone(),
        },
    };
    Some(RuleHit {
        rule: r::design_for_workload::RULE.id,
        reason: Reason::new(Kept {
            instead,
            score: crate::design::Figure::per_second(eval.total()),
            margin: crate::design::Figure::per_second(delta),
            operations: differences(facts, &pairs),
        }),
    })
}

pub(super) fn update_path(u: &crate::design::UpdateOp) -> &str {
    use crate::design::UpdateOp as U;
    match u {
        U::Set { path }
        | U::Unset { path }
        | U::SetOnInsert { path }
        | U::Inc { path, .. }
        | U::Dec { path }
        | U::Min { path }
        | U::Max { path }
        | U::AddToSet { path }
        | U::Pull { path }
        | U::Rebase { path }
        | U::DropElements { path } => path,
        U::Push { path, .. }
        | U::SetElements { path, .. }
        | U::PullExpired { path, .. }
        | U::Recompute { path, .. }
        | U::SetFrom { path, .. }
        | U::CopyFrom { path, .. }
        | U::SetOld { path, .. }
        | U::Reset { path, .. } => path,
    }
}

/// The fields operation `op` sets to a value the caller names
/// (`current_price = :offer`), for the cookbook's `$set`; where `op`
/// carries its atomic group's one merged update, every operation's of
/// the group (review49 A1: the merged `$set` took a separate parameter,
/// and a call set the price below the offer it tested).
fn set_to(
    model: &crate::model::Model,
    op: crate::model::OperationId,
    warnings: &[crate::design::Warning],
) -> Vec<crate::design::SetTo> {
    let carried: Vec<&str> = warnings
        .iter()
        .find_map(|w| match w {
            crate::design::Warning::MergedWrite {
                operations,
                carries: true,
                ..
            } => Some(operations.iter().map(String::as_str).collect()),
            _ => None,
        })
        .unwrap_or_default();
    let mut out: Vec<crate::design::SetTo> = Vec::new();
    for (i, o) in model.workload.operations.iter().enumerate() {
        if crate::model::OperationId::from_index(i) != op && !carried.contains(&o.name.as_str()) {
            continue;
        }
        let entity = o.entity_in(model);
        for v in &o.terms.values {
            let x = crate::design::SetTo {
                entity: model.entity(entity).name.clone(),
                field: v.field.clone(),
                value: v.value.clone(),
            };
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}
