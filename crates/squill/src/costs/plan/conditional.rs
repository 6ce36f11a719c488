//! The terms a write states (issue 41): conditions tested on the current
//! document, amounts added (`$inc`), and claims. They are applied to the
//! plan the write's kind makes, on the step that writes the entity's own
//! document: the condition joins that step's filter, so the test and the
//! change are one single-document write (atomic, no transaction, no
//! window between a read and the write); a claim becomes one
//! `findOneAndUpdate` with its sort, on an index of the filter's equality
//! keys followed by the sort keys.

use super::*;
use crate::design::{EachAmount, StepCondition, StepEach};
use crate::model::{AmountOf, Condition, Increment, Literal, Otherwise};

/// A condition as the model file writes it: `open = true`.
fn condition_text(c: &Condition) -> String {
    let value = match &c.value {
        Literal::Number(n) => crate::words::num(*n),
        Literal::Text(t) => t.clone(),
        Literal::Bool(b) => b.to_string(),
        Literal::Amount(a) | Literal::Field(a) => a.clone(),
        Literal::Param(p) => format!(":{p}"),
    };
    format!("{} {} {value}", c.left(), c.test.symbol())
}

/// The writes of elements through `$[e]` or `$[]` of the array `prefix`
/// (`lines.$[e].qty`) as one update pipeline's rewrite of the array:
/// each `$set` a field the matched elements take, each `$inc` by the
/// model's constant or the caller's amount added to the element's own
/// value. `None` when a write is of another kind (an amount of each
/// document's own, a nested path, a write outside the elements), which
/// the pipeline does not spell.
fn element_rewrite(updates: &[UpdateOp], prefix: &str) -> Option<UpdateOp> {
    let mut fields = Vec::new();
    let mut adds = Vec::new();
    for u in updates {
        let rest = ["$[e].", "$[]."]
            .iter()
            .find_map(|m| u.path().strip_prefix(&format!("{prefix}.{m}")))?;
        if rest.contains('.') {
            return None;
        }
        match u {
            UpdateOp::Set { .. } => fields.push(rest.to_string()),
            UpdateOp::Inc { by, amount, .. } if by.is_some() || amount.is_some() => {
                adds.push(UpdateOp::Inc {
                    path: rest.to_string(),
                    by: *by,
                    amount: amount.clone(),
                });
            }
            _ => return None,
        }
    }
    (!updates.is_empty()).then(|| UpdateOp::SetElements {
        path: prefix.to_string(),
        fields,
        adds,
    })
}

impl<'a> Planner<'a> {
    /// Applies operation `op`'s terms to its plan. A plan with no write of
    /// the entity's own documents (a link kept on the other side only)
    /// keeps its steps: the terms then guard nothing, and the plan warns
    /// with the conditions it cannot test. They are not moved to a read
    /// before the write: that read and the write are two commands, and
    /// the value can change between them, the race `when:` is stated to
    /// close; the warning says what would close it.
    pub(super) fn apply_terms(&self, plan: &mut OpPlan, op: OperationId) {
        let model = self.facts.model;
        let o = model.operation(op);
        let terms = &o.terms;
        if terms.is_plain() {
            return;
        }
        let e = o.entity_in(model);
        let acc = self.access(e);
        let Some(i) = plan.steps.iter().position(|s| {
            s.collection == acc.collection
                && !s.fallback
                && !matches!(s.action, Action::Find | Action::GraphLookup)
        }) else {
            if !terms.conditions.is_empty() {
                plan.warnings.push(Warning::ConditionUntested {
                    operation: o.name.clone(),
                    entity: model.entity(e).name.clone(),
                    conditions: terms.conditions.iter().map(condition_text).collect(),
                });
            }
            return;
        };
        // Many elements written at once (`$[e]`, update.rs) keep that
        // name for the amounts added to them too.
        // Every element of the documents found (`$[]`, no test names
        // the elements) likewise.
        let writes_all = |marker: &str| {
            let all_of = format!("{}.{marker}.", acc.prefix);
            plan.steps[i]
                .updates
                .iter()
                .any(|u| u.path().starts_with(&all_of))
        };
        let elem = if writes_all("$[e]") {
            format!("{}.$[e]", acc.prefix)
        } else if writes_all("$[]") {
            format!("{}.$[]", acc.prefix)
        } else if acc.per_root > 1.0 && !acc.prefix.is_empty() {
            format!("{}.$", acc.prefix)
        } else {
            acc.prefix.clone()
        };
        let at = |field: &str| {
            if elem.is_empty() {
                field.to_string()
            } else {
                format!("{elem}.{field}")
            }
        };
        if let Some(sort) = &terms.claim {
            self.claim(plan, op, i, &acc, sort);
            self.claimable_only(plan, op, e, &acc);
        }
        let step = &mut plan.steps[i];
        for inc in &terms.increments {
            let path = at(&inc.field);
            // A constant the model states is written as stated: the guard
            // (`remaining > 0`) holds for that amount, and a caller cannot
            // pass another (audit43 A). A per-document amount comes from
            // each document's own related instance (`bulk`).
            let op = match (&inc.per, inc.by < 0.0) {
                // The caller's amount, by its name, with the model's sign.
                (None, _) => UpdateOp::Inc {
                    path: path.clone(),
                    by: Some(inc.by),
                    amount: inc.amount.clone(),
                },
                (Some(_), true) => UpdateOp::Dec { path: path.clone() },
                (Some(_), false) => UpdateOp::Inc {
                    path: path.clone(),
                    by: None,
                    amount: None,
                },
            };
            match step
                .updates
                .iter_mut()
                .find(|u| matches!(u, UpdateOp::Set { path: p } if *p == path))
            {
                Some(u) => *u = op,
                None => step.updates.push(op),
            }
        }
        // Two fields of an element of an array cannot be compared in the
        // filter that finds the element (`$expr` is not allowed inside
        // `$elemMatch`). Where the write finds its element by an equality
        // on the element's own fields (`keys._id`), a top-level `$expr`
        // tests the element of those values over the array (`$map` and
        // `$anyElementTrue`, the cookbook's `Expr::ElementFields`): kept.
        // Otherwise they are left out and the plan says so.
        let found_by_key = plan.steps[i].filter.iter().any(|f| {
            f.op == FilterOp::Eq
                && f.path
                    .strip_prefix(acc.prefix.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        });
        // A write of every element that passes (`$[e]`, or `$[]`) finds
        // no one element by a key, whatever equality picks its documents:
        // a top-level `$expr` on the arrays would compare whole arrays
        // (review47 item 2), and `arrayFilters` cannot compare two fields.
        // So the write becomes an update pipeline that rewrites the array
        // (`$map`), each element tested on its own (`$cond` of the filter's
        // tests of it and the comparison on `$$e`) and changed where it
        // passes (`$mergeObjects`, an amount as `$add` of its own value);
        // the cookbook also tests, in the filter, that some element passes
        // (`$anyElementTrue`), so the documents with none are not written
        // and a write that matches nothing says so. Where the write is not
        // of that form (a `$` write of one element no key names, an amount
        // of each document's own), the comparison is left out and the
        // plan says so.
        let many = elem.ends_with("$[e]") || elem.ends_with("$[]");
        let in_array = acc.per_root > 1.0 && !acc.prefix.is_empty() && (!found_by_key || many);
        let two_fields = |c: &Condition| matches!(c.value, Literal::Field(_)) || c.plus.is_some();
        let rewritten = in_array
            && many
            && terms.conditions.iter().any(two_fields)
            && match element_rewrite(&plan.steps[i].updates, &acc.prefix) {
                Some(rewrite) => {
                    plan.steps[i].updates = vec![rewrite];
                    true
                }
                None => false,
            };
        let (fields, tested): (Vec<&Condition>, Vec<&Condition>) = terms
            .conditions
            .iter()
            .partition(|c| in_array && !rewritten && two_fields(c));
        if !fields.is_empty() {
            plan.warnings.push(Warning::FieldsInElement {
                operation: o.name.clone(),
                entity: model.entity(e).name.clone(),
                conditions: fields.iter().map(|c| condition_text(c)).collect(),
            });
        }
        let step = &mut plan.steps[i];
        // Every element of the documents found (`$[]`), under a condition
        // on the element (`qty > 0`): only the elements that meet it
        // change, so they are named (`$[e]`), and the cookbook's
        // `arrayFilters` take the condition with the filter's other tests
        // of the element. `$[]` changed every element of a document that
        // held one meeting it.
        if !rewritten && elem.ends_with("$[]") && !tested.is_empty() {
            let every = format!("{}.$[].", acc.prefix);
            let named = format!("{}.$[e].", acc.prefix);
            for u in &mut step.updates {
                let p = u.path_mut();
                if p.starts_with(&every) {
                    *p = p.replacen(&every, &named, 1);
                }
            }
        }
        step.conditions = tested
            .into_iter()
            .map(|c| StepCondition {
                path: acc.path(&c.field),
                plus: c.plus.clone(),
                test: c.test,
                value: match &c.value {
                    // The other field, at its path in this design.
                    Literal::Field(f) => Literal::Field(acc.path(f)),
                    v => v.clone(),
                },
            })
            .collect();
        if terms.is_conditional() {
            step.otherwise = Some(terms.otherwise);
        }
        self.bulk(plan, i, e, &terms.increments);
    }

    /// Plans a link whose conditions test a document the link does not
    /// write (a team's `open`, where the members' ids are kept in the users
    /// only). A read of the team before the write would leave a window in
    /// which the team can close; so the plan writes the team first, a
    /// conditional `$inc` of its version that `apply_terms` gives the
    /// conditions, gates every other step on it, and runs them all in one
    /// transaction: a change of the team before the link commits is then
    /// a write conflict. Priced as what it is (a round trip, a write and a
    /// transaction more), so a layout whose link writes the team anyway
    /// wins where it costs less. Where the entity is embedded, or already
    /// has a field of the version's name, the link is planned alone and
    /// `apply_terms` warns.
    pub(super) fn link_guarded(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        plan_link: &dyn Fn(&mut OpPlan) -> bool,
    ) {
        let model = self.facts.model;
        let o = model.operation(op);
        let mut alone = OpPlan::default();
        // Whether the link writes the parent's own document: not its
        // collection, which a link of an entity with itself (a folder in
        // a folder) writes for the child too.
        let writes_e = plan_link(&mut alone);
        let e = o.entity_in(model);
        let acc = self.access(e);
        let guardable = acc.prefix.is_empty()
            && !model
                .entity(e)
                .fields
                .iter()
                .any(|f| f.name == crate::design::VERSION);
        if o.terms.conditions.is_empty() || writes_e || !guardable {
            *plan = alone;
            return;
        }
        let name = model.entity(e).name.clone();
        // A link of an entity with itself names two documents of one kind:
        // the parent is the one the child's reference takes (`new_folder`),
        // not the child the other steps write (`folder_id`).
        let guarded_id = match &o.kind {
            crate::model::OperationKind::Link { relationship, .. } => {
                let rel = model.relationship(*relationship);
                if rel.parent == rel.child {
                    ValueSource::New {
                        field: rel.child_field.clone(),
                    }
                } else {
                    ValueSource::Param
                }
            }
            _ => ValueSource::Param,
        };
        self.write_root(
            plan,
            op,
            RootWrite {
                entity: e,
                action: Action::UpdateOne,
                filter: self.id_filter(e, guarded_id),
                updates: vec![UpdateOp::Inc {
                    path: crate::design::VERSION.to_string(),
                    by: None,
                    amount: None,
                }],
                docs: 1.0,
                sync: 0.0,
                purpose: Purpose::GuardConditions {
                    entity: name.clone(),
                    field: crate::design::VERSION.to_string(),
                },
            },
        );
        plan_link(plan);
        for step in plan.steps.iter_mut().skip(1) {
            step.if_matched.get_or_insert(1);
        }
        plan.transaction = true;
        plan.cost.transactions += 1.0;
        self.price_cross_shard_guard(plan, &o.name, &name);
        plan.warnings.push(Warning::ConditionGuarded {
            operation: o.name.clone(),
            entity: name,
            conditions: o.terms.conditions.iter().map(condition_text).collect(),
        });
    }

    /// Step `i` writes several documents, each by an amount of its own
    /// (each product less its own line's quantity): one `updateMany` adds
    /// one amount to all of them, so the write becomes a bulk write of one
    /// `updateOne` per document, priced by their number (the step's
    /// documents). The ids and the amounts come from the step that found
    /// the related instances, which then returns both; with no such step
    /// the caller passes them, as it passes the ids.
    fn bulk(&self, plan: &mut OpPlan, i: usize, e: EntityId, increments: &[Increment]) {
        let per: Vec<(&Increment, &AmountOf)> = increments
            .iter()
            .filter_map(|inc| inc.per.as_ref().map(|a| (inc, a)))
            .collect();
        let Some(&(_, first)) = per.first() else {
            return;
        };
        let step = &plan.steps[i];
        let many = step.documents > 1.0 || step.filter.iter().any(|f| f.op == FilterOp::In);
        if !many {
            return;
        }
        let model = self.facts.model;
        let acc = self.access(e);
        let rel = model.relationship(first.relationship);
        let (other, id_in_other) = if rel.parent == e {
            (rel.child, self.parent_ref_path(first.relationship))
        } else {
            (rel.parent, self.child_ids_path(first.relationship))
        };
        let oacc = self.access(other);
        // An amount that is the link's own field (a many-to-many's line
        // quantity) sits in each link element, beside the other side's id
        // (`order_lines._id`, `order_lines.quantity`), where the layout
        // keeps it on the side the find reads; elsewhere there is no
        // element to take it from.
        let side = if rel.parent == e {
            Side::Child
        } else {
            Side::Parent
        };
        let of_link = |a: &AmountOf| {
            let r = model.relationship(a.relationship);
            r.attributes.iter().any(|f| f.name == a.field)
                && !model.entity(other).fields.iter().any(|f| f.name == a.field)
        };
        let beside = |id: &str, a: &AmountOf| -> Option<String> {
            if !of_link(a) {
                return Some(a.field.clone());
            }
            let layout = self.layout(a.relationship);
            let kept = self
                .facts
                .attributes_on(a.relationship, side, layout)
                .any(|f| f.name == a.field);
            let (element, _) = id.rsplit_once('.')?;
            kept.then(|| format!("{element}.{}", a.field))
        };
        let id_in_other = id_in_other.filter(|id| per.iter().all(|(_, a)| beside(id, a).is_some()));
        let found = step.filter.iter().find_map(|f| match f.value_from {
            ValueSource::FromStep { step } => Some(step),
            _ => None,
        });
        // The step that found the related instances, when its documents
        // hold them (else the caller passes ids and amounts).
        let from_step = found.filter(|&n| {
            id_in_other.is_some()
                && plan
                    .steps
                    .get(n.wrapping_sub(1))
                    .is_some_and(|s| s.collection == oacc.collection)
        });
        // Else the caller passes each id with its amount, under the name of
        // the field it is added to.
        let (id, in_found) = match (from_step, &id_in_other) {
            (Some(_), Some(p)) => (oacc.path(p), true),
            _ => ("_id".to_string(), false),
        };
        let amounts: Vec<EachAmount> = per
            .iter()
            .map(|(inc, a)| EachAmount {
                path: acc.path(&inc.field),
                from: match (in_found, &id_in_other) {
                    (true, Some(id)) => oacc.path(&beside(id, a).unwrap_or_default()),
                    _ => acc.path(&inc.field),
                },
                negative: inc.by < 0.0,
            })
            .collect();
        if let Some(n) = from_step
            && let Some(s) = plan.steps.get_mut(n - 1)
        {
            super::include::project_whole(&mut s.projection, id.clone());
            for a in &amounts {
                super::include::project_whole(&mut s.projection, a.from.clone());
            }
        }
        let step = &mut plan.steps[i];
        step.action = Action::BulkWrite;
        step.each = Some(Box::new(StepEach {
            from_step,
            id,
            amounts,
            sets: Vec::new(),
            ids_from: None,
        }));
    }

    /// Step `i`, the write of the claimed entity, becomes the claim: one
    /// `findOneAndUpdate` that takes the first document of the filter in
    /// the claim's order. When the write was planned by ids a find returned
    /// (copies elsewhere must follow it), the find takes the order instead
    /// and the write keeps its condition, so a document another worker
    /// claimed in between matches nothing.
    fn claim(&self, plan: &mut OpPlan, op: OperationId, i: usize, acc: &Access, sort: &[SortKey]) {
        let order: Vec<(String, i32)> = sort
            .iter()
            .map(|k| (acc.path(&k.field), if k.descending { -1 } else { 1 }))
            .collect();
        let by_ids = plan.steps[i]
            .filter
            .iter()
            .any(|f| matches!(f.value_from, ValueSource::FromStep { .. }));
        let target = if by_ids {
            match plan.steps[..i]
                .iter()
                .rposition(|s| s.action == Action::Find)
            {
                Some(f) => f,
                None => return,
            }
        } else {
            plan.steps[i].action = Action::FindOneAndUpdate;
            for p in &mut plan.steps[i].purpose {
                if let Purpose::Update { entity } = p {
                    *p = Purpose::Claim {
                        entity: std::mem::take(entity),
                    };
                }
            }
            i
        };
        let step = &mut plan.steps[target];
        // A place and an order of the claim's own (the oldest ready order
        // within 3 km): `$near` would impose the distance's order, so the
        // area is tested by `$geoWithin` (`$centerSphere`, the same
        // radius) and the claim's sort picks. With no sort, `$near` takes
        // the nearest: the distance is the order.
        if !order.is_empty() {
            for f in step.filter.iter_mut().filter(|f| f.op == FilterOp::Near) {
                f.op = FilterOp::Within;
            }
        }
        step.sort.clone_from(&order);
        step.limit = Some(1);
        // Equality keys, then a place's `2dsphere` key, then the sort keys
        // in the sort's direction (none after a place: it gives no order),
        // then ranges: the walk starts at the first document to claim.
        let equal = |f: &StepFilter| f.op == FilterOp::Eq;
        let equalities = step
            .filter
            .iter()
            .filter(|f| equal(f))
            .map(|f| &f.path)
            .fold(Vec::new(), |mut v: Vec<&String>, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            })
            .len();
        let keys = super::filter_keys::keys_of(&step.filter, &[], &order, equal);
        // In the sort's own direction (not `canonical_keys`' spelling, whose
        // first sort key is ascending): the index reads as the claim does.
        if keys.len() == 1 && keys[0].0 == "_id" {
            return;
        }
        match plan
            .indexes
            .iter_mut()
            .find(|n| n.step == target && !n.unique)
        {
            Some(need) => {
                need.keys_per_write = self.keys_per_write(acc.root, &keys);
                need.keys = keys;
                need.equalities = equalities;
            }
            None => plan.indexes.push(IndexNeed {
                collection: step.collection.clone(),
                entries: acc.docs * self.array_entries(acc.root, &keys),
                held: acc.docs
                    * self.array_entries(acc.root, &keys)
                    * self.facts.held_share(acc.root),
                writes: self.writes_of(acc.root),
                keys_per_write: self.keys_per_write(acc.root, &keys),
                keys,
                operation: op,
                step: target,
                unique: false,
                partial: Vec::new(),
                equalities,
                by_data: false,
            }),
        }
    }

    /// A claim reads only the documents its equality conditions on a
    /// constant hold for (`status = pending`): its index needs no entry for
    /// the others (the running and finished jobs), so it is partial on
    /// those conditions and priced by the share they select. A condition
    /// that every document meets leaves the index whole.
    fn claimable_only(&self, plan: &mut OpPlan, op: OperationId, e: EntityId, acc: &Access) {
        let model = self.facts.model;
        let conditions: Vec<&crate::model::Condition> = model
            .operation(op)
            .terms
            .conditions
            .iter()
            .filter(|c| c.test == crate::model::Test::Eq && c.value.is_constant())
            .collect();
        if conditions.is_empty() {
            return;
        }
        let tested: Vec<Filter> = conditions
            .iter()
            .map(|c| Filter::new(model, e, vec![c.field.clone()], FilterOp::Eq))
            .collect();
        let share = self.selectivity(e, &tested);
        if share >= 1.0 {
            return;
        }
        let partial: Vec<PartialCondition> = conditions
            .iter()
            .map(|c| PartialCondition::Equals {
                path: acc.path(&c.field),
                value: match &c.value {
                    crate::model::Literal::Text(t) => t.clone(),
                    crate::model::Literal::Number(n) => n.to_string(),
                    crate::model::Literal::Bool(b) => b.to_string(),
                    crate::model::Literal::Amount(a)
                    | crate::model::Literal::Field(a)
                    | crate::model::Literal::Param(a) => a.clone(),
                },
            })
            .collect();
        let Some(claim) = plan.steps.iter().position(|s| {
            s.action == Action::FindOneAndUpdate
                || (s.action == Action::Find && s.limit == Some(1) && !s.sort.is_empty())
        }) else {
            return;
        };
        if let Some(need) = plan
            .indexes
            .iter_mut()
            .find(|n| n.step == claim && !n.unique && n.partial.is_empty())
        {
            need.entries *= share;
            need.held *= share;
            need.partial = partial;
            // The TTL monitor deletes what the claims left behind (a pickup
            // claimed days ago, a finished job), which this index no longer
            // holds: its deletes take no entry here, as `index-write-cost`
            // and the report's TTL line say (review46 item 11).
            need.writes = (need.writes - self.expired_rate(acc.root)).max(0.0);
        }
    }

    /// The undo of operation `op`'s writes that only add amounts, where
    /// `op` runs before its compensated group's conditional write: each
    /// `updateOne` of `$inc`s by a filter of the caller's values is undone
    /// by the opposite `$inc`s on the document that filter finds (the
    /// cookbook's group function sends them, compensate.rs). A write of
    /// anything else (a `$set`, a bulk, a filter from an earlier step)
    /// keeps only the group's warning: the application undoes it.
    pub(super) fn taken_back(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        group: &crate::model::AtomicGroup,
    ) {
        let model = self.facts.model;
        let undoes = |o: &OperationId| {
            let t = &model.operation(*o).terms;
            t.is_conditional() && t.otherwise == Otherwise::Undo
        };
        let Some(then) = group.operations.iter().find(|o| undoes(o)) else {
            return;
        };
        if *then == op {
            return;
        }
        let mut found = Vec::new();
        for (i, s) in plan.steps.iter().enumerate() {
            let plain = s.action == Action::UpdateOne
                && s.each.is_none()
                && s.every.is_none()
                && s.if_matched.is_none()
                && s.if_deleted_all.is_none()
                && !s.fallback
                && !s.filter.is_empty()
                && s.filter.iter().all(|f| f.value_from == ValueSource::Param);
            let reversed: Option<Vec<UpdateOp>> = s
                .updates
                .iter()
                .map(|u| match u {
                    // A counter's one up is one down, and the reverse.
                    UpdateOp::Inc {
                        path,
                        by: None,
                        amount: None,
                    } => Some(UpdateOp::Dec { path: path.clone() }),
                    UpdateOp::Dec { path } => Some(UpdateOp::Inc {
                        path: path.clone(),
                        by: None,
                        amount: None,
                    }),
                    UpdateOp::Inc { path, by, amount } => Some(UpdateOp::Inc {
                        path: path.clone(),
                        by: by.map(|b| -b),
                        amount: amount.clone(),
                    }),
                    _ => None,
                })
                .collect();
            if let (true, Some(reversed)) = (plain, reversed)
                && !reversed.is_empty()
            {
                found.push(Warning::TakenBack {
                    group: group.name.clone(),
                    then: model.operation(*then).name.clone(),
                    step: i + 1,
                    reversed,
                });
            }
        }
        plan.warnings.extend(found);
    }

    /// Whether atomic group `group` is kept by its conditional write's
    /// `otherwise: undo` (the application undoes the group's earlier
    /// writes when the condition fails) rather than by a transaction.
    pub(super) fn compensated(&self, group: &crate::model::AtomicGroup) -> bool {
        let model = self.facts.model;
        group.operations.iter().any(|o| {
            let t = &model.operation(*o).terms;
            t.is_conditional() && t.otherwise == Otherwise::Undo
        })
    }
}
