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
    },
    /// About `per_bucket` arrive per `unit` per parent: one bucket per unit of `field`.
    Time {
        parent: String,
        child: String,
        per_bucket: Figure,
        unit: String,
        field: String,
        aggregates: Vec<String>,
    },
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
        } => format!(
            "{} are read {} at a time: one bucket document per page of {}{}",
            words::plural(child),
            words::num(per_bucket.value),
            words::num(per_bucket.value),
            aggs(aggregates)
        ),
        Buckets::Time {
            parent,
            child,
            per_bucket,
            unit,
            field,
            aggregates,
        } => format!(
            "about {} {} arrive per {unit} per {parent}: one bucket per {unit} of {field}{}",
            words::num(per_bucket.value),
            words::plural(child),
            aggs(aggregates)
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
    let per_bucket = Figure::count(*per_bucket as f64);
    Some(Judgement::support(match by {
        BucketBy::Count => Buckets::Count {
            child: cx.child(),
            per_bucket,
            aggregates,
        },
        BucketBy::Time { field, unit } => Buckets::Time {
            parent: cx.parent(),
            child: cx.child(),
            per_bucket,
            unit: unit.to_string(),
            field: field.clone(),
            aggregates,
        },
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
                aggregates: vec![]
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
