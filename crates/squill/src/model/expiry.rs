//! The reads and claims that must not see an expired document compare the
//! date themselves (audit45, gap 5).
//!
//! A TTL index deletes a document only when the server's monitor next runs
//! (about every 60 s), so an expired document stays readable for up to a
//! minute. Most reads do not care: a list of the newest sessions shows one
//! that ended a minute ago. Three kinds of operation do, whatever the
//! application, because what they return or act on is wrong once it
//! expired:
//!
//! - a claim (`claim:`) or another conditional write (`when:`): it acts on
//!   the document it matches, and an expired ticket or hold must not be
//!   matched again;
//! - a read that names one document by a key (`_id`, a unique key, or a
//!   field with a value per document, such as a token): its answer is
//!   whether the document is still valid;
//! - a read sorted oldest first on the date the expiry counts from: its
//!   first documents are exactly the expired ones the monitor has not yet
//!   deleted;
//! - an update that sets that date (a session touched on each use): on an
//!   expired document it would bring it back to life, or not, depending on
//!   whether the monitor got there first;
//! - a count (`returns: count`): its number is the whole answer, with no
//!   document for the caller to look at, and every expired document the
//!   monitor has not reached is one too many. Its filter may test the
//!   date already, with the caller's window (messages since the member
//!   last read the channel); that window knows nothing of the life, so
//!   the count keeps both tests (the other kinds keep a test of their own
//!   and get none added).
//!
//! Each of these gets the test `field > now − life` in its filter. It is a
//! range on the date the TTL index keys, so an index that serves the sort
//! already has it, and it keeps nearly every document (only the expired
//! ones the monitor has not reached), so its share is the entity's life
//! against its insert rate, as for any age (`Model::fill_age_shares`).
//! A date the model says may be missing (`required: false`: a job's
//! `finished_at`) is left alone: a document without it never expires, and
//! `$gt` would skip it.

use super::{Age, EntityId, Filter, FilterOp, Model, OperationKind};

/// The operations of `model` that must not see an expired document, each
/// with its entity's life added to its filter (`Age::expiry`).
pub fn compare_expiry(model: &mut Model) {
    for i in 0..model.workload.operations.len() {
        let op = &model.workload.operations[i];
        let (e, filter, sort) = match &op.kind {
            OperationKind::Read {
                entity,
                filter,
                sort,
                family,
                ..
            } if family.is_empty() => (*entity, filter, sort.as_slice()),
            OperationKind::Update {
                entity,
                filter,
                changes,
                ..
            } if op.terms.is_conditional() || sets_expiry(model, *entity, changes) => {
                (*entity, filter, op.terms.claim.as_deref().unwrap_or(&[]))
            }
            _ => continue,
        };
        let entity = model.entity(e);
        let Some(x) = &entity.expires else { continue };
        let required = entity.field(&x.field).is_some_and(|f| f.required);
        let compared = filter.iter().any(|f| f.path == [x.field.as_str()]);
        // A count's own test of the date is the caller's window (unread
        // since the member last looked), which knows nothing of the life:
        // both tests are kept.
        let counts = op.counts && matches!(op.kind, OperationKind::Read { .. });
        if !required || (compared && !counts) {
            continue;
        }
        let claims = matches!(op.kind, OperationKind::Update { .. });
        let oldest_first = sort
            .first()
            .is_some_and(|k| k.field == x.field && !k.descending);
        if !(claims || counts || oldest_first || names_one(model, e, filter)) {
            continue;
        }
        let test = bare_test(model, e, x);
        match &mut model.workload.operations[i].kind {
            OperationKind::Read { filter, .. } | OperationKind::Update { filter, .. } => {
                filter.push(test);
            }
            _ => {}
        }
    }
}

/// The test `field > now − life` of `e`'s expiry, its share not yet
/// set (`Model::fill_age_shares` sets it with every other age's).
fn bare_test(model: &Model, e: EntityId, x: &super::Expiry) -> Filter {
    Filter {
        age: Some(Age {
            days: x.seconds as f64 / 86_400.0,
            older: false,
            expiry: true,
        }),
        ..Filter::new(model, e, vec![x.field.clone()], FilterOp::Range)
    }
}

/// The test `field > now − life` for a read of `e` that only its layout
/// tells must compare the date: children embedded in an array, which no
/// TTL index deletes, read on their own (`costs::plan::elements`). The
/// share it keeps is set as `Model::fill_age_shares` sets every age's.
/// `None` when `e` does not expire, its date may be missing (a document
/// without it never expires), or `filter` already holds the life's test.
pub fn unexpired_test(model: &Model, e: EntityId, filter: &[Filter]) -> Option<Filter> {
    let entity = model.entity(e);
    let x = entity.expires.as_ref()?;
    let required = entity.field(&x.field).is_some_and(|f| f.required);
    let tested = filter.iter().any(|f| f.age.is_some_and(|a| a.expiry));
    if !required || tested {
        return None;
    }
    let mut test = bare_test(model, e, x);
    let rate = model.dates_written_per_day(e, &x.field, model.inserts_per_day(e));
    let age = test.age?;
    test.selectivity = Some(age.share(entity.count, rate).max(1e-9));
    Some(test)
}

/// Whether an update changing `changes` sets the date `e`'s expiry
/// counts from.
fn sets_expiry(model: &Model, e: super::EntityId, changes: &[String]) -> bool {
    model
        .entity(e)
        .expires
        .as_ref()
        .is_some_and(|x| changes.contains(&x.field))
}

/// Whether `filter` names one instance of `e`: by `_id` or a unique key,
/// or by equality on a field with as many values as instances (a token).
fn names_one(model: &Model, e: super::EntityId, filter: &[Filter]) -> bool {
    if super::identity(model, e, filter).is_some() {
        return true;
    }
    let entity = model.entity(e);
    filter.iter().any(|c| {
        c.op == FilterOp::Eq
            && c.related.is_none()
            && c.path.len() == 1
            && entity
                .field(&c.path[0])
                .and_then(|f| f.distinct)
                .is_some_and(|d| d >= entity.count)
    })
}

#[cfg(test)]
mod tests {
    use crate::model::OperationKind;

    /// Tickets that expire 2 minutes after they are queued, read four ways.
    const TICKETS: &str = r"
entities:
  ticket:
    count: 60000
    fields:
      region: {type: string(6), distinct: 12}
      code: {type: string(12), distinct: 60000}
      queued_at: date
      state: {type: string(8), enum: [waiting, matched]}
    expires: {from: queued_at, after: 2 minutes}
operations:
  queue: {insert: ticket, rate: 500}
  take: {claim: ticket, filter: {region: eq}, sort: queued_at, when: ['state = waiting'], changes: [state], rate: 500}
  by_code: {read: ticket, filter: {code: eq}, rate: 10}
  oldest: {read: ticket, filter: {region: eq}, sort: queued_at, limit: 10, rate: 10}
  newest: {read: ticket, filter: {region: eq}, sort: -queued_at, limit: 10, rate: 10}
  by_region: {read: ticket, filter: {region: eq}, rate: 10}
  requeue: {update: ticket, filter: {_id: eq}, changes: [queued_at], rate: 1}
  rename: {update: ticket, filter: {_id: eq}, changes: [region], rate: 1}
";

    /// The operations whose filter compares the ticket's life, by name.
    fn compared(yaml: &str) -> Vec<String> {
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        model
            .workload
            .operations
            .iter()
            .filter(|op| match &op.kind {
                OperationKind::Read { filter, .. } | OperationKind::Update { filter, .. } => {
                    filter.iter().any(|f| f.age.is_some_and(|a| a.expiry))
                }
                _ => false,
            })
            .map(|op| op.name.clone())
            .collect()
    }

    /// The claim, the lookup by a token, the read oldest first and the
    /// update that moves the date compare it; the newest first, the plain
    /// list and the update of another field (near misses: the same entity,
    /// the same field or the same filter) do not.
    #[test]
    fn the_reads_that_must_not_see_an_expired_document_compare_the_date() {
        assert_eq!(compared(TICKETS), ["take", "by_code", "oldest", "requeue"]);
    }

    /// A count compares the date (REVIEW46 10): with no test of its own,
    /// and with the caller's window on the date too (unread since the
    /// member last looked), which keeps its own test beside the life. The
    /// same filters listing the tickets are the near misses.
    #[test]
    fn a_count_compares_the_date_even_beside_the_callers_window() {
        let yaml = format!(
            "{TICKETS}  waiting: {{read: ticket, filter: {{region: eq}}, returns: count, rate: 1}}\n  \
             since: {{read: ticket, filter: {{region: eq, queued_at: range}}, returns: count, rate: 1}}\n  \
             listed: {{read: ticket, filter: {{region: eq, queued_at: range}}, rate: 1}}\n"
        );
        assert_eq!(
            compared(&yaml),
            ["take", "by_code", "oldest", "requeue", "waiting", "since"]
        );
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let since = model.workload.operations.iter().find(|o| o.name == "since");
        let Some(OperationKind::Read { filter, .. }) = since.map(|o| &o.kind) else {
            panic!("since is a read")
        };
        let on_date: Vec<bool> = filter
            .iter()
            .filter(|f| f.path == ["queued_at"])
            .map(|f| f.age.is_some_and(|a| a.expiry))
            .collect();
        assert_eq!(on_date, [false, true], "{filter:?}");
    }

    /// The test is the life stated, kept in full (the share of an age
    /// range of two minutes, at 500 inserts a second over 60,000).
    #[test]
    fn the_test_is_the_life_stated_and_keeps_every_live_document() {
        let model = crate::inputs::model_file::parse("test.yaml", TICKETS).expect("a valid model");
        let take = model.workload.operations.iter().find(|o| o.name == "take");
        let Some(OperationKind::Update { filter, .. }) = take.map(|o| &o.kind) else {
            panic!("take is a claim")
        };
        let test = filter.last().expect("a test");
        assert_eq!(test.path, ["queued_at"]);
        let age = test.age.expect("an age");
        assert!((age.days * 86_400.0 - 120.0).abs() < 1e-6, "{age:?}");
        assert_eq!(test.selectivity, Some(1.0));
    }

    /// A date that may be missing (a job's `finished_at`, set when it
    /// ends) is not compared: `$gt` would skip every document without it.
    #[test]
    fn an_optional_date_is_not_compared() {
        let yaml = TICKETS.replace(
            "queued_at: date",
            "queued_at: {type: date, required: false}",
        );
        assert!(compared(&yaml).is_empty());
    }

    /// A filter that already compares the date keeps its own test.
    #[test]
    fn a_read_that_compares_the_date_itself_is_left_alone() {
        let yaml = TICKETS.replace("filter: {code: eq}", "filter: {code: eq, queued_at: range}");
        assert_eq!(compared(&yaml), ["take", "oldest", "requeue"]);
    }
}
