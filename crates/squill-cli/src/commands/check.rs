//! `squill check`: validates a model file and summarizes it, so a person can see
//! what squill understood before asking for advice.

use crate::cli::Global;
use anyhow::Result;
use squill::model::{Model, RelationshipKind};
use squill::settings::Settings;
use squill::words::visible as v;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The model file (YAML or JSON; see docs/model-file.md); `-` reads standard input.
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,
}

pub fn run(global: &Global, args: CheckArgs) -> Result<ExitCode> {
    let settings = super::load_settings(global)?;
    let model = super::load_model(&args.model)?;
    let name = if args.model.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        args.model.display().to_string()
    };
    super::write_summary(&summary(&model, &name, &settings))
}

/// Thousands separators for counts.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn rate(r: f64) -> String {
    if r == 0.0 {
        "0".to_string()
    } else if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 1.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.3}")
    }
}

fn summary(model: &Model, path: &str, settings: &Settings) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: model `{}` is valid", v(path), v(&model.name));
    let name_width = |names: &mut dyn Iterator<Item = usize>| names.max().unwrap_or(0);

    let _ = writeln!(out, "\nentities ({}):", model.entities.len());
    let w = name_width(&mut model.entities.iter().map(|e| e.name.len()));
    for e in &model.entities {
        let _ = writeln!(
            out,
            "  {:<w$}  {:>13} documents  {} field{}",
            v(&e.name),
            grouped(e.count),
            e.fields.len(),
            if e.fields.len() == 1 { "" } else { "s" }
        );
    }

    let _ = writeln!(out, "\nrelationships ({}):", model.relationships.len());
    let w = name_width(&mut model.relationships.iter().map(|r| r.name.len()));
    for r in &model.relationships {
        let class = settings.cardinality.classify(r.kind, &r.children);
        let kind = match r.kind {
            RelationshipKind::ManyToMany => format!("many-to-many (children {class})"),
            _ => class.to_string(),
        };
        let mut notes: Vec<String> = Vec::new();
        if r.child_standalone {
            notes.push("standalone".into());
        }
        if !r.attributes.is_empty() {
            let names: Vec<&str> = r.attributes.iter().map(|a| a.name.as_str()).collect();
            notes.push(format!("attributes {}", v(&names.join(", "))));
        }
        if r.shared {
            notes.push("shared".into());
        }
        let _ = writeln!(
            out,
            "  {:<w$}  {} -> {}  {kind}  children {}/{}/{}  parents {}/{}/{}{}",
            v(&r.name),
            v(&model.entity(r.parent).name),
            v(&model.entity(r.child).name),
            r.children.min,
            r.children.typical,
            r.children.max,
            r.parents.min,
            r.parents.typical,
            r.parents.max,
            if notes.is_empty() {
                String::new()
            } else {
                format!("  ({})", notes.join(", "))
            }
        );
    }

    let wl = &model.workload;
    let _ = writeln!(
        out,
        "\noperations ({}) in {} mix{}:",
        wl.operations.len(),
        wl.mixes.len(),
        if wl.mixes.len() == 1 { "" } else { "es" }
    );
    let w = name_width(&mut wl.mixes.iter().map(|m| m.name.len()));
    for (i, mix) in wl.mixes.iter().enumerate() {
        let active: Vec<_> = wl.operations.iter().filter(|o| o.rate(i) > 0.0).collect();
        let reads: f64 = active
            .iter()
            .filter(|o| !o.is_write())
            .map(|o| o.rate(i))
            .sum();
        let writes: f64 = active
            .iter()
            .filter(|o| o.is_write())
            .map(|o| o.rate(i))
            .sum();
        let _ = writeln!(
            out,
            "  {:<w$}  {} operation{}  reads {}/s  writes {}/s",
            v(&mix.name),
            active.len(),
            if active.len() == 1 { "" } else { "s" },
            rate(reads),
            rate(writes),
        );
    }
    if !wl.atomic_groups.is_empty() {
        let _ = writeln!(out, "\natomic groups ({}):", wl.atomic_groups.len());
        for g in &wl.atomic_groups {
            let ops: Vec<&str> = g
                .operations
                .iter()
                .map(|o| model.operation(*o).name.as_str())
                .collect();
            let _ = writeln!(out, "  {}: {}", v(&g.name), v(&ops.join(", ")));
        }
    }
    out
}
