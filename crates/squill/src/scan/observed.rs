//! The workload the logs show, as the model's operations: each query shape
//! of a namespace the scan measured becomes an operation of that
//! collection's entity — a read with its filter, sort, limit and the
//! relationships its `$lookup`s follow; an insert, update or delete — at
//! the rate the logs give it. A shape that cannot be said in the model
//! (a namespace the dump does not hold, a nested field, no time span) is
//! listed with the reason instead of being dropped.
//!
//! Each operation is written as model-file text and read back alone
//! against the scanned model, so an operation the model language refuses
//! is reported with the parser's own reason and the others are kept.

use crate::model::{Model, RelationshipKind};
use crate::workload::WorkloadReport;
use crate::workload::report::ShapeReport;
use crate::workload::shape::{OpClass, OpKind};
use std::fmt::Write as _;

/// A shape that did not become an operation, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmapped {
    pub namespace: String,
    /// `S3`, as the workload report numbers shapes.
    pub shape: String,
    pub text: String,
    pub why: String,
}

/// The logs' shapes as operations of `model`, the model `emit_model`
/// made of `scan` (its entities are the collections with documents, in
/// order): the model with them, its text as written (with the comments
/// that say what is assumed), and the shapes left out.
pub fn operations(
    scan: &super::report::ScanReport,
    model: &Model,
    workload: &WorkloadReport,
) -> (Model, String, Vec<Unmapped>) {
    let collections: Vec<(Option<String>, String)> = scan
        .collections
        .iter()
        .filter(|c| c.documents > 0)
        .map(|c| (c.database.clone(), c.name.clone()))
        .collect();
    let base = crate::inputs::model_file::to_yaml(model);
    let mut kept: Vec<String> = Vec::new();
    let mut unmapped = Vec::new();
    for ns in &workload.namespaces {
        let entity = collections
            .iter()
            .position(|(db, name)| {
                *name == ns.collection && db.as_deref().is_none_or(|d| d == ns.database)
            })
            .map(|i| model.entities[i].name.clone());
        for s in &ns.shapes {
            let miss = |why: String| Unmapped {
                namespace: ns.namespace.clone(),
                shape: s.id.clone(),
                text: s.text.clone(),
                why,
            };
            let Some(entity) = &entity else {
                unmapped.push(miss("the dump holds no such collection".into()));
                continue;
            };
            let of = |collection: &str| {
                collections
                    .iter()
                    .position(|(db, name)| {
                        name == collection && db.as_deref().is_none_or(|d| d == ns.database)
                    })
                    .map(|i| model.entities[i].name.clone())
            };
            let op = match operation(model, entity, &ns.namespace, s, &of) {
                Ok(op) => op,
                Err(why) => {
                    unmapped.push(miss(why));
                    continue;
                }
            };
            // Read back alone: the model language's verdict on it.
            let text = format!("{base}operations:\n{op}");
            match crate::inputs::model_file::parse("observed.yaml", &text) {
                Ok(_) => kept.push(op),
                Err(e) => {
                    let why = e
                        .problems()
                        .first()
                        .map_or_else(|| "the model refuses it".to_string(), |p| p.message.clone());
                    unmapped.push(miss(why));
                }
            }
        }
    }
    let text = if kept.is_empty() {
        base
    } else {
        format!("{base}operations:\n{}", kept.concat())
    };
    let model =
        crate::inputs::model_file::parse("observed.yaml", &text).unwrap_or_else(|_| model.clone());
    (model, text, unmapped)
}

/// One shape as the text of one operation of `entity`.
fn operation(
    model: &Model,
    entity: &str,
    namespace: &str,
    s: &ShapeReport,
    entity_of: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let rate = s
        .rate_per_second
        .filter(|r| *r > 0.0)
        .ok_or("the logs have no time span to make a rate of")?;
    let shape = &s.shape;
    let verb = match shape.kind {
        OpKind::Find | OpKind::Count | OpKind::Distinct | OpKind::GetMore | OpKind::Aggregate => {
            "read"
        }
        OpKind::Insert => "insert",
        OpKind::Update | OpKind::FindAndModify => "update",
        OpKind::Delete => "delete",
    };
    let name = format!("{}_{}", s.id.to_ascii_lowercase(), verb);
    let mut out = String::new();
    let _ = writeln!(out, "  {name}:");
    let _ = writeln!(out, "    {verb}: {entity}");
    let _ = writeln!(out, "    rate: {}", round(rate));
    let _ = writeln!(
        out,
        "    description: \"observed in the logs: {} × {} on {namespace} ({})\"",
        s.count,
        shape.kind.as_str(),
        s.id
    );
    if shape.kind == OpKind::Insert {
        return Ok(out);
    }
    // The filter: a pipeline's $match stages count as the filter.
    let mut filter = shape.filter.clone();
    for st in &shape.stages {
        filter.extend(st.fields.iter().cloned());
    }
    filter.sort();
    filter.dedup_by(|a, b| a.path == b.path);
    if !filter.is_empty() {
        let parts: Vec<String> = filter
            .iter()
            .map(|f| format!("{}: {}", key(&f.path), op(f.op)))
            .collect();
        let _ = writeln!(out, "    filter: {{{}}}", parts.join(", "));
    }
    if verb == "read" {
        let mut sort = shape.sort.clone();
        for st in &shape.stages {
            sort.extend(st.sort.iter().cloned());
        }
        if !sort.is_empty() {
            let keys: Vec<String> = sort
                .iter()
                .map(|k| format!("{}{}", if k.descending { "-" } else { "" }, k.path))
                .collect();
            let _ = writeln!(out, "    sort: [{}]", keys.join(", "));
        }
        let limited = shape.limit || shape.stages.iter().any(|st| st.name == "$limit");
        if limited {
            // The logs show that a limit is set, not its value.
            let _ = writeln!(
                out,
                "    limit: {ASSUMED_LIMIT}  # assumed: the logs show a limit, not its value"
            );
        }
        let mut includes = Vec::new();
        for st in shape.stages.iter().filter(|st| st.from.is_some()) {
            let from = st.from.as_deref().unwrap_or_default();
            let rel = entity_of(from)
                .and_then(|other| related(model, entity, &other))
                .ok_or_else(|| {
                    format!(
                        "a $lookup from {from}, which no reference in the data ties to {entity}"
                    )
                })?;
            includes.push(format!("{rel}: {{}}"));
        }
        if !includes.is_empty() {
            let _ = writeln!(out, "    include: {{{}}}", includes.join(", "));
        }
    }
    if verb == "update" {
        let mut changes: Vec<String> = shape
            .update
            .iter()
            .filter(|u| u.op != "replacement" && u.op != "pipeline")
            .map(|u| u.path.split('.').next().unwrap_or(&u.path).to_string())
            .filter(|p| p != "_id")
            .collect();
        changes.sort();
        changes.dedup();
        if !changes.is_empty() {
            let _ = writeln!(out, "    changes: [{}]", changes.join(", "));
        }
    }
    Ok(out)
}

/// A page or a top-N when the logs do not say how many.
const ASSUMED_LIMIT: u32 = 20;

fn op(c: OpClass) -> &'static str {
    match c {
        OpClass::Eq => "eq",
        OpClass::In => "in",
        // An index serves these as a scan of a range of keys.
        OpClass::Range | OpClass::Regex | OpClass::Exists | OpClass::NeNin | OpClass::Other => {
            "range"
        }
    }
}

/// A field name as a YAML key (quoted when it needs to be).
fn key(path: &str) -> String {
    if path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        path.to_string()
    } else {
        format!("{:?}", path)
    }
}

fn round(rate: f64) -> String {
    let r = format!("{rate:.6}");
    r.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The relationship between entities `entity` and `other`, by its name.
fn related(model: &Model, entity: &str, other: &str) -> Option<String> {
    let e = model.entities.iter().position(|x| x.name == entity)?;
    let other = model.entities.iter().position(|x| x.name == other)?;
    model
        .relationships
        .iter()
        .find(|r| {
            r.kind != RelationshipKind::ManyToMany
                && ((r.parent.index() == e && r.child.index() == other)
                    || (r.child.index() == e && r.parent.index() == other))
        })
        .map(|r| r.name.clone())
}
