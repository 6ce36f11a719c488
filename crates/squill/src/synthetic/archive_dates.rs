//! The dates of an entity split by age (the archive pattern, audit49 B4):
//! the live collection holds the instances younger than the horizon, the
//! archive the older ones. Data loaded at `now` must say the same, or the
//! reads of recent instances (`since(30 days)`) find nothing and the first
//! run of the archiving job moves every live document.

use crate::design::{Design, EntityDecision};
use crate::model::{EntityId, Model};

const DAY_MS: f64 = 86_400_000.0;

/// The span (from, to, in milliseconds) the dates of field `field` of
/// entity `e` lie in, in data loaded at `now_ms`, when `e` is one side of
/// an archive split on that field: the live side from `now − horizon` up
/// to `now`; the archive from `now − horizon − span` up to
/// `now − horizon`, the span being what the archive holds at the
/// entity's inserts a day. An archive that expires keeps within the
/// newer half of the life it has left past the horizon, so that none has
/// expired when the data is loaded (as `live_date` keeps any expiring
/// date). `None` for any other field.
pub(super) fn window(
    model: &Model,
    design: &Design,
    e: EntityId,
    field: &str,
    now_ms: i64,
) -> Option<(i64, i64)> {
    let entity = model.entity(e);
    let live = entity.archive_of.unwrap_or(e);
    let name = &model.entity(live).name;
    let days = design.entities.iter().find_map(|d| match d {
        EntityDecision::Archive {
            entity,
            field: f,
            horizon_days,
            ..
        } if entity == name && f == field => Some(*horizon_days),
        _ => None,
    })?;
    let now = now_ms as f64;
    let horizon = now - days * DAY_MS;
    if entity.archive_of.is_none() {
        return Some((horizon as i64, now_ms));
    }
    let per_day = model.inserts_per_day(live).max(f64::MIN_POSITIVE);
    let mut span = entity.count as f64 / per_day * DAY_MS;
    if let Some(x) = entity.expires.as_ref() {
        let left = x.seconds as f64 * 1000.0 - days * DAY_MS;
        span = span.min(left / 2.0);
    }
    let span = span.max(DAY_MS.min(days * DAY_MS));
    Some(((horizon - span) as i64, horizon as i64 - 1))
}
