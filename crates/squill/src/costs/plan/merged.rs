//! An atomic group whose writes all address one instance of an entity
//! (`same: show`), planned as one update of that instance's document when
//! the layout keeps every write there: the filters and conditions joined
//! (an embedded element's key and its conditions in one `$elemMatch`), the
//! update operators merged. One round trip, one document written, and no
//! transaction: a single-document write is atomic (issue 41). Where the
//! writes land in several documents, or cannot share one update (paths
//! that overlap, two elements of one array), the group keeps its
//! transaction and the plan says why.

use super::{OpPlan, Planner};
use crate::design::{Action, Cost, MergeBlock, Step, StepCondition, UpdateOp};
use crate::model::{AtomicGroup, EntityId, FilterOp, Otherwise};

/// The group's one write and what it costs per execution of the group.
pub(super) struct Merged {
    pub step: Step,
    pub cost: Cost,
}

/// The path an update operator changes, for the operators one update can
/// hold beside others; `None` for the rest (pipeline stages, writes that
/// read another step's result), which are never merged.
fn simple_path(u: &UpdateOp) -> Option<&str> {
    match u {
        UpdateOp::Set { path }
        | UpdateOp::Unset { path }
        | UpdateOp::Inc { path, .. }
        | UpdateOp::Dec { path }
        | UpdateOp::Min { path }
        | UpdateOp::Max { path }
        | UpdateOp::Push { path, .. }
        | UpdateOp::AddToSet { path }
        | UpdateOp::Pull { path } => Some(path),
        _ => None,
    }
}

/// Whether one path is the other or lies under it (`seats` and
/// `seats.$.state`): MongoDB refuses such a pair in one update.
fn overlap(a: &str, b: &str) -> bool {
    let under =
        |x: &str, y: &str| x.len() > y.len() && x.starts_with(y) && x[y.len()..].starts_with('.');
    a == b || under(a, b) || under(b, a)
}

/// The array (or embedded object) a dotted path goes into: `seats` for
/// `seats.label` and `seats.$.state`; `None` for a field of the document
/// itself.
fn element_of(path: &str) -> Option<&str> {
    path.split_once('.').map(|(head, _)| head)
}

/// The step's own tests and changes inside an embedded array: they name
/// one element, which the update's positional `$` then means.
fn arrays(step: &Step) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let paths = step
        .filter
        .iter()
        .map(|f| f.path.as_str())
        .chain(step.conditions.iter().map(|c| c.path.as_str()))
        .chain(
            step.updates
                .iter()
                .filter_map(|u| simple_path(u).filter(|p| p.contains(".$"))),
        );
    for p in paths {
        if let Some(a) = element_of(p)
            && !out.contains(&a)
        {
            out.push(a);
        }
    }
    out
}

/// Whether the step is a plain single-document update: nothing run
/// instead of or after another step, no batch, no pipeline.
fn plain_update(step: &Step) -> bool {
    step.action == Action::UpdateOne
        && step.every.is_none()
        && !step.fallback
        && step.if_matched.is_none()
        && !step.if_changed
        && step.if_deleted_all.is_none()
        && step.each.is_none()
        && step.copy_of.is_none()
        && !step.batch
        && step.updates.iter().all(|u| simple_path(u).is_some())
}

/// What the group does when nothing matches: one answer for all of its
/// writes. An `undo` has nothing to undo in one write: the caller is told.
fn one_otherwise(steps: &[&Step]) -> Result<Option<Otherwise>, MergeBlock> {
    let mut out: Option<Otherwise> = None;
    for s in steps {
        let Some(o) = s.otherwise else { continue };
        let o = if o == Otherwise::Undo {
            Otherwise::Fail
        } else {
            o
        };
        match out {
            Some(x) if x != o => return Err(MergeBlock::Otherwise),
            _ => out = Some(o),
        }
    }
    Ok(out)
}

/// Whether the step changes an element through the positional `$`.
fn positional(step: &Step) -> bool {
    step.updates
        .iter()
        .filter_map(simple_path)
        .any(|p| p.contains(".$"))
}

/// Joins the steps of the group's writes into one update, or says why not.
fn join(steps: &[&Step]) -> Result<Step, MergeBlock> {
    let first = steps[0];
    let mut step = first.clone();
    let mut claimed: Vec<&str> = arrays(first);
    // `$` is one position for the whole update, the one the query matched
    // last: once the joined query goes into two arrays, an element write
    // through it may land on the wrong element (SERVER-18500).
    let dollar = steps.iter().any(|s| positional(s));
    for s in &steps[1..] {
        if s.collection != first.collection {
            return Err(MergeBlock::Split);
        }
        for a in arrays(s) {
            if claimed.contains(&a) {
                return Err(MergeBlock::OneArray { array: a.into() });
            }
            if dollar && let Some(c) = claimed.first() {
                return Err(MergeBlock::Arrays {
                    first: c.to_string(),
                    second: a.into(),
                });
            }
            claimed.push(a);
        }
        for f in &s.filter {
            // A field of the document itself, tested by both: the same
            // document has one value, so the test is one.
            match step.filter.iter().find(|g| g.path == f.path) {
                Some(g) if g.op == f.op && f.op == FilterOp::Eq => {}
                Some(_) => {
                    return Err(MergeBlock::Conflict {
                        first: f.path.clone(),
                        second: f.path.clone(),
                    });
                }
                None => step.filter.push(f.clone()),
            }
        }
        for c in &s.conditions {
            if !step.conditions.contains(c) {
                step.conditions.push(StepCondition::clone(c));
            }
        }
        for u in &s.updates {
            let p = simple_path(u).unwrap_or_default();
            if let Some(q) = step
                .updates
                .iter()
                .filter_map(simple_path)
                .find(|q| overlap(p, q))
            {
                return Err(MergeBlock::Conflict {
                    first: q.to_string(),
                    second: p.to_string(),
                });
            }
            step.updates.push(u.clone());
        }
        for p in &s.purpose {
            if !step.purpose.contains(p) {
                step.purpose.push(p.clone());
            }
        }
        step.documents = step.documents.max(s.documents);
    }
    step.otherwise = one_otherwise(steps)?;
    Ok(step)
}

/// Component by component, the most any of the writes costs: they are one
/// update of one document, which is found once and written once.
fn one_write(costs: &[Cost]) -> Cost {
    let mut c = Cost::default();
    for x in costs {
        c.round_trips = c.round_trips.max(x.round_trips);
        c.documents_examined = c.documents_examined.max(x.documents_examined);
        c.index_keys_examined = c.index_keys_examined.max(x.index_keys_examined);
        c.bytes_read = c.bytes_read.max(x.bytes_read);
        c.bytes_written = c.bytes_written.max(x.bytes_written);
        c.sync_writes = c.sync_writes.max(x.sync_writes);
        c.documents_written = c.documents_written.max(x.documents_written);
    }
    c
}

impl Planner<'_> {
    /// The group's one update, when every write of `group` is one plain
    /// update of the same document of `entity`'s collection, with `entity`
    /// the root of that collection (its `_id` is the document's).
    pub(super) fn merged(
        &self,
        group: &AtomicGroup,
        entity: EntityId,
        plans: &[OpPlan],
    ) -> Result<Merged, MergeBlock> {
        let model = self.facts.model;
        let access = self.access(entity);
        if !access.prefix.is_empty() || access.root != entity {
            return Err(MergeBlock::Split);
        }
        let mut steps: Vec<&Step> = Vec::new();
        for (o, p) in group.operations.iter().zip(plans) {
            let name = model.operation(*o).name.as_str();
            let [step] = p.steps.as_slice() else {
                return Err(if p.steps.len() > 1 {
                    MergeBlock::Split
                } else {
                    MergeBlock::NotOneUpdate {
                        operation: name.into(),
                    }
                });
            };
            if step.collection != access.collection {
                return Err(MergeBlock::Split);
            }
            if p.transaction || !plain_update(step) || !step.filter.iter().any(|f| f.path == "_id")
            {
                return Err(MergeBlock::NotOneUpdate {
                    operation: name.into(),
                });
            }
            // A write that skips when its condition fails would, in the
            // one filter, stop the others' writes with it, silently.
            if step.otherwise == Some(Otherwise::Skip) && group.operations.len() > 1 {
                return Err(MergeBlock::Skips {
                    operation: name.into(),
                });
            }
            steps.push(step);
        }
        let step = join(&steps)?;
        let costs: Vec<Cost> = plans.iter().map(|p| p.cost).collect();
        Ok(Merged {
            step,
            cost: one_write(&costs),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::overlap;

    #[test]
    fn paths_overlap_when_one_is_under_the_other() {
        assert!(overlap("seats", "seats.$.state"));
        assert!(overlap("seats.$.state", "seats.$.state"));
        assert!(!overlap("seats_left", "seats"));
        assert!(!overlap("seats.$.state", "seats.$.price"));
    }
}
