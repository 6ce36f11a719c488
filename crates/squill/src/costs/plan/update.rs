//! Updates: the instance itself, re-pointed links, and the copies and counters that follow it.

use super::*;

/// An update as the model states it: the instances a filter picks, the
/// fields that change, the links re-pointed, one document or many.
pub(super) struct Change<'q> {
    pub(super) entity: EntityId,
    pub(super) filter: &'q [Filter],
    pub(super) changes: &'q [String],
    pub(super) relinks: &'q [RelationshipId],
    pub(super) multi: bool,
}

/// What an update writes besides its own step's filter: the updates of the
/// instance's document, the writes elsewhere (copies, counters, old and
/// new parents), and how many of those cannot be in one document's write.
struct Edits {
    /// The instance's place in its document (`items.$` for an element).
    elem: String,
    updates: Vec<UpdateOp>,
    extra: Vec<ExtraWrite>,
    nonatomic: usize,
    /// A parent's extremes of the changed fields (max, min, first, last):
    /// read again from the children once the instance is written.
    rereads: Vec<Reread>,
}

/// A parent's computed field read again from its children through a
/// relationship: `(relationship, function, field, computed field)`.
type Reread = (RelationshipId, AggregateFn, String, String);

impl Edits {
    fn at(&self, field: &str) -> String {
        if self.elem.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.elem)
        }
    }
}

impl<'a> Planner<'a> {
    pub(super) fn update(&self, plan: &mut OpPlan, op: OperationId, ch: &Change<'_>) {
        let &Change {
            entity: e,
            filter,
            changes,
            relinks,
            multi,
        } = ch;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let id_test = filter
            .iter()
            .find(|c| c.path.len() == 1 && c.path[0] == "_id")
            .map(|c| c.op);
        // By the caller's id alone (and the tenant, which every write tests):
        // any other condition beside `_id` (the author, a state) goes whole
        // to the path that tests it in the write (audit44 A: `{_id, author}`
        // was written as `{_id}`, and anyone could edit anyone's message).
        let by_id = filter.is_empty() || crate::model::by_id_alone(self.facts.model, e, filter);
        // Ids the caller holds (`_id: in`): several documents, by their ids,
        // with no query for them first.
        let id_op = match id_test {
            Some(FilterOp::In) => FilterOp::In,
            _ => FilterOp::Eq,
        };
        let today = if multi || id_op == FilterOp::In {
            self.matched(e, filter, None)
        } else {
            1.0
        };
        // A sweep that moves what it writes out of its own filter finds,
        // on each run after the first, only what arrived since the last
        // (`steady`): priced at that, the backlog noted on its steps.
        let steady = self.steady(op, e, today);
        let m = steady.unwrap_or(today);
        // The plan before the query for the ids: when nothing else needs
        // those ids (no copy, counter or array to keep up), the update goes
        // back to it and takes the filter itself, as the application would.
        let before_find = (!by_id).then(|| plan.clone());
        let mut step_filter = if by_id {
            vec![filt(acc.path("_id"), id_op, ValueSource::Param)]
        } else {
            let id = ["_id".to_string()];
            let read = Read {
                limit: if multi { None } else { Some(1) },
                most: steady,
                ..Read::by(filter, &id)
            };
            let (_, n) = self.find(
                plan,
                op,
                e,
                &read,
                Purpose::FindToUpdate {
                    entity: name.clone(),
                },
            );
            let mut by_ids = vec![filt(
                acc.path("_id"),
                FilterOp::In,
                ValueSource::FromStep { step: n },
            )];
            // The find returns every element id of each document it
            // matched: the element's own tests come along, so that the
            // write's `arrayFilters` take only the elements that pass them.
            if multi && self.elements_in_root_array(e) {
                by_ids.extend(
                    filter
                        .iter()
                        .filter(|c| c.related.is_none() && !c.path.is_empty())
                        .map(|c| {
                            let path = acc.path(&c.path.join("."));
                            super::filter_keys::test_of(path, c, ValueSource::Param)
                        }),
                );
            }
            by_ids
        };
        // Many elements of an array (the lines of every purchase that
        // holds a tier's): `$[e]`, which the cookbook restricts by the
        // filter's tests of the element (`arrayFilters`), or every element
        // where it has none. The positional `$` writes only the first
        // element the filter matched in each document, and a filter by
        // element ids a find returned matched any of the document's
        // elements: repricing one tier's lines changed another's (audit46
        // D1).
        let many_elements = multi && self.elements_in_root_array(e);
        let elem = if many_elements {
            format!("{}.$[e]", acc.prefix)
        } else if acc.per_root > 1.0 {
            format!("{}.$", acc.prefix)
        } else {
            acc.prefix.clone()
        };
        let mut edits = Edits {
            elem,
            updates: Vec::new(),
            extra: Vec::new(),
            nonatomic: 0,
            rereads: Vec::new(),
        };
        // A child kept in a bucket whose figures cover a changed field:
        // one update pipeline sets it and computes the figures again.
        let rewrite = relinks
            .is_empty()
            .then(|| self.bucket_rewrite(e, Some(changes)))
            .flatten();
        edits.updates = match &rewrite {
            Some(ups) => ups.clone(),
            None => changes
                .iter()
                .map(|c| UpdateOp::Set { path: edits.at(c) })
                .collect(),
        };
        for &r in relinks {
            self.relink(plan, op, e, r, &mut edits);
        }
        self.refresh_parent_copies(e, changes, m, (&mut edits.extra, &mut edits.rereads));
        self.refresh_tree_paths(e, changes, m, &mut edits.extra);
        self.refresh_child_copies(ch, m, &mut edits.extra);
        // The entity itself (every copy of it when it is folded into its children).
        let mut docs_written: Option<f64> = None;
        let (docs, sync) = match self.folded_into(e) {
            Some(children) => {
                let n = children * m;
                step_filter = vec![filt(acc.path("_id"), id_op, ValueSource::Param)];
                (n, n - m)
            }
            None => (m, 0.0),
        };
        // Many when the update says so and its filter pins no one instance
        // (`pins_one`), by the caller's ids, or in every copy: from the
        // filter, not from how many the estimate finds (review41 D4).
        let many = id_op == FilterOp::In || (multi && !self.pins_one(e, filter)) || docs > 1.0;
        let action = if many {
            Action::UpdateMany
        } else {
            Action::UpdateOne
        };
        // A bucket's pipeline finds its element by the filter itself, and
        // the parent's figures over the buckets are written by the parent's
        // id the caller gives: none of those writes needs the ids a find
        // would return (the bucket's elements have none of their own).
        // Tests of the edited child's old values, added to the bucket's
        // write once its index is chosen: they check the element found,
        // they do not find it.
        let mut old_tests = Vec::new();
        let needs_no_ids = edits.extra.is_empty()
            || (rewrite.is_some()
                && edits.extra.iter().all(|x| {
                    x.2.iter()
                        .all(|t| !matches!(t.value_from, ValueSource::FromStep { .. }))
                }));
        if let Some(saved) = before_find
            && needs_no_ids
            && edits.nonatomic == 0
            && relinks.is_empty()
            && (self.written_where_found(e) || rewrite.is_some())
            && self.outlier_of(e).is_none()
            && self.folded_into(e).is_none()
        {
            let mut direct = saved;
            let tests: Vec<StepFilter> = filter
                .iter()
                .map(|c| {
                    let (path, from) = self.filter_path(&mut direct, op, e, &acc, c);
                    super::filter_keys::test_of(path, c, from)
                })
                .collect();
            // An element of an array is written through the positional `$`,
            // which needs a test on the array in the same filter (the
            // element's own key); the parent's id alone names no element.
            // A bucket's pipeline sets every element the filter's tests
            // under the array match: all of them for an update of many.
            let inside = format!("{}.", acc.prefix);
            let names_element = tests.iter().any(|t| t.path.starts_with(&inside));
            if !edits.elem.ends_with(".$") || names_element || (rewrite.is_some() && multi) {
                *plan = direct;
                // One write of every document holding a matching element:
                // priced by those documents, not by the elements.
                if many_elements {
                    let eq: Vec<(String, FilterOp, ValueSource)> = tests
                        .iter()
                        .map(|t| (t.path.clone(), t.op, t.value_from.clone()))
                        .collect();
                    docs_written = Some(super::find_keys::parents_holding(&acc, &eq, m));
                }
                step_filter = tests;
                if names_element && !multi && rewrite.is_some() {
                    old_tests = self.old_value_tests(e, changes);
                }
            }
        }
        // No test of the elements in the write (every line of the
        // purchases found by their own state): every element of each.
        if many_elements {
            let inside = format!("{}.", acc.prefix);
            if !step_filter.iter().any(|t| t.path.starts_with(&inside)) {
                let named = format!("{}.$[e].", acc.prefix);
                let every = format!("{}.$[].", acc.prefix);
                for u in &mut edits.updates {
                    let p = u.path_mut();
                    if p.starts_with(&named) {
                        *p = p.replacen(&named, &every, 1);
                    }
                }
            }
        }
        let own = RootWrite {
            entity: e,
            action,
            filter: step_filter,
            updates: std::mem::take(&mut edits.updates),
            docs: docs_written.unwrap_or(docs),
            sync,
            purpose: std::iter::once(Purpose::Update {
                entity: name.clone(),
            })
            .chain(rewrite.is_some().then(|| Purpose::RecomputeBucket {
                entity: name.clone(),
            }))
            .collect(),
        };
        let at = plan.steps.len();
        self.write_update(plan, op, ch, (own, by_id && id_op == FilterOp::Eq), edits);
        if steady.is_some() {
            let coll = &acc.collection;
            for s in plan.steps.iter_mut().filter(|s| {
                &s.collection == coll
                    && s.purpose
                        .iter()
                        .any(|p| matches!(p, Purpose::Update { .. } | Purpose::FindToUpdate { .. }))
            }) {
                s.backlog = Some(today);
            }
        }
        if let Some(own) = plan.steps[at..].iter_mut().find(|s| {
            s.purpose
                .iter()
                .any(|p| matches!(p, Purpose::RecomputeBucket { .. }))
        }) {
            own.filter.extend(old_tests);
        }
    }

    /// The bucketed child's old value of each changed field its parent
    /// keeps a figure of (`comments.votes = old_votes`), tested in the
    /// bucket's write beside the child's key (the cookbook puts both under
    /// one `$elemMatch`): the write matches only while the child still
    /// holds the value the caller's difference was taken from. An edit
    /// retried after another edit of the same child, or two edits at once
    /// from one old value, then changes nothing, and the parent's `$inc`,
    /// gated on the write changing its bucket, does not move the sum a
    /// second time (issue 41). Same index, same keys: no price.
    fn old_value_tests(&self, e: EntityId, changes: &[String]) -> Vec<StepFilter> {
        let Home::Bucketed { rel } = self.p.home[e.index()] else {
            return Vec::new();
        };
        let acc = self.access(e);
        let mut kept: Vec<&String> = self.computed(rel).filter_map(|(_, x, _)| x).collect();
        kept.sort();
        kept.dedup();
        changes
            .iter()
            .filter(|c| kept.contains(c))
            .map(|c| {
                filt(
                    acc.path(c),
                    FilterOp::Eq,
                    ValueSource::Old {
                        field: c.to_string(),
                    },
                )
            })
            .collect()
    }

    /// Whether an update of `e` can test its filter in the write itself, with
    /// no query for the ids first: documents of its own, or instances
    /// embedded directly in their root document (an order's items), one
    /// at a time in an array (the positional `$` writes the one element
    /// the filter matched: one atomic `updateOne` on the parent's `_id` and
    /// the element's key, where a find then an update by the element's
    /// `_id` took two round trips and two indexes only that plan needed).
    ///
    /// Many elements of an array are written where found too, through
    /// `$[e]` (`elements_in_root_array`).
    fn written_where_found(&self, e: EntityId) -> bool {
        match self.p.home[e.index()] {
            Home::Own => true,
            Home::Embedded { host, .. } => host == self.p.root(e),
            Home::Bucketed { .. } => false,
        }
    }

    /// Whether `e` lies in an array of its root document, one level
    /// down (an order's lines): an update of many of them names them by
    /// `$[e]` and the write's `arrayFilters`.
    pub(super) fn elements_in_root_array(&self, e: EntityId) -> bool {
        matches!(
            self.p.home[e.index()],
            Home::Embedded { host, array: true, .. } if host == self.p.root(e)
        )
    }

    /// A re-pointed link of the updated child: its reference (and copies)
    /// set, and its id moved from the old parent's array to the new one's.
    fn relink(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        r: RelationshipId,
        edits: &mut Edits,
    ) {
        let f = self.facts;
        let name = self.name(e).to_string();
        let rel = f.model.relationship(r);
        if rel.child != e {
            return;
        }
        let parent = rel.parent;
        let pacc = self.access(parent);
        let pname = self.name(parent).to_string();
        let layout = self.layout(r);
        // The copies follow the new parent: read from it first (snapshots
        // too: the child now belongs to that parent). Where it is a
        // document of its own, the write takes the reference and the
        // copies from what that read found (audit43 K): not values the
        // caller passes beside the id the read took, which could name
        // another parent.
        let copied = match layout {
            Layout::ExtendedReference {
                copies_into: Side::Child,
                fields,
            } => Some(fields),
            _ => None,
        };
        let found = copied.filter(|_| pacc.prefix.is_empty()).map(|fields| {
            let by = ValueSource::New {
                field: rel.child_field.clone(),
            };
            self.read_copies_by(plan, op, parent, fields, 1.0, by);
            plan.steps.len()
        });
        if let Some(p) = self.parent_ref_path(r) {
            edits.updates.push(match found {
                Some(step) => UpdateOp::CopyFrom {
                    path: edits.at(&p),
                    step,
                    field: "_id".to_string(),
                },
                None => UpdateOp::Set { path: edits.at(&p) },
            });
        }
        match (layout, found) {
            (_, Some(step)) => {
                for c in copied.into_iter().flatten() {
                    edits.updates.push(UpdateOp::CopyFrom {
                        path: edits.at(&format!("{}.{c}", rel.child_field)),
                        step,
                        field: c.clone(),
                    });
                }
            }
            (
                Layout::ExtendedReference {
                    copies_into: Side::Child,
                    fields,
                },
                None,
            ) => {
                self.read_copies(plan, op, parent, fields, 1.0);
                for c in fields {
                    edits.updates.push(UpdateOp::Set {
                        path: edits.at(&format!("{}.{c}", rel.child_field)),
                    });
                }
            }
            // The parent lives in the child: the new one replaces it.
            (Layout::EmbedParentInChild, None) => edits.updates.push(UpdateOp::Set {
                path: edits.at(&rel.child_field),
            }),
            _ => {}
        }
        // A node of a tree moved: the paths of its subtree, and of what
        // references its subtree, follow the new parent's.
        if f.model.tree_of(e) == Some(r) {
            self.move_node(plan, op, e, r, &mut edits.extra);
        }
        let moves = matches!(layout, Layout::Embed | Layout::Bucket { .. });
        if self.child_ids_path(r).is_some() || matches!(layout, Layout::Subset { .. }) || moves {
            let path = pacc.path(&rel.parent_field);
            edits.extra.push((
                parent,
                Action::UpdateOne,
                vec![filt(
                    pacc.path("_id"),
                    FilterOp::Eq,
                    ValueSource::Old {
                        field: rel.child_field.clone(),
                    },
                )],
                vec![remove_id(rel, layout, path.clone())],
                1.0,
                0.0,
                Purpose::RemoveFromOldParent {
                    entity: name.clone(),
                    parent: pname.to_string(),
                },
                None,
            ));
            edits.extra.push((
                parent,
                Action::UpdateOne,
                vec![filt(
                    pacc.path("_id"),
                    FilterOp::Eq,
                    ValueSource::New {
                        field: rel.child_field.clone(),
                    },
                )],
                vec![add_id(rel, layout, path)],
                1.0,
                0.0,
                Purpose::AddToNewParent {
                    entity: name.clone(),
                    parent: pname.to_string(),
                },
                None,
            ));
            edits.nonatomic += 2;
        }
    }

    /// The copies of the changed fields that parents keep, and the
    /// parents' computed fields over them.
    fn refresh_parent_copies(
        &self,
        e: EntityId,
        changes: &[String],
        m: f64,
        (extra, rereads): (&mut Vec<ExtraWrite>, &mut Vec<Reread>),
    ) {
        let f = self.facts;
        let name = self.name(e).to_string();
        // Copies of the changed fields elsewhere, and computed fields.
        for r in f.rels_to[e.index()].iter().copied() {
            let rel = f.model.relationship(r);
            let layout = self.layout(r);
            let copied: Vec<&String> = match layout {
                Layout::Subset { fields, .. } => changes
                    .iter()
                    .filter(|c| fields.is_empty() || fields.contains(c))
                    .collect(),
                l => {
                    let fields = l.copies_in(Side::Parent);
                    changes.iter().filter(|c| fields.contains(c)).collect()
                }
            };
            if !copied.is_empty() {
                let pacc = self.access(rel.parent);
                let holders = f.typical_parents(r) * m;
                extra.push(self.refresh_write(
                    &name,
                    &copied,
                    (rel.parent, holders, scaled(rel.parents.max, m)),
                    filt(
                        pacc.path(&format!("{}._id", rel.parent_field)),
                        FilterOp::Eq,
                        ValueSource::Param,
                    ),
                    |c| pacc.path(&format!("{}.$.{c}", rel.parent_field)),
                ));
            }
            for (func, field, cname) in self.computed(r) {
                // A figure over a subset moves by the child's old and new
                // values, which its own write returns (`subset.rs`).
                if self.kept_filter(r, cname).is_some() {
                    continue;
                }
                if let Some(x) = field
                    && changes.contains(x)
                {
                    // A max (min, first, last) a lowered value may have
                    // held: read again from the children when it held it.
                    // A raised value still goes into a max by `$max` (a
                    // min by `$min`); the latest's value only when it is
                    // the latest, which the read again finds.
                    if matches!(
                        func,
                        AggregateFn::Min
                            | AggregateFn::Max
                            | AggregateFn::First
                            | AggregateFn::Last
                    ) {
                        rereads.push((r, func, x.clone(), cname.clone()));
                    }
                    if matches!(func, AggregateFn::First | AggregateFn::Last) {
                        continue;
                    }
                    let pacc = self.access(rel.parent);
                    let u = match func {
                        AggregateFn::Min => UpdateOp::Min {
                            path: pacc.path(cname),
                        },
                        AggregateFn::Max => UpdateOp::Max {
                            path: pacc.path(cname),
                        },
                        AggregateFn::Last | AggregateFn::First => UpdateOp::Set {
                            path: pacc.path(cname),
                        },
                        _ => UpdateOp::Inc {
                            path: pacc.path(cname),
                            by: None,
                            amount: None,
                        },
                    };
                    extra.push((
                        rel.parent,
                        Action::UpdateOne,
                        vec![filt(pacc.path("_id"), FilterOp::Eq, ValueSource::Param)],
                        vec![u],
                        m,
                        0.0,
                        Purpose::MaintainComputed {
                            field: cname.to_string(),
                            parent: self.name(rel.parent).to_string(),
                        },
                        None,
                    ));
                }
            }
        }
    }

    /// The copies in the paths of a tree's subtree.
    fn refresh_tree_paths(
        &self,
        e: EntityId,
        changes: &[String],
        m: f64,
        extra: &mut Vec<ExtraWrite>,
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        // The copies in the paths of a tree's subtree (the names on its
        // breadcrumbs), the node's own among them.
        if let Some(t) = f.model.tree_of(e)
            && let Layout::TreePath { fields } = self.layout(t)
        {
            let copied: Vec<&String> = changes.iter().filter(|c| fields.contains(c)).collect();
            if !copied.is_empty() {
                let pf = f.model.tree_path_field(t);
                let holders = f.model.tree_height(t) * m;
                let at_most = crate::model::Count::Finite(f.model.entity(e).count);
                extra.push(self.refresh_write(
                    &name,
                    &copied,
                    (e, holders, at_most),
                    filt(
                        acc.path(&format!("{pf}._id")),
                        FilterOp::Eq,
                        ValueSource::Param,
                    ),
                    |c| acc.path(&format!("{pf}.$.{c}")),
                ));
            }
        }
    }

    /// The copies of the changed (or re-pointed) fields that children keep.
    fn refresh_child_copies(&self, ch: &Change<'_>, m: f64, extra: &mut Vec<ExtraWrite>) {
        let &Change {
            entity: e,
            changes,
            relinks,
            ..
        } = ch;
        let f = self.facts;
        let name = self.name(e).to_string();
        for r in f.rels_from[e.index()].iter().copied() {
            let rel = f.model.relationship(r);
            let fields = self.layout(r).copies_in(Side::Child);
            if !fields.is_empty() {
                // Several parents: the copy sits in the element of this one.
                let at_parent = if rel.kind == RelationshipKind::ManyToMany || rel.shared {
                    format!("{}.$", rel.child_field)
                } else {
                    rel.child_field.clone()
                };
                // Snapshot copies keep the value of the child's writing. A
                // re-pointed reference of this entity changes the copy of it
                // (the seller moves to another region: its items' copies).
                let moved: Vec<&String> = relinks
                    .iter()
                    .map(|o| &f.model.relationship(*o).child_field)
                    .filter(|c| !changes.contains(c))
                    .collect();
                let copied: Vec<&String> = changes
                    .iter()
                    .chain(moved)
                    .filter(|c| fields.contains(c) && !rel.snapshot.contains(c))
                    .collect();
                if !copied.is_empty() {
                    let cacc = self.access(rel.child);
                    let holders = f.typical(r) * m;
                    // A copied field that identifies the parent, and that reads
                    // of the child filter on, finds the copies through the
                    // index those reads already use; otherwise the id.
                    let parent = f.model.entity(e);
                    let filtered = &f.rel(r).parent_fields_filtered;
                    let key = fields
                        .iter()
                        .find(|x| {
                            filtered.contains(x)
                                && parent
                                    .field(x)
                                    .and_then(|fd| fd.distinct)
                                    .is_some_and(|d| d >= parent.count && parent.count > 0)
                        })
                        .map_or("_id", String::as_str);
                    extra.push(self.refresh_write(
                        &name,
                        &copied,
                        (rel.child, holders, scaled(rel.children.max, m)),
                        filt(
                            cacc.path(&format!("{}.{key}", rel.child_field)),
                            FilterOp::Eq,
                            if key == "_id" {
                                ValueSource::Param
                            } else {
                                ValueSource::Old {
                                    field: key.to_string(),
                                }
                            },
                        ),
                        |c| cacc.path(&format!("{at_parent}.{c}")),
                    ));
                }
            }
        }
    }

    /// Writes the instance's own step (`own`, found first in an outlier's
    /// parent array when `by_one_id`), the writes elsewhere, and warns when
    /// the re-pointing is not atomic.
    fn write_update(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        ch: &Change<'_>,
        (own, by_one_id): (RootWrite<Vec<Purpose>>, bool),
        edits: Edits,
    ) {
        let &Change {
            entity: e,
            changes,
            relinks,
            multi,
            ..
        } = ch;
        let f = self.facts;
        let name = self.name(e).to_string();
        let Edits {
            extra,
            nonatomic,
            rereads,
            ..
        } = edits;
        // A bucket's own write names the child by the caller's filter, and
        // the parent's counters take the caller's id: they follow only
        // when that write matched.
        let bucketed = own
            .purpose
            .iter()
            .any(|p| matches!(p, Purpose::RecomputeBucket { .. }));
        let mut written = None;
        if !own.updates.is_empty() {
            // An outlier's child by its id: in its parent's array first.
            let fallback = if by_one_id && !multi && relinks.is_empty() {
                self.outlier_first(
                    plan,
                    op,
                    e,
                    ValueSource::Param,
                    |holder| {
                        changes
                            .iter()
                            .map(|c| UpdateOp::Set {
                                path: format!("{holder}.{c}"),
                            })
                            .collect()
                    },
                    Purpose::Update {
                        entity: name.clone(),
                    },
                )
            } else {
                None
            };
            let (mut step, cost, index) = self.root_write(plan, own);
            Self::as_fallback(&mut step, fallback);
            written = Some(self.push(plan, op, step, cost, index));
        }
        let moves = self.subset_moves(e, changes);
        if let (Some(k), false) = (written, moves.is_empty()) {
            self.keep_subsets(plan, op, e, k, &moves);
        }
        // The parents' extremes the changed child may have held: cleared
        // where it held one, and only then read again from the children.
        for (r, func, field, cname) in &rereads {
            self.reread_when_held(
                plan,
                op,
                (e, *r, &ValueSource::Param),
                (*func, field, cname),
            );
        }
        for (ent, action, filter, ups, docs, sync, why, copy_of) in extra {
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: ent,
                    action,
                    filter,
                    updates: ups,
                    docs,
                    sync,
                    purpose: why,
                },
            );
            if let Some(step) = plan.steps.last_mut() {
                step.copy_of = copy_of;
                if let (true, Some(k), true) = (
                    bucketed,
                    written,
                    step.purpose
                        .iter()
                        .any(|p| matches!(p, Purpose::MaintainComputed { .. })),
                ) {
                    // An edit retried matches its bucket again but sets
                    // what is there: only a changed bucket moves the
                    // parent's counters by the caller's difference.
                    gate_counters(std::slice::from_mut(step), k, true);
                }
            }
        }
        if nonatomic > 0 && !in_atomic_group(f.model, op) {
            plan.warnings.push(Warning::RepointNotAtomic {
                entity: name.clone(),
                updates: nonatomic
                    + usize::from(
                        !changes.is_empty()
                            || relinks.iter().any(|r| self.parent_ref_path(*r).is_some()),
                    ),
            });
        }
    }
}

impl<'a> Planner<'a> {
    /// The `updateMany` that refreshes the `copied` fields of `source` in
    /// the documents of `holder` that keep copies of them (`holders` of
    /// them typically, `at_most` at the model's maximum), found by
    /// `filter`, each copy at the path `at` gives it.
    fn refresh_write(
        &self,
        source: &str,
        copied: &[&String],
        (holder, holders, at_most): (EntityId, f64, crate::model::Count),
        filter: StepFilter,
        at: impl Fn(&str) -> String,
    ) -> ExtraWrite {
        (
            holder,
            Action::UpdateMany,
            vec![filter],
            copied
                .iter()
                .map(|c| UpdateOp::Set { path: at(c) })
                .collect(),
            holders,
            holders,
            self.refresh_purpose(source, copied, holders, holder, at_most),
            Some(source.to_string()),
        )
    }

    /// The writes a move of one node of tree `t` adds: the new parent's
    /// path read, then every path that runs through the node rewritten,
    /// the node's subtree's (itself included) and those of what references
    /// its subtree (the products of its categories).
    fn move_node(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        t: RelationshipId,
        extra: &mut Vec<ExtraWrite>,
    ) {
        let f = self.facts;
        let model = f.model;
        let name = self.name(e).to_string();
        let tree_path = matches!(self.layout(t), Layout::TreePath { .. });
        let holders: Vec<RelationshipId> = f.rels_from[e.index()]
            .iter()
            .copied()
            .filter(|&x| matches!(self.layout(x), Layout::PathReference))
            .collect();
        if !tree_path && holders.is_empty() {
            return;
        }
        // The new parent's path: its id is the value the move sets.
        let new_parent = ValueSource::New {
            field: model.relationship(t).child_field.clone(),
        };
        self.read_path(plan, op, e, new_parent);
        let h = model.tree_height(t);
        let rebase = |holder: EntityId, field: &str, n: f64| -> ExtraWrite {
            let acc = self.access(holder);
            (
                holder,
                Action::UpdateMany,
                vec![filt(acc.path(field), FilterOp::Eq, ValueSource::Param)],
                vec![UpdateOp::Rebase {
                    path: acc.path(field.trim_end_matches("._id")),
                }],
                n,
                n,
                Purpose::RebasePaths {
                    entity: name.clone(),
                    holder: self.name(holder).to_string(),
                    holders: n,
                },
                None,
            )
        };
        if tree_path {
            let pf = model.tree_path_field(t);
            extra.push(rebase(e, &format!("{pf}._id"), h));
        }
        for x in holders {
            let child = model.relationship(x).child;
            extra.push(rebase(
                child,
                &model.path_reference_field(x),
                h * f.typical(x),
            ));
        }
    }
}

/// The most holders `m` updated instances can have, each at most `max`.
fn scaled(max: crate::model::Count, m: f64) -> crate::model::Count {
    match max {
        crate::model::Count::Finite(n) => {
            crate::model::Count::Finite((n as f64 * m.max(1.0)).ceil() as u64)
        }
        unbounded => unbounded,
    }
}
