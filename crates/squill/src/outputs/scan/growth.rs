//! A deployment's capacity (`scan … --horizon`): where its growth was
//! measured, each collection's rate, then the projection in the very words
//! and table of `advise --horizon` (`outputs::design`'s capacity section).
//! The JSON is `{"growth": …, "capacity": …}`, `capacity` as the design
//! JSON has it (docs/capacity.md).

use crate::design::capacity::Capacity;
use crate::scan::growth::{Growth, GrowthSource, Interval};
use crate::words;
use std::fmt::Write as _;

/// Where the rates come from, in one sentence.
pub(crate) fn source(g: &Growth) -> String {
    match &g.source {
        GrowthSource::Dumps { days, interval } => format!(
            "growth measured between two dumps {} apart ({})",
            words::count(*days, "day"),
            match interval {
                Interval::Stated => "as stated",
                Interval::ObjectIds { .. } => "the newest ObjectId time of each",
            }
        ),
        GrowthSource::Inserts { days } => format!(
            "growth from the inserts logged over {} (one document per logged insert: a lower bound)",
            words::count(*days, "day")
        ),
    }
}

/// The rates, one per collection: its name (escaped by the caller) and
/// the documents it gains a day.
pub(crate) fn rates(g: &Growth) -> Vec<(String, String)> {
    g.rates
        .iter()
        .map(|r| {
            let name = match &r.database {
                Some(db) => format!("{db}.{}", r.collection),
                None => r.collection.clone(),
            };
            (
                name,
                format!("{} documents a day", words::num(r.documents_per_day)),
            )
        })
        .collect()
}

pub fn text(g: &Growth, c: &Capacity) -> String {
    let mut out = format!("Capacity\n{}\n", source(g));
    for (name, rate) in rates(g) {
        let _ = writeln!(out, "  `{}`: {rate}", words::visible(&name));
    }
    out.push_str(&crate::outputs::design::text::capacity_section(c));
    out
}

pub fn markdown(g: &Growth, c: &Capacity) -> String {
    let mut out = crate::outputs::design::markdown::capacity_section(c);
    let mut head = format!("{}.\n\n", words::markdown::text(&source(g)));
    for (name, rate) in rates(g) {
        let _ = writeln!(head, "- {}: {rate}", words::markdown::code_in_prose(&name));
    }
    head.push('\n');
    // After the heading, before the deployment.
    let at = out.find("\n\n").map_or(0, |i| i + 2);
    out.insert_str(at, &head);
    out
}

pub fn json(g: &Growth, c: &Capacity) -> String {
    let value = serde_json::json!({ "growth": g, "capacity": c });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
