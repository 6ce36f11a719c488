//! A failure between a `deleteMany` and the count-down of its parents
//! (issue 41). The count-down (`bulkWrite` of `$inc`s down by each parent's
//! group) runs after the delete, as a separate command: a run that fails
//! after the delete, or while it deletes, leaves the parents' counts and
//! sums high, and running the operation again finds nothing left to delete,
//! so nothing would ever take them down. The plan already holds the way to
//! set them right whatever was deleted: the recount of each parent touched
//! from the children it has left (`recount_unless_all_deleted`, run when
//! another delete took some first). The generated code runs those steps
//! when any step from the delete to the count-down fails, then raises the
//! error again. A process that dies there still leaves the counts high
//! (nothing of the operation runs after it); a transaction would cover
//! that too, at the cost of one over every child and parent touched.

use super::code::{OpCode, StepCode, Update, When};
use crate::design::Action;

/// The steps a failure must not leave half done, and what runs after it.
pub(super) struct Recovery {
    /// The `deleteMany`'s index in the operation's steps (from 0).
    pub first: usize,
    /// The count-down's index: the last step of the span.
    pub last: usize,
    /// The recount steps, as they run after a failure: unconditionally.
    pub recount: Vec<StepCode>,
}

/// The recovery of `op`'s gated count-down, when it has one: a delete of
/// many with a count-down and a recount, outside a transaction (an aborted
/// transaction takes the delete back with it).
pub(super) fn recovery(op: &OpCode) -> Option<Recovery> {
    if op.transaction {
        return None;
    }
    let counted_down = |s: &StepCode| match &s.when {
        Some(When::DeletedAll {
            delete,
            holds: true,
            ..
        }) => Some(delete.clone()),
        _ => None,
    };
    let delete = op.steps.iter().find_map(counted_down)?;
    let first = op.steps.iter().position(|s| s.key == delete)?;
    // The span ends at the delete's last count-down: a child counted in two
    // parents (a review in its product and its author) has one count-down
    // per parent, each followed by its own recount, and a failure at the
    // second leaves the second parent's counts high as much as one at the
    // first (review 41, D9).
    let last = op
        .steps
        .iter()
        .rposition(|s| counted_down(s).as_ref() == Some(&delete))?;
    // After a failure: the figures read again from the children left (a
    // min, a max, a last), which set what they read and so can run twice,
    // then the recounts, every one after the delete, in the plan's order
    // (those inside the span too: there they run only when another delete
    // took some children first). A step that adds or takes away an amount,
    // inserts or deletes is left out: run twice, it would count twice.
    let again = |s: &&StepCode| match &s.when {
        None => idempotent(s),
        Some(When::DeletedAll { holds: false, .. }) => true,
        _ => false,
    };
    let recount: Vec<StepCode> = op.steps[first + 1..]
        .iter()
        .filter(again)
        .map(|s| {
            let mut s = s.clone();
            s.when = None;
            let base = s.purpose.split(" — only when").next().unwrap_or_default();
            s.purpose = format!(
                "{base} — after a failure from step {} to step {}, before the error is raised again",
                first + 1,
                last + 1
            );
            s
        })
        .collect();
    let recounts = op.steps[first + 1..]
        .iter()
        .any(|s| matches!(s.when, Some(When::DeletedAll { holds: false, .. })));
    if !recounts {
        return None;
    }
    (first < last).then_some(Recovery {
        first,
        last,
        recount,
    })
}

/// Whether running `s` a second time leaves what one run leaves: a read,
/// or a write that only sets, unsets or pulls.
fn idempotent(s: &StepCode) -> bool {
    match s.action {
        Action::Find | Action::GraphLookup => true,
        Action::UpdateOne | Action::UpdateMany | Action::BulkWrite => {
            s.each.as_ref().is_none_or(|e| e.amounts.is_empty())
                && s.updates.iter().all(|u| {
                    matches!(
                        u,
                        Update::Set(..)
                            | Update::Unset(_)
                            | Update::Pull(..)
                            | Update::PullWhere(..)
                    )
                })
                && s.insert.is_none()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::recovery;
    use crate::fixtures;

    fn purge() -> super::OpCode {
        let (_, design) = fixtures::load("bucket-edits");
        super::super::op_codes(&design)
            .into_iter()
            .find(|o| o.name == "purge_rating")
            .expect("bucket-edits purges by rating")
    }

    /// The purge's delete (step 3) and count-down (step 4) are the span;
    /// after a failure there the max and last are read again and the
    /// counts recounted, each step ungated, in the plan's order.
    #[test]
    fn a_bulk_delete_recounts_after_a_failure_before_its_count_down() {
        let op = purge();
        let r = recovery(&op).expect("a recovery");
        assert_eq!((r.first, r.last), (2, 3));
        assert_eq!(op.steps[2].action, crate::design::Action::DeleteMany);
        let keys: Vec<&str> = r.recount.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "review_5",
                "product_6",
                "review_7",
                "product_8",
                "review_9",
                "product_10"
            ]
        );
        assert!(r.recount.iter().all(|s| s.when.is_none()));
        // The Python and JavaScript functions hold it.
        let py = super::super::render::python(&op);
        assert!(
            py.contains("    try:\n")
                && py.contains("    except Exception:\n        # read the max"),
            "{py}"
        );
        let js = super::super::render::mongosh(&op);
        assert!(
            js.contains("  let review_3, product;\n  try {\n")
                && js.contains("    throw e;\n  }\n"),
            "{js}"
        );
    }

    /// A review counted in its product and in its author (review 41, D9):
    /// the delete has two count-downs, and the span runs to the second, so
    /// a failure at the author's count-down recounts too; the recounts of
    /// both parents run after a failure.
    #[test]
    fn a_bulk_delete_with_two_parents_counted_recovers_up_to_the_last_count_down() {
        let text = "entities:
  product: {count: 1000, fields: {name: string(30)}}
  user: {count: 10000, fields: {name: string(20)}}
  review: {count: 50000, fields: {rating: {type: int, distinct: 5}, text: string(100)}}
relationships:
  reviews: {parent: product, child: review, children: {min: 0, typical: 50, max: 5000}, child_field: product, layout: parent-reference}
  written: {parent: user, child: review, children: {min: 0, typical: 5, max: 500}, child_field: author, layout: parent-reference}
operations:
  product_page: {read: product, filter: {_id: eq}, rate: 500, aggregates: [count(reviews)]}
  user_page: {read: user, filter: {_id: eq}, rate: 100, aggregates: [count(written)]}
  add_review: {insert: review, links: [reviews, written], rate: 5}
  purge_rating: {delete: review, filter: {rating: eq}, rate: 0.001}
";
        let model = crate::inputs::model_file::parse("purge2.yaml", text).unwrap();
        let design =
            crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let op = super::super::op_codes(&design)
            .into_iter()
            .find(|o| o.name == "purge_rating")
            .expect("purge2 purges by rating");
        let r = recovery(&op).expect("a recovery");
        let gated: Vec<usize> = op
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.when, Some(super::When::DeletedAll { holds: true, .. })))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(gated.len(), 2, "two count-downs: {gated:?}");
        assert_eq!(r.last, gated[1]);
        assert_eq!(op.steps[r.first].action, crate::design::Action::DeleteMany);
        // Every recount (both parents') runs after a failure, in order.
        let recounts: Vec<&str> = op
            .steps
            .iter()
            .filter(|s| matches!(s.when, Some(super::When::DeletedAll { holds: false, .. })))
            .map(|s| s.key.as_str())
            .collect();
        let keys: Vec<&str> = r.recount.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, recounts);
        let py = super::super::render::python(&op);
        let except = py.find("    except Exception:\n").expect("a try");
        let user_count_down = py
            .find("keep the count of reviews in the user — only when step")
            .expect("the user's count-down");
        assert!(user_count_down < except, "{py}");
    }

    /// Near miss: the same plan in a transaction, whose abort takes the
    /// delete back, needs none.
    #[test]
    fn a_bulk_delete_in_a_transaction_needs_no_recount() {
        let mut op = purge();
        op.transaction = true;
        assert!(recovery(&op).is_none());
    }
}
