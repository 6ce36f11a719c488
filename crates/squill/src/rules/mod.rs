//! The rule catalogue: every piece of design knowledge squill carries, as data.
//!
//! One file per rule (named after its id) under `design/` (rules that forbid or
//! weigh candidate layouts), `data/` (anti-patterns found in scanned data) or
//! `workload/` (what a workload read from mongod logs does badly).
//! Each file declares the rule with `declare_rule!`: id, summary, kind,
//! severity, sources and its check; the docs live in `docs/<id>.md` and feed
//! `squill rule ID`, the docs pages and SARIF alike. The build script lists
//! the files of all three folders that declare a rule, so a new rule is its
//! file and its docs, nothing else.

pub mod citation;
pub mod data;
pub mod design;
pub mod judge;
#[cfg(test)]
pub(crate) mod testing;
pub mod workload;

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
    /// Judges a workload read from logs (`squill workload`).
    Workload,
}

/// A rule: its metadata and its check.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rule {
    /// Kebab-case id that names the decision or the problem.
    pub id: &'static str,
    /// One line.
    pub summary: &'static str,
    pub kind: RuleKind,
    pub default_severity: Severity,
    /// What the rule rests on: a seed text's key (its file name, shown to
    /// users as its citation, `citation::cite`) or a published source's name.
    #[serde(serialize_with = "citation::serialize")]
    pub sources: &'static [&'static str],
    /// Markdown with the fixed sections (see `REQUIRED_DOC_SECTIONS`).
    #[serde(skip)]
    pub docs: &'static str,
    /// What the rule looks at, and the function that looks.
    #[serde(skip)]
    pub check: Check,
}

/// A rule's check, by what it judges.
#[derive(Clone, Copy)]
pub enum Check {
    /// One candidate layout of one relationship: forbid it or support it.
    /// Rules are asked in `order` (limits first): the first that forbids is
    /// the one a report shows, and supports are listed in that order.
    Relationship {
        order: u16,
        check: fn(&judge::RelCheck<'_>) -> Option<judge::Judgement>,
    },
    /// An entity-level candidate (a polymorphic collection, a computed field):
    /// the reason to enable it, if any.
    Entity(
        fn(
            &crate::candidates::facts::Facts<'_>,
            &crate::candidates::EntityCandidate,
        ) -> Option<crate::design::Reason>,
    ),
    /// The finished design: findings about it.
    Design(fn(&judge::DesignCheck<'_>) -> Vec<crate::finding::Finding>),
    /// A scanned data set: findings about it.
    Data(fn(&crate::scan::Analysis<'_>, &mut Vec<crate::finding::Finding>)),
    /// A workload read from logs: findings about its query shapes.
    Workload(fn(&workload::Analysis<'_>, &mut Vec<crate::finding::Finding>)),
    /// Cited by the advisor itself with its own evidence (the cost model's
    /// verdict), not asked by the registry.
    Cited,
}

impl std::fmt::Debug for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Check::Relationship { .. } => "Relationship",
            Check::Entity(_) => "Entity",
            Check::Design(_) => "Design",
            Check::Data(_) => "Data",
            Check::Workload(_) => "Workload",
            Check::Cited => "Cited",
        })
    }
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

/// Declares a rule as a `pub const RULE: Rule`, with its docs read from
/// `src/rules/docs/<id>.md` and its check (a `Check` variant, written without
/// the `Check::` prefix).
macro_rules! declare_rule {
    (
        id: $id:literal,
        summary: $summary:literal,
        kind: $kind:ident,
        severity: $severity:ident,
        sources: [$($source:literal),* $(,)?],
        check: $check:expr $(,)?
    ) => {
        pub const RULE: $crate::rules::Rule = {
            #[allow(unused_imports)]
            use $crate::rules::Check::*;
            $crate::rules::Rule {
                id: $id,
                summary: $summary,
                kind: $crate::rules::RuleKind::$kind,
                default_severity: $crate::finding::Severity::$severity,
                sources: &[$($source),*],
                docs: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules/docs/", $id, ".md")),
                check: $check,
            }
        };
    };
}
pub(crate) use declare_rule;

/// Every rule, design rules first, then data and workload rules, each group
/// in id order.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    design::ALL
        .iter()
        .chain(data::ALL.iter())
        .chain(workload::ALL.iter())
        .copied()
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

    /// The ids, with their kind and what their check judges: renaming or
    /// dropping a rule changes this snapshot, deliberately.
    #[test]
    fn rule_ids_are_a_deliberate_list() {
        let list: Vec<String> = all()
            .map(|r| format!("{} {:?} {:?}", r.id, r.kind, r.check))
            .collect();
        insta::assert_snapshot!(list.join("\n"));
    }

    /// Each kind of check sits with the kind of rule it belongs to, and every
    /// relationship rule has an order of its own.
    #[test]
    fn checks_match_their_kind_and_orders_are_unique() {
        let mut orders = Vec::new();
        for r in all() {
            match (r.kind, r.check) {
                (RuleKind::Data, Check::Data(_)) | (RuleKind::Workload, Check::Workload(_)) => {}
                (RuleKind::Design, Check::Relationship { order, .. }) => orders.push(order),
                (RuleKind::Design, Check::Entity(_) | Check::Design(_) | Check::Cited) => {}
                (kind, check) => panic!("{}: a {kind:?} rule with a {check:?} check", r.id),
            }
        }
        let n = orders.len();
        orders.sort_unstable();
        orders.dedup();
        assert_eq!(n, orders.len(), "two relationship rules share an order");
    }

    /// Every rule's file carries tests of its own (`testing::judge` and
    /// friends), so a new rule cannot come without them.
    #[test]
    fn every_rule_file_has_its_own_tests() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
        for rule in all() {
            let folder = match rule.kind {
                RuleKind::Design => "design",
                RuleKind::Data => "data",
                RuleKind::Workload => "workload",
            };
            let file = root
                .join(folder)
                .join(format!("{}.rs", rule.id.replace('-', "_")));
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            assert!(
                text.contains("#[cfg(test)]") && text.contains("#[test]"),
                "{}: no tests in {}",
                rule.id,
                file.display()
            );
        }
    }

    /// One way to register a rule: `build.rs` lists each folder's files that
    /// declare one. A file that declares none must be a helper its folder's
    /// `mod.rs` names (`mod indexes;`), or its code would not be compiled.
    #[test]
    fn every_file_is_a_registered_rule_or_a_named_helper() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
        for folder in ["design", "data", "workload"] {
            let dir = root.join(folder);
            let facade = std::fs::read_to_string(dir.join("mod.rs")).unwrap_or_default();
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(stem) = name.strip_suffix(".rs") else {
                    continue;
                };
                if stem == "mod" {
                    continue;
                }
                let registered = all().any(|r| r.id.replace('-', "_") == stem);
                let helper = facade.contains(&format!("mod {stem};"));
                assert!(
                    registered != helper,
                    "{folder}/{name}: registered as a rule: {registered}, named as a helper: {helper}"
                );
            }
        }
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
            // A seed is cited as published (`citation`), not by its key.
            for source in citation::cited(rule.sources) {
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
