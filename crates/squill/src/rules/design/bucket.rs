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
    /// Children in one of its buckets: the bound of every bucket (a count
    /// bucket's size; a time bucket's unit at the busiest rate).
    pub in_bucket: Figure,
    /// Buckets it fills a day (count buckets: `per_day / in_bucket`).
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
    // The busiest parent, when the growth has a spread to tell it from
    // the typical one.
    let growth = cx.facts.growth(cx.r).filter(|g| g.has_spread());
    let busiest = |in_bucket: f64| {
        growth.map(|g| {
            let (figure, per_day) = g.busiest();
            Busiest {
                figure: figure.name().to_string(),
                per_day: Figure::count(per_day),
                in_bucket: Figure::count(in_bucket.min(per_day).ceil()),
                buckets_a_day: Figure::count((per_day / in_bucket.max(1.0)).ceil()),
            }
        })
    };
    Some(Judgement::support(match by {
        BucketBy::Count => Buckets::Count {
            child: cx.child(),
            per_bucket,
            aggregates,
            busiest: busiest(size),
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
                busiest: busiest(at_busiest.max(1.0)),
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
}
