//! A relationship whose every child has a parent (`parents.min` of 1 or
//! more, the default) while an insert of the child does not link through
//! it (no `links: [rel]`): the insert writes a child without its parent,
//! which the model says no child is. The model contradicts itself. What
//! squill writes follows the inserts, not the stated minimum: the
//! validator leaves the reference optional (requiring it would refuse
//! every such insert, audit49 B2), and the rule `unlinked-parent` says
//! which figure to correct.

use super::{Model, Operation, OperationKind, RelationshipId};

/// The inserts of `r`'s child that do not link through `r`, where every
/// child has one parent there (`parents.min` > 0, not a tree's own
/// relationship, not a many-to-many or shared one, whose ids are an
/// array the validator does not require to be non-empty).
pub fn inserts_without_parent(model: &Model, r: RelationshipId) -> Vec<&Operation> {
    let rel = model.relationship(r);
    if !rel.one_parent() || rel.parents.min == 0 || rel.parent == rel.child {
        return Vec::new();
    }
    model
        .workload
        .operations
        .iter()
        .filter(|op| {
            matches!(&op.kind, OperationKind::Insert { entity, links, .. }
                if *entity == rel.child && !links.contains(&r))
        })
        .collect()
}
