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
            "the cheapest of {} allowed layouts on this workload: a score of {} per second in all, the next best costs {} more",
            costlier + 1,
            words::num(total),
            words::num(nearest)
        )
    })
}

/// Cited for a layout the model pins: what it costs, and what the cheapest
/// other layout would (a negative `nearest` is cheaper than the pin).
pub fn pinned(nearest: Option<f64>, total: f64) -> String {
    let base = format!(
        "the model pins this layout (`layout:`); the design scores {} per second in all with it",
        words::num(total)
    );
    match nearest {
        Some(n) if n < 0.0 => format!(
            "{base}, and the cheapest other layout would cost {} less",
            words::num(-n)
        ),
        Some(n) => format!(
            "{base}, and it is also the cheapest: the next best costs {} more",
            words::num(n)
        ),
        None => base,
    }
}

#[cfg(test)]
mod tests {
    use super::{check, pinned};

    /// A pinned layout says what it costs against the best other one.
    #[test]
    fn a_pin_states_its_price() {
        assert_eq!(
            pinned(Some(-42.0), 134.0),
            "the model pins this layout (`layout:`); the design scores 134 per second in all with it, and the cheapest other layout would cost 42 less"
        );
        assert_eq!(
            pinned(Some(3.0), 134.0),
            "the model pins this layout (`layout:`); the design scores 134 per second in all with it, and it is also the cheapest: the next best costs 3 more"
        );
    }

    /// The advisor cites the rule with the cost figures of its decision.
    #[test]
    fn cites_the_margin_when_the_workload_decided() {
        assert_eq!(
            check(3, Some(42.0), 134.0).as_deref(),
            Some(
                "the cheapest of 4 allowed layouts on this workload: a score of 134 per second in all, the next best costs 42 more"
            )
        );
    }

    #[test]
    fn stays_quiet_when_nothing_lost_on_cost() {
        assert_eq!(check(0, Some(1.0), 10.0), None);
        assert_eq!(check(2, None, 10.0), None);
    }
}
