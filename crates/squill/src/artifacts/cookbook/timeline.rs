//! The cookbook's steps of fan-out on write, in the terms of the data: the
//! generic translation of a step (`plan`) names a filter's values after
//! the collection and path they match, which for a timeline (a collection
//! of no entity of its own) says the wrong thing: the timelines to push
//! into are the followers the step before found, not its `_id`s; the item
//! pushed is the post just inserted; the outliers read at feed time are
//! those the timeline lists. Each step is rewritten here by its purpose.

use super::code::{Expr, Merge, OpCode, Param, ParamKind, StepCode, Update, When};
use crate::design::{
    Action, Collection, Design, EntityDecision, FieldOrigin, OperationPlan, Purpose,
};

/// The timeline decision whose collection is `name`.
fn timeline<'d>(design: &'d Design, name: &str) -> Option<(&'d str, &'d str, Option<u64>)> {
    design.entities.iter().find_map(|d| match d {
        EntityDecision::Timeline {
            collection,
            reader,
            items,
            threshold,
            ..
        } if collection == name => Some((reader.as_str(), items.as_str(), *threshold)),
        _ => None,
    })
}

/// The collection of `entity`'s own documents.
fn own_collection<'d>(design: &'d Design, entity: &str) -> Option<&'d Collection> {
    design
        .collections
        .iter()
        .find(|c| c.entities.first().map(String::as_str) == Some(entity))
}

/// The field of `coll`'s documents that references their `parent` (a
/// post's author).
fn reference_to(design: &Design, coll: &Collection, parent: &str) -> Option<String> {
    coll.shape.fields.iter().find_map(|f| match &f.origin {
        FieldOrigin::Reference { relationship, .. }
            if design
                .relationships
                .iter()
                .any(|d| d.relationship == *relationship && d.parent == parent) =>
        {
            Some(f.name.clone())
        }
        _ => None,
    })
}

/// The followers' find of any plan of the design on the edge collection
/// `edges`: the field it matches (the followed side) and the one it
/// returns (the follower). Where the followers are read from the followed
/// document's array instead (`followers.follower` by its `_id`), the
/// edges' reference to that parent and the array elements' follower field.
fn edge_fields(design: &Design, edges: &str) -> Option<(String, String)> {
    let finds = || {
        design
            .operations
            .iter()
            .flat_map(|p| &p.steps)
            .filter_map(|s| {
                s.purpose.iter().find_map(|p| match p {
                    Purpose::FindFollowers { parent } => Some((s, parent)),
                    _ => None,
                })
            })
    };
    if let Some(s) = finds().map(|(s, _)| s).find(|s| s.collection == edges) {
        return Some((
            s.filter.first()?.path.clone(),
            s.projection.first()?.clone(),
        ));
    }
    let (s, parent) = finds().next()?;
    let (array, follower) = s.projection.first()?.split_once('.')?;
    // The relationship the array embeds, and the edges' reference by it.
    let rel = own_collection(design, parent)?
        .shape
        .fields
        .iter()
        .find_map(|f| match &f.origin {
            FieldOrigin::Embedded { relationship } if f.name == array => Some(relationship),
            _ => None,
        })?;
    let edge_coll = design.collections.iter().find(|c| c.name == edges)?;
    let followed = edge_coll
        .shape
        .fields
        .iter()
        .find_map(|f| match &f.origin {
            FieldOrigin::Reference { relationship, .. } if relationship == rel => {
                Some(f.name.clone())
            }
            _ => None,
        })?;
    Some((followed, follower.to_string()))
}

/// The earlier insert of `op` into `coll`: its key and document parameter.
fn inserted(op: &OpCode, before: usize, coll: &str) -> Option<(String, String)> {
    op.steps[..before].iter().find_map(|s| {
        (s.action == Action::InsertOne && s.collection == coll)
            .then(|| Some((s.key.clone(), s.insert.clone()?)))
            .flatten()
    })
}

/// The parameter an earlier step matches `_id` with (the post edited).
fn id_param(op: &OpCode, before: usize) -> Option<String> {
    op.steps[..before].iter().find_map(|s| {
        s.filter.iter().find_map(|(p, e)| match e {
            Expr::Param(name) if p == "_id" => Some(name.clone()),
            _ => None,
        })
    })
}

/// Rewrites the timeline steps of `op` (planned as `plan`).
pub(super) fn fix(design: &Design, plan: &OperationPlan, op: &mut OpCode) {
    for (i, step) in plan.steps.iter().enumerate() {
        for purpose in &step.purpose {
            fix_step(design, op, i, purpose, step.copy_of.as_deref());
        }
    }
    // Parameters the rewritten steps no longer use.
    let used = format!("{:?}", op.steps);
    op.params
        .retain(|p| used.contains(&format!("{:?}", p.name)));
}

/// The step before `i` whose key feeds step `i`'s filter.
fn source_step(s: &StepCode) -> Option<String> {
    s.filter.iter().find_map(|(_, e)| match e {
        Expr::IdsFrom { step, .. } => Some(step.clone()),
        _ => None,
    })
}

/// A timeline write's filter: the timelines of the followers the steps
/// before found (their follower field, which each step returns: the
/// edges' `follower`, or `followers.follower` in the followed document).
/// Returns how many followers were found, as a condition at most `n`.
fn followers_filter(op: &mut OpCode, i: usize) -> Option<Box<dyn Fn(u64) -> When>> {
    let returned = |op: &OpCode, key: &str| {
        let src = op.steps.iter().find(|s| s.key == key)?;
        src.projection.first().cloned()
    };
    let mut found: Vec<(String, String)> = Vec::new();
    for k in 0..op.steps[i].filter.len() {
        match op.steps[i].filter[k].1.clone() {
            Expr::IdsFrom { step, .. } => {
                let field = returned(op, &step)?;
                op.steps[i].filter[k].1 = Expr::IdsFrom {
                    step: step.clone(),
                    path: field.clone(),
                };
                found.push((step, field));
            }
            Expr::IdsFromAll(all) => {
                let mut fixed = Vec::new();
                for (step, _) in all {
                    fixed.push((step.clone(), returned(op, &step)?));
                }
                op.steps[i].filter[k].1 = Expr::IdsFromAll(fixed.clone());
                found.extend(fixed);
            }
            _ => {}
        }
    }
    // Followers that are documents are counted as documents; ids inside a
    // document (its array), or from several steps, as ids.
    match found.as_slice() {
        [] => None,
        [(step, path)] if !path.contains('.') => {
            let step = step.clone();
            Some(Box::new(move |n| When::AtMost {
                step: step.clone(),
                n,
            }))
        }
        _ => Some(Box::new(move |n| When::IdsAtMost {
            ids: found.clone(),
            n,
        })),
    }
}

fn fix_step(design: &Design, op: &mut OpCode, i: usize, purpose: &Purpose, copy_of: Option<&str>) {
    let coll = op.steps[i].collection.clone();
    match purpose {
        // The outliers the timeline lists, read only when it lists any;
        // the feed is the timeline's items and theirs, merged.
        Purpose::OutliersItems { .. } => {
            let Some(from) = source_step(&op.steps[i]) else {
                return;
            };
            let s = &mut op.steps[i];
            for (_, e) in &mut s.filter {
                if let Expr::IdsFrom { path, .. } = e {
                    *path = "outliers".to_string();
                }
            }
            s.when = Some(When::Any {
                step: from.clone(),
                path: "outliers".to_string(),
            });
            op.merge = Some(Merge {
                each: None,
                name: "feed".to_string(),
                says: "the feed: the timeline's items and the outliers', newest first".to_string(),
                timeline: from,
                path: "items".to_string(),
                items: s.key.clone(),
                sort: s.sort.clone(),
                limit: s.limit.unwrap_or(1),
            });
        }
        // The followers of the item's parent: in an insert, the new item's
        // own reference; otherwise the caller passes the item's parent.
        Purpose::FindFollowers { parent } => {
            let Some(item) = copy_of.map(str::to_string).or_else(|| {
                // The item is what the timeline writes after this step
                // (and the other followers' find, when there are two) copy.
                op.steps[i + 1..]
                    .iter()
                    .find_map(|s| timeline(design, &s.collection))
                    .map(|(_, items, _)| items.to_string())
            }) else {
                return;
            };
            let Some(items) = own_collection(design, &item) else {
                return;
            };
            let Some(field) = reference_to(design, items, parent) else {
                return;
            };
            let value = match inserted(op, i, &items.name) {
                Some((_, doc)) => Expr::FieldOf {
                    param: doc,
                    field: field.clone(),
                },
                None => {
                    let name = super::code::ident(&format!("{item}_{field}"));
                    if !op.params.iter().any(|p| p.name == name) {
                        op.params.push(Param {
                            name: name.clone(),
                            collection: items.name.clone(),
                            path: field.clone(),
                            kind: ParamKind::Value,
                        });
                    }
                    Expr::Param(name)
                }
            };
            if let Some((_, e)) = op.steps[i].filter.first_mut() {
                *e = value;
            }
        }
        // Into the followers' timelines: the item just inserted, with its
        // id; not when its parent is past the threshold (an outlier, whose
        // items the feed reads itself).
        Purpose::PushToTimelines { entity, .. } => {
            let Some(at_most) = followers_filter(op, i) else {
                return;
            };
            let threshold = timeline(design, &coll).and_then(|(_, _, t)| t);
            let source = own_collection(design, entity).map(|c| c.name.clone());
            let ins = source.and_then(|c| inserted(op, i, &c));
            let s = &mut op.steps[i];
            if let Some((key, doc)) = ins {
                for u in &mut s.updates {
                    if let Update::Push { item, .. } = u {
                        *item = Expr::Inserted {
                            param: doc.clone(),
                            step: key.clone(),
                        };
                    }
                }
            }
            if let Some(n) = threshold {
                s.when = Some(at_most(n));
            }
        }
        // The copies of the item changed: the element with its id, set to
        // the values the item itself was set to.
        Purpose::RefreshCopy { holder, .. } if timeline(design, holder).is_some() => {
            if followers_filter(op, i).is_none() {
                return;
            }
            let id = id_param(op, i);
            let earlier: Vec<(String, Expr)> = op.steps[..i]
                .iter()
                .flat_map(|s| &s.updates)
                .filter_map(|u| match u {
                    Update::Set(p, e) => Some((p.clone(), e.clone())),
                    _ => None,
                })
                .collect();
            let s = &mut op.steps[i];
            for u in &mut s.updates {
                if let Update::Set(p, e) = u
                    && let Some(field) = p.strip_prefix("items.$[e].")
                    && let Some((_, v)) = earlier.iter().find(|(q, _)| q == field)
                {
                    *e = v.clone();
                }
            }
            if let Some(id) = id {
                s.array_filters = vec![("e._id".to_string(), Expr::Param(id))];
            }
        }
        // The deleted item's copies: the element with its id.
        Purpose::PullFromTimelines { .. } => {
            if followers_filter(op, i).is_none() {
                return;
            }
            let Some(id) = id_param(op, i) else {
                return;
            };
            op.steps[i].updates = vec![Update::Pull("items".to_string(), Expr::IdIs(id))];
        }
        // A new reader's timeline: under the reader's id, empty.
        Purpose::CreateTimeline { reader } => {
            let Some(readers) = own_collection(design, reader) else {
                return;
            };
            let Some((key, _)) = inserted(op, i, &readers.name) else {
                return;
            };
            let mut fields = vec![
                ("_id".to_string(), Expr::InsertedId { step: key }),
                ("items".to_string(), Expr::EmptyList),
            ];
            if timeline(design, &coll).is_some_and(|(_, _, t)| t.is_some()) {
                fields.push(("outliers".to_string(), Expr::EmptyList));
            }
            let s = &mut op.steps[i];
            s.insert = None;
            s.insert_doc = Some(Expr::Doc(fields));
        }
        // A follow of an outlier: noted in the follower's timeline, when
        // the caller knows the followed account is past the threshold.
        Purpose::NoteOutlier { .. } => {
            // The follow written before: inserted (its new document's
            // fields) or deleted (an unfollow: the values its filter took).
            let Some(edge) = op.steps[..i]
                .iter()
                .find(|s| matches!(s.action, Action::InsertOne | Action::DeleteOne))
                .cloned()
            else {
                return;
            };
            let Some((followed, follower)) = edge_fields(design, &edge.collection) else {
                return;
            };
            let value = |field: &str| match &edge.insert {
                Some(doc) => Some(Expr::FieldOf {
                    param: doc.clone(),
                    field: field.to_string(),
                }),
                None => edge
                    .filter
                    .iter()
                    .find(|(p, e)| p == field && matches!(e, Expr::Param(_)))
                    .map(|(_, e)| e.clone()),
            };
            // An edge that does not name its follower (`_id`: the follower
            // keeps the edges' ids): the follower is the document the
            // edge's id is written into, by the id the caller passes.
            let reader = if follower == "_id" {
                op.steps[..i]
                    .iter()
                    .filter(|s| s.collection != edge.collection && s.collection != coll)
                    .filter(|s| matches!(s.action, Action::UpdateOne))
                    .find_map(|s| {
                        s.filter
                            .iter()
                            .find(|(p, e)| p == "_id" && matches!(e, Expr::Param(_)))
                            .map(|(_, e)| e.clone())
                    })
            } else {
                value(&follower)
            };
            let (Some(reader), Some(parent)) = (reader, value(&followed)) else {
                return;
            };
            let flag = format!("{followed}_is_outlier");
            op.params.push(Param {
                name: flag.clone(),
                collection: coll.clone(),
                path: "outliers".to_string(),
                kind: ParamKind::Flag,
            });
            let s = &mut op.steps[i];
            s.filter = vec![("_id".to_string(), reader)];
            let pull = s.updates.iter().any(|u| matches!(u, Update::Pull(..)));
            s.updates = vec![if pull {
                Update::Pull("outliers".to_string(), parent)
            } else {
                Update::AddToSet("outliers".to_string(), parent)
            }];
            // Not a batched write, as the generic text of a step with
            // `every` says: a write of its own when the flag is set.
            let base = s.purpose.split(" — once every").next().unwrap_or("");
            s.purpose = match s.every {
                Some(n) => format!(
                    "{base} — only when {flag} (the followed account is past the followers' threshold: about once every {n} runs)"
                ),
                None => format!("{base} — only when {flag}"),
            };
            s.when = Some(When::Flag(flag));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::render;

    /// The club-feed fixture's timeline steps, in each language, as the
    /// data needs them.
    #[test]
    fn timeline_steps_are_written_in_the_terms_of_the_data() {
        let (_, design) = crate::fixtures::load("club-feed");
        let ops = super::super::op_codes(&design);
        let op = |name: &str| {
            let o = ops.iter().find(|o| o.name == name).expect(name);
            (render::python(o), render::node(o), render::mongosh(o))
        };
        let (py, js, sh) = op("publish");
        assert!(py.contains(r#"{"followee": new_post["author"]}"#), "{py}");
        assert!(py.contains(r#"_ids(follow, "follower")"#), "{py}");
        assert!(
            py.contains(r#"{**new_post, "_id": post["inserted_id"]}"#),
            "{py}"
        );
        assert!(py.contains("if len(follow) <= 2000 else None"), "{py}");
        for text in [&js, &sh] {
            assert!(
                text.contains("{...new_post, _id: post.insertedId}"),
                "{text}"
            );
            assert!(text.contains("follow.length <= 2000 ?"), "{text}");
        }
        let (py, js, _) = op("home_feed");
        assert!(
            py.contains(r#"_ids(member_timeline, "outliers")}}"#),
            "{py}"
        );
        assert!(
            py.contains(r#"if len(_ids(member_timeline, "outliers")) > 0 else []"#),
            "{py}"
        );
        assert!(py.contains(r#"feed = _newest("#), "{py}");
        assert!(js.contains("const feed = newest("), "{js}");
        let (py, _, _) = op("edit_post");
        assert!(py.contains(r#"array_filters=[{"e._id": post_id}]"#), "{py}");
        assert!(py.contains(r#"{"items.$[e].text": new_text}"#), "{py}");
        assert!(
            py.contains("def edit_post(db, post_id, new_text, post_author):"),
            "{py}"
        );
        let (py, _, _) = op("delete_post");
        assert!(
            py.contains(r#"{"$pull": {"items": {"_id": post_id}}}"#),
            "{py}"
        );
        let (py, _, _) = op("follow");
        assert!(
            py.contains(r#"{"$addToSet": {"outliers": new_follow["followee"]}}"#),
            "{py}"
        );
        assert!(py.contains(r#"{"_id": new_follow["follower"]}"#), "{py}");
        assert!(py.contains("if followee_is_outlier else None"), "{py}");
        let (py, js, _) = op("join");
        assert!(
            py.contains(r#"{"_id": member["inserted_id"], "items": [], "outliers": []}"#),
            "{py}"
        );
        assert!(
            js.contains(r#"{"_id": member.insertedId, "items": [], "outliers": []}"#),
            "{js}"
        );
    }
}
