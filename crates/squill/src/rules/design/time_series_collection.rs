//! `time-series-collection`: Weigh a MongoDB time series collection against buckets of one's own, with the figures the reads need.

crate::rules::declare_rule! {
    id: "time-series-collection",
    summary: "Weigh a MongoDB time series collection against buckets of one's own, with the figures the reads need",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt", "MongoDB manual: Time Series Collections"],
    check: Relationship { order: 155, check },
}

use crate::design::reason::explain;
use crate::design::{BucketBy, Figure, Layout};
use crate::model::units_a_day;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Measurements a time series collection keeps in one bucket at most
/// (MongoDB's `timeseriesBucketMaxCount`, 1,000; not configurable).
const SERIES_BUCKET_MAX: f64 = 1000.0;

/// What a MongoDB time series collection would do with these children.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeSeries {
    pub parent: String,
    pub child: String,
    /// The bucket's time unit ("minute").
    pub unit: String,
    /// Its buckets per unit per parent (each at most 1,000 measurements).
    pub series_buckets: Figure,
    /// Whether these buckets keep figures (aggregates).
    pub keeps_figures: bool,
    /// The busiest read of figures per unit, when there is one.
    pub window: Option<Window>,
}

/// A read of figures over the last `units` units.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Window {
    pub reads: Figure,
    /// Children the time series collection would group per read.
    pub grouped: Figure,
    /// Buckets the read takes here instead.
    pub units: Figure,
}

explain!(TimeSeries, |w| {
    let (child, unit, parent) = (words::plural(&w.child), &w.unit, &w.parent);
    let series = w.series_buckets.value;
    match &w.window {
        Some(win) => format!(
            "a MongoDB time series collection would bucket the {child} too ({} bucket{} per {unit} of a {parent}, at most 1,000 each) but keep no figures: each of the {} reads/s of figures per {unit} would group {} {child} instead of reading {} buckets that keep them",
            words::num(series),
            if series == 1.0 { "" } else { "s" },
            words::num(win.reads.value),
            words::num(win.grouped.value),
            words::num(win.units.value),
        ),
        None => format!(
            "a MongoDB time series collection stores {child} in compressed buckets of its own ({} per {unit} of a {parent}) and is the alternative to weigh: these buckets keep {} and answer the same reads",
            words::num(series),
            if w.keeps_figures {
                "pre-computed figures"
            } else {
                "no figures"
            },
        ),
    }
});

/// Says, on a time bucket, what MongoDB's own time series collection would
/// do instead: it buckets the children as well, but keeps no figures, so a
/// read of figures per time unit groups every child of the window.
pub fn check(cx: &RelCheck<'_>) -> Option<Judgement> {
    let Layout::Bucket {
        by: BucketBy::Time { unit, .. },
        per_bucket,
        aggregates,
    } = cx.layout
    else {
        return None;
    };
    let rf = cx.rf();
    let per_day = cx.facts.growth(cx.r).map_or(0.0, |g| g.typical);
    let series_buckets = (*per_bucket as f64 / SERIES_BUCKET_MAX).ceil().max(1.0);
    // The busiest window read whose figures these buckets keep.
    let window = rf
        .windows
        .iter()
        .filter(|(w, _)| w.unit == *unit && !aggregates.is_empty())
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(w, rate)| {
            let a_day = units_a_day(&w.unit).unwrap_or(1.0);
            let grouped = (per_day / a_day * w.last as f64).min(cx.facts.typical(cx.r));
            Window {
                reads: Figure::per_second(*rate),
                grouped: Figure::count(grouped),
                units: Figure::count(w.last as f64),
            }
        });
    Some(Judgement::support(TimeSeries {
        parent: cx.parent(),
        child: cx.child(),
        unit: unit.clone(),
        series_buckets: Figure::count(series_buckets),
        keeps_figures: !aggregates.is_empty(),
        window,
    }))
}

#[cfg(test)]
mod tests {
    use super::{RULE, TimeSeries, Window};
    use crate::design::Figure;
    use crate::design::{BucketBy, Layout};
    use crate::rules::testing::{example, judge_layout, support};

    #[test]
    fn fires() {
        assert_eq!(
            support::<TimeSeries>(&RULE, &example("scenarios/s06-ticks.yaml"), "ticks", "bucket"),
            TimeSeries {
                parent: "symbol".into(),
                child: "tick".into(),
                unit: "minute".into(),
                series_buckets: Figure::count(3.0),
                keeps_figures: true,
                window: Some(Window {
                    reads: Figure::per_second(2_000.0),
                    grouped: Figure::count(4_320_000.0),
                    units: Figure::count(1_440.0)
                })
            }
        );
    }

    /// Near miss: the same ticks in buckets of a fixed count rather than
    /// per unit of time: not a time series a time series collection keeps.
    #[test]
    fn stays_quiet_just_under() {
        let layout = Layout::Bucket {
            by: BucketBy::Count,
            per_bucket: 60,
            aggregates: vec![],
        };
        assert_eq!(judge_layout(&RULE, &example("scenarios/s06-ticks.yaml"), "ticks", &layout), "-");
    }
}
