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
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;

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
    let aggs = if aggregates.is_empty() {
        String::new()
    } else {
        format!(
            ", with {} kept in each bucket",
            aggregates
                .iter()
                .map(|a| match &a.field {
                    Some(f) => format!("{} of {f}", fn_name(a.function)),
                    None => fn_name(a.function).to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Some(Judgement::Support(match by {
        BucketBy::Count => format!(
"{} are read {} at a time: one bucket document per page of {}{aggs}", words::plural(&cx.child()), words::num(*per_bucket as f64), words::num(*per_bucket as f64)
),
        BucketBy::Time { field, unit } => format!(
"about {} {} arrive per {unit} per {}: one bucket per {unit} of {field}{aggs}", words::num(*per_bucket as f64), words::plural(&cx.child()), cx.parent()
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
            judge(&RULE, &example("blog-comments-pages.yaml"), "comments", "bucket"),
            "support: comments are read 50 at a time: one bucket document per page of 50"
        );
    }

    #[test]
    fn stays_quiet() {
        assert_eq!(judge(&RULE, &example("blog-comments-pages.yaml"), "comments", "embed"), "-");
    }
}
