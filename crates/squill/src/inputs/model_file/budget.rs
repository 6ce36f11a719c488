//! How much YAML a model file may make the parser build. serde-saphyr's
//! default budget (250,000 nodes, 1,000,000 events) guards against hostile
//! input, but it also refused a legitimate enterprise model: a 10,000-entity
//! chain is about 130,000 lines and more nodes than that (issue 45).
//!
//! Without aliases a YAML node costs at least one byte of text, and an
//! event at most a node's start and end, so budgets that grow with the
//! file's length never refuse a plain file, however large. What they still
//! refuse is amplification: aliases that replay an anchor (the "billion
//! laughs") build nodes the text does not hold, and they stop at a small
//! multiple of the file's own length; nesting depth keeps its fixed cap.

use serde_saphyr::budget::Budget;

/// The parser's defaults, kept as the floor: a small file gets exactly the
/// budget it always had.
const NODES_FLOOR: usize = 250_000;
const EVENTS_FLOOR: usize = 1_000_000;

/// The options every read of a model file's text uses.
pub(super) fn options(text: &str) -> serde_saphyr::Options {
    let mut budget = Budget::default();
    budget.max_nodes = NODES_FLOOR.max(text.len());
    budget.max_events = EVENTS_FLOOR.max(2 * text.len());
    serde_saphyr::options! {
        with_snippet: false,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
        budget: Some(budget),
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    /// More nodes than the parser's default budget (250,000) from plain
    /// text: 1,000 entities of 130 fields each, about 264,000 nodes. (A
    /// chain of 10,000 entities is as many nodes again, but its reading
    /// time is issue 45's benchmark, not a unit test's.)
    #[test]
    fn a_model_past_the_default_budget_is_read() {
        let mut y = String::from("name: wide\nentities:\n");
        for e in 0..1_000 {
            let _ = writeln!(y, "  e{e}:\n    count: 1000\n    fields:");
            for f in 0..130 {
                let _ = writeln!(y, "      f{f}: int");
            }
        }
        let model = super::super::parse("wide.yaml", &y)
            .unwrap_or_else(|e| panic!("{}", e.problems()[0].message));
        assert_eq!(model.entities.len(), 1_000);
        assert_eq!(model.entities[999].fields.len(), 130);
    }

    /// What the options let the parser build from `text`, whatever the
    /// model's keys: the budget, not the model's schema, is under test.
    fn build(text: &str) -> Result<(), String> {
        serde_saphyr::from_str_with_options::<serde::de::IgnoredAny>(text, super::options(text))
            .map(|_| ())
            .map_err(|e| e.without_snippet().to_string())
    }

    /// Nine levels of ten aliases each: 10^9 nodes from under 1 KB of text.
    #[test]
    fn alias_amplification_is_still_refused() {
        let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let p = i - 1;
            let _ = writeln!(
                y,
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
            );
        }
        let message = build(&y).expect_err("refused");
        assert!(message.contains("budget breached"), "{message}");
        // Three levels (1,000 nodes) are within the budget: the test above
        // fails on amplification, not on aliases as such.
        let small: String = y.lines().take(3).map(|l| format!("{l}\n")).collect();
        build(&small).expect("three levels are read");
    }

    #[test]
    fn deep_nesting_is_still_refused() {
        let deep = format!("a: {}1{}\n", "[".repeat(500), "]".repeat(500));
        let message = build(&deep).expect_err("refused");
        assert!(message.contains("recursion limit exceeded"), "{message}");
        let shallow = format!("a: {}1{}\n", "[".repeat(20), "]".repeat(20));
        build(&shallow).expect("20 levels are read");
    }
}
