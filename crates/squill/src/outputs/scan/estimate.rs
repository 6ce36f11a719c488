//! The words of a sampled scan's estimates (issue 46): each figure with its
//! interval or the method behind it, the same in every report.

use super::percent;
use crate::scan::estimate::{EstimateNote, FanOutMethod, MatchMethod, RelationshipEstimate};
use crate::words::{int, num};

/// ` (2.0 % – 4.7 %)` after a share, when it has an interval.
pub(crate) fn interval(i: Option<[f64; 2]>) -> String {
    i.map_or(String::new(), |[low, high]| {
        format!(" ({} – {})", percent(low), percent(high))
    })
}

fn method(m: FanOutMethod) -> &'static str {
    match m {
        FanOutMethod::ParentSampleCounts => {
            "parent-sample-counts: the children of a random sample of parents counted on the server"
        }
        FanOutMethod::ChildSample => {
            "child-sample: each parent's share of the sampled children, the parents it missed estimated (Chao1)"
        }
        FanOutMethod::ChildrenWhole => "children-whole: every child read",
        FanOutMethod::ArrayLengths => "array-lengths: each sampled parent's array, whole",
    }
}

fn note(n: &EstimateNote) -> String {
    match n {
        EstimateNote::NoIndexOnReference => {
            "no index on the reference, so no parent's children were counted".to_string()
        }
        EstimateNote::LimitReached => {
            "the limit on the server's lookups and counts was reached first".to_string()
        }
        EstimateNote::PercentileUnsupported { p, parents } => format!(
            "p{} not claimed: {} parents measured are too few for its interval",
            num(p * 100.0),
            int(*parents)
        ),
        EstimateNote::ChildSampleHasNoPercentiles => {
            "a sample of children holds a thinned share of each parent's: no percentile follows"
                .to_string()
        }
    }
}

/// The estimate of one relationship as lines, for the text report.
pub(crate) fn lines(e: &RelationshipEstimate) -> Vec<String> {
    let conf = percent(e.confidence);
    let mut out = vec![format!(
        "estimated for the collections: typical {} ({} children ÷ {} parents having any), by {}",
        num(e.typical),
        int(e.children),
        int(e.parents_with_any),
        method(e.fan_out_method)
    )];
    let mut figures: Vec<String> = e
        .percentiles
        .iter()
        .map(|p| format!("p{} {} ({} – {})", num(p.p * 100.0), p.value, p.low, p.high))
        .collect();
    figures.push(format!(
        "largest seen {} of {} parents measured",
        int(e.largest_seen),
        int(e.parents_measured)
    ));
    out.push(figures.join(", "));
    out.push(match (e.match_method, e.dangling) {
        (MatchMethod::ServerLookup, Some(d)) => format!(
            "dangling {} ({} – {}, {conf} interval) of {} references looked up in the whole collection",
            percent(d.share),
            percent(d.low),
            percent(d.high),
            int(d.sampled)
        ),
        _ => "dangling share unknown: the references were not looked up".to_string(),
    });
    out.extend(e.notes.iter().map(note));
    out
}
