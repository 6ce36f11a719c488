//! The bucket layout's planning in one place, the worked example of a
//! layout priced in a file of its own: a child added to its parent's open
//! bucket (insert), a parent's children read from their buckets (include),
//! aggregates added up or computed over buckets (aggregate, windowed).
//! The operations' files match the layout once and call here.

use super::aggregate::kept_path;
use super::*;

/// The figures each bucket keeps over its children, as `(function, field,
/// path)`: its `count` always, then each aggregate under its own name
/// (`sum_value`, `max_value`; an average kept as its sum beside the count).
/// One list, so the insert that keeps them running and the edit or delete
/// that computes them again name the same fields.
pub(super) fn bucket_figures(
    aggregates: &[crate::design::Aggregation],
) -> Vec<(AggregateFn, String, String)> {
    let mut out = vec![(AggregateFn::Count, String::new(), "count".to_string())];
    for a in aggregates {
        let field = a.field.clone().unwrap_or_default();
        let path = match a.function {
            AggregateFn::Count => continue,
            AggregateFn::Sum | AggregateFn::Avg => format!("sum_{field}"),
            AggregateFn::Min => format!("min_{field}"),
            AggregateFn::Max => format!("max_{field}"),
            AggregateFn::First => format!("first_{field}"),
            AggregateFn::Last => format!("last_{field}"),
        };
        // An average is kept as its sum (beside the count).
        let function = match a.function {
            AggregateFn::Avg => AggregateFn::Sum,
            f => f,
        };
        if !out.iter().any(|(_, _, p)| *p == path) {
            out.push((function, field, path));
        }
    }
    out
}

impl Planner<'_> {
    /// The updates that change or drop a bucketed child in its bucket and
    /// compute the bucket's figures again from the array, in one update
    /// pipeline (issue 41): a `$set` of `readings.$.value` and a `$pull`
    /// left the count, sum, min and max as they were. `changes`: the
    /// fields an edit sets (`None`: the child is deleted). `None` when `e`
    /// is not bucketed, or when an edit changes no field a figure is kept
    /// of (its `$set` through the positional `$` leaves nothing stale).
    pub(super) fn bucket_rewrite(
        &self,
        e: EntityId,
        changes: Option<&[String]>,
    ) -> Option<Vec<UpdateOp>> {
        let Home::Bucketed { rel } = self.p.home[e.index()] else {
            return None;
        };
        let Layout::Bucket { aggregates, .. } = self.layout(rel) else {
            return None;
        };
        let array = self.facts.model.relationship(rel).parent_field.clone();
        let by = self.bucket_order(rel);
        let figures = bucket_figures(aggregates);
        let touched: Vec<_> = match changes {
            None => figures,
            Some(ch) => figures
                .into_iter()
                .filter(|(_, field, _)| ch.contains(field))
                .collect(),
        };
        if touched.is_empty() {
            return None;
        }
        let mut ups = vec![match changes {
            Some(ch) => UpdateOp::SetElements {
                path: array.clone(),
                fields: ch.to_vec(),
                adds: Vec::new(),
            },
            None => UpdateOp::DropElements {
                path: array.clone(),
            },
        }];
        ups.extend(touched.into_iter().map(|(function, field, path)| {
            UpdateOp::Recompute {
                path,
                function,
                over: if field.is_empty() {
                    array.clone()
                } else {
                    format!("{array}.{field}")
                },
                by: matches!(function, AggregateFn::First | AggregateFn::Last)
                    .then(|| by.as_ref().map(|b| format!("{array}.{b}")))
                    .flatten(),
            }
        }));
        Some(ups)
    }

    /// A new child upserted into its parent's open bucket (by count or by
    /// time unit), with the bucket's running aggregates; `None` when `rel`
    /// is not a bucket (the insert then writes nothing more).
    pub(super) fn add_to_bucket(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        rel: RelationshipId,
        count: f64,
    ) -> Option<()> {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let r = f.model.relationship(rel);
        let Layout::Bucket {
            by,
            per_bucket,
            aggregates,
        } = self.layout(rel)
        else {
            return None;
        };
        let mut updates = vec![UpdateOp::Push {
            path: r.parent_field.clone(),
            sort: None,
            slice: None,
        }];
        let child = f.model.entity(e);
        let dated = |field: &str| {
            child
                .field(field)
                .is_some_and(|x| x.ty == crate::model::FieldType::Date)
        };
        let order = self.bucket_order(rel);
        let array = &r.parent_field;
        for (function, field, path) in bucket_figures(aggregates) {
            updates.push(match function {
                AggregateFn::Count => UpdateOp::Inc {
                    path,
                    by: None,
                    amount: None,
                },
                AggregateFn::Sum | AggregateFn::Avg => UpdateOp::Inc {
                    path,
                    by: None,
                    amount: None,
                },
                AggregateFn::Min => UpdateOp::Min { path },
                AggregateFn::Max => UpdateOp::Max { path },
                // The first and last of a date are its least and
                // greatest, whatever order the children arrive in: a
                // `$set` from the newest arrival moved `last_ts` back
                // when a late child came in (and the TTL keys on it).
                AggregateFn::First if dated(&field) => UpdateOp::Min { path },
                AggregateFn::Last if dated(&field) => UpdateOp::Max { path },
                // Of another field, where the children have a date, the
                // value of the child with the least or greatest date, in
                // the update pipeline the push then becomes: a `$set` from
                // the newest arrival and a `last_time` by `$max` came from
                // two children when one arrived late (review46 item 5).
                AggregateFn::First | AggregateFn::Last if order.is_some() => UpdateOp::Recompute {
                    path,
                    function,
                    over: format!("{array}.{field}"),
                    by: order.as_ref().map(|b| format!("{array}.{b}")),
                },
                // Without one, the order they arrive in is their order:
                // the first child opens the bucket; each later one is the
                // latest so far.
                AggregateFn::First => UpdateOp::SetOnInsert { path },
                AggregateFn::Last => UpdateOp::Set { path },
            });
        }
        // A bucket of a count the upsert opens takes its page number, which
        // the validator requires and the reads sort by: the caller's (the
        // parent's buckets so far), as the upsert cannot count them. A
        // time bucket's key is in its filter, which the upsert copies.
        // A count bucket also counts the children that ever arrived in it,
        // which the upsert tests (below).
        if matches!(by, BucketBy::Count) {
            updates.push(UpdateOp::Inc {
                path: crate::design::ARRIVED.to_string(),
                by: None,
                amount: None,
            });
            updates.push(UpdateOp::SetOnInsert {
                path: crate::design::PAGE.to_string(),
            });
        }
        let mut filter = vec![filt(
            r.child_field.clone(),
            FilterOp::Eq,
            ValueSource::Param,
        )];
        // A count bucket takes children until `per_bucket` have arrived,
        // not while it holds fewer: a test of `count` refilled an old page
        // a delete had thinned, the newest child then sat before newer
        // pages, and the reads by page (the page of children, the
        // parent's last read again) missed it. The buckets stay in arrival
        // order; a bucket thinned by deletes stays thin (issue 41).
        match by {
            BucketBy::Count => filter.push(filt(
                crate::design::ARRIVED,
                FilterOp::Range,
                if count > 1.0 {
                    ValueSource::RoomFor { limit: *per_bucket }
                } else {
                    ValueSource::Below { limit: *per_bucket }
                },
            )),
            BucketBy::Time { field, unit } => filter.push(filt(
                unit.clone(),
                FilterOp::Eq,
                ValueSource::Truncated {
                    field: field.clone(),
                    unit: unit.clone(),
                },
            )),
        }
        let mut step = Self::step(
            &acc.collection,
            Action::Upsert,
            Purpose::AddToOpenBucket {
                entity: name.clone(),
                parent: self.name(r.parent).to_string(),
            },
        );
        step.filter = filter;
        step.updates = updates;
        step.batch = count > 1.0;
        let cost = if count > 1.0 {
            self.batch_into_buckets(rel, count, *per_bucket, by)
        } else {
            StepCost {
                keys: count,
                docs: count,
                docs_written: count,
                bytes_written: count * self.p.bucket_push_bytes(f, rel),
                ..StepCost::default()
            }
        };
        step.documents = cost.docs_written;
        Self::target(plan, e, false);
        self.push(
            plan,
            op,
            step,
            cost,
            Some((
                vec![
                    (r.child_field.clone(), 1),
                    (
                        match by {
                            BucketBy::Count => crate::design::ARRIVED.to_string(),
                            BucketBy::Time { unit, .. } => unit.clone(),
                        },
                        1,
                    ),
                ],
                e,
                acc.docs,
            )),
        );
        if matches!(by, BucketBy::Count) {
            self.unique_page(plan, op, e, rel, plan.steps.len() - 1);
        }
        Some(())
    }

    /// A batch of `count` children of one parent upserted into its buckets
    /// (issue 41): in chunks of at most `per_bucket`, one upsert each that
    /// `$push`es the chunk with `$each` and moves the bucket's figures by
    /// the chunk (`artifacts::cookbook`, `_into_buckets`). A chunk goes
    /// whole into the open bucket when that has room for all of it, else
    /// it opens the next page; the page it passed over is then closed (its
    /// `arrived` raised to `per_bucket`, one `updateMany` only when a page
    /// opened), so that no later child lands behind newer pages. Priced by
    /// those writes, not by one upsert per child: a batch of 20 into
    /// buckets of 50 is one upsert, and a page opened once in
    /// `floor(50 / 20)` batches. A time bucket's batch is one unit's (the
    /// caller passes the unit, as for one child): its chunks, no close.
    fn batch_into_buckets(
        &self,
        rel: RelationshipId,
        count: f64,
        per_bucket: u64,
        by: &BucketBy,
    ) -> StepCost {
        let f = self.facts;
        let per = (per_bucket as f64).max(1.0);
        let chunks = (count / per).ceil().max(1.0);
        let chunk = count / chunks;
        let mut cost = StepCost {
            keys: chunks,
            docs: chunks,
            docs_written: chunks,
            bytes_written: chunks * self.p.bucket_batch_push_bytes(f, rel, chunk),
            more_trips: chunks - 1.0,
            ..StepCost::default()
        };
        if matches!(by, BucketBy::Count) {
            // A batch within a bucket: the bucket takes `floor(per /
            // count)` batches, then one does not fit and opens a page,
            // whose close writes the bucket passed over when the batches
            // left room in it. A larger batch: chunks of `per` and the
            // rest, each opening a page (none fits a bucket holding any
            // child, the rest follows a full one), and the next batch's
            // first chunk passes over the rest's bucket.
            let (opened, passed_over) = if count <= per {
                let fit = (per / count).floor().max(1.0);
                let opened = 1.0 / fit;
                (
                    opened,
                    if per - fit * count >= 1.0 {
                        opened
                    } else {
                        0.0
                    },
                )
            } else {
                let rest = count - (count / per).floor() * per;
                (chunks, if rest >= 1.0 { 1.0 } else { 0.0 })
            };
            cost.more_trips += opened;
            cost.keys += opened;
            cost.docs += opened;
            cost.docs_written += passed_over;
            cost.bytes_written += passed_over * self.p.bucket_bytes(f, rel);
        }
        cost
    }

    /// The unique `{parent, page}` index of a count bucket. Two inserts
    /// that find no open bucket at once both upsert a new one; with the
    /// index, the one that takes a page second fails with a duplicate key
    /// instead of opening a second bucket of that page, and the cookbook
    /// runs its upsert again, which then lands in the bucket the other
    /// writer opened (`artifacts::cookbook`, `Update::SetOnInsert` of
    /// `design::PAGE`). Its upkeep is priced as any index's; the page
    /// reads use the same keys (issue 41).
    fn unique_page(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        rel: RelationshipId,
        step: usize,
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let keys = vec![
            (f.model.relationship(rel).child_field.clone(), 1),
            (crate::design::PAGE.to_string(), 1),
        ];
        plan.indexes.push(IndexNeed {
            collection: acc.collection.clone(),
            entries: acc.docs,
            held: acc.docs * f.held_share(acc.root),
            writes: self.writes_of(e),
            keys_per_write: self.keys_per_write(e, &keys),
            keys,
            operation: op,
            step,
            unique: true,
            partial: Vec::new(),
            equalities: 0,
            by_data: false,
        });
    }

    /// A parent's children read from their buckets (a window on the
    /// bucket's time picks them; other conditions read them all); returns
    /// the step number.
    pub(super) fn read_buckets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        cx: &Joined<'_>,
        per_bucket: u64,
        by: &BucketBy,
    ) -> usize {
        let f = self.facts;
        let &Joined {
            from,
            m,
            from_step,
            inc,
            target,
            wanted,
            ..
        } = cx;
        let r = inc.relationship;
        let rel = f.model.relationship(r);
        let here = ValueSource::FromStep { step: from_step };
        let acc = self.access(target);
        let per = (per_bucket as f64).min(f.typical(r)).max(1.0);
        // Only a window on the bucket's own time field picks buckets: any
        // other condition (the seller's region, a price) can match
        // children in every bucket, so all the parent's are read. Buckets
        // filled in time order pick by the last time each holds.
        let span = self.time_span(r);
        // The test of a child's life (`model::expiry`: a count of ticks of
        // the last day) keeps nearly every child of the buckets the
        // window picks: no window of its own, tested on each child.
        let unexpired = |c: &Filter| c.age.is_some_and(|a| a.expiry);
        let window = |c: &Filter| {
            !unexpired(c)
                && c.op == FilterOp::Range
                && c.related.is_none()
                && c.path.len() == 1
                && match by {
                    BucketBy::Time { field, .. } => c.path[0] == *field,
                    BucketBy::Count => span.as_deref() == Some(c.path[0].as_str()),
                }
        };
        let spread = inc.filter.iter().any(|c| !window(c) && !unexpired(c));
        let mut conditions: Vec<(String, FilterOp, ValueSource)> = Vec::new();
        for c in &inc.filter {
            if unexpired(c) {
                let source = super::find::own_value(f.model, target, c);
                conditions.push((acc.path(&c.path.join(".")), c.op, source));
            } else if c.related.is_some() {
                let (p, source) = self.filter_path(plan, op, target, &acc, c);
                conditions.push((p, c.op, source));
            } else if let (true, BucketBy::Time { unit, .. }) = (window(c), by) {
                // The window picks buckets by their key (the hour): from
                // the one holding its start to its end, with the window's
                // own bounds (a key range of its own beside them could
                // disagree with them).
                conditions.push((
                    unit.clone(),
                    c.op,
                    ValueSource::WindowKey {
                        field: acc.path(&c.path[0]),
                        unit: unit.clone(),
                    },
                ));
            } else if window(c) {
                // A bucket filled in time order holds the window's
                // children when its last one is inside the window.
                conditions.push((format!("last_{}", c.path[0]), c.op, ValueSource::Param));
            } else {
                conditions.push((acc.path(&c.path.join(".")), c.op, ValueSource::Param));
            }
        }
        // Newest-first or windowed reads of count buckets straddle one
        // more bucket; so do newest-first reads of time buckets, whose
        // newest (this month's, this hour's) is only partly filled.
        // A window's start cuts its first bucket the same way.
        let newest_first = inc.sort.first().is_none_or(|s| s.descending);
        let straddle = match by {
            BucketBy::Count => {
                inc.sort.first().is_some_and(|s| s.descending) || !inc.filter.is_empty()
            }
            BucketBy::Time { .. } => {
                inc.limit.is_some() && (newest_first || inc.filter.iter().any(window))
            }
        };
        // Every bucket of the parent: more than full ones when deletes
        // thinned them (`bucket_fill`).
        let buckets = if spread {
            m * (f.typical(r) / self.bucket_fill(r) / (per_bucket as f64).max(1.0))
                .ceil()
                .max(1.0)
        } else {
            m * ((wanted / per).ceil().max(1.0) + if straddle { 1.0 } else { 0.0 })
        };
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::ReadBuckets {
                field: rel.parent_field.clone(),
                entity: self.name(from).to_string(),
            },
        );
        step.filter
            .push(filt(rel.child_field.clone(), FilterOp::In, here));
        for (p, o, source) in conditions {
            if !step.filter.iter().any(|x| x.path == p) {
                step.filter.push(filt(p, o, source));
            }
        }
        let key = match (by, &span) {
            (BucketBy::Count, Some(field)) if inc.filter.iter().any(window) => {
                format!("last_{field}")
            }
            (BucketBy::Count, _) => crate::design::PAGE.to_string(),
            (BucketBy::Time { unit, .. }, _) => unit.clone(),
        };
        // A page of count buckets skips those a delete emptied: a bucket
        // of a count is never refilled (`arrived`), so an emptied one
        // stays, and a read by page would return it (the newest one,
        // forever, once the newest page is emptied) in place of a bucket
        // that holds children. It asks for an index over those alone
        // (partial on `count > 0`), one key a bucket; where the insert's
        // unique `{parent, page}` holds the same keys over every bucket,
        // the design keeps that one instead (`advise::build`, `indexes`),
        // and the read steps over an emptied bucket at its start.
        // A read of all the parent's buckets (`spread`) or by a window on
        // the buckets' last time (an emptied one has none) needs no test.
        let skip_empty = matches!(by, BucketBy::Count)
            && !spread
            && key == crate::design::PAGE
            && self.empties_buckets(r);
        if skip_empty {
            step.filter.push(filt(
                "count",
                FilterOp::Range,
                ValueSource::Above { limit: 0 },
            ));
        }
        // The buckets in the order the children are read: oldest first
        // when the read sorts ascending, else the newest first.
        let dir = if newest_first { -1 } else { 1 };
        step.sort.push((key.clone(), dir));
        // Keyset pages by the buckets' last date: two buckets can end on
        // the same date (the later one all of that date), and the page
        // after a cursor must take them in one order every time, the
        // order of their children's tie-breaker (the bucket's `_id`,
        // cookbook `BucketKeyset`). The index keys `_id` after the date,
        // so the walk gives that order without a sort (audit48 A10).
        let by_id = key.starts_with("last_")
            && inc.limit.is_some()
            && inc
                .paging
                .is_some_and(|p| p.by == crate::model::PagingBy::Keyset);
        let mut index_keys = vec![(rel.child_field.clone(), 1), (key.clone(), -1)];
        if by_id {
            step.sort.push(("_id".to_string(), dir));
            index_keys.push(("_id".to_string(), -1));
        }
        step.limit = if spread {
            None
        } else {
            // Count buckets are full but the last: `limit` children
            // take limit / per_bucket of them, whatever the typical
            // parent has (its few children are in its first bucket).
            let full = match by {
                BucketBy::Count => (per_bucket as f64).max(1.0),
                BucketBy::Time { .. } => per,
            };
            inc.limit
                .map(|l| ((l as f64) / full).ceil() as u64 + u64::from(straddle))
        };
        step.documents = buckets;
        let mut cost = StepCost {
            keys: buckets,
            docs: buckets,
            bytes_read: buckets * acc.root_bytes,
            ..StepCost::default()
        };
        // Later pages: from the last bucket seen, or by walking the
        // buckets before the page (paging.rs).
        if !spread {
            let full = match by {
                BucketBy::Count => (per_bucket as f64).max(1.0),
                BucketBy::Time { .. } => per,
            };
            super::paging::paged_buckets(
                &mut step,
                &mut cost,
                (inc.paging, inc.limit),
                full,
                m,
                &key,
            );
        }
        let n = self.push(plan, op, step, cost, Some((index_keys, target, acc.docs)));
        if skip_empty && let Some(need) = plan.indexes.iter_mut().find(|x| x.step + 1 == n) {
            need.partial = vec![PartialCondition::Positive {
                path: "count".to_string(),
            }];
        }
        n
    }

    /// Whether a write of the workload can leave a bucket of `rel` with no
    /// child: a delete of some of a parent's children (a delete of all of
    /// them deletes the buckets whole, `by_parent_alone`).
    pub(super) fn empties_buckets(&self, rel: RelationshipId) -> bool {
        let f = self.facts;
        let child = f.model.relationship(rel).child;
        f.model.workload.operations.iter().any(|op| {
            matches!(&op.kind, OperationKind::Delete { entity, filter }
                if *entity == child && !self.by_parent_alone(rel, filter))
        })
    }

    /// The children's date that orders them in a bucket of `r`: the field
    /// a time bucket is keyed by, or the date a bucket of a count keeps
    /// the first and last of (`time_span`). A first or last of another
    /// field follows it. `None`: their arrival is their order.
    pub(super) fn bucket_order(&self, r: RelationshipId) -> Option<String> {
        match self.layout(r) {
            Layout::Bucket {
                by: BucketBy::Time { field, .. },
                ..
            } => Some(field.clone()),
            Layout::Bucket { .. } => self.time_span(r),
            _ => None,
        }
    }

    /// The children's date field whose first and last value each bucket of
    /// `r` keeps when the buckets are filled by count in time order
    /// (`candidates::enumerate`'s filled buckets): a window on it picks
    /// buckets. `None` for other layouts.
    pub(super) fn time_span(&self, r: RelationshipId) -> Option<String> {
        let Layout::Bucket {
            by: BucketBy::Count,
            aggregates,
            ..
        } = self.layout(r)
        else {
            return None;
        };
        let kept = |function: AggregateFn| {
            aggregates
                .iter()
                .filter(|a| a.function == function)
                .filter_map(|a| a.field.clone())
                .collect::<Vec<_>>()
        };
        let last = kept(AggregateFn::Last);
        kept(AggregateFn::First).into_iter().find(|f| {
            last.contains(f)
                && self
                    .facts
                    .model
                    .entity(self.facts.model.relationship(r).child)
                    .field(f)
                    .is_some_and(|x| x.ty == crate::model::FieldType::Date)
        })
    }

    /// An aggregate over a parent's buckets: the figures the buckets keep
    /// added up, or computed over their children.
    pub(super) fn aggregate_buckets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (m, here): (f64, &ValueSource),
        agg: &crate::model::Aggregate,
        (per_bucket, aggregates): (u64, &[crate::design::Aggregation]),
    ) {
        let f = self.facts;
        let r = agg.relationship;
        let rel = f.model.relationship(r);
        let n = f.typical(r);
        let fname = crate::candidates::fn_name(agg.function);
        let acc = self.access(rel.child);
        let buckets = m
            * (n / ((per_bucket as f64) * self.bucket_fill(r)).max(1.0))
                .ceil()
                .max(1.0);
        let stored = aggregates
            .iter()
            .any(|a| a.function == agg.function && a.field == agg.field);
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            if stored {
                Purpose::AddUpBuckets {
                    function: fname.to_string(),
                }
            } else {
                Purpose::ComputeOverBuckets {
                    function: fname.to_string(),
                }
            },
        );
        step.filter
            .push(filt(rel.child_field.clone(), FilterOp::In, here.clone()));
        step.documents = buckets;
        let cost = StepCost {
            keys: buckets + if stored { 0.0 } else { m * n },
            docs: buckets,
            bytes_read: buckets * acc.root_bytes,
            ..StepCost::default()
        };
        self.push(
            plan,
            op,
            step,
            cost,
            Some((vec![(rel.child_field.clone(), 1)], rel.child, acc.docs)),
        );
    }

    /// Aggregates per time unit answered by buckets of that unit that keep
    /// every figure: the latest `last` buckets, their figures only.
    pub(super) fn windowed_buckets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (m, from_step): (f64, usize),
        aggs: &[&crate::model::Aggregate],
        (unit, per_bucket): (&String, u64),
    ) {
        let Some(first) = aggs.first() else { return };
        let Some(w) = &first.window else { return };
        let f = self.facts;
        let r = first.relationship;
        let rel = f.model.relationship(r);
        let here = ValueSource::FromStep { step: from_step };
        let acc = self.access(rel.child);
        let fname = aggs
            .iter()
            .map(|a| crate::candidates::fn_name(a.function))
            .collect::<Vec<_>>()
            .join(", ");
        // One bucket per unit: read the latest `last`, their figures only.
        let buckets = m
            * (w.last as f64).min(
                (f.typical(r) / (per_bucket as f64).max(1.0))
                    .ceil()
                    .max(1.0),
            );
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::AddUpBuckets { function: fname },
        );
        step.filter
            .push(filt(rel.child_field.clone(), FilterOp::In, here));
        step.filter
            .push(filt(unit.clone(), FilterOp::Range, ValueSource::Param));
        step.sort.push((unit.clone(), -1));
        step.limit = Some((w.last as f64 * m).ceil() as u64);
        step.projection = std::iter::once(unit.clone())
            .chain(std::iter::once("count".to_string()))
            .chain(aggs.iter().filter_map(|a| kept_path(a)))
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            });
        step.documents = buckets;
        // Each returned bucket carries its key and figures, not its items.
        let figure_bytes: f64 = step.projection.iter().map(|p| 10.0 + p.len() as f64).sum();
        let cost = StepCost {
            keys: buckets,
            docs: buckets,
            bytes_read: buckets * figure_bytes,
            ..StepCost::default()
        };
        self.push(
            plan,
            op,
            step,
            cost,
            Some((
                vec![(rel.child_field.clone(), 1), (unit.clone(), -1)],
                rel.child,
                acc.docs,
            )),
        );
    }

    /// Aggregates per unit of time over buckets of another size than the
    /// unit (audit44 C): the buckets the window picks (a time bucket by
    /// its key; a count bucket by its first and last dates against the
    /// window's bounds) are matched, their children unwound, tested by the
    /// window, and grouped by the parent and the unit on the server: a row
    /// per parent and unit comes back. A count bucket once was picked by
    /// its fill (`count`) in a range the caller passed, and came back
    /// whole, with no figure. Priced by the whole buckets read.
    pub(super) fn window_over_buckets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        (m, from_step): (f64, usize),
        aggs: &[&crate::model::Aggregate],
        (in_window, per_bucket, by): (f64, u64, &BucketBy),
        purpose: Purpose,
    ) {
        let Some(w) = aggs.first().and_then(|a| a.window.as_ref()) else {
            return;
        };
        let f = self.facts;
        let r = aggs[0].relationship;
        let rel = f.model.relationship(r);
        let acc = self.access(rel.child);
        let per = (per_bucket as f64).min(f.typical(r)).max(1.0);
        let child_time = acc.path(&w.field);
        let span = self.time_span(r).filter(|s| *s == w.field);
        // The buckets holding the window's children, and one it starts
        // inside; with no dates kept, every bucket of the parent.
        let (buckets, key) = match (by, &span) {
            (BucketBy::Time { unit, .. }, _) => {
                (m * (in_window / per).ceil().max(1.0), unit.clone())
            }
            (BucketBy::Count, Some(s)) => (
                m * ((in_window / per).ceil().max(1.0) + 1.0),
                format!("last_{s}"),
            ),
            (BucketBy::Count, None) => (
                m * (f.typical(r) / self.bucket_fill(r) / per).ceil().max(1.0),
                crate::design::PAGE.to_string(),
            ),
        };
        let mut step = Self::step(&acc.collection, Action::Find, purpose);
        step.filter.push(filt(
            rel.child_field.clone(),
            FilterOp::In,
            ValueSource::FromStep { step: from_step },
        ));
        match (by, &span) {
            (BucketBy::Time { unit, .. }, _) => {
                step.filter.push(filt(
                    unit.clone(),
                    FilterOp::Range,
                    ValueSource::WindowKey {
                        field: child_time.clone(),
                        unit: unit.clone(),
                    },
                ));
            }
            (BucketBy::Count, Some(s)) => {
                step.filter.push(filt(
                    format!("last_{s}"),
                    FilterOp::Range,
                    ValueSource::WindowStart {
                        field: child_time.clone(),
                    },
                ));
                step.filter.push(filt(
                    format!("first_{s}"),
                    FilterOp::Range,
                    ValueSource::WindowEnd {
                        field: child_time.clone(),
                    },
                ));
            }
            (BucketBy::Count, None) => {}
        }
        step.filter.push(filt(
            child_time.clone(),
            FilterOp::Range,
            ValueSource::Param,
        ));
        let computed = aggs
            .iter()
            .map(|a| super::aggregate::step_figure(a, &acc))
            .collect();
        let rows = (m * w.last as f64).min((m * in_window).max(m));
        let mut grouped = super::aggregate::step_figures(
            rel.child_field.clone(),
            Some(crate::design::StepPer {
                field: child_time,
                unit: w.unit.clone(),
            }),
            computed,
            rows,
        );
        grouped.unwind = Some(rel.parent_field.clone());
        step.documents = buckets;
        step.figures = Some(Box::new(grouped));
        let cost = StepCost {
            keys: buckets,
            docs: buckets,
            bytes_read: buckets * acc.root_bytes,
            ..StepCost::default()
        };
        self.push(
            plan,
            op,
            step,
            cost,
            Some((
                vec![(rel.child_field.clone(), 1), (key, -1)],
                rel.child,
                acc.docs,
            )),
        );
    }

    /// Before a delete drops one child from its time bucket (`tests`: the
    /// drop's filter, on the parent's reference and the child's time),
    /// the bucket deleted when that child is its last: `deleteOne` on the
    /// bucket's key (the parent and the time truncated to the bucket's
    /// unit, the upsert's index), the child's time and `count: 1`. The
    /// drop that follows then matches nothing. (Dropping the last child
    /// in the update pipeline instead would leave an empty bucket that
    /// every window over its time reads, with a sum of 0 and a min and
    /// max of null that the bucket's validator refuses.) It runs on every
    /// such delete and deletes about once in the bucket's children.
    /// Nothing for count buckets (the drop names no bucket key the
    /// application knows) or a drop by another filter.
    pub(super) fn drop_emptied_bucket(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        tests: &[StepFilter],
    ) {
        let Home::Bucketed { rel } = self.p.home[e.index()] else {
            return;
        };
        let Layout::Bucket {
            by: BucketBy::Time { field, unit },
            per_bucket,
            ..
        } = self.layout(rel)
        else {
            return;
        };
        let r = self.facts.model.relationship(rel);
        let acc = self.access(e);
        let time = acc.path(field);
        let eq = |path: &str| {
            tests
                .iter()
                .find(|t| t.path == path && t.op == FilterOp::Eq)
        };
        let (Some(owner), Some(at)) = (eq(&r.child_field), eq(&time)) else {
            return;
        };
        let mut step = Self::step(
            &acc.collection,
            Action::DeleteOne,
            Purpose::DropEmptyBucket {
                entity: self.name(e).to_string(),
            },
        );
        step.filter = vec![
            owner.clone(),
            filt(
                unit.clone(),
                FilterOp::Eq,
                ValueSource::Truncated {
                    field: field.clone(),
                    unit: unit.clone(),
                },
            ),
            at.clone(),
        ];
        step.conditions = vec![crate::design::StepCondition {
            path: "count".to_string(),
            plus: None,
            test: crate::model::Test::Eq,
            value: crate::model::Literal::Number(1.0),
        }];
        // One drop in `per_bucket` takes a bucket's last child.
        let emptied = reread::held_share(*per_bucket as f64);
        step.documents = emptied;
        let cost = StepCost {
            keys: 1.0,
            docs: 1.0,
            docs_written: emptied,
            bytes_written: emptied * 64.0,
            ..StepCost::default()
        };
        self.push(
            plan,
            op,
            step,
            cost,
            Some((
                vec![(r.child_field.clone(), 1), (unit.clone(), 1)],
                e,
                acc.docs,
            )),
        );
    }
}

impl Planner<'_> {
    /// Whether `filter` is the reference to the parent of `rel` alone (eq
    /// or in): all the children of their parents, whose buckets a delete
    /// deletes whole (`clear_buckets`).
    fn by_parent_alone(&self, rel: RelationshipId, filter: &[Filter]) -> bool {
        let r = self.facts.model.relationship(rel);
        let [c] = filter else {
            return false;
        };
        // The parent's `_id` through the relationship (`post: eq` is
        // resolved so), or the reference itself.
        (match &c.related {
            Some(x) => x.relationship == rel && x.field == "_id" && x.further.is_empty(),
            None => c.path.len() == 1 && c.path[0] == r.child_field,
        }) && matches!(c.op, FilterOp::Eq | FilterOp::In)
    }

    /// The share of a count bucket's size its children fill. The insert
    /// fills a bucket until `per_bucket` children have arrived and never
    /// again (`design::ARRIVED`), so a bucket keeps the children no delete
    /// took: of those that arrived, `1 - deleted / inserted` (the workload's
    /// rates of the child, deletes of all a parent's children aside, which
    /// delete its buckets whole). A parent's children then fill
    /// `children / (per_bucket × fill)` buckets, which a read of all of them
    /// reads. 1 for a time bucket (its unit, not a count, closes it) and
    /// with no insert; at least one child a bucket.
    pub(super) fn bucket_fill(&self, rel: RelationshipId) -> f64 {
        let Layout::Bucket {
            by: BucketBy::Count,
            per_bucket,
            ..
        } = self.layout(rel)
        else {
            return 1.0;
        };
        let f = self.facts;
        let child = f.model.relationship(rel).child;
        let inserted = f.model.inserts_per_second(child, f.mix);
        if inserted <= 0.0 {
            return 1.0;
        }
        let deleted: f64 = f
            .model
            .workload
            .operations
            .iter()
            .map(|op| match &op.kind {
                OperationKind::Delete { entity, filter }
                    if *entity == child && !self.by_parent_alone(rel, filter) =>
                {
                    op.rate(f.mix) * self.matched(child, filter, None)
                }
                _ => 0.0,
            })
            .sum();
        (1.0 - deleted / inserted).clamp(1.0 / (*per_bucket as f64).max(1.0), 1.0)
    }

    /// `bucket_fill` of the buckets `root` lives in; 1 for a root of its
    /// own (`Placement::documents` ignores it there).
    pub(crate) fn root_fill(&self, root: EntityId) -> f64 {
        match self.p.home[root.index()] {
            Home::Bucketed { rel } => self.bucket_fill(rel),
            _ => 1.0,
        }
    }

    /// A delete of every child of its parents: a filter on the reference
    /// to the parent alone (all the comments of a post). The parents'
    /// buckets are deleted, a key and a bucket each (no bucket is left
    /// empty, so the page a new bucket takes, the parent's buckets
    /// counted, starts again at 0), and the figures the parent keeps over
    /// them set to those of no child: a count and sums of 0, no max, min or
    /// last. Priced by the buckets it deletes (`children / per bucket` a
    /// parent). The children's ids found first and pulled by them, then
    /// the parent's count taken down by one per child, was 300 documents
    /// read and written for a post of 300 comments. `false` (nothing
    /// planned) for another filter, or when anything else refers to the
    /// children (an id array, a subset, another parent's figures, copies
    /// of the parent, an outlier's array).
    pub(super) fn clear_buckets(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
    ) -> bool {
        let Home::Bucketed { rel } = self.p.home[e.index()] else {
            return false;
        };
        let Layout::Bucket { .. } = self.layout(rel) else {
            return false;
        };
        let f = self.facts;
        let r = f.model.relationship(rel);
        let [c] = filter else {
            return false;
        };
        let by_parent = self.by_parent_alone(rel, filter);
        let kept_elsewhere = f.rels_to[e.index()].iter().any(|&x| {
            x != rel
                && (self.child_ids_path(x).is_some()
                    || matches!(self.layout(x), Layout::Subset { .. })
                    || self.computed(x).next().is_some())
        });
        if !by_parent
            || kept_elsewhere
            || self.child_ids_path(rel).is_some()
            || self.copies(r.parent) > 1.0
            || self.outlier_of(e).is_some()
        {
            return false;
        }
        let children = self.matched(e, filter, None);
        let parents = (children / f.typical(rel).max(1.0)).max(1.0);
        // Buckets thinned by other deletes stay (`bucket_fill`): counted
        // as the collection's figures count them (`buckets_holding`).
        let per_parent = self
            .p
            .buckets_holding(f, rel, f.typical(rel), self.bucket_fill(rel))
            .max(1.0);
        let buckets = parents * per_parent;
        let name = self.name(e).to_string();
        let pname = self.name(r.parent).to_string();
        self.write_root(
            plan,
            op,
            RootWrite {
                entity: e,
                action: Action::DeleteMany,
                filter: vec![filt(r.child_field.clone(), c.op, ValueSource::Param)],
                updates: Vec::new(),
                docs: buckets,
                sync: 0.0,
                purpose: Purpose::DeleteBuckets {
                    entity: name.clone(),
                    parent: pname.clone(),
                },
            },
        );
        let pacc = self.access(r.parent);
        let resets: Vec<UpdateOp> = self
            .computed(rel)
            .map(|(function, _, cname)| UpdateOp::Reset {
                path: pacc.path(cname),
                function,
            })
            .collect();
        if !resets.is_empty() {
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: r.parent,
                    action: if parents > 1.0 {
                        Action::UpdateMany
                    } else {
                        Action::UpdateOne
                    },
                    filter: vec![filt(pacc.path("_id"), c.op, ValueSource::Param)],
                    updates: resets,
                    docs: parents,
                    sync: 0.0,
                    purpose: Purpose::ResetComputed {
                        entity: name,
                        parent: pname,
                    },
                },
            );
        }
        true
    }
}

impl Planner<'_> {
    /// The children an include of bucketed children asks for (or a read
    /// of them by their parent, which reads as that include), not their
    /// buckets (issue 41): the buckets read (`read_buckets`) are unwound
    /// and their children tested, sorted and cut by the include's own
    /// filter, sort and limit, as a read of them on their own is
    /// (`read_bucket_elements`). A limit once took whole buckets: an
    /// hour's bucket for "the last 50 readings", a window's edge buckets
    /// with the readings outside it.
    ///
    /// Buckets of a count only: each is full but the newest (and those
    /// deletes thinned), so the newest `limit / size + 1` hold the newest
    /// `limit`. A time bucket holds what its parent sent in its hour,
    /// which the typical parent's rate only estimates: a quiet parent's
    /// newest buckets can hold fewer, and a read cut to them would return
    /// fewer children than it asks for. Those stay whole buckets.
    ///
    /// Left as buckets too: a read of one parent is needed, as the sort and
    /// limit then apply across all the children read (a limit per parent
    /// over many parents is another pipeline); the buckets of a count
    /// read in their own order a page a bucket (the bucket is the page);
    /// keyset pages (after a bucket, not a child); nested includes (which
    /// take ids from the buckets); and an operation whose aggregates are
    /// computed from the buckets it reads.
    pub(super) fn include_bucket_elements(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        cx: &Joined<'_>,
        (per_bucket, by): (u64, &BucketBy),
    ) {
        let inc = cx.inc;
        let r = inc.relationship;
        let keyset = inc
            .paging
            .is_some_and(|p| p.by == crate::model::PagingBy::Keyset);
        let a_bucket_a_page = matches!(by, BucketBy::Count)
            && inc.filter.is_empty()
            && inc.limit == Some(per_bucket)
            && inc.sort.first().is_none_or(|s| !s.descending);
        let aggregated = match &self.facts.model.operation(op).kind {
            crate::model::OperationKind::Read { aggregates, .. } => {
                aggregates.iter().any(|a| a.relationship == r)
            }
            _ => false,
        };
        if !inc.to_children
            || !matches!(by, BucketBy::Count)
            || !inc.include.is_empty()
            || keyset
            || a_bucket_a_page
            || aggregated
            || (inc.limit.is_none() && inc.filter.is_empty())
            || !self.one_parent(plan, cx)
        {
            return;
        }
        self.read_bucket_elements(plan, cx.target, r, (&inc.sort, inc.limit, inc.paging));
    }

    /// Whether the step `cx` reads from finds one parent at most: by its
    /// `_id`, or by every key of one of its unique combinations.
    fn one_parent(&self, plan: &OpPlan, cx: &Joined<'_>) -> bool {
        let Some(step) = cx.from_step.checked_sub(1).and_then(|i| plan.steps.get(i)) else {
            return false;
        };
        let eq = |path: &str| {
            step.filter
                .iter()
                .any(|c| c.path == path && c.op == FilterOp::Eq)
        };
        let acc = self.access(cx.from);
        eq(&acc.path("_id"))
            || self
                .unique_paths(cx.from)
                .iter()
                .any(|keys| !keys.is_empty() && keys.iter().all(|k| eq(k)))
    }
    /// A read of bucketed children on their own (by the parent and their
    /// own fields): the step that reads their buckets returns the matching
    /// children, not the buckets (audit44 B). Its tests of the children
    /// hold for one child (`$elemMatch`: a bucket holding some signup and
    /// some event of this week is no signup of this week), each child is
    /// unwound and tested again, then sorted, paged and cut by the read's
    /// own `sort`, `paging` and `limit`; the buckets' order and count
    /// (the newest pages a page of children needs) move to
    /// `bucket_order`, ahead of the unwinding. The price stays the whole
    /// buckets read (`read_buckets`): the server reads each bucket whole
    /// to unwind it. Nothing for a child kept in another layout.
    pub(super) fn read_bucket_elements(
        &self,
        plan: &mut OpPlan,
        e: EntityId,
        rel: RelationshipId,
        (sort, limit, paging): (&[SortKey], Option<u64>, Option<crate::model::Paging>),
    ) {
        if self.p.home[e.index()] != (Home::Bucketed { rel }) {
            return;
        }
        let array = self.facts.model.relationship(rel).parent_field.clone();
        let acc = self.access(e);
        // The window on the children's date that picked the buckets
        // (`read_buckets`): the key of a time bucket, or the last date a
        // count bucket keeps.
        let (window_key, time) = match (self.layout(rel), self.time_span(rel)) {
            (
                Layout::Bucket {
                    by: BucketBy::Time { field, unit },
                    ..
                },
                _,
            ) => (unit.clone(), field.clone()),
            (_, Some(field)) => (format!("last_{field}"), field),
            _ => (String::new(), String::new()),
        };
        let Some(s) = plan
            .steps
            .iter_mut()
            .rev()
            .find(|s| s.action == Action::Find && s.collection == acc.collection)
        else {
            return;
        };
        // Already the children (the include a read by the parent reads as).
        if s.elements.is_some() {
            return;
        }
        // A page of children in the buckets' order (no limit: every
        // bucket that matches is read). A read of no order of its own
        // keeps the buckets' (their children follow in it, unwound).
        if s.limit.is_some() {
            s.bucket_order = Some(Box::new(crate::design::BucketOrder {
                sort: if sort.is_empty() {
                    s.sort.clone()
                } else {
                    std::mem::take(&mut s.sort)
                },
                limit: s.limit,
            }));
        }
        if !sort.is_empty() {
            s.sort = sort
                .iter()
                .map(|k| (acc.path(&k.field), if k.descending { -1 } else { 1 }))
                .collect();
        }
        s.limit = limit;
        // The page past the first skips children in the server's sort of
        // them, or starts after the last one's sort key: no bucket key
        // walked beyond the buckets read (the buckets a skip passes over
        // are counted where `bucket_order` takes them, `paged_buckets`).
        let count_bucket = self.layout(rel).bucket_capacity().filter(|_| {
            !matches!(
                self.layout(rel),
                Layout::Bucket {
                    by: BucketBy::Time { .. },
                    ..
                }
            )
        });
        if let (Some(p), Some(l)) = (paging, limit) {
            let mut walked = s.paging.as_ref().map_or((0.0, 0.0, 1.0, None), |x| {
                (x.skipped, x.deepest_skipped, x.page, x.past_the_matches)
            });
            // A keyset page of children in count buckets starts after the
            // last child's date, its bucket and its position (cookbook
            // `BucketKeyset`): the buckets it needs are those whose first
            // date is not past the cursor's, which no index keys (the
            // index orders the buckets by their last date). The walk
            // passes the newer buckets, each fetched to test that date:
            // as many as a skip to that page would (audit48 A10). A time
            // bucket's key is its start, and the cursor is a range on it.
            if p.by == crate::model::PagingBy::Keyset
                && let Some(per) = count_bucket
            {
                let per = (per as f64).max(1.0);
                let as_skip = crate::model::Paging {
                    by: crate::model::PagingBy::Skip,
                    ..p
                };
                let passed = as_skip.skipped(l) / per;
                walked.0 = passed;
                walked.1 = as_skip.deepest_skipped(l) / per;
                plan.cost.index_keys_examined += passed;
                plan.cost.documents_examined += passed;
                plan.cost.bytes_read += passed * self.access(e).root_bytes;
            }
            let after = s.sort.first().map(|(k, _)| k.clone());
            s.paging = Some(Box::new(crate::design::StepPaging {
                by: p.by,
                after: match p.by {
                    crate::model::PagingBy::Keyset => after,
                    crate::model::PagingBy::Skip => None,
                },
                then: match p.by {
                    crate::model::PagingBy::Keyset => {
                        s.sort.iter().skip(1).map(|(k, _)| k.clone()).collect()
                    }
                    crate::model::PagingBy::Skip => Vec::new(),
                },
                skipped: walked.0,
                deepest_skipped: walked.1,
                // Bucket keys a page reads: those `read_buckets` priced.
                page: walked.2,
                past_the_matches: walked.3,
                deepest_share: p.deepest_share,
            }));
        }
        // A bucket the window picked can hold children before it (a
        // signup of last month beside this week's pageviews): each child
        // is tested by the window too, and a count bucket is picked by
        // both its dates against the window's own bounds (its last date in
        // or after the start, its first before the end), with the
        // children's parameters, not a range of its own.
        if let Some(i) = s
            .filter
            .iter()
            .position(|c| !time.is_empty() && c.path == window_key && c.op == FilterOp::Range)
        {
            let child = acc.path(&time);
            if window_key.starts_with("last_") {
                s.filter[i].value_from = ValueSource::WindowStart {
                    field: child.clone(),
                };
                s.filter.insert(
                    i + 1,
                    filt(
                        format!("first_{time}"),
                        FilterOp::Range,
                        ValueSource::WindowEnd {
                            field: child.clone(),
                        },
                    ),
                );
            }
            // (A test of the children's life on the same date is no window.)
            let windowed = |c: &&crate::design::StepFilter| {
                c.path == child && !matches!(c.value_from, ValueSource::Unexpired { .. })
            };
            if !s.filter.iter().any(|c| windowed(&c)) {
                s.filter
                    .push(filt(child, FilterOp::Range, ValueSource::Param));
            }
        }
        s.elements = Some(array);
    }
}
