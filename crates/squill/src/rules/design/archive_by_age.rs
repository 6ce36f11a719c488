//! `archive-by-age`: Move the instances older than the reads' horizon to an archive collection when their indexes cost more in memory than the moves cost.

crate::rules::declare_rule! {
    id: "archive-by-age",
    summary: "Move the instances older than the reads' horizon to an archive collection when keeping their index entries in memory costs more than moving them",
    kind: Design,
    severity: Info,
    sources: ["MongoDB manual: Archive Pattern", "MongoDB manual: Subset Pattern (working set)"],
    check: Relationship { order: 216, check },
}

use crate::design::reason::{Figure, explain};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// An entity split by age: what its live collection keeps in memory
/// against the one collection it replaces, and what the design saves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitByAge {
    /// The entity, and the archive collection its older instances move to.
    pub entity: String,
    pub archive: String,
    /// The reads' horizon, and the instances older than it.
    pub days: Figure,
    pub archived: Figure,
    /// Index entries (and their bytes) the live collection holds, and the
    /// whole collection would hold without the archive.
    pub index_entries: Figure,
    pub index_bytes: Figure,
    pub index_entries_without: Figure,
    pub index_bytes_without: Figure,
    /// What the design costs less per second with the split.
    pub saves: Figure,
    /// Instances the scheduled job moves, per second.
    pub moved: Figure,
    /// Operations that run on both collections.
    pub on_both: Vec<String>,
}

explain!(SplitByAge, |w| {
    // Only when no operation runs on both collections does every read
    // keep to the horizon (audit48 C2: a history of every age was said
    // to keep to the last day).
    let period = words::last_period(w.days.value);
    let moved = if w.on_both.is_empty() {
        format!(
            "the reads of {} keep to {period}: the {} older ones move to {}",
            words::plural(&w.entity),
            words::num(w.archived.value),
            w.archive
        )
    } else {
        format!(
            "the {} {} older than {period} move to {}",
            words::num(w.archived.value),
            words::plural(&w.entity),
            w.archive
        )
    };
    let mut s = format!(
        "{moved}, whose indexes leave memory: {} index entries ({}) held instead of {} ({}); the design costs {} less per second",
        words::num(w.index_entries.value),
        words::bytes(w.index_bytes.value),
        words::num(w.index_entries_without.value),
        words::bytes(w.index_bytes_without.value),
        words::num(w.saves.value),
    );
    s.push_str(&format!(", after a job that moves {}", words::rate(w.moved.value)));
    if !w.on_both.is_empty() {
        s.push_str(&format!(
            " and the operations that run on both collections ({})",
            w.on_both.join(", ")
        ));
    }
    s
});

/// The archive is not one of a relationship's candidates: advise prices
/// the model with the entity split by age and states the comparison in an
/// entity decision (see `advise::advise_with_model`). Judging one
/// relationship's layout, this rule has nothing to say.
pub fn check(_cx: &RelCheck<'_>) -> Option<Judgement> {
    None
}

#[cfg(test)]
mod tests {
    use crate::advise::advise;
    use crate::design::EntityDecision;
    use crate::settings::Settings;

    fn archive(text: &str) -> Option<EntityDecision> {
        let model = crate::inputs::model_file::parse("orders.yaml", text).unwrap();
        let d = advise(&model, &Settings::default(), None).unwrap();
        d.entities
            .into_iter()
            .find(|e| matches!(e, EntityDecision::Archive { .. }))
    }

    /// Billions of orders read by the last 90 days: the old ones move out
    /// and their index entries leave memory.
    #[test]
    fn fires() {
        let Some(EntityDecision::Archive {
            archive,
            horizon_days,
            working_set,
            without_archive,
            rules,
            ..
        }) = archive(&orders(2_000_000_000, 0.1))
        else {
            panic!("no archive")
        };
        assert_eq!(archive, "order_archive");
        assert_eq!(horizon_days, 90.0);
        assert!(working_set.index_entries * 10 < without_archive.index_entries);
        assert_eq!(rules[0].rule, "archive-by-age");
        let split = rules[0].reason.get::<super::SplitByAge>().unwrap();
        assert_eq!((split.entity.as_str(), split.archive.as_str()), ("order", "order_archive"));
        assert_eq!(split.days.value, 90.0);
        assert_eq!(split.index_entries.value, working_set.index_entries as f64);
        assert_eq!(split.index_entries_without.value, without_archive.index_entries as f64);
        assert!(split.saves.value > 0.0);
        // Each read keeps to one side by its age filter.
        assert!(split.on_both.is_empty());
    }

    /// A history that fits the horizon has nothing to move.
    #[test]
    fn stays_quiet() {
        assert!(archive(&orders(50_000_000, 0.1)).is_none());
    }

    fn orders(count: u64, old_rate: f64) -> String {
        format!(
            r"
name: orders
entities:
  customer: {{count: 50000000, fields: {{name: string(20)}}}}
  order: {{count: {count}, fields: {{placed_at: date, total: decimal, status: string(10)}}}}
relationships:
  orders: {{parent: customer, child: order, children: {{typical: 40, max: 5000}}, standalone: true}}
operations:
  recent: {{read: order, rate: 5000, filter: {{customer: eq, placed_at: since(90 days)}}, sort: -placed_at, limit: 20}}
  old: {{read: order, rate: {old_rate}, filter: {{customer: eq, placed_at: before(90 days)}}, sort: -placed_at, limit: 20}}
  place: {{insert: order, links: [orders], rate: 11.6}}
"
        )
    }
}
