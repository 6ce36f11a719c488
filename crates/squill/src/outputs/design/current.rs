//! "Today against recommended": the design the deployment has (the model's
//! `current:`) priced beside the recommended one, as rows both reporters
//! print — the verdict, the totals side by side, each relationship's change
//! with what it gains alone, each operation's cost on both.

use super::describe;
use crate::design::{Cost, CurrentComparison};
use crate::words;
use crate::words::markdown as md;
use std::fmt::Write as _;

/// The verdict in one sentence.
pub(crate) fn verdict(c: &CurrentComparison) -> String {
    let changes = c
        .relationships
        .iter()
        .filter(|r| r.current != r.recommended)
        .count();
    if c.already_best {
        return format!(
            "The design of today is already the cheapest found for this workload (a score of {} per second; the recommendation scores {}).",
            words::num(c.current_totals.score),
            words::num(c.recommended_totals.score)
        );
    }
    let saved = c.current_totals.score - c.recommended_totals.score;
    let share = if c.current_totals.score > 0.0 {
        format!(" ({} less)", words::percent(saved / c.current_totals.score))
    } else {
        String::new()
    };
    let mut what = words::count(changes as f64, "relationship");
    for (verb, list) in [
        ("adding", &c.patterns_added),
        ("removing", &c.patterns_dropped),
    ] {
        if !list.is_empty() {
            let _ = write!(what, " and {verb} {}", list.join(", "));
        }
    }
    format!(
        "Changing {what} scores {} per second instead of {}{share}.",
        words::num(c.recommended_totals.score),
        words::num(c.current_totals.score),
    )
}

/// The totals of both designs: (measure, today, recommended).
pub(crate) fn totals(c: &CurrentComparison) -> Vec<(&'static str, String, String)> {
    describe::totals(&c.current_totals)
        .into_iter()
        .zip(describe::totals(&c.recommended_totals))
        .map(|((name, now), (_, then))| (name, now, then))
        .chain(std::iter::once((
            "score",
            words::num(c.current_totals.score),
            words::num(c.recommended_totals.score),
        )))
        .collect()
}

/// A gain in words: "score 1,234 lower (−40 round trips/s)".
pub(crate) fn gain(g: Option<&Cost>) -> String {
    let Some(g) = g else {
        return "-".into();
    };
    let mut parts = vec![if g.score >= 0.0 {
        format!("score {} lower", words::num(g.score))
    } else {
        format!("score {} higher", words::num(-g.score))
    }];
    if g.round_trips.abs() >= 0.005 {
        parts.push(format!("{} round trips/s", signed(-g.round_trips)));
    }
    if g.documents_examined.abs() >= 0.005 {
        parts.push(format!(
            "{} documents examined/s",
            signed(-g.documents_examined)
        ));
    }
    if g.documents_written.abs() >= 0.005 {
        parts.push(format!(
            "{} documents written/s",
            signed(-g.documents_written)
        ));
    }
    parts.join(", ")
}

fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", words::num(x))
    } else {
        format!("−{}", words::num(-x))
    }
}

/// One operation's cost in short: "2 round trips, 3 docs, 1.2 KB".
pub(crate) fn per_execution(c: &Cost) -> String {
    format!(
        "{}, {} examined, {}",
        words::count(c.round_trips, "round trip"),
        words::count(c.documents_examined, "document"),
        words::bytes(c.bytes_read + c.bytes_written)
    )
}

/// The section as Markdown.
pub(crate) fn markdown(out: &mut String, c: &CurrentComparison) {
    out.push_str("## Today against recommended\n\n");
    let _ = writeln!(out, "{}\n", md::text(&verdict(c)));
    out.push_str("| per second | today | recommended |\n|---|---:|---:|\n");
    for (name, now, then) in totals(c) {
        let _ = writeln!(out, "| {name} | {now} | {then} |");
    }
    out.push_str(
        "\n| relationship | today | recommended | changing it alone |\n|---|---|---|---|\n",
    );
    for r in &c.relationships {
        let same = r.current == r.recommended;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md::text(&r.relationship),
            super::describe_markdown::layout(&r.current),
            if same {
                "(keep)".to_string()
            } else {
                super::describe_markdown::layout(&r.recommended)
            },
            if same {
                "-".to_string()
            } else {
                gain(r.gain.as_ref())
            }
        );
    }
    out.push_str(
        "\n| operation | rate | today, per execution | recommended |\n|---|---:|---|---|\n",
    );
    for o in &c.operations {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md::text(&o.operation),
            words::rate(o.rate),
            per_execution(&o.current),
            per_execution(&o.recommended)
        );
    }
    if !c.unstated.is_empty() {
        let _ = writeln!(
            out,
            "\nWithout a layout of today, chosen by advise in both: {}.",
            md::text(&c.unstated.join(", "))
        );
    }
    out.push('\n');
}
