//! The dates of an entity split by age (audit49 B4): in data loaded at
//! `now`, the live collection's dates lie within the horizon and the
//! archive's past it. The live entries were all dated 2024, so a read of
//! the last 30 days found nothing after a load, and the first run of the
//! archiving job moved every live document.

use super::documents::{Builder, Fanout};
use super::value::Value;
use super::*;

const LOG: &str = "name: log
entities:
  account: {count: 1000, fields: {name: string(20)}}
  entry:
    count: 100000000
    fields: {at: date, diff: string(200)}
relationships:
  entries: {parent: account, child: entry, children: {typical: 100000, max: 1000000}, child_field: account}
operations:
  log: {insert: entry, links: [entries], rate: 10}
  recent:
    read: entry
    filter: {entries: eq, at: since(30 days)}
    sort: -at
    limit: 20
    rate: 100
";

/// 2026-11-30T09:00:00Z.
const NOW: i64 = 1_796_029_200_000;
const DAY: i64 = 86_400_000;

fn dates(pop: &Population<'_>, design: &crate::design::Design, coll: &str) -> Vec<i64> {
    let b = Builder::new(pop, Fanout::Drawn);
    let c = design.collections.iter().find(|c| c.name == coll).unwrap();
    let mut out = Vec::new();
    pop.for_each_root(c, |root| -> Result<(), ()> {
        match b.document(c, &root).get("at") {
            Some(Value::Date(ms)) => out.push(*ms),
            other => panic!("{coll}.at: {other:?}"),
        }
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn live_dates_lie_within_the_horizon_and_archived_ones_past_it() {
    let model = crate::inputs::model_file::parse("log.yaml", LOG).unwrap();
    let (model, design) =
        crate::advise::advise_with_model(&model, &crate::settings::Settings::default(), None)
            .unwrap();
    assert!(
        design.collections.iter().any(|c| c.name == "entry_archive"),
        "split by age"
    );
    // Twenty accounts of five entries each: the archive takes most of them.
    let pop = Population::with_max_children(&model, &design, 20, 3, Some(5)).loaded_at(NOW);
    let live = dates(&pop, &design, "entry");
    let old = dates(&pop, &design, "entry_archive");
    assert!(!live.is_empty() && !old.is_empty());
    for &t in &live {
        assert!(
            t > NOW - 30 * DAY && t <= NOW,
            "live {}",
            crate::words::utc(t)
        );
    }
    for &t in &old {
        assert!(t < NOW - 30 * DAY, "archived {}", crate::words::utc(t));
    }
    // The newest of each side: far from the horizon the job moves past.
    assert!(live.iter().all(|&t| t > NOW - DAY), "live");
    assert!(old.iter().all(|&t| t > NOW - 31 * DAY), "archived");
}
