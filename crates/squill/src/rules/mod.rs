//! The rule catalogue: every piece of design knowledge squill carries, as data.
//!
//! One file per rule (named after its id) under `design/` (rules that forbid or
//! weigh candidate layouts) or `data/` (anti-patterns found in scanned data).
//! Each file declares its metadata with `declare_rule!`; the docs live in
//! `docs/<id>.md` and feed `squill rule ID`, the docs pages and SARIF alike.

pub mod data;
pub mod design;
pub mod judge;

use crate::finding::Severity;
use serde::Serialize;

/// Where a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// Judges candidate layouts while advising on a model.
    Design,
    /// Judges measured data (an anti-pattern in a scanned dump).
    Data,
}

/// A rule's metadata. The check itself is a function in the rule's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Kebab-case id that names the decision or the problem.
    pub id: &'static str,
    /// One line.
    pub summary: &'static str,
    pub kind: RuleKind,
    pub default_severity: Severity,
    /// Seed file names (`../shared/seeds/…`) and published sources the rule rests on.
    pub sources: &'static [&'static str],
    /// Markdown with the fixed sections (see `REQUIRED_DOC_SECTIONS`).
    #[serde(skip)]
    pub docs: &'static str,
}

/// The headings every rule's docs must have, in this order.
pub const REQUIRED_DOC_SECTIONS: &[&str] = &[
    "## What it checks",
    "## Why",
    "## Thresholds",
    "## Example",
    "## What to do instead",
    "## References",
];

/// Declares a rule's metadata as a `pub const RULE: Rule`, with its docs read
/// from `src/rules/docs/<id>.md`.
macro_rules! declare_rule {
    (
        id: $id:literal,
        summary: $summary:literal,
        kind: $kind:ident,
        severity: $severity:ident,
        sources: [$($source:literal),* $(,)?] $(,)?
    ) => {
        pub const RULE: $crate::rules::Rule = $crate::rules::Rule {
            id: $id,
            summary: $summary,
            kind: $crate::rules::RuleKind::$kind,
            default_severity: $crate::finding::Severity::$severity,
            sources: &[$($source),*],
            docs: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules/docs/", $id, ".md")),
        };
    };
}
pub(crate) use declare_rule;

/// Every rule, design rules first, each group in id order.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    design::ALL.iter().chain(data::ALL.iter()).copied()
}

pub fn by_id(id: &str) -> Option<&'static Rule> {
    all().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut ids: Vec<&str> = all().map(|r| r.id).collect();
        for id in &ids {
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{id} is not kebab-case"
            );
        }
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len(), "duplicate rule ids");
    }

    #[test]
    fn every_rule_has_its_doc_sections_in_order() {
        for rule in all() {
            let mut from = 0;
            for section in REQUIRED_DOC_SECTIONS {
                let at = rule.docs[from..]
                    .find(section)
                    .unwrap_or_else(|| panic!("{}: missing or misplaced `{section}`", rule.id));
                from += at + section.len();
            }
            assert!(!rule.sources.is_empty(), "{}: no sources", rule.id);
        }
    }

    /// Every source a rule declares is cited in its References section, and
    /// every seed file named there exists among the five seeds.
    #[test]
    fn every_rule_cites_its_sources() {
        const SEEDS: &[&str] = &[
            "000_34acd10fa9a500cb.txt",
            "001_5782b55841006ac6.txt",
            "002_6843193bac1933d0.txt",
            "003_8caca105590b9080.txt",
            "004_16209cf0db7b32ff.txt",
        ];
        for rule in all() {
            let references = rule
                .docs
                .split_once("## References")
                .map(|(_, r)| r)
                .unwrap_or_else(|| panic!("{}: no References", rule.id));
            for source in rule.sources {
                assert!(
                    references.contains(source),
                    "{}: References do not cite `{source}`",
                    rule.id
                );
            }
            for word in references.split(|c: char| c == '`' || c.is_whitespace()) {
                if word.ends_with(".txt") {
                    assert!(SEEDS.contains(&word), "{}: unknown seed `{word}`", rule.id);
                }
            }
            assert!(
                !rule.docs.contains("Not yet written"),
                "{}: docs not written",
                rule.id
            );
        }
    }
}
