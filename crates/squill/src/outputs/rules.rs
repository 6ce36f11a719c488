//! Renders the rule catalogue (`squill rules`) and one rule's docs (`squill rule ID`).

use crate::rules::{Rule, RuleKind};
use std::fmt::Write as _;

fn kind(rule: &Rule) -> &'static str {
    match rule.kind {
        RuleKind::Design => "design",
        RuleKind::Data => "data",
        RuleKind::Workload => "workload",
    }
}

/// The catalogue as JSON: an array of `{id, summary, kind, default_severity,
/// sources}` (the docs are left out; `squill rule ID` prints them).
pub fn list_json(rules: &[&Rule]) -> String {
    let mut text = serde_json::to_string_pretty(rules).unwrap_or_else(|_| "[]".into());
    text.push('\n');
    text
}

/// The catalogue as a Markdown table, each id linking to its page in
/// docs/rules/ (this is docs/rules/README.md).
pub fn list_markdown(rules: &[&Rule]) -> String {
    let mut out = String::from(
        "# Rules\n\nEvery piece of design knowledge squill applies, generated from the rule sources \
         (`squill rules --format markdown`). `squill rule ID` prints one rule's page.\n\n\
         Design rules judge candidate layouts while `squill advise` works on a model; data rules \
         judge existing data in `squill scan`.\n\n\
         | rule | kind | default severity | summary |\n|---|---|---|---|\n",
    );
    for rule in rules {
        let _ = writeln!(
            out,
            "| [`{}`]({}.md) | {} | {} | {} |",
            rule.id,
            rule.id,
            kind(rule),
            rule.default_severity,
            rule.summary.replace('|', "\\|")
        );
    }
    out
}

/// One rule's page for `docs/rules/<id>.md`: its docs with a metadata table
/// after the summary line.
pub fn page(rule: &Rule) -> String {
    let mut out = String::new();
    let (head, body) = match rule.docs.find("\n## ") {
        Some(at) => rule.docs.split_at(at + 1),
        None => (rule.docs, ""),
    };
    out.push_str(head.trim_end());
    out.push_str("\n\n| | |\n|---|---|\n");
    let _ = writeln!(out, "| kind | {} |", kind(rule));
    let _ = writeln!(out, "| default severity | {} |", rule.default_severity);
    let _ = writeln!(
        out,
        "| sources | {} |",
        crate::rules::citation::cited(rule.sources).join("; ")
    );
    out.push('\n');
    out.push_str(body);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// One line per rule: id, kind, default severity, summary.
pub fn list(rules: &[&Rule]) -> String {
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for rule in rules {
        let _ = writeln!(
            out,
            "{:<width$}  {:<6}  {:<7}  {}",
            rule.id,
            kind(rule),
            rule.default_severity,
            rule.summary
        );
    }
    out
}

/// The rule's docs, preceded by its metadata.
pub fn docs(rule: &Rule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "id: {}", rule.id);
    let _ = writeln!(out, "default severity: {}", rule.default_severity);
    let _ = writeln!(
        out,
        "sources: {}",
        crate::rules::citation::cited(rule.sources).join("; ")
    );
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
        .map(|r| (crate::words::edit_distance(wanted, r.id), r.id))
        .filter(|(d, id)| *d <= wanted.len().max(3) / 2 || id.contains(wanted))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn docs_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules")
    }

    /// docs/rules/ is generated from the rule sources; this fails when it is out
    /// of date and rewrites it under `UPDATE_DOCS=1`.
    #[test]
    fn rule_pages_are_current() {
        let rules: Vec<&Rule> = crate::rules::all().collect();
        let mut expected: Vec<(String, String)> = rules
            .iter()
            .map(|r| (format!("{}.md", r.id), page(r)))
            .collect();
        expected.push(("README.md".into(), list_markdown(&rules)));
        let dir = docs_dir();
        let update = std::env::var_os("UPDATE_DOCS").is_some();
        if update {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let mut stale = Vec::new();
        for (name, text) in &expected {
            let path = dir.join(name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                if update {
                    std::fs::write(&path, text).unwrap();
                } else {
                    stale.push(name.clone());
                }
            }
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !expected.iter().any(|(n, _)| *n == name) {
                if update {
                    std::fs::remove_file(entry.path()).unwrap();
                } else {
                    stale.push(format!("{name} (no such rule)"));
                }
            }
        }
        assert!(
            stale.is_empty(),
            "docs/rules is out of date ({stale:?}): run UPDATE_DOCS=1 cargo test -p squill rule_pages"
        );
    }

    #[test]
    fn page_puts_metadata_after_the_summary() {
        let rule = crate::rules::by_id("subset").unwrap();
        let text = page(rule);
        assert!(text.starts_with("# subset\n\nKeep the latest K"), "{text}");
        let meta = text.find("| default severity | info |").unwrap();
        assert!(meta < text.find("## What it checks").unwrap());
    }

    #[test]
    fn json_list_has_every_rule_without_docs() {
        let rules: Vec<&Rule> = crate::rules::all().collect();
        let value: serde_json::Value = serde_json::from_str(&list_json(&rules)).unwrap();
        let items = value.as_array().unwrap();
        assert_eq!(items.len(), rules.len());
        assert_eq!(items[0]["id"], rules[0].id);
        assert!(items[0].get("docs").is_none());
        assert!(items[0]["sources"].is_array());
    }
}
