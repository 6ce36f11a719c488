//! `bucket`: Group many small children into bucket documents (per hour, per page of 50) with pre-computed count/sum/min/max.

crate::rules::declare_rule! {
    id: "bucket",
    summary: "Group many small children into bucket documents (per hour, per page of 50) with pre-computed count/sum/min/max",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt", "003_8caca105590b9080.txt"],
    check: Relationship { order: 150, check },
}

use crate::candidates::fn_name;
use crate::design::{BucketBy, Layout};
use crate::design::Figure;
use crate::design::reason::explain;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// How the children arrive or are read, and the bucket that follows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Buckets {
    /// Read `per_bucket` at a time: one bucket per page.
    Count {
        child: String,
        per_bucket: Figure,
        /// The aggregates each bucket keeps ("count", "sum of amount").
        aggregates: Vec<String>,
        /// When the growth has a spread: what the busiest parent does
        /// (opens more buckets, each at most `per_bucket`).
        #[serde(skip_serializing_if = "Option::is_none")]
        busiest: Option<Busiest>,
    },
    /// About `per_bucket` arrive per `unit` per parent: one bucket per unit of `field`.
    Time {
        parent: String,
        child: String,
        per_bucket: Figure,
        unit: String,
        field: String,
        aggregates: Vec<String>,
        /// When the growth has a spread: what the busiest parent puts in
        /// one bucket (the bound of every bucket).
        #[serde(skip_serializing_if = "Option::is_none")]
        busiest: Option<Busiest>,
    },
}

/// The busiest parent the growth states, and its buckets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Busiest {
    /// Which figure of the growth it is (`max`, `p99`, `p95`).
    pub figure: String,
    /// Its children per day.
    pub per_day: Figure,
    /// Children in one of its buckets: what arrives in one unit at the
    /// busiest rate (a day for count buckets), at most the bucket's
    /// capacity (`Layout::bucket_capacity`, the bound its upsert tests).
    pub in_bucket: Figure,
    /// Buckets it fills a day: the buckets one unit's children need at the
    /// capacity, times the units a day.
    pub buckets_a_day: Figure,
}

impl Busiest {
    fn words(&self, parent: &str, child: &str) -> String {
        format!(
            "; the busiest {parent} ({}: {} {} a day) {}",
            self.figure,
            words::num(self.per_day.value),
            words::plural(child),
            if self.buckets_a_day.value > 1.0 {
                format!(
                    "fills {} buckets a day, each at most {}",
                    words::num(self.buckets_a_day.value),
                    words::num(self.in_bucket.value)
                )
            } else {
                format!(
                    "puts {} in one bucket, the bound of every bucket",
                    words::num(self.in_bucket.value)
                )
            }
        )
    }
}

explain!(Buckets, |w| {
    let aggs = |a: &[String]| {
        if a.is_empty() {
            String::new()
        } else {
            format!(", with {} kept in each bucket", a.join(", "))
        }
    };
    match w {
        Buckets::Count {
            child,
            per_bucket,
            aggregates,
            busiest: None,
        } => format!(
            "{} are read {} at a time: one bucket document per page of {}{}",
            words::plural(child),
            words::num(per_bucket.value),
            words::num(per_bucket.value),
            aggs(aggregates)
        ),
        Buckets::Count {
            child,
            per_bucket,
            aggregates,
            busiest: Some(b),
        } => format!(
            "{} arrive unevenly over their parents: buckets of at most {} each, filled in time order, a new one opened when one is full{}{}",
            words::plural(child),
            words::num(per_bucket.value),
            aggs(aggregates),
            b.words("parent", child)
        ),
        Buckets::Time {
            parent,
            child,
            per_bucket,
            unit,
            field,
            aggregates,
            busiest,
        } => format!(
            "about {} {} arrive per {unit} per {parent}: one bucket per {unit} of {field}{}{}",
            words::num(per_bucket.value),
            words::plural(child),
            aggs(aggregates),
            busiest
                .as_ref()
                .map(|b| b.words(parent, child))
                .unwrap_or_default()
        ),
    }
});

/// Supports buckets when children are read in pages or arrive over time.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Bucket {
        by,
        per_bucket,
        aggregates,
    } = cx.layout
    else {
        return None;
    };
    let aggregates: Vec<String> = aggregates
        .iter()
        .map(|a| match &a.field {
            Some(f) => format!("{} of {f}", fn_name(a.function)),
            None => fn_name(a.function).to_string(),
        })
        .collect();
    let size = *per_bucket as f64;
    let per_bucket = Figure::count(size);
    // What one bucket holds at most: the upsert's bound, the array's
    // `maxItems` (one function for all three, audit46 D10).
    let capacity = cx.layout.bucket_capacity().unwrap_or(1).max(1) as f64;
    // The busiest parent, when the growth has a spread to tell it from
    // the typical one: `per_unit` of its children arrive per bucket unit
    // (a day for count buckets), `units` such units a day; a bucket full
    // at `capacity` makes the upsert open another.
    let growth = cx.facts.growth(cx.r).filter(|g| g.has_spread());
    let busiest = |per_unit: f64, units: f64| {
        growth.map(|g| {
            let (figure, per_day) = g.busiest();
            Busiest {
                figure: figure.name().to_string(),
                per_day: Figure::count(per_day),
                in_bucket: Figure::count(per_unit.min(capacity).ceil()),
                buckets_a_day: Figure::count((per_unit / capacity).ceil().max(1.0) * units),
            }
        })
    };
    Some(Judgement::support(match by {
        BucketBy::Count => Buckets::Count {
            child: cx.child(),
            per_bucket,
            aggregates,
            busiest: busiest(growth.map_or(0.0, |g| g.busiest().1), 1.0),
        },
        BucketBy::Time { field, unit } => {
            let a_day = crate::model::units_a_day(unit).unwrap_or(1.0);
            let at_busiest = growth.map_or(0.0, |g| g.busiest().1 / a_day);
            Buckets::Time {
                parent: cx.parent(),
                child: cx.child(),
                per_bucket,
                unit: unit.to_string(),
                field: field.clone(),
                aggregates,
                busiest: busiest(at_busiest.max(1.0), a_day),
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::{Buckets, RULE};
    use crate::design::Figure;
    use crate::rules::testing::{example, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<Buckets>(&RULE, &example("blog-comments-pages.yaml"), "comments", "bucket"),
            Buckets::Count {
                child: "comment".into(),
                per_bucket: Figure::count(50.0),
                aggregates: vec![],
                busiest: None,
            }
        );
    }

    /// The rule has no threshold to miss: it describes every bucket layout
    /// the search offers (pages read, or children arriving over time), so
    /// its second case is the other kind of bucket, not a quiet one.
    #[test]
    fn fires_on_time_buckets() {
        let got: Buckets = support(&RULE, &example("scenarios/s06-ticks.yaml"), "ticks", "bucket");
        let Buckets::Time { unit, field, .. } = got else {
            panic!("a bucket per unit of time: {got:?}");
        };
        assert_eq!((unit.as_str(), field.as_str()), ("minute", "time"));
    }

    /// audit46 D10: the busiest truck (1,000 a day stated, scaled to the
    /// inserts by `growth-and-inserts-disagree`) puts more in an hour than
    /// a bucket holds. The reason's bound is the one the design's array
    /// (`maxItems`) and the cookbook's upsert (`count < N`) keep, and the
    /// buckets it fills are counted at that bound; the reason once said
    /// "24 buckets a day, each at most 357" of buckets capped at 108.
    #[test]
    fn the_busiest_parents_buckets_hold_what_the_upsert_allows() {
        let model = crate::inputs::model_file::parse("fleet.yaml", FLEET).unwrap();
        let design =
            crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let rel = design.relationships.iter().find(|r| r.relationship == "pings").unwrap();
        let capacity = rel.chosen.bucket_capacity().expect("pings are bucketed");
        let got = rel
            .rules
            .iter()
            .find_map(|h| h.reason.get::<Buckets>())
            .cloned()
            .unwrap();
        let Buckets::Time {
            busiest: Some(b), ..
        } = got
        else {
            panic!("{got:?}")
        };
        // The array and the upsert's bound: one figure.
        let coll = design.collections.iter().find(|c| c.name == "truck_pings").unwrap();
        let array = coll.shape.fields.iter().find(|f| f.name == "pings").unwrap();
        assert!(
            matches!(array.ty, crate::design::ShapeType::Array { max_items: Some(m), .. } if m == capacity),
            "{:?}",
            array.ty
        );
        // The cookbook's upsert adds to a bucket below that bound.
        let files = crate::artifacts::artifacts(&model, &design, &crate::artifacts::Options::default())
            .unwrap();
        let py = &files.iter().find(|a| a.file == "cookbook.py").unwrap().content;
        assert!(
            py.contains(&format!("\"count\": {{\"$lt\": {capacity}}}}}")),
            "{py}"
        );
        let per_hour = b.per_day.value / 24.0;
        assert!(per_hour > capacity as f64, "{per_hour} ≤ {capacity}");
        assert_eq!(b.in_bucket.value, capacity as f64);
        assert_eq!(b.buckets_a_day.value, (per_hour / capacity as f64).ceil() * 24.0);
    }

    const FLEET: &str = "
entities:
  truck:
    count: 200000
    fields: {vin: {type: string(17), distinct: 200000}}
  ping:
    count: 5000000000
    fields: {at: date, speed: double, fuel: double}
relationships:
  pings:
    parent: truck
    child: ping
    children:
      min: 0
      typical: 20000
      p99: 40000
      max: 60000
      growth: {typical: 300, p99: 600, max: 1000, per: day}
    child_field: truck
operations:
  report_ping: {insert: ping, links: [pings], rate: 9000}
  last_week:
    read: truck
    rate: 400
    filter: {_id: eq}
    include:
      pings: {filter: {at: range(0.0833)}, sort: -at}
";
}
