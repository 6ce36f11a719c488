//! Aggregates a read asks for: computed fields and bucket pre-aggregates, or counting on read.

use super::*;

impl<'a> Planner<'a> {
    /// Where each child of `r` holds its parent's id: its reference, or the
    /// id of the parent folded into it (`_id` when it holds none).
    fn parent_id_path(&self, r: RelationshipId) -> String {
        self.parent_ref_path(r).unwrap_or_else(|| "_id".to_string())
    }

    /// The figures kept in the parent for `r`'s children: each chosen
    /// computed field, an average as its sum and its count (no count of the
    /// same children is a candidate beside an average: `candidates::entity`).
    pub(super) fn computed(
        &self,
        r: RelationshipId,
    ) -> impl Iterator<Item = (AggregateFn, Option<&'a String>, &'a String)> + '_ {
        let space = self.space;
        let kept = move |&i: &usize| match &space.entity[i] {
            EntityCandidate::Computed {
                relationship,
                function,
                field,
                name,
                count,
                ..
            } if *relationship == r => Some((*function, field.as_ref(), name, count.as_ref())),
            _ => None,
        };
        self.p
            .computed
            .iter()
            .filter_map(kept)
            .flat_map(move |(function, field, name, count)| match function {
                AggregateFn::Avg => [
                    Some((AggregateFn::Sum, field, name)),
                    count.map(|c| (AggregateFn::Count, None, c)),
                ],
                f => [Some((f, field, name)), None],
            })
            .flatten()
    }

    /// The test a kept figure `name` of `r`'s children counts them under
    /// (`status = open`), `None` for a figure over all of them.
    pub(super) fn kept_filter(
        &self,
        r: RelationshipId,
        name: &str,
    ) -> Option<&'a crate::model::Condition> {
        let space = self.space;
        self.p
            .computed
            .iter()
            .find_map(move |&i| match &space.entity[i] {
                EntityCandidate::Computed {
                    relationship,
                    name: n,
                    count,
                    filter,
                    ..
                } if *relationship == r && (n == name || count.as_deref() == Some(name)) => {
                    filter.as_ref()
                }
                _ => None,
            })
    }

    /// Children per write of the computed field `name` through `r` (1 when
    /// it is kept exact).
    pub(super) fn batch(&self, r: RelationshipId, name: &str) -> u64 {
        self.p
            .computed
            .iter()
            .find_map(|&i| match &self.space.entity[i] {
                EntityCandidate::Computed {
                    relationship,
                    name: n,
                    every,
                    ..
                } if *relationship == r && n == name => Some(*every),
                _ => None,
            })
            .unwrap_or(1)
    }

    pub(super) fn aggregate(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        m: f64,
        from_step: usize,
        agg: &crate::model::Aggregate,
    ) {
        // The parents' ids: those the read's step found.
        let here = ValueSource::FromStep { step: from_step };
        let f = self.facts;
        let r = agg.relationship;
        let kept = |function: AggregateFn, field: Option<&String>| {
            self.computed(r).any(|(func, x, name)| {
                func == function && x == field && self.kept_filter(r, name) == agg.filter.as_ref()
            })
        };
        // An average is kept as its sum and its count.
        let answered = if agg.function == AggregateFn::Avg {
            kept(AggregateFn::Sum, agg.field.as_ref()) && kept(AggregateFn::Count, None)
        } else {
            kept(agg.function, agg.field.as_ref())
        };
        if answered {
            return;
        }
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        let n = f.typical(r);
        let fname = crate::candidates::fn_name(agg.function);
        match layout {
            Layout::Embed => self.figure_in_array(plan, (e, m, from_step), agg),
            // A subset answers only when it holds every child: a parent with
            // more than `k` would need the query anyway.
            Layout::Subset { k, .. } if rel.children.max.finite().is_some_and(|max| max <= *k) => {}
            // The array's length counts every child, not a subset.
            Layout::ChildReferences
                if agg.function == AggregateFn::Count && agg.filter.is_none() => {}
            // The array answers for the usual parent; an outlier's rest is
            // computed over its documents, once in so many runs.
            Layout::Outlier { threshold } => {
                let Some(rest) = self.outlier_rest(r, *threshold, m) else {
                    return;
                };
                let acc = self.access(rel.child);
                let path = acc.path(&rel.child_field);
                let mut step = Self::step(
                    &acc.collection,
                    Action::Find,
                    Purpose::ComputeOverChildren {
                        function: fname.to_string(),
                        child: self.name(rel.child).to_string(),
                        parent: self.name(e).to_string(),
                    },
                );
                step.filter.push(filt(path.clone(), FilterOp::In, here));
                // A subset's test (`count(scans where kind = hub)`), on
                // each child of the rest as on each child of the array's:
                // the rest once counted every child apart (fixe48).
                if let Some(c) = &agg.filter {
                    step.conditions.push(crate::design::StepCondition {
                        path: acc.path(&c.field),
                        plus: None,
                        test: c.test,
                        value: c.value.clone(),
                    });
                }
                if let Some(x) = &agg.field {
                    step.projection.push(acc.path(x));
                }
                // Only a parent whose array is full has children apart: the
                // query runs for it alone, as the include's rest does (review48
                // A7: the code ran it on every read).
                step.if_full = Some(Box::new(crate::design::IfFull {
                    step: from_step,
                    array: self.access(e).path(&rel.parent_field),
                    threshold: *threshold,
                    each: false,
                }));
                let covered = agg.function == AggregateFn::Count && agg.filter.is_none();
                self.push_outlier_rest(plan, op, step, path, (rest, 1.0), rel.child, covered);
            }
            // A bucket's figures are over all its children, never a subset.
            Layout::Bucket {
                per_bucket,
                aggregates,
                ..
            } if agg.filter.is_none() => {
                self.aggregate_buckets(plan, op, (m, &here), agg, (*per_bucket, aggregates))
            }
            _ => {
                let acc = self.access(rel.child);
                let path = self.parent_id_path(r);
                let mut step = Self::step(
                    &acc.collection,
                    Action::Find,
                    Purpose::ComputeOverChildren {
                        function: fname.to_string(),
                        child: self.name(rel.child).to_string(),
                        parent: self.name(e).to_string(),
                    },
                );
                step.filter
                    .push(filt(acc.path(&path), FilterOp::In, here.clone()));
                // A subset's test, on each child: the index on the parent's
                // id finds them all, and each is read to test it.
                if let Some(c) = &agg.filter {
                    step.conditions.push(crate::design::StepCondition {
                        path: acc.path(&c.field),
                        plus: None,
                        test: c.test,
                        value: c.value.clone(),
                    });
                }
                let total = m * n;
                step.documents = total;
                let covered = agg.function == AggregateFn::Count && agg.filter.is_none();
                let roots = (total / acc.per_root.max(1.0)).ceil();
                // Children of their own are grouped on the server: a row
                // per parent comes back (a first or a last needs an order
                // the model does not give, and children inside other
                // documents come back in them: those are read and computed
                // by the application).
                let grouped = acc.per_root <= 1.0
                    && !matches!(agg.function, AggregateFn::First | AggregateFn::Last);
                // Another figure of the same children (a count and a sum of
                // the open tickets) is one more accumulator of the `$group`
                // already planned: one aggregation, not one per figure
                // (review48 B5).
                let by = acc.path(&path);
                let same = |s: &&mut Step| {
                    s.collection == step.collection
                        && s.filter == step.filter
                        && s.conditions == step.conditions
                        && s.figures
                            .as_ref()
                            .is_some_and(|g| g.by == by && g.per.is_none() && g.unwind.is_none())
                };
                if grouped && let Some(prev) = plan.steps.iter_mut().find(same) {
                    let figure = step_figure(agg, &acc);
                    if let Some(g) = prev.figures.as_mut()
                        && !g.figures.iter().any(|x| x.name == figure.name)
                    {
                        plan.cost.bytes_read += m * (figure.name.len() as f64 + 10.0);
                        g.figures.push(figure);
                        prev.purpose.extend(step.purpose);
                    }
                    return;
                }
                // The subset's equality is a key after the parent's id: the
                // walk reads the subset's children only.
                let subset = agg
                    .filter
                    .as_ref()
                    .filter(|c| c.test == crate::model::Test::Eq && acc.per_root <= 1.0)
                    .map(|c| {
                        let share = self.selectivity(
                            rel.child,
                            &[crate::model::Filter::new(
                                f.model,
                                rel.child,
                                vec![c.field.clone()],
                                FilterOp::Eq,
                            )],
                        );
                        (acc.path(&c.field), share)
                    });
                let share = subset.as_ref().map_or(1.0, |(_, s)| *s);
                let total = total * share;
                let roots = (roots * share).ceil();
                step.documents = total;
                let bytes_read = if grouped {
                    let g = step_figures(acc.path(&path), None, vec![step_figure(agg, &acc)], m);
                    let bytes = m * row_bytes(Some(&g));
                    step.figures = Some(Box::new(g));
                    bytes
                } else {
                    if let Some(x) = &agg.field {
                        step.projection.push(acc.path(x));
                    }
                    if covered { 0.0 } else { roots * acc.root_bytes }
                };
                let cost = StepCost {
                    keys: total,
                    docs: if covered { 0.0 } else { roots },
                    bytes_read,
                    ..StepCost::default()
                };
                let keys = std::iter::once((by, 1))
                    .chain(subset.map(|(k, _)| (k, 1)))
                    .collect();
                self.push(plan, op, step, cost, Some((keys, rel.child, acc.docs)));
            }
        }
    }
}

impl Planner<'_> {
    /// An aggregate over children embedded in the parent the read finds:
    /// computed on the server in that find's projection, beside the array,
    /// over the elements that pass the aggregate's test and, for an
    /// expiring child, are still alive (nothing deletes the expired ones
    /// from the array). The array comes back cut to its live elements too.
    /// A first or a last needs an order the model does not give: the
    /// application takes it from the array.
    fn figure_in_array(
        &self,
        plan: &mut OpPlan,
        (e, m, from_step): (EntityId, f64, usize),
        agg: &crate::model::Aggregate,
    ) {
        if matches!(agg.function, AggregateFn::First | AggregateFn::Last) {
            return;
        }
        let rel = self.facts.model.relationship(agg.relationship);
        let acc = self.access(e);
        let path = acc.path(&rel.parent_field);
        let unexpired = self
            .facts
            .model
            .entity(rel.child)
            .expires
            .as_ref()
            .map(|x| crate::design::SliceUnexpired {
                field: x.field.clone(),
                seconds: x.seconds,
            });
        let figure = crate::design::SliceFigure {
            name: crate::candidates::read_figure_name(&path.replace('.', "_"), agg),
            function: agg.function,
            field: agg.field.clone(),
            test: agg.filter.as_ref().map(|c| crate::design::StepCondition {
                path: c.field.clone(),
                plus: None,
                test: c.test,
                value: c.value.clone(),
            }),
            unexpired: unexpired.clone(),
        };
        let Some(s) = plan.steps.get_mut(from_step.wrapping_sub(1)) else {
            return;
        };
        if s.action != Action::Find || s.collection != acc.collection {
            return;
        }
        // A double per parent read beside its document.
        let bytes = m * (figure.name.len() as f64 + 10.0);
        match s.slices.iter_mut().find(|x| x.path == path) {
            Some(x) if x.figures.iter().any(|f| f.name == figure.name) => return,
            Some(x) => x.figures.push(figure),
            None => s.slices.push(crate::design::ArraySlice {
                path,
                sort: Vec::new(),
                limit: None,
                unexpired,
                filter: Vec::new(),
                count: false,
                stored: false,
                figures: vec![figure],
            }),
        }
        plan.cost.bytes_read += bytes;
    }

    /// Aggregates per time unit over the latest units (1-minute candles of
    /// the last day), all over one relationship and one window. Buckets of
    /// that unit which keep every figure answer with one document per unit,
    /// projected to the figures; anything else reads the children of the
    /// window and computes the figures from them.
    pub(super) fn windowed(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        m: f64,
        from_step: usize,
        aggs: &[&crate::model::Aggregate],
    ) {
        let Some(first) = aggs.first() else { return };
        let Some(w) = &first.window else { return };
        let f = self.facts;
        let r = first.relationship;
        let rel = f.model.relationship(r);
        let here = ValueSource::FromStep { step: from_step };
        let acc = self.access(rel.child);
        let units_a_day = crate::model::units_a_day(&w.unit).unwrap_or(1.0);
        // Children in the window: what arrives in `last` units, or all of a
        // parent's when the model gives no rate of arrival.
        let in_window = f
            .growth(r)
            .map(|g| g.typical)
            .filter(|g| *g > 0.0)
            .map_or(f.typical(r), |g| {
                (g / units_a_day * w.last as f64).min(f.typical(r))
            });
        let stored = |layout_aggs: &[crate::design::Aggregation]| {
            aggs.iter().all(|a| {
                a.function == AggregateFn::Count
                    || layout_aggs
                        .iter()
                        .any(|x| x.field == a.field && same_kept(x.function, a.function))
            })
        };
        let fname = aggs
            .iter()
            .map(|a| crate::candidates::fn_name(a.function))
            .collect::<Vec<_>>()
            .join(", ");
        if let Layout::Bucket {
            by: BucketBy::Time { field, unit },
            aggregates,
            per_bucket,
        } = self.layout(r)
            && *field == w.field
            && *unit == w.unit
            && stored(aggregates)
        {
            self.windowed_buckets(plan, op, (m, from_step), aggs, (unit, *per_bucket));
            return;
        }
        if matches!(self.layout(r), Layout::Embed) {
            // Embedded children came with the parent's document.
            return;
        }
        let purpose = Purpose::ComputeOverChildren {
            function: fname.clone(),
            child: self.name(rel.child).to_string(),
            parent: self.name(rel.parent).to_string(),
        };
        // Buckets of another size: the buckets the window picks are read,
        // their children unwound and grouped on the server (audit44 C).
        if let Layout::Bucket { per_bucket, by, .. } = self.layout(r) {
            self.window_over_buckets(
                plan,
                op,
                (m, from_step),
                aggs,
                (in_window, *per_bucket, by),
                purpose,
            );
            return;
        }
        // Otherwise the window's children are read and grouped: children
        // of their own are grouped on the server (a row per parent and
        // unit of time comes back, not the children).
        let mut figures = None;
        let (docs, bytes, keys) = {
            let path = acc.path(&self.parent_id_path(r));
            let total = m * in_window;
            let roots = (total / acc.per_root.max(1.0)).ceil();
            let per = crate::design::StepPer {
                field: acc.path(&w.field),
                unit: w.unit.clone(),
            };
            let computed = aggs.iter().map(|a| step_figure(a, &acc)).collect();
            // A group per parent and unit of the window, at most one
            // per child read.
            let rows = (m * w.last as f64).min(roots.max(m));
            let grouped = step_figures(path.clone(), Some(per), computed, rows);
            let bytes = if acc.per_root > 1.0 {
                // Children inside other documents come back in them.
                roots * acc.root_bytes
            } else {
                figures = Some(grouped);
                rows * row_bytes(figures.as_ref())
            };
            (roots, bytes, vec![(path, 1), (acc.path(&w.field), -1)])
        };
        let mut step = Self::step(&acc.collection, Action::Find, purpose);
        step.filter
            .push(filt(keys[0].0.clone(), FilterOp::In, here));
        step.filter
            .push(filt(keys[1].0.clone(), FilterOp::Range, ValueSource::Param));
        step.documents = docs;
        step.figures = figures.map(Box::new);
        let cost = StepCost {
            keys: docs,
            docs,
            bytes_read: bytes,
            ..StepCost::default()
        };
        self.push(plan, op, step, cost, Some((keys, rel.child, acc.docs)));
    }
}

/// A figure of a grouped find: `min_temp` for the minimum of `temp`, a
/// count as `count`.
pub(super) fn step_figure(
    a: &crate::model::Aggregate,
    acc: &super::Access,
) -> crate::design::StepFigure {
    let function = crate::candidates::fn_name(a.function);
    crate::design::StepFigure {
        name: a
            .field
            .as_ref()
            .map_or_else(|| function.to_string(), |f| format!("{function}_{f}")),
        function: a.function,
        field: a.field.as_ref().map(|f| acc.path(f)),
    }
}

pub(super) fn step_figures(
    by: String,
    per: Option<crate::design::StepPer>,
    figures: Vec<crate::design::StepFigure>,
    rows: f64,
) -> crate::design::StepFigures {
    crate::design::StepFigures {
        by,
        per,
        figures,
        rows,
        unwind: None,
    }
}

/// BSON bytes of one row a grouped find returns: the group's `_id` (the
/// parent's id, and the unit's date) and a double per figure.
fn row_bytes(figures: Option<&crate::design::StepFigures>) -> f64 {
    let Some(g) = figures else { return 0.0 };
    // An element: its type byte, its name and its NUL, then its value.
    let element = |name: &str, value: f64| 2.0 + name.len() as f64 + value;
    let mut id = 5.0 + element(&g.by, 12.0);
    if let Some(per) = &g.per {
        id += element(&per.field, 8.0);
    }
    5.0 + element("_id", id) + g.figures.iter().map(|f| element(&f.name, 8.0)).sum::<f64>()
}

/// Whether a bucket's figure `kept` answers the aggregate `asked` (an
/// average is kept as a sum over the bucket's count).
pub(super) fn same_kept(kept: AggregateFn, asked: AggregateFn) -> bool {
    kept == asked
        || matches!(
            (kept, asked),
            (
                AggregateFn::Sum | AggregateFn::Avg,
                AggregateFn::Sum | AggregateFn::Avg
            )
        )
}

/// The bucket field that keeps an aggregate (`max_price`); none for a count.
pub(super) fn kept_path(a: &crate::model::Aggregate) -> Option<String> {
    let field = a.field.as_ref()?;
    let prefix = match a.function {
        AggregateFn::Count => return None,
        AggregateFn::Sum | AggregateFn::Avg => "sum",
        other => crate::candidates::fn_name(other),
    };
    Some(format!("{prefix}_{field}"))
}
