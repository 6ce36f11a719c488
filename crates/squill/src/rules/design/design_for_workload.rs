//! `design-for-workload`: The workload decides: the design that costs least on the application's reads and writes wins.

crate::rules::declare_rule! {
    id: "design-for-workload",
    summary: "The workload decides: the design that costs least on the application's reads and writes wins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
    check: Cited,
}

use crate::design::reason::{Figure, explain};
use crate::words;
use serde::Serialize;

/// The chosen layout is the cheapest of the allowed ones on this workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cheapest {
    /// The allowed layouts priced, the chosen one included.
    pub layouts: Figure,
    /// The design's score with the chosen layout, per second.
    pub score: Figure,
    /// What the next best layout costs more, per second.
    pub margin: Figure,
}

explain!(Cheapest, |w| format!(
    "the cheapest of {} allowed layouts on this workload: a score of {} per second in all, the next best costs {}",
    words::num(w.layouts.value),
    words::num(w.score.value),
    more(w.margin.value)
));

/// "42 more", or "the same" when the margin rounds to nothing (a tie the
/// search broke by its order; audit48 C3).
fn more(margin: f64) -> String {
    if words::rounds_to_nothing(margin) {
        "the same".to_string()
    } else {
        format!("{} more", words::num(margin))
    }
}

/// The model pins the chosen layout (`layout:`): what the design scores
/// with it, and what the cheapest other layout would cost more.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pinned {
    /// The design's score with the pinned layout, per second.
    pub score: Figure,
    /// What the cheapest other layout costs more per second (negative: it
    /// costs less than the pin); `null` when no other layout could be priced.
    pub margin: Option<Figure>,
}

explain!(Pinned, |w| {
    let base = format!(
        "the model pins this layout (`layout:`); the design scores {} per second in all with it",
        words::num(w.score.value)
    );
    match w.margin.map(|m| m.value) {
        Some(n) if n < 0.0 && !words::rounds_to_nothing(n) => format!(
            "{base}, and the cheapest other layout would cost {} less",
            words::num(-n)
        ),
        Some(n) => format!(
            "{base}, and it is also the cheapest: the next best costs {}",
            more(n)
        ),
        None => base,
    }
});

/// Cited when the workload's costs decided between allowed candidates: how many
/// lost on cost and by how much the nearest did.
pub fn check(costlier: usize, nearest: Option<f64>, total: f64) -> Option<Cheapest> {
    let nearest = nearest?;
    (costlier > 0).then(|| Cheapest {
        layouts: Figure::count((costlier + 1) as f64),
        score: Figure::per_second(total),
        margin: Figure::per_second(nearest),
    })
}

/// Cited for a layout the model pins: what it costs, and what the cheapest
/// other layout would (a negative `nearest` is cheaper than the pin).
pub fn pinned(nearest: Option<f64>, total: f64) -> Pinned {
    Pinned {
        score: Figure::per_second(total),
        margin: nearest.map(Figure::per_second),
    }
}

#[cfg(test)]
mod tests {
    use super::{Cheapest, Pinned, check, pinned};
    use crate::design::reason::{Explain, Figure};

    /// A pinned layout carries what it costs against the best other one.
    #[test]
    fn a_pin_states_its_price() {
        assert_eq!(
            pinned(Some(-42.0), 134.0),
            Pinned {
                score: Figure::per_second(134.0),
                margin: Some(Figure::per_second(-42.0))
            }
        );
        assert_eq!(pinned(None, 134.0).margin, None);
    }

    /// The wording of both kinds of pin, and of an unpriced one.
    #[test]
    fn a_pin_in_words() {
        assert_eq!(
            pinned(Some(-42.0), 134.0).words(),
            "the model pins this layout (`layout:`); the design scores 134 per second in all with it, and the cheapest other layout would cost 42 less"
        );
        assert_eq!(
            pinned(Some(3.0), 134.0).words(),
            "the model pins this layout (`layout:`); the design scores 134 per second in all with it, and it is also the cheapest: the next best costs 3 more"
        );
        assert_eq!(
            pinned(None, 134.0).words(),
            "the model pins this layout (`layout:`); the design scores 134 per second in all with it"
        );
    }

    /// Audit48 C3: a tie (a margin of a float's noise) reads "the same",
    /// never "0 more" nor "0 less".
    #[test]
    fn a_tie_costs_the_same() {
        assert_eq!(
            check(2, Some(1e-13), 3_603.0).unwrap().words(),
            "the cheapest of 3 allowed layouts on this workload: a score of 3,603 per second in all, the next best costs the same"
        );
        assert_eq!(
            pinned(Some(-1e-13), 134.0).words(),
            "the model pins this layout (`layout:`); the design scores 134 per second in all with it, and it is also the cheapest: the next best costs the same"
        );
    }

    /// The advisor cites the rule with the cost figures of its decision.
    #[test]
    fn cites_the_margin_when_the_workload_decided() {
        let cited = check(3, Some(42.0), 134.0).unwrap();
        assert_eq!(
            cited,
            Cheapest {
                layouts: Figure::count(4.0),
                score: Figure::per_second(134.0),
                margin: Figure::per_second(42.0),
            }
        );
        assert_eq!(
            cited.words(),
            "the cheapest of 4 allowed layouts on this workload: a score of 134 per second in all, the next best costs 42 more"
        );
        assert_eq!(
            cited.evidence(),
            serde_json::json!({
                "layouts": {"value": 4.0, "unit": "count"},
                "score": {"value": 134.0, "unit": "per_second"},
                "margin": {"value": 42.0, "unit": "per_second"}
            })
        );
    }

    /// Near miss: one allowed layout lost on cost (the least that cites
    /// the rule) against none; a price with no rival to compare.
    #[test]
    fn stays_quiet_when_nothing_lost_on_cost() {
        assert!(check(1, Some(1.0), 10.0).is_some());
        assert_eq!(check(0, Some(1.0), 10.0), None);
        assert_eq!(check(2, None, 10.0), None);
    }
}
