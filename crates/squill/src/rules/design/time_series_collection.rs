//! `time-series-collection`: Weigh a MongoDB time series collection against buckets of one's own, with the figures the reads need.

crate::rules::declare_rule! {
    id: "time-series-collection",
    summary: "Weigh a MongoDB time series collection against buckets of one's own, with the figures the reads need",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt", "MongoDB manual: Time Series Collections"],
    check: Relationship { order: 155, check },
}

use crate::design::{BucketBy, Layout};
use crate::model::units_a_day;
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

/// Measurements a time series collection keeps in one bucket at most
/// (MongoDB's `timeseriesBucketMaxCount`, 1,000; not configurable).
const SERIES_BUCKET_MAX: f64 = 1000.0;

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
    let child = words::plural(&cx.child());
    let per_day = cx.rel().children.growth_per_day.unwrap_or(0.0);
    let series_buckets = (*per_bucket as f64 / SERIES_BUCKET_MAX).ceil().max(1.0);
    // The busiest window read whose figures these buckets keep.
    let window = rf
        .windows
        .iter()
        .filter(|(w, _)| w.unit == *unit && !aggregates.is_empty())
        .max_by(|a, b| a.1.total_cmp(&b.1));
    Some(Judgement::Support(match window {
        Some((w, rate)) => {
            let a_day = units_a_day(&w.unit).unwrap_or(1.0);
            let grouped = (per_day / a_day * w.last as f64).min(cx.facts.typical(cx.r));
            format!(
                "a MongoDB time series collection would bucket the {child} too ({} bucket{} per {unit} of a {}, at most 1,000 each) but keep no figures: each of the {} reads/s of figures per {unit} would group {} {child} instead of reading {} buckets that keep them",
                words::num(series_buckets),
                if series_buckets == 1.0 { "" } else { "s" },
                cx.parent(),
                words::num(*rate),
                words::num(grouped),
                words::num(w.last as f64),
            )
        }
        None => format!(
            "a MongoDB time series collection stores {child} in compressed buckets of its own ({} per {unit} of a {}) and is the alternative to weigh: these buckets keep {} and answer the same reads",
            words::num(series_buckets),
            cx.parent(),
            if aggregates.is_empty() {
                "no figures".to_string()
            } else {
                "pre-computed figures".to_string()
            },
        ),
    }))
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::rules::testing::{example, judge};

    #[test]
    fn fires() {
        assert_eq!(
            judge(&RULE, &example("scenarios/s06-ticks.yaml"), "ticks", "bucket"),
            "support: a MongoDB time series collection would bucket the ticks too (3 buckets per minute of a symbol, at most 1,000 each) but keep no figures: each of the 2,000 reads/s of figures per minute would group 4,320,000 ticks instead of reading 1,440 buckets that keep them"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("scenarios/s06-ticks.yaml"), "ticks", "parent-reference"), "-");
    }
}
