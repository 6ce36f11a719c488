//! Renders the rule catalogue (`squill rules`) and one rule's docs (`squill rule ID`).

use crate::rules::{Rule, RuleKind};
use std::fmt::Write as _;

/// One line per rule: id, kind, default severity, summary.
pub fn list(rules: &[&Rule]) -> String {
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for rule in rules {
        let kind = match rule.kind {
            RuleKind::Design => "design",
            RuleKind::Data => "data",
        };
        let _ = writeln!(
            out,
            "{:<width$}  {:<6}  {:<7}  {}",
            rule.id, kind, rule.default_severity, rule.summary
        );
    }
    out
}

/// The rule's docs, preceded by its metadata.
pub fn docs(rule: &Rule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "id: {}", rule.id);
    let _ = writeln!(out, "default severity: {}", rule.default_severity);
    let _ = writeln!(out, "sources: {}", rule.sources.join("; "));
    out.push('\n');
    out.push_str(rule.docs);
    if !rule.docs.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The rule ids closest to `wanted` (for "did you mean").
pub fn closest_ids(wanted: &str) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = crate::rules::all()
        .map(|r| (edit_distance(wanted, r.id), r.id))
        .filter(|(d, id)| *d <= wanted.len().max(3) / 2 || id.contains(wanted))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, id)| id).collect()
}

/// Levenshtein distance, for suggestions on short names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
