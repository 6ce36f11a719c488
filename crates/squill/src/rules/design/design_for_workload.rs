//! `design-for-workload`: The workload decides: the design that costs least on the application's reads and writes wins.

crate::rules::declare_rule! {
    id: "design-for-workload",
    summary: "The workload decides: the design that costs least on the application's reads and writes wins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Cited,
}

use crate::words;

/// Cited when the workload's costs decided between allowed candidates: how many
/// lost on cost and by how much the nearest did.
pub fn check(costlier: usize, nearest: Option<f64>, total: f64) -> Option<String> {
    let nearest = nearest?;
    (costlier > 0).then(|| {
        format!(
            "the cheapest of {} allowed layouts on this workload: {}/s in all, the next best costs {} more",
            costlier + 1,
            words::num(total),
            words::num(nearest)
        )
    })
}
