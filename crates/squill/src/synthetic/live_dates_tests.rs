//! Synthetic dates of an expiring entity (audit46 D3): the date an expiry
//! counts from lies within its life before the time the data is loaded
//! (`DataOptions::now_ms`), and every other date stays where it was. The
//! dates of a basket touched in 2024 with a life of 2 hours were all
//! deleted by a TTL monitor's first pass, so a read that compares the date
//! found none of the loaded baskets.

use super::documents::{Builder, Fanout};
use super::value::Value;
use super::*;

const SHOP: &str = "name: shop
entities:
  basket:
    count: 1000
    fields:
      touched_at: date
      created_at: date
    expires: {from: touched_at, after: 2 hours}
  coupon:
    count: 1000
    fields:
      valid_until: date
    expires: {from: valid_until, after: 0 seconds}
operations:
  open_basket:
    read: basket
    filter: {_id: eq}
    rate: 10
  use_coupon:
    read: coupon
    filter: {_id: eq}
    rate: 1
";

/// 2026-11-30T09:00:00Z.
const NOW: i64 = 1_796_029_200_000;
const HOUR: i64 = 3_600_000;

/// Each collection's dates of `field`, from the population at `pop`.
fn dates(
    pop: &Population<'_>,
    design: &crate::design::Design,
    coll: &str,
    field: &str,
) -> Vec<i64> {
    let b = Builder::new(pop, Fanout::Drawn);
    let c = design.collections.iter().find(|c| c.name == coll).unwrap();
    let mut out = Vec::new();
    pop.for_each_root(c, |root| -> Result<(), ()> {
        match b.document(c, &root).get(field) {
            Some(Value::Date(ms)) => out.push(*ms),
            other => panic!("{coll}.{field}: {other:?}"),
        }
        Ok(())
    })
    .unwrap();
    out
}

fn shop() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("shop.yaml", SHOP).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    (model, design)
}

#[test]
fn an_expiring_date_is_alive_when_the_data_is_loaded() {
    let (model, design) = shop();
    let loaded = Population::new(&model, &design, 200, 3).loaded_at(NOW);
    let touched = dates(&loaded, &design, "basket", "touched_at");
    assert_eq!(touched.len(), 200);
    // The newest half of the 2 hours before NOW: alive for an hour after it.
    for &t in &touched {
        assert!(t > NOW - HOUR && t <= NOW, "{}", crate::words::utc(t));
    }
    // Spread over the hour, not piled at one end.
    let (lo, hi) = (touched.iter().min().unwrap(), touched.iter().max().unwrap());
    assert!(
        hi - lo > HOUR / 2,
        "{}..{}",
        crate::words::utc(*lo),
        crate::words::utc(*hi)
    );
    // A field holding the moment of expiry (0 s) lies ahead of NOW: 12 to 24 hours.
    for t in dates(&loaded, &design, "coupon", "valid_until") {
        assert!(
            t > NOW + 12 * HOUR && t <= NOW + 24 * HOUR,
            "{}",
            crate::words::utc(t)
        );
    }
}

#[test]
fn other_dates_and_examples_stay_as_they_were() {
    let (model, design) = shop();
    let plain = Population::new(&model, &design, 200, 3);
    let loaded = plain.clone().loaded_at(NOW);
    assert_eq!(
        dates(&loaded, &design, "basket", "created_at"),
        dates(&plain, &design, "basket", "created_at")
    );
    // Without a load time (example documents), the expiring date is drawn
    // as every date is.
    assert_ne!(
        dates(&loaded, &design, "basket", "touched_at"),
        dates(&plain, &design, "basket", "touched_at")
    );
    assert!(
        dates(&plain, &design, "basket", "touched_at")
            .iter()
            .all(|&t| (values::EPOCH_2024_MS..NOW - 2 * HOUR).contains(&t))
    );
}

/// `data::write` places the dates at `DataOptions::now_ms`, and says so
/// in its summary; the same `now_ms` gives the same bytes.
#[test]
fn written_data_is_alive_at_its_now_and_reproducible() {
    let (model, design) = shop();
    let dir = std::env::temp_dir().join(format!("squill-live-dates-{}", std::process::id()));
    let run = |sub: &str, now_ms: i64| {
        let out = dir.join(sub);
        let _ = std::fs::remove_dir_all(&out);
        let options = DataOptions {
            now_ms,
            format: DataFormat::Ejson,
            ..DataOptions::new(50, 3)
        };
        let summary = data::write(&model, &design, &options, &out).unwrap();
        (
            std::fs::read_to_string(out.join("data/basket.json")).unwrap(),
            summary,
        )
    };
    let (a, summary) = run("a", NOW);
    let (b, _) = run("b", NOW);
    let (c, _) = run("c", NOW + HOUR);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(
        a.contains("\"touched_at\":{\"$date\":\"2026-11-30T0"),
        "{a}"
    );
    assert_eq!(summary.now_ms, NOW);
    assert_eq!(
        summary.expiring,
        vec![
            ("basket.touched_at".to_string(), 7200),
            ("coupon.valid_until".to_string(), 0)
        ]
    );
}
