//! A live PostgreSQL database as a model (`squill import postgres://…`,
//! feature `postgres`): the catalog read into the same schema the DDL
//! reader builds (`catalog`), the figures DDL lacks measured (`measure`),
//! the workload from the server's counters (`workload`), all through a
//! read-only session whose errors never show the password (`connect`).

pub mod catalog;
pub mod connect;
pub mod measure;
pub mod workload;

pub use connect::{LiveError, Target};

use crate::inputs::model_file;
use crate::inputs::sql::evidence::Evidence;
use crate::inputs::sql::map::{Import, Mapping, import_schema};
use crate::inputs::sql::statements::translate;
use crate::inputs::sql::write::q;
use crate::words::visible as shown;
use std::time::Duration;

/// How to import.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The namespace whose tables are read.
    pub schema: String,
    /// Measure the workload as the difference over this long, instead of
    /// since the counters' last reset.
    pub observe: Option<Duration>,
    /// Parents measured at most per relationship; a sample above.
    pub sample: u64,
    pub statement_timeout: Duration,
    pub connect_timeout: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            schema: "public".into(),
            observe: None,
            sample: 100_000,
            statement_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// The model of a live database, and what was noted on the way.
#[derive(Debug, Clone)]
pub struct LiveImport {
    pub import: Import,
    /// `host:port/database`.
    pub source: String,
    /// Remarks for the user (one line each).
    pub notes: Vec<String>,
    /// Statements read, mapped to operations, left out (with why).
    pub statements: usize,
    pub mapped: usize,
    pub skipped: Vec<(String, String)>,
    /// Statements that read or write no rows (SET, DDL, COPY, …).
    pub other: usize,
    /// Whether the workload came from `pg_stat_statements`.
    pub has_statements: bool,
    /// Seconds the workload's counters cover.
    pub seconds: f64,
}

/// Connects to `url`, reads and measures, and writes the model.
pub fn import(
    url: &str,
    options: &LiveOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<LiveImport, LiveError> {
    let target = Target::parse(url, options.connect_timeout)?;
    progress(&format!("connecting to {}", target.name));
    let mut client = target.connect(options.statement_timeout)?;
    let schema = catalog::read(&mut client, &target, &options.schema)?;
    if schema.tables.is_empty() {
        return Err(LiveError::Query(format!(
            "{}: schema `{}` has no tables this user can see (--schema names another)",
            target.name, options.schema
        )));
    }
    let mut mapping = Mapping::of(&schema);
    let mut notes = Vec::new();
    let mut evidence = Evidence {
        source: target.name.clone(),
        ..Evidence::default()
    };
    let mut m = measure::Measure {
        client: &mut client,
        target: &target,
        schema: &options.schema,
        sample: options.sample.max(1),
    };
    progress(&format!(
        "counting the rows of {} tables",
        schema.tables.len()
    ));
    m.counts(&schema, &mut evidence, &mut notes)?;
    if m.column_stats(&mut evidence)? == 0 {
        notes.push(
            "pg_stats has no statistics for these tables: sizes are the declared ones (run ANALYZE first to measure them)"
                .into(),
        );
    }
    progress(&format!(
        "measuring {} relationships",
        mapping.relationships.len()
    ));
    let dropped = m.relationships(&mapping, &mut evidence)?;
    for (i, why) in dropped.iter().rev() {
        mapping.relationships.remove(*i);
        notes.push(format!("inferred reference dropped: {why}"));
    }
    let reading = match options.observe {
        Some(d) => {
            progress(&format!("observing the workload for {} s", d.as_secs()));
            workload::observe(&mut client, &target, &options.schema, d, |_| {})?
        }
        None => workload::read(&mut client, &target, &options.schema)?,
    };
    let observed = reading.observed();
    let translated = translate(&schema, &mapping, &observed);
    let mut blocks = translated.blocks.clone();
    evidence.inserts = translated.inserts.clone().into_iter().collect();
    if reading.hidden > 0 {
        notes.push(format!(
            "{} statements of other users are hidden from this user: grant it pg_read_all_stats to read them",
            reading.hidden
        ));
    }
    if !reading.has_statements {
        notes.push(
            "pg_stat_statements is not installed (or not loaded): no reads are known; writes come from pg_stat_user_tables"
                .into(),
        );
        blocks.extend(table_writes(&reading, &mapping, &schema));
        let seconds = reading.tables_seconds.max(1e-3);
        for (table, [ins, _, _]) in &reading.tables {
            if *ins > 0 {
                evidence
                    .inserts
                    .insert(table.clone(), *ins as f64 / seconds);
            }
        }
    }
    let name = target
        .name
        .rsplit('/')
        .next()
        .unwrap_or("imported")
        .to_string();
    let (import, dropped_ops) = write_valid(&name, &schema, &mapping, &mut evidence, blocks);
    notes.extend(
        import
            .renamed
            .iter()
            .map(super::sql::names::Renamed::message),
    );
    for (first_line, why) in dropped_ops {
        notes.push(format!("operation left out ({why}): {first_line}"));
    }
    Ok(LiveImport {
        import,
        source: target.name.clone(),
        notes,
        statements: observed.len(),
        mapped: translated.mapped,
        skipped: translated.skipped,
        other: translated.other,
        has_statements: reading.has_statements,
        seconds: if reading.has_statements {
            reading.statements_seconds
        } else {
            reading.tables_seconds
        },
    })
}

/// Writes the model; an operation the model's checks refuse is left out
/// (with the reason) rather than failing the whole import.
fn write_valid(
    name: &str,
    schema: &crate::inputs::sql::ddl::Schema,
    mapping: &Mapping,
    evidence: &mut Evidence,
    mut blocks: Vec<Vec<String>>,
) -> (Import, Vec<(String, String)>) {
    let mut dropped = Vec::new();
    loop {
        evidence.operations = blocks.concat();
        let import = import_schema(name, schema, mapping, Some(evidence));
        let Err(e) = model_file::parse(&format!("{name}.yaml"), &import.yaml) else {
            return (import, dropped);
        };
        // The first line of the operations section, 1-based.
        let start = import
            .yaml
            .lines()
            .position(|l| l == "operations:")
            .map_or(usize::MAX, |i| i + 2);
        let bad = e.problems().iter().find_map(|p| {
            let line = p.position.as_ref()?.line;
            let mut at = start;
            for (i, b) in blocks.iter().enumerate() {
                if line >= at && line < at + b.len() {
                    return Some((i, p.message.clone()));
                }
                at += b.len();
            }
            None
        });
        match bad {
            Some((i, why)) => {
                let block = blocks.remove(i);
                dropped.push((
                    block.get(1).cloned().unwrap_or_default().trim().to_string(),
                    why,
                ));
            }
            // A problem outside the operations is squill's own: keep the
            // model as written, so that `squill check` shows it.
            None => return (import, dropped),
        }
    }
}

/// Operations from the tables' row counters, when no statement is known:
/// inserts (linked to each parent) and deletes at the measured rates, and a
/// comment for updates, whose changed fields the counters do not say.
fn table_writes(
    reading: &workload::Reading,
    mapping: &Mapping,
    schema: &crate::inputs::sql::ddl::Schema,
) -> Vec<Vec<String>> {
    let seconds = reading.tables_seconds.max(1e-3);
    let mut out = Vec::new();
    for t in &schema.tables {
        let Some([ins, upd, del]) = reading.tables.get(&t.name).copied() else {
            continue;
        };
        let entity = mapping.names.entity(&t.name);
        let junction = mapping
            .relationships
            .iter()
            .find(|r| r.link.is_some() && r.table == t.name);
        let rate = |n: i64| format!("{:.4}", n as f64 / seconds);
        let how = |n: i64, what: &str| {
            format!(
                "  # {n} rows {what} in {:.0} s (pg_stat_user_tables)",
                seconds
            )
        };
        if ins > 0 {
            let mut b = vec![how(ins, "inserted")];
            match junction {
                Some(r) => {
                    b.push(format!("  {}:", q(&format!("link_{}", r.name))));
                    b.push(format!("    link: {}", q(&r.name)));
                }
                None => {
                    b.push(format!("  {}:", q(&format!("insert_{entity}"))));
                    b.push(format!("    insert: {}", q(entity)));
                    let links: Vec<&str> = mapping
                        .relationships
                        .iter()
                        .filter(|r| r.link.is_none() && r.child == t.name && r.parent != r.child)
                        .map(|r| r.name.as_str())
                        .collect();
                    if !links.is_empty() {
                        let links: Vec<String> = links.iter().map(|l| q(l)).collect();
                        b.push(format!("    links: [{}]", links.join(", ")));
                    }
                }
            }
            b.push(format!("    rate: {}", rate(ins)));
            out.push(b);
        }
        if del > 0 {
            let mut b = vec![how(del, "deleted")];
            match junction {
                Some(r) => {
                    b.push(format!("  {}:", q(&format!("unlink_{}", r.name))));
                    b.push(format!("    unlink: {}", q(&r.name)));
                }
                None => {
                    b.push(format!("  {}:", q(&format!("delete_{entity}"))));
                    b.push(format!("    delete: {}", q(entity)));
                    b.push("    filter: {_id: eq}  # assumed: one row at a time".into());
                }
            }
            b.push(format!("    rate: {}", rate(del)));
            out.push(b);
        }
        if upd > 0 {
            out.push(vec![format!(
                "  # {}: {upd} rows updated in {seconds:.0} s; which fields change is not known without pg_stat_statements",
                shown(&t.name)
            )]);
        }
    }
    out
}
