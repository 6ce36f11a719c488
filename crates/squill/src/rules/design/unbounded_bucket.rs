//! `unbounded-bucket`: A time bucket sized for the typical parent has no
//! bound for the busiest one; bound buckets at the busiest parent's growth.

crate::rules::declare_rule! {
    id: "unbounded-bucket",
    summary: "A bucket per time unit sized for the typical parent has no bound for the busiest one: bound it at the busiest parent's growth, or fill buckets by count",
    kind: Design,
    severity: Error,
    sources: ["002_6843193bac1933d0.txt", "004_16209cf0db7b32ff.txt"],
    // Asked with the other limits, before the rules that support layouts.
    check: Relationship { order: 35, check },
}

use crate::candidates::facts::EMBEDDED_ELEMENT_OVERHEAD;
use crate::design::reason::explain;
use crate::design::{BucketBy, Figure, Layout};
use crate::model::units_a_day;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// A time bucket that the busiest parent fills past the bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BusiestBucket {
    pub parent: String,
    pub child: String,
    pub unit: String,
    /// Children the typical parent puts in one bucket.
    pub typical: Figure,
    /// Which figure of the growth the busiest parent is (`max`, `p99`, `p95`).
    pub figure: String,
    /// Children the busiest parent puts in one bucket, and their bytes.
    pub busiest: Figure,
    pub busiest_bytes: Figure,
    /// What a bucket's array may hold (`cardinality.embed-max`, scaled by
    /// the child's size, as for any embedded array).
    pub bound: Figure,
}

explain!(BusiestBucket, |w| format!(
    "a bucket per {unit} holds about {} {child} of the typical {parent}, but the busiest {parent} ({}) puts {} in one ({}), past the {} a bucket may hold",
    words::num(w.typical.value),
    w.figure,
    words::num(w.busiest.value),
    words::bytes(w.busiest_bytes.value),
    words::num(w.bound.value),
    unit = w.unit,
    child = words::plural(&w.child),
    parent = w.parent,
));

/// Forbids a bucket per time unit when the growth's spread says the
/// busiest parent fills one past what an embedded array may hold: the
/// bucket was sized for the typical parent.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Bucket {
        by: BucketBy::Time { unit, .. },
        ..
    } = cx.layout
    else {
        return None;
    };
    let growth = cx.facts.growth(cx.r).filter(|g| g.has_spread())?;
    let a_day = units_a_day(unit)?;
    let (figure, per_day) = growth.busiest();
    let busiest = (per_day / a_day).ceil();
    let bound = cx.facts.embed_bound(cx.r) as f64;
    if busiest <= bound {
        return None;
    }
    let element = cx.facts.own_bytes[cx.rel().child.index()] + EMBEDDED_ELEMENT_OVERHEAD;
    Some(Judgement::forbid(BusiestBucket {
        parent: cx.parent(),
        child: cx.child(),
        unit: unit.clone(),
        typical: Figure::count((growth.typical / a_day).ceil()),
        figure: figure.name().to_string(),
        busiest: Figure::count(busiest),
        busiest_bytes: Figure::bytes(busiest * element),
        bound: Figure::count(bound),
    }))
}

#[cfg(test)]
mod tests {
    use super::{BusiestBucket, RULE};
    use crate::design::{BucketBy, Layout};
    use crate::rules::testing::{example, forbid, judge_layout};

    fn devices() -> String {
        example("scenarios/s20-device-activity.yaml")
    }

    /// A bucket per device-day holds 50 events of the typical device and
    /// 200,000 of the busiest.
    #[test]
    fn fires() {
        let got: BusiestBucket = forbid(&RULE, &devices(), "events", "bucket");
        assert_eq!(got.unit, "day");
        assert_eq!((got.typical.value, got.busiest.value), (50.0, 200_000.0));
        assert_eq!(got.figure, "max");
        assert!(got.bound.value < 200_000.0, "{got:?}");
    }

    /// Near miss: the busiest device sends exactly as many a day as a
    /// bucket may hold (and one more fires).
    #[test]
    fn stays_quiet_just_under() {
        let bound = {
            let model = crate::inputs::model_file::parse("s20.yaml", &devices())
                .unwrap_or_else(|e| panic!("{e}"));
            let settings = crate::settings::Settings::default();
            let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
            facts.embed_bound(crate::model::RelationshipId::from_index(0))
        };
        // Inserts that this spread admits (86.4 a day per device), so the
        // spread is used as stated (rule growth-and-inserts-disagree).
        let at = |max: u64| {
            devices()
                .replace("rate: 20000", "rate: 1000")
                .replace("p99: 5000, ", "p99: 100, ")
                .replace("max: 200000, per: day", &format!("max: {max}, per: day"))
        };
        // The bucket per device-day, whatever unit the search puts first.
        let day = Layout::Bucket {
            by: BucketBy::Time {
                field: "ts".into(),
                unit: "day".into(),
            },
            per_bucket: 50,
            aggregates: Vec::new(),
        };
        assert_eq!(judge_layout(&RULE, &at(bound), "events", &day), "-");
        assert!(
            judge_layout(&RULE, &at(bound + 1), "events", &day).starts_with("forbid: "),
            "{}",
            judge_layout(&RULE, &at(bound + 1), "events", &day)
        );
    }
}
