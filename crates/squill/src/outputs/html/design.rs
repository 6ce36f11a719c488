//! The HTML report of a `Design` (`squill advise --format html`): the same
//! content as the text and Markdown reports, plus what reads better as a
//! picture — the collections as a diagram, each decision's alternatives as
//! bars split by operation — and the cited rules' docs inlined.

use super::chart::{self, Bar};
use super::page::{self, esc, id, rule_link};
use super::split;
use crate::design::{
    Design, OperationDelta, OperationPlan, Purpose, RelationshipDecision, Verdict,
};
use crate::outputs::design::{SearchRun, current, describe, search_run};
use crate::words;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Renders the design as one self-contained HTML page.
pub fn render(design: &Design) -> String {
    render_run(design, None)
}

/// `render`, closing with how the search ran (`run`) when given.
pub fn render_run(design: &Design, run: Option<&SearchRun>) -> String {
    let mut sections = vec![("summary", "Summary")];
    if !design.mixes.is_empty() {
        sections.push(("mixes", "Mixes"));
    }
    sections.push(("diagram", "Collections"));
    if design.current.is_some() {
        sections.push(("current", "Today against recommended"));
    }
    sections.push(("relationships", "Relationships"));
    if !design.entities.is_empty() {
        sections.push(("entities", "Entity decisions"));
    }
    sections.push(("operations", "Operations"));
    if design.tenancy.is_some() {
        sections.push(("tenants", "Tenants"));
    }
    if design.capacity.is_some() {
        sections.push(("capacity", "Capacity"));
    }
    if design.collections.iter().any(|c| c.sharding.is_some()) {
        sections.push(("sharding", "Sharding"));
    }
    sections.extend([("findings", "Findings"), ("rules", "Rules cited")]);
    if run.is_some() {
        sections.push(("search", search_run::HEADING));
    }
    let mut body = String::new();
    summary(&mut body, design);
    mixes(&mut body, design);
    collections(&mut body, design);
    if let Some(c) = &design.current {
        today(&mut body, c);
    }
    body.push_str("<section id=\"relationships\"><h2>Relationships</h2>\n");
    if design.relationships.is_empty() {
        body.push_str("<p>None.</p>\n");
    }
    for d in &design.relationships {
        relationship(&mut body, d, design.totals.score);
    }
    body.push_str("</section>\n");
    if !design.entities.is_empty() {
        body.push_str("<section id=\"entities\"><h2>Entity decisions</h2>\n<ul>\n");
        for d in &design.entities {
            let _ = write!(body, "<li>{}", esc(&describe::entity_decision(d)));
            hits(&mut body, d.rules());
            body.push_str("</li>\n");
        }
        body.push_str("</ul></section>\n");
    }
    body.push_str("<section id=\"operations\"><h2>Operations</h2>\n");
    if design.operations.is_empty() {
        body.push_str("<p>None.</p>\n");
    }
    for plan in &design.operations {
        operation(&mut body, plan);
    }
    body.push_str("</section>\n");
    if let Some(t) = &design.tenancy {
        tenants(&mut body, t);
    }
    if let Some(c) = &design.capacity {
        body.push_str(&super::capacity::section(c));
    }
    body.push_str(&super::sharding::section(design));
    body.push_str(&super::findings::section(&design.findings));
    body.push_str(&super::docs::section(cited(design)));
    if let Some(run) = run {
        let _ = writeln!(
            body,
            "<section id=\"search\"><h2>{}</h2>\n<p>{}</p></section>",
            search_run::HEADING,
            esc(&search_run::sentence(run))
        );
    }
    let title = format!("Design for {} (mix: {})", design.model, design.mix);
    page::document(&title, &sections, &body)
}

/// Each scoped entity at the typical and the largest tenant, and what
/// each operation on them costs at both: the text and Markdown reports'
/// Tenants section, as tables.
fn tenants(out: &mut String, t: &crate::design::TenancyReport) {
    let tenant = esc(&t.tenant);
    let finders = t.exceptions(|n| esc(n).to_string());
    let _ = writeln!(
        out,
        "<section id=\"tenants\"><h2>Tenants</h2>\n<p>Every operation names its {tenant}{finders}.</p>"
    );
    let _ = writeln!(
        out,
        "<table><tr><th>entity</th><th class=\"num\">in the typical {tenant}</th><th class=\"num\">in the largest</th></tr>"
    );
    for s in &t.scoped {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&s.entity),
            words::num(s.typical),
            words::num(s.largest)
        );
    }
    out.push_str("</table>\n<table><tr><th>operation</th><th>typical</th><th>largest</th></tr>\n");
    for o in &t.operations {
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            id("op", &o.operation),
            esc(&o.operation),
            esc(&describe::per_run(&o.typical)),
            esc(&describe::per_run(&o.largest))
        );
    }
    out.push_str("</table></section>\n");
}

fn summary(out: &mut String, design: &Design) {
    let _ = writeln!(
        out,
        "<section id=\"summary\"><h1>Design for {} <small>(mix: {})</small></h1>",
        esc(&design.model),
        esc(&design.mix)
    );
    let _ = writeln!(
        out,
        "<p class=\"counts\">{} · {} · {} · {}</p>",
        words::count(design.collections.len() as f64, "collection"),
        words::count(design.relationships.len() as f64, "relationship"),
        words::count(design.operations.len() as f64, "operation"),
        words::count(design.findings.len() as f64, "finding"),
    );
    out.push_str("<table class=\"narrow\"><caption>Workload cost, weighted by the operations' rates</caption>\n<tr><th>measure</th><th class=\"num\">per second</th></tr>\n");
    for (name, value) in describe::totals(&design.totals) {
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td class=\"num\">{}</td></tr>",
            esc(&value)
        );
    }
    let _ = writeln!(
        out,
        "</table>\n<p>Index entries held: {}. Score (what the optimizer minimizes): <strong>{}</strong>.</p></section>",
        words::num(design.totals.index_entries),
        words::num(design.totals.score)
    );
}

/// This design under each mix of the model: a bar per mix and the totals
/// side by side, the mix it was made for marked.
fn mixes(out: &mut String, design: &Design) {
    if design.mixes.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"mixes\"><h2>Mixes</h2>\n<p>This design, made for mix <strong>{}</strong>, priced under each mix of the model: the same plans, each mix's rates. Mixes differ in volume as well as in shape: set a mix's figure beside the design advised for that mix (<code>squill advise --mix NAME</code>), not beside the other mixes'.</p>",
        esc(&design.mix)
    );
    let bars: Vec<Bar> = design
        .mixes
        .iter()
        .map(|m| Bar {
            label: m.mix.clone(),
            value: m.totals.score,
            class: if m.mix == design.mix { "chosen" } else { "" },
            note: if m.mix == design.mix {
                "designed for".into()
            } else {
                String::new()
            },
        })
        .collect();
    out.push_str(&chart::bars("Score per second under each mix", &bars));
    out.push_str("<table><tr><th>measure</th>");
    for m in &design.mixes {
        let _ = write!(out, "<th class=\"num\">{}</th>", esc(&m.mix));
    }
    out.push_str("</tr>\n");
    let rows: Vec<Vec<(&str, String)>> = design
        .mixes
        .iter()
        .map(|m| describe::totals(&m.totals))
        .collect();
    for (i, (name, _)) in rows[0].iter().enumerate() {
        let _ = write!(out, "<tr><td>{name}</td>");
        for r in &rows {
            let _ = write!(out, "<td class=\"num\">{}</td>", esc(&r[i].1));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><td>score</td>");
    for m in &design.mixes {
        let _ = write!(out, "<td class=\"num\">{}</td>", words::num(m.totals.score));
    }
    out.push_str("</tr></table></section>\n");
}

fn collections(out: &mut String, design: &Design) {
    out.push_str("<section id=\"diagram\"><h2>Collections</h2>\n");
    out.push_str("<p class=\"legend\">Fields: <span class=\"embedded\">embedded</span><span class=\"copy\">copied (with its source)</span><span class=\"computed\">computed</span><span class=\"reference\">reference (arrow: 1 id or n ids)</span></p>\n<figure>");
    out.push_str(&super::diagram::collections(design));
    out.push_str("<figcaption>Each box is a collection, with the entities it holds and its fields; a dashed box holds an embedded sub-document's fields. Select a box for its sizes and indexes.</figcaption></figure>\n");
    out.push_str("<table><tr><th>collection</th><th>entities</th><th class=\"num\">documents</th><th class=\"num\">typical size</th><th class=\"num\">max size</th><th>indexes</th></tr>\n");
    for c in &design.collections {
        let indexes: Vec<String> = c
            .indexes
            .iter()
            .map(|i| {
                format!(
                    "<code>{}</code> {}{}{}",
                    esc(&i.name),
                    esc(&describe::keys(&i.keys)),
                    if i.unique { " unique" } else { "" },
                    i.kept_beside
                        .as_ref()
                        .map_or_else(String::new, |k| format!(" ({})", esc(&k.words())))
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr id=\"{}\"><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            id("coll", &c.name),
            esc(&c.name),
            esc(&c.entities.join(", ")),
            words::int(c.documents),
            words::bytes(c.size.typical_bytes as f64),
            c.size
                .max_bytes
                .map_or_else(|| "unbounded".to_string(), |b| words::bytes(b as f64)),
            if indexes.is_empty() {
                "only <code>_id_</code>".to_string()
            } else {
                indexes.join("<br>")
            }
        );
    }
    out.push_str("</table></section>\n");
}

fn today(out: &mut String, c: &crate::design::CurrentComparison) {
    let _ = writeln!(
        out,
        "<section id=\"current\"><h2>Today against recommended</h2>\n<p class=\"decision\">{}</p>",
        esc(&current::verdict(c))
    );
    let bars = [
        Bar {
            label: "today".into(),
            value: c.current_totals.score,
            class: "",
            note: String::new(),
        },
        Bar {
            label: "recommended".into(),
            value: c.recommended_totals.score,
            class: "chosen",
            note: String::new(),
        },
    ];
    out.push_str(&chart::bars("Score per second of each design", &bars));
    out.push_str("<table><tr><th>per second</th><th class=\"num\">today</th><th class=\"num\">recommended</th></tr>\n");
    for (name, now, then) in current::totals(c) {
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            esc(&now),
            esc(&then)
        );
    }
    out.push_str("</table>\n<table><tr><th>relationship</th><th>today</th><th>recommended</th><th>changing it alone</th></tr>\n");
    for r in &c.relationships {
        let same = r.current == r.recommended;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.relationship),
            esc(&describe::layout(&r.current)),
            if same {
                "(keep)".to_string()
            } else {
                esc(&describe::layout(&r.recommended))
            },
            if same {
                "-".to_string()
            } else {
                esc(&current::gain(r.gain.as_ref()))
            }
        );
    }
    out.push_str("</table>\n<table><tr><th>operation</th><th class=\"num\">rate</th><th>today, per execution</th><th>recommended</th></tr>\n");
    for o in &c.operations {
        let _ = writeln!(
            out,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            id("op", &o.operation),
            esc(&o.operation),
            words::rate(o.rate),
            esc(&current::per_execution(&o.current)),
            esc(&current::per_execution(&o.recommended))
        );
    }
    out.push_str("</table>\n");
    if !c.unstated.is_empty() {
        let _ = writeln!(
            out,
            "<p>Without a layout of today, chosen by advise in both: {}.</p>",
            esc(&c.unstated.join(", "))
        );
    }
    out.push_str("</section>\n");
}

fn hits(out: &mut String, hits: &[crate::design::RuleHit]) {
    if hits.is_empty() {
        return;
    }
    out.push_str("<ul>");
    for hit in hits {
        let _ = write!(
            out,
            "<li>{}: {}</li>",
            rule_link(hit.rule),
            esc(&hit.reason.words())
        );
    }
    out.push_str("</ul>");
}

fn relationship(out: &mut String, d: &RelationshipDecision, score: f64) {
    let _ = writeln!(
        out,
        "<article class=\"card\" id=\"{}\"><h3>{}: {} → {} <small>({})</small></h3>",
        id("rel", &d.relationship),
        esc(&d.relationship),
        esc(&d.parent),
        esc(&d.child),
        esc(&d.class)
    );
    let _ = writeln!(
        out,
        "<p class=\"decision\">Decision: {}</p>",
        esc(&describe::decided(d, &d.chosen))
    );
    hits(out, &d.rules);
    if !d.alternatives.is_empty() {
        out.push_str("<table><tr><th>alternative</th><th>verdict</th><th>reason</th><th>cost difference</th></tr>\n");
    }
    for alt in &d.alternatives {
        let name = describe::decided(d, &alt.layout);
        let (verdict, reason, delta) = match &alt.verdict {
            Verdict::Rejected { rule, reason } => (
                format!("rejected by {}", rule_link(rule)),
                reason.words(),
                None,
            ),
            Verdict::Costlier {
                delta, explanation, ..
            } => ("costlier".to_string(), explanation.clone(), Some(delta)),
            Verdict::Cheaper {
                delta, explanation, ..
            } => (
                "cheaper (the model pins the chosen one)".to_string(),
                explanation.clone(),
                Some(delta),
            ),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{verdict}</td><td>{}</td><td>{}</td></tr>",
            esc(&name),
            esc(&reason),
            delta.map_or_else(String::new, |d| esc(&describe::cost_delta(d)))
        );
    }
    if !d.alternatives.is_empty() {
        out.push_str("</table>\n");
    }
    out.push_str(&by_operation(d, score));
    if !d.tradeoffs.is_empty() {
        out.push_str("<p>Trade-offs accepted:</p><ul>");
        for t in &d.tradeoffs {
            let _ = write!(out, "<li>{}</li>", esc(t));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</article>\n");
}

/// The alternatives priced against the chosen layout, split by operation
/// (the six that differ most named, the rest together) and the upkeep of
/// indexes (what no operation accounts for); nothing when none is priced.
fn by_operation(d: &RelationshipDecision, score: f64) -> String {
    const NAMED: usize = 6;
    let priced: Vec<(String, f64, &[OperationDelta])> = d
        .alternatives
        .iter()
        .filter_map(|a| match &a.verdict {
            Verdict::Costlier {
                delta,
                by_operation,
                ..
            }
            | Verdict::Cheaper {
                delta,
                by_operation,
                ..
            } => Some((
                describe::decided(d, &a.layout),
                delta.score,
                by_operation.as_slice(),
            )),
            Verdict::Rejected { .. } => None,
        })
        .collect();
    if priced.is_empty() {
        return String::new();
    }
    // Operations by the largest difference any alternative makes to them.
    let mut ops: Vec<(&str, f64)> = Vec::new();
    for (_, _, deltas) in &priced {
        for x in *deltas {
            match ops.iter_mut().find(|(o, _)| *o == x.operation) {
                Some((_, m)) => *m = m.max(x.score.abs()),
                None => ops.push((&x.operation, x.score.abs())),
            }
        }
    }
    ops.sort_by(|a, b| b.1.total_cmp(&a.1));
    let named: Vec<&str> = ops.iter().take(NAMED).map(|(o, _)| *o).collect();
    let mut names: Vec<String> = named.iter().map(|o| (*o).to_string()).collect();
    let other = ops.len() > NAMED;
    if other {
        names.push("other operations".into());
    }
    names.push("index upkeep".into());
    let rows: Vec<split::Row> = priced
        .iter()
        .map(|(label, total, deltas)| {
            let mut parts = vec![0.0; names.len()];
            for x in *deltas {
                let i = named
                    .iter()
                    .position(|o| *o == x.operation)
                    .unwrap_or(NAMED);
                parts[i] += x.score;
            }
            let by_ops: f64 = deltas.iter().map(|x| x.score).sum();
            *parts.last_mut().expect("index upkeep") += total - by_ops;
            split::Row {
                label: label.clone(),
                parts,
            }
        })
        .collect();
    split::diverging(
        &format!(
            "What each priced alternative costs more (right of the axis) or saves (left) per second against the chosen layout ({} in all), by operation",
            words::num(score)
        ),
        &names,
        &rows,
    )
}

fn operation(out: &mut String, plan: &OperationPlan) {
    let _ = writeln!(
        out,
        "<article class=\"card\" id=\"{}\"><h3>{} <small>({})</small></h3>",
        id("op", &plan.operation),
        esc(&plan.operation),
        words::rate(plan.rate)
    );
    out.push_str("<table><tr><th class=\"num\">#</th><th>command</th><th>collection</th><th>filter</th><th>index</th><th class=\"num\">documents</th><th>purpose</th></tr>\n");
    for (i, s) in plan.steps.iter().enumerate() {
        let filter = describe::step_filter(s);
        let command = describe::step_command(s);
        let mut documents = words::num(s.documents);
        match (s.every, s.if_matched) {
            (Some(n), Some(k)) => {
                let _ = write!(
                    documents,
                    " (only when step {k} matched, about once every {} runs)",
                    words::int(n)
                );
            }
            (Some(n), None) => {
                let _ = write!(documents, " (once every {} runs)", words::int(n));
            }
            (None, Some(k)) if s.if_changed => {
                let _ = write!(documents, " (only when step {k} changed its document)");
            }
            (None, Some(k)) => {
                let _ = write!(documents, " (only when step {k} matched)");
            }
            (None, None) => {}
        }
        if s.fallback {
            documents.push_str(" (when the write before matched nothing)");
        }
        if let Some(gate) = describe::deleted_all(s) {
            let _ = write!(documents, " ({gate})");
        }
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td>{}</td><td><a href=\"#{}\">{}</a></td><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            i + 1,
            esc(&command),
            id("coll", &s.collection),
            esc(&s.collection),
            esc(&filter),
            s.index.as_deref().map_or_else(
                || "none".to_string(),
                |i| format!("<code>{}</code>", esc(i))
            ),
            esc(&documents),
            esc(&Purpose::texts(&s.purpose))
        );
    }
    let _ = writeln!(
        out,
        "</table>\n<p>Per run: {}.{}</p>",
        esc(&describe::per_run_of(plan)),
        if plan.transaction {
            " Needs a multi-document transaction."
        } else {
            ""
        }
    );
    for w in &plan.warnings {
        let _ = writeln!(out, "<p class=\"warning\">Warning: {}</p>", esc(&w.text()));
    }
    out.push_str("</article>\n");
}

/// Every rule the report links to, once, in id order.
fn cited(design: &Design) -> BTreeSet<&'static str> {
    let mut ids = BTreeSet::new();
    for d in &design.relationships {
        ids.extend(d.rules.iter().map(|h| h.rule));
        for alt in &d.alternatives {
            if let Verdict::Rejected { rule, .. } = &alt.verdict {
                ids.insert(*rule);
            }
        }
    }
    for d in &design.entities {
        ids.extend(d.rules().iter().map(|h| h.rule));
    }
    ids.extend(design.findings.iter().map(|f| f.rule));
    ids
}

#[cfg(test)]
mod tests {
    /// The Tenants section of a design that has one (the hand-built
    /// sample with every variant): each scoped entity and each operation
    /// at the typical and the largest tenant, linked to its plan.
    #[test]
    fn the_tenants_section() {
        let html = super::render(&crate::outputs::design::sample::every_variant());
        let start = html
            .find("<section id=\"tenants\">")
            .expect("a Tenants section");
        let end = start + html[start..].find("</section>").expect("its end") + "</section>".len();
        insta::assert_snapshot!(&html[start..end]);
        assert!(
            html.contains("<a href=\"#tenants\">"),
            "listed in the page's sections"
        );
    }
}
