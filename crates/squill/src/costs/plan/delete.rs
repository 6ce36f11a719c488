//! Deletes: the instance, and what refers to it.

use super::*;

impl<'a> Planner<'a> {
    pub(super) fn delete(
        &self,
        plan: &mut OpPlan,
        op: OperationId,
        e: EntityId,
        filter: &[Filter],
    ) {
        let f = self.facts;
        let acc = self.access(e);
        let name = self.name(e).to_string();
        let by_id = filter.is_empty()
            || filter
                .iter()
                .any(|c| c.path.len() == 1 && c.path[0] == "_id");
        let m = if by_id {
            1.0
        } else {
            self.matched(e, filter, None)
        };
        let from = if by_id {
            ValueSource::Param
        } else {
            let (_, n) = self.find(
                plan,
                op,
                e,
                filter,
                &[],
                None,
                &["_id".to_string()],
                Purpose::FindToDelete {
                    entity: name.clone(),
                },
            );
            ValueSource::FromStep { step: n }
        };
        match self.p.home[e.index()] {
            Home::Own => {
                let action = if m > 1.0 {
                    Action::DeleteMany
                } else {
                    Action::DeleteOne
                };
                self.write_root(
                    plan,
                    op,
                    e,
                    action,
                    vec![filt(
                        "_id",
                        if m > 1.0 { FilterOp::In } else { FilterOp::Eq },
                        from.clone(),
                    )],
                    Vec::new(),
                    m,
                    0.0,
                    Purpose::Delete {
                        entity: name.clone(),
                    },
                );
            }
            _ => {
                let host_path = acc.prefix.clone();
                self.write_root(
                    plan,
                    op,
                    e,
                    Action::UpdateOne,
                    vec![filt(acc.path("_id"), FilterOp::Eq, from.clone())],
                    vec![UpdateOp::Pull { path: host_path }],
                    m,
                    0.0,
                    Purpose::Pull {
                        entity: name.clone(),
                    },
                );
            }
        }
        for r in f.rels_to[e.index()].iter().copied() {
            let rel = f.model.relationship(r);
            let layout = self.layout(r);
            let mut ups = Vec::new();
            let pacc = self.access(rel.parent);
            if child_ids_path(layout, &rel.parent_field).is_some()
                || matches!(layout, Layout::Subset { .. })
            {
                ups.push(remove_id(rel, layout, pacc.path(&rel.parent_field)));
            }
            for (func, _, cname) in self.computed(r) {
                if matches!(
                    func,
                    AggregateFn::Count | AggregateFn::Sum | AggregateFn::Avg
                ) {
                    ups.push(UpdateOp::Inc {
                        path: pacc.path(cname),
                    });
                }
            }
            if !ups.is_empty() {
                let holders = f.typical_parents(r) * m;
                let action = if holders > 1.0 {
                    Action::UpdateMany
                } else {
                    Action::UpdateOne
                };
                self.write_root(
                    plan,
                    op,
                    rel.parent,
                    action,
                    vec![filt(
                        pacc.path(&rel.parent_field),
                        FilterOp::Eq,
                        from.clone(),
                    )],
                    ups,
                    holders,
                    0.0,
                    Purpose::RemoveFromParent {
                        entity: name.clone(),
                        parent: self.name(rel.parent).to_string(),
                    },
                );
            }
        }
        let _ = RelationshipKind::OneToOne;
    }
}
