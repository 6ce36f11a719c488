//! `count-and-expiry-disagree`: An expiring entity's count and its insert
//! rate times the time it lives describe one fact; when they disagree
//! beyond 2×, the model says two things, and squill says which it uses.

crate::rules::declare_rule! {
    id: "count-and-expiry-disagree",
    summary: "An expiring entity's count and its inserts times the time it lives describe one fact; beyond 2× apart, squill keeps the count for sizes and says so",
    kind: Design,
    severity: Warning,
    sources: ["002_6843193bac1933d0.txt"],
    check: Design(check),
}

use crate::candidates::growth::DISAGREE_FACTOR;
use crate::finding::{Evidence, Finding};
use crate::model::{EntityId, Model, OperationKind};
use crate::rules::judge::DesignCheck;
use crate::words;

/// One warning per expiring entity whose stated count lies beyond
/// `DISAGREE_FACTOR` of its steady state: the inserts per second times
/// the seconds each instance lives. An instance whose expiry date an
/// update moves (a session's `last_used`) lives at least that long, so
/// only a count below the steady state's floor is a disagreement there.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for e in model.entity_ids() {
        let entity = model.entity(e);
        let Some(x) = &entity.expires else { continue };
        // An archived entity expires in its archive (`model::archive`):
        // the fact is the original's, its count both halves'.
        let (original, count) = match entity.archive_of {
            Some(o) => (o, model.entity(o).count + entity.count),
            None => (e, entity.count),
        };
        // Over a life of days the rate is an average: anything between
        // the quietest mix's and the busiest's (a rate stated at the peak
        // is the busiest).
        let rates: Vec<f64> = (0..model.workload.mixes.len().max(1))
            .map(|m| model.inserts_per_second(original, m))
            .collect();
        let least = rates.iter().copied().fold(f64::INFINITY, f64::min);
        let most = rates.iter().copied().fold(0.0, f64::max);
        if least <= 0.0 || x.seconds == 0 {
            continue;
        }
        let lives = x.seconds as f64;
        let refreshed = refreshed(model, original, &x.field);
        let count = count as f64;
        let below = count * DISAGREE_FACTOR < least * lives;
        let above = !refreshed && count > most * lives * DISAGREE_FACTOR;
        if !below && !above {
            continue;
        }
        let inserts = model.inserts_per_second(original, cx.facts.mix);
        let steady = inserts * lives;
        let name = &model.entity(original).name;
        let plural = words::plural(name);
        let life = words::duration_seconds(x.seconds);
        let holds = if refreshed {
            format!("at least {}", words::num(steady))
        } else {
            format!("about {}", words::num(steady))
        };
        let moved = if refreshed {
            format!(" (later, as its `{}` moves on)", x.field)
        } else {
            String::new()
        };
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{name}: {} {plural}/s inserted, each deleted {life} after its `{}`{moved}, make {holds} {plural} at any time; the count says {}: more than {}× apart. squill sizes {plural} by the count, and prices their inserts and deletes at the insert rate",
                words::num(inserts),
                x.field,
                words::num(count),
                words::num(DISAGREE_FACTOR),
            ),
            location: DesignCheck::at(format!("entities.{name}.count")),
            evidence: vec![
                Evidence::new("count", count),
                Evidence::new("inserts_per_second", inserts),
                Evidence::new("expire_after_seconds", x.seconds),
                Evidence::new("steady_state_count", steady),
                Evidence::new("expiry_date_updated", refreshed),
            ],
            help: Some(format!(
                "make the two agree: the {plural} alive at once are the inserts per second times the seconds each lives; the count sizes every collection and index that holds them (documents, index entries, the working set), the inserts every write. A rate stated at the peak overstates them: a mix at the average rate (`mixes`) says both"
            )),
        });
    }
    out
}

/// Whether an update of `e` changes its expiry's date field: each
/// instance then lives from that update on, not from its insert.
fn refreshed(model: &Model, e: EntityId, field: &str) -> bool {
    model.workload.operations.iter().any(|op| {
        matches!(&op.kind, OperationKind::Update { entity, changes, .. }
            if *entity == e && changes.iter().any(|c| c == field))
    })
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// Alerts raised 20/s and deleted 3 days later: 5,184,000 alive.
    const ALERTS: &str = r"
entities:
  device:
    count: 10000
    fields: {name: string(18)}
  alert:
    count: COUNT
    fields: {raised_at: date, text: string(60)}
    expires: {from: raised_at, after: 3 days}
relationships:
  alerts:
    parent: device
    child: alert
    children: {min: 0, typical: 500, max: 50000}
    child_field: device
operations:
  raise:
    insert: alert
    links: [alerts]
    rate: 20
  latest:
    read: alert
    rate: 2
    filter: {device: eq}
    sort: -raised_at
    limit: 50
";

    fn findings_of(yaml: &str) -> Vec<crate::finding::Finding> {
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        })
    }

    /// The fleet of audit43 F: a count of 100,000 against 5,184,000 alive.
    #[test]
    fn fires_on_a_count_far_below_the_steady_state() {
        let found = findings_of(&ALERTS.replace("COUNT", "100000"));
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(f.rule, RULE.id);
        assert!(
            f.message.starts_with("alert: 20 alerts/s inserted, each deleted 3 days after its `raised_at`, make about 5,184,000 alerts at any time; the count says 100,000"),
            "{}",
            f.message
        );
    }

    #[test]
    fn fires_on_a_count_far_above_it() {
        assert_eq!(findings_of(&ALERTS.replace("COUNT", "11000000")).len(), 1);
    }

    /// Near misses: within 2× on either side.
    #[test]
    fn stays_quiet_within_the_factor() {
        assert!(findings_of(&ALERTS.replace("COUNT", "2600000")).is_empty());
        assert!(findings_of(&ALERTS.replace("COUNT", "10000000")).is_empty());
    }

    /// A rate of the peak beside a mix at the average: the count lies
    /// between the two steady states, and nothing is said.
    #[test]
    fn a_quieter_mix_widens_what_the_count_may_be() {
        let mixed = ALERTS
            .replace("COUNT", "1000000")
            .replace("    rate: 20\n", "    rates: {peak: 20, average: 2}\n")
            .replace("    rate: 2\n", "    rates: {peak: 2, average: 2}\n");
        let mixed = format!("mixes: [peak, average]\n{mixed}");
        assert!(findings_of(&mixed).is_empty(), "{:?}", findings_of(&mixed));
        // 1,000,000 lies below half of 5,184,000: the peak alone disagrees.
        assert_eq!(findings_of(&ALERTS.replace("COUNT", "1000000")).len(), 1);
    }

    /// An alert whose date each update moves lives longer than 3 days: a
    /// count far above the floor is no disagreement, one below it is.
    #[test]
    fn a_moved_expiry_date_bounds_the_count_from_below_only() {
        let touched = ALERTS.replace("COUNT", "50000000")
            + "  touch:\n    update: alert\n    filter: {_id: eq}\n    changes: [raised_at]\n    rate: 5\n";
        assert!(findings_of(&touched).is_empty());
        let low = touched.replace("count: 50000000", "count: 100000");
        let found = findings_of(&low);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("make at least 5,184,000 alerts"), "{}", found[0].message);
    }
}
