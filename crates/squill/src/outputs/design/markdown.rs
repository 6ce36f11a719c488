//! The Markdown report of a `Design`: the same content as the text report, as
//! headings and tables, for pull requests, wikis and design reviews.

use super::describe;
use super::describe_markdown;
use crate::design::{Collection, Design, OperationPlan, Purpose, RelationshipDecision, Verdict};
use crate::words;
use crate::words::markdown as md;
use std::fmt::Write as _;

/// Renders the design as a Markdown document.
pub fn render(design: &Design) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Design for {} (mix: {})\n",
        md::text(&design.model),
        md::text(&design.mix)
    );
    let _ = writeln!(
        out,
        "{} · {} · {} · {}\n",
        words::count(design.collections.len() as f64, "collection"),
        words::count(design.relationships.len() as f64, "relationship"),
        words::count(design.operations.len() as f64, "operation"),
        words::count(design.findings.len() as f64, "finding"),
    );
    out.push_str("Workload cost (weighted by the operations' rates):\n\n| measure | per second |\n|---|---:|\n");
    for (name, value) in describe::totals(&design.totals) {
        let _ = writeln!(out, "| {name} | {value} |");
    }
    let _ = writeln!(
        out,
        "\nIndex entries held: {}. Score (what the optimizer minimizes): {}.",
        words::num(design.totals.index_entries),
        words::num(design.totals.score)
    );
    if let Some(c) = &design.current {
        out.push('\n');
        super::current::markdown(&mut out, c);
    }
    out.push_str("\n## Collections\n\n");
    out.push_str(&super::mermaid::diagram(design));
    out.push('\n');
    for c in &design.collections {
        collection(&mut out, c);
    }
    out.push_str("## Relationships\n\n");
    if design.relationships.is_empty() {
        out.push_str("None.\n\n");
    }
    for d in &design.relationships {
        relationship(&mut out, d);
    }
    if !design.entities.is_empty() {
        out.push_str("## Entity decisions\n\n");
        for d in &design.entities {
            let _ = writeln!(out, "- {}", describe_markdown::entity_decision(d));
            for hit in describe::entity_decision_rules(d) {
                let _ = writeln!(out, "  - `{}`: {}", hit.rule, reason_words(&hit.reason));
            }
        }
        out.push('\n');
    }
    out.push_str("## Operations\n\n");
    if design.operations.is_empty() {
        out.push_str("None.\n\n");
    }
    for plan in &design.operations {
        operation(&mut out, plan);
        if let Some(t) = design
            .tenancy
            .as_ref()
            .filter(|t| t.all_tenants.contains(&plan.operation))
        {
            let _ = writeln!(
                out,
                "Spans every {} (`all_tenants`): names none, priced over every {}'s documents.\n",
                md::text(&t.tenant),
                md::text(&t.tenant)
            );
        }
    }
    if let Some(t) = &design.tenancy {
        tenants(&mut out, t);
    }
    // Before the capacity section, which ends the report's figures.
    if design.collections.iter().any(|c| c.sharding.is_some()) {
        sharding(&mut out, design);
    }
    if let Some(c) = &design.capacity {
        capacity(&mut out, c);
    }
    out.push_str("## Findings\n\n");
    if design.findings.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str(
            "| severity | rule | where | message | evidence | help |\n|---|---|---|---|---|---|\n",
        );
        for f in &design.findings {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} |",
                f.severity,
                f.rule,
                cell(&describe::location(&f.location)),
                md::sentence(&f.message, &f.names(), true),
                cell(&describe::evidence(&f.evidence)),
                cell(f.help.as_deref().unwrap_or(""))
            );
        }
    }
    out
}

fn collection(out: &mut String, c: &Collection) {
    let _ = writeln!(out, "### {}\n", md::text(&c.name));
    let max = c
        .size
        .max_bytes
        .map_or_else(|| "unbounded".to_string(), |b| words::bytes(b as f64));
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(out, "| entities | {} |", cell(&c.entities.join(", ")));
    if let Some(d) = &c.discriminator {
        let _ = writeln!(out, "| type field | {} |", md::code(d));
    }
    let _ = writeln!(out, "| documents | {} |", words::int(c.documents));
    let _ = writeln!(
        out,
        "| size, typical | {} |",
        words::bytes(c.size.typical_bytes as f64)
    );
    let _ = writeln!(out, "| size, max cardinality | {max} |");
    let _ = writeln!(out, "| nesting depth | {} |\n", c.size.nesting_depth);
    let pretty = describe::pretty_json(&describe::abridge(&c.example));
    // JSON escapes C0 controls in field names, not C1 or bidi ones.
    let pretty = words::visible_lines(&pretty);
    let _ = writeln!(out, "Example document:\n\n```json\n{pretty}\n```\n");
    if c.indexes.is_empty() {
        out.push_str("Indexes: only the implicit `_id_`.\n\n");
        return;
    }
    out.push_str("| index | keys | unique | used by |\n|---|---|---|---|\n");
    for i in &c.indexes {
        let mut used = if i.kept_by_data {
            "kept unique by the data (no operation of the workload uses it)".to_string()
        } else if i.used_by.is_empty() {
            "(implicit)".to_string()
        } else {
            i.used_by.join(", ")
        };
        if let Some(k) = &i.kept_beside {
            used = format!("{used}; {}", k.words());
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            md::code(&i.name),
            md::code(&describe::keys(&i.keys)),
            if i.unique { "yes" } else { "no" },
            cell(&used)
        );
    }
    out.push('\n');
}

fn relationship(out: &mut String, d: &RelationshipDecision) {
    let _ = writeln!(
        out,
        "### {}: {} → {} ({})\n",
        md::text(&d.relationship),
        md::text(&d.parent),
        md::text(&d.child),
        d.class
    );
    let _ = writeln!(
        out,
        "**Decision:** {}\n",
        describe_markdown::decided(d, &d.chosen)
    );
    if super::describe::only_one_left(d) {
        let _ = writeln!(out, "Why: {}.\n", super::describe::ONLY_ONE_LEFT);
    }
    if !d.rules.is_empty() {
        out.push_str("Why:\n\n");
        for hit in &d.rules {
            let _ = writeln!(out, "- `{}`: {}", hit.rule, reason_words(&hit.reason));
        }
        out.push('\n');
    }
    if !d.alternatives.is_empty() {
        out.push_str("| alternative | verdict | reason | cost difference |\n|---|---|---|---|\n");
        for alt in &d.alternatives {
            let (verdict, reason, delta) = match &alt.verdict {
                Verdict::Rejected { rule, reason } => {
                    let evidence = reason.evidence();
                    (
                        format!("rejected by `{rule}`"),
                        md::sentence(&reason.words(), &md::strings_in(&evidence), true),
                        String::new(),
                    )
                }
                Verdict::Costlier {
                    delta, explanation, ..
                } => (
                    "costlier".to_string(),
                    cell(explanation),
                    describe::cost_delta(delta),
                ),
                Verdict::Cheaper {
                    delta, explanation, ..
                } => (
                    "cheaper (the model pins the chosen one)".to_string(),
                    cell(explanation),
                    describe::cost_delta(delta),
                ),
            };
            let _ = writeln!(
                out,
                "| {} | {verdict} | {} | {} |",
                describe_markdown::decided(d, &alt.layout),
                reason,
                cell(&delta)
            );
        }
        out.push('\n');
    }
    if !d.tradeoffs.is_empty() {
        out.push_str("Trade-offs accepted:\n\n");
        for t in &d.tradeoffs {
            let _ = writeln!(out, "- {}", md::text(t));
        }
        out.push('\n');
    }
}

fn operation(out: &mut String, plan: &OperationPlan) {
    let _ = writeln!(
        out,
        "### {} ({})\n",
        md::text(&plan.operation),
        words::rate(plan.rate)
    );
    out.push_str("| # | command | collection | filter | index | documents | purpose |\n|---|---|---|---|---|---:|---|\n");
    for (i, s) in plan.steps.iter().enumerate() {
        let filter = describe::step_filter(s);
        let command = describe::step_command(s);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            i + 1,
            cell(&command),
            cell(&s.collection),
            md::code(&filter),
            s.index
                .as_deref()
                .map_or_else(|| "none".to_string(), md::code),
            match s.every {
                Some(n) => format!(
                    "{} (once every {} runs{})",
                    words::num(s.documents),
                    words::int(n),
                    match (s.fallback, s.if_matched) {
                        (true, _) => ", when the write before matched nothing".to_string(),
                        (_, Some(k)) => format!(", only when step {k} matched"),
                        _ => String::new(),
                    }
                ),
                None => match (s.if_matched, describe::deleted_all(s)) {
                    (Some(k), _) if s.if_changed => format!(
                        "{} (only when step {k} changed its document)",
                        words::num(s.documents)
                    ),
                    (Some(k), _) => {
                        format!("{} (only when step {k} matched)", words::num(s.documents))
                    }
                    (None, Some(gate)) => format!("{} ({gate})", words::num(s.documents)),
                    (None, None) => words::num(s.documents),
                },
            },
            cell(&Purpose::texts(&s.purpose))
        );
    }
    let _ = writeln!(out, "\nPer run: {}.", describe::per_run_of(plan));
    if plan.transaction {
        out.push_str("Needs a multi-document transaction.\n");
    }
    for w in &plan.warnings {
        let _ = writeln!(out, "\n> **Warning:** {}", md::text(&w.text()));
    }
    out.push('\n');
}

/// Each scoped entity at the typical and the largest tenant, and each
/// operation on them at both.
fn tenants(out: &mut String, t: &crate::design::TenancyReport) {
    let tenant = cell(&t.tenant);
    let _ = write!(
        out,
        "## Tenants\n\nEvery operation names its {tenant}{}.\n\n",
        t.exceptions(|n| cell(n).to_string())
    );
    let _ = writeln!(
        out,
        "| entity | in the typical {tenant} | in the largest |\n|---|---:|---:|"
    );
    for s in &t.scoped {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&s.entity),
            words::num(s.typical),
            words::num(s.largest)
        );
    }
    out.push_str("\n| operation | typical | largest |\n|---|---|---|\n");
    for o in &t.operations {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&o.operation),
            cell(&describe::per_run(&o.typical)),
            cell(&describe::per_run(&o.largest))
        );
    }
    out.push('\n');
}

/// A projection alone (a deployment's, `scan --horizon`), with its
/// heading, as the design's report writes it.
pub fn capacity_section(c: &crate::design::capacity::Capacity) -> String {
    let mut out = String::new();
    capacity(&mut out, c);
    out
}

/// Each sharded collection: why, the key chosen, every candidate priced.
fn sharding(out: &mut String, design: &Design) {
    use super::sharding as sh;
    out.push_str("## Sharding\n\n");
    for c in &design.collections {
        let Some(s) = &c.sharding else { continue };
        let _ = writeln!(
            out,
            "### {}\n\n**{}**. {}.\n",
            md::code_in_prose(&c.name),
            cell(&sh::chosen(s)),
            cell(&sh::cause(s))
        );
        for z in sh::zones(s) {
            let _ = writeln!(out, "- {}\n", cell(&z));
        }
        // Each line starts with its rank: an ordered list.
        for k in &s.candidates {
            let _ = writeln!(out, "{}", cell(&sh::candidate(k)));
        }
        out.push('\n');
    }
}

/// The projection: the deployment, the limits in the order reached, what
/// to change, and the months as a table.
fn capacity(out: &mut String, c: &crate::design::capacity::Capacity) {
    use super::capacity as cap;
    let _ = writeln!(out, "## Capacity\n\n{}.\n", cell(&cap::deployment(c)));
    if let Some(u) = cap::unchecked(c, cap::Medium::Markdown) {
        let _ = writeln!(out, "{u}.\n");
    }
    match c.limits.first() {
        Some(first) => {
            let _ = writeln!(
                out,
                "- **First limit**: {}",
                cap::limit(first, cap::Medium::Markdown)
            );
            for l in &c.limits[1..] {
                let _ = writeln!(out, "- then: {}", cap::limit(l, cap::Medium::Markdown));
            }
        }
        None => {
            let _ = writeln!(
                out,
                "- No limit reached within {}.",
                words::count(f64::from(c.horizon_months), "month")
            );
        }
    }
    for r in &c.remedies {
        let _ = writeln!(
            out,
            "- **Change**: {}",
            cap::remedy(r, cap::Medium::Markdown)
        );
    }
    // Names and words to the left, figures to the right.
    let align: Vec<&str> = (0..cap::COLUMNS.len())
        .map(|i| if i == 1 || i == 5 { "---" } else { "---:" })
        .collect();
    let _ = writeln!(
        out,
        "\n| {} |\n|{}|",
        cap::COLUMNS.join(" | "),
        align.join("|")
    );
    for row in c.months.iter().flat_map(cap::rows) {
        let cells: Vec<String> = row.iter().map(|x| cell(x)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// A name, or a sentence made around names, in a table cell (`md::text`:
/// pipes, markup and line feeds escaped).
/// A rule's reason in prose, each name it quotes from its evidence a code
/// span.
fn reason_words(reason: &crate::design::reason::Reason) -> String {
    let evidence = reason.evidence();
    md::sentence(&reason.words(), &md::strings_in(&evidence), false)
}

fn cell(text: &str) -> String {
    md::text(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::design::sample;

    #[test]
    fn product_parts_markdown() {
        insta::assert_snapshot!(render(&sample::product_parts()));
    }

    #[test]
    fn every_variant_markdown() {
        insta::assert_snapshot!(render(&sample::every_variant()));
    }

    #[test]
    fn pipes_in_cells_are_escaped() {
        assert_eq!(cell("a | b\nc"), "a \\| b\\\\nc");
    }
}
