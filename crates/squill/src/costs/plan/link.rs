//! Links between existing instances (a star, a track added to a playlist)
//! and their removal: the id (and any copies) written where the layout keeps
//! them, on one side or both, and the counters kept of the link.

use super::*;

impl<'a> Planner<'a> {
    /// Plans a link (or an unlink) of `r`; whether it writes the parent's
    /// document, which a condition of the link tests (`link_guarded`).
    pub(super) fn link(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        r: RelationshipId,
        unlink: bool,
    ) -> bool {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        let (parent, child) = (rel.parent, rel.child);
        let (pname, cname) = (self.name(parent).to_string(), self.name(child).to_string());
        let why = |entity: &str, to: &str| {
            let (entity, to) = (entity.to_string(), to.to_string());
            if unlink {
                Purpose::Unlink { entity, to }
            } else {
                Purpose::Link { entity, to }
            }
        };
        // Writes on the parent's document and on the child's, each in one
        // update whatever it carries.
        let mut on_parent: (Vec<UpdateOp>, Vec<Purpose>) = (Vec::new(), Vec::new());
        let mut on_child: (Vec<UpdateOp>, Vec<Purpose>) = (Vec::new(), Vec::new());
        let many = rel.kind == RelationshipKind::ManyToMany || rel.shared;
        if let Some(path) = self.child_ids_path(r) {
            // An extended reference keeps copies with each id: the child is
            // read first for them. An id kept in an object (with copies or
            // the link's attributes) is pushed as that object.
            let path = self.access(parent).path(&path);
            let copies = layout.copies_in(Side::Parent);
            if !copies.is_empty() && !unlink {
                self.read_copies(plan, op, child, copies, 1.0);
            }
            let u = match layout {
                _ if unlink => remove_id(rel, layout, path),
                _ if single_id(rel, layout) => UpdateOp::Set { path },
                _ if path.ends_with("._id") => UpdateOp::Push {
                    path: self.access(parent).path(&rel.parent_field),
                    sort: None,
                    slice: None,
                },
                _ => UpdateOp::AddToSet { path },
            };
            on_parent.0.push(u);
            on_parent.1.push(why(&pname, &cname));
        }
        if let Some(path) = self.parent_ref_path(r) {
            let path = self.access(child).path(&path);
            let copies = layout.copies_in(Side::Child);
            if !copies.is_empty() && !unlink {
                self.read_copies(plan, op, parent, copies, 1.0);
            }
            let object = path.ends_with("._id");
            let u = match layout {
                _ if unlink && many => UpdateOp::Pull { path },
                _ if unlink => UpdateOp::Unset { path },
                _ if many && object => UpdateOp::Push {
                    path: self.access(child).path(&rel.child_field),
                    sort: None,
                    slice: None,
                },
                _ if many => UpdateOp::AddToSet { path },
                _ if object => UpdateOp::Set {
                    path: self.access(child).path(&rel.child_field),
                },
                _ => UpdateOp::Set { path },
            };
            on_child.0.push(u);
            on_child.1.push(why(&cname, &pname));
        }
        // The child lives inside its parent(s) (all of it, or the latest K):
        // linking writes a copy of it there, unlinking pulls it out.
        let inside = match layout {
            Layout::Embed => Some((None, None)),
            Layout::Subset { k, sort_field, .. } => {
                Some((sort_field.clone().map(|s| (s, -1)), Some(-(*k as i64))))
            }
            _ => None,
        };
        if let Some((sort, slice)) = inside {
            let path = self.access(parent).path(&rel.parent_field);
            on_parent.0.push(if unlink {
                UpdateOp::Pull { path }
            } else {
                UpdateOp::Push { path, sort, slice }
            });
            on_parent.1.push(why(&pname, &cname));
        }
        for (func, field, name) in self.computed(r) {
            // A count follows the links; a sum, min or max of the child's
            // field would need the child's value, which a link does not carry.
            if func == AggregateFn::Count {
                let path = self.access(parent).path(name);
                on_parent.0.push(if unlink {
                    UpdateOp::Dec { path }
                } else {
                    UpdateOp::Inc {
                        path,
                        by: None,
                        amount: None,
                    }
                });
                on_parent.1.push(Purpose::KeepComputed {
                    function: crate::candidates::fn_name(func).to_string(),
                    field: field.map(|x| x.to_string()),
                    entity: cname.clone(),
                    parent: pname.clone(),
                });
            }
        }
        // Two writes outside an atomic group get their warning with the
        // plan's other writes (`Planner::plan`), once; that one counts
        // kinds of documents, so a link of an entity with itself (two
        // employees) warns here.
        let both = !on_parent.0.is_empty() && !on_child.0.is_empty();
        if both && parent == child && !in_atomic_group(f.model, op) {
            plan.warnings.push(Warning::NotAtomic {
                operation: f.model.operation(op).name.clone(),
                writes: 2,
                written: vec![f.model.entity(parent).name.clone()],
            });
        }
        let writes_parent = !on_parent.0.is_empty();
        for (e, (updates, purposes)) in [(parent, on_parent), (child, on_child)] {
            if updates.is_empty() {
                continue;
            }
            let filter = self.id_filter(e, ValueSource::Param);
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: e,
                    action: Action::UpdateOne,
                    filter,
                    updates,
                    docs: 1.0,
                    sync: 0.0,
                    purpose: purposes,
                },
            );
        }
        writes_parent
    }

    /// A step that reads the fields an extended reference copies from the
    /// `n` instances being linked (their ids are given).
    pub(super) fn read_copies(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        fields: &[String],
        n: f64,
    ) {
        self.read_copies_by(plan, op, e, fields, n, ValueSource::Param);
    }

    /// `read_copies` of the instance (or instances) whose `_id` comes
    /// from `by` (the new parent of a relink: `ValueSource::New`).
    pub(super) fn read_copies_by(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        fields: &[String],
        n: f64,
        by: ValueSource,
    ) {
        let acc = self.access(e);
        let mut step = Self::step(
            &acc.collection,
            Action::Find,
            Purpose::ReadCopies {
                entity: self.name(e).to_string(),
                fields: fields.to_vec(),
            },
        );
        step.filter = vec![filt(
            acc.path("_id"),
            if n > 1.0 { FilterOp::In } else { FilterOp::Eq },
            by,
        )];
        step.projection = fields.iter().map(|x| acc.path(x)).collect();
        step.documents = n;
        let cost = StepCost {
            keys: n,
            docs: n,
            bytes_read: n * acc.root_bytes,
            ..StepCost::default()
        };
        self.push(
            plan,
            op,
            step,
            cost,
            Some((vec![(acc.path("_id"), 1)], acc.root, acc.docs)),
        );
    }

    /// A change of the link's own fields: `$set` on the one array element
    /// that holds them, in each side's document that keeps a changed one
    /// (found by its id and the other side's id in the element). Links kept
    /// as documents of their own are an entity by then (`model::junction`),
    /// and this is an update of it.
    pub(super) fn change_link(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        r: RelationshipId,
        changes: &[String],
    ) {
        let f = self.facts;
        let rel = f.model.relationship(r);
        let layout = self.layout(r);
        for side in [Side::Parent, Side::Child] {
            let fields: Vec<String> = f
                .attributes_on(r, side, layout)
                .map(|a| a.name.clone())
                .filter(|a| changes.contains(a))
                .collect();
            let (e, to, ids) = match side {
                Side::Parent => (rel.parent, rel.child, self.child_ids_path(r)),
                Side::Child => (rel.child, rel.parent, self.parent_ref_path(r)),
            };
            // Attributes are kept only with ids in objects (`{_id, role}`).
            let Some(array) = ids.as_deref().and_then(|p| p.strip_suffix("._id")) else {
                continue;
            };
            if fields.is_empty() {
                continue;
            }
            let acc = self.access(e);
            let mut filter = self.id_filter(e, ValueSource::Param);
            filter.push(filt(
                acc.path(&format!("{array}._id")),
                FilterOp::Eq,
                ValueSource::Param,
            ));
            let updates = fields
                .iter()
                .map(|a| UpdateOp::Set {
                    path: acc.path(&format!("{array}.$.{a}")),
                })
                .collect();
            let why = Purpose::ChangeLink {
                entity: self.name(e).to_string(),
                to: self.name(to).to_string(),
                fields,
            };
            self.write_root(
                plan,
                op,
                RootWrite {
                    entity: e,
                    action: Action::UpdateOne,
                    filter,
                    updates,
                    docs: 1.0,
                    sync: 0.0,
                    purpose: [why],
                },
            );
        }
    }
}
