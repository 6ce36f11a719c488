//! SARIF 2.1.0: one run, the data rules with their full docs as help, one
//! result per finding (logical location `db.collection.field`, physical
//! location the dump file), and input errors as tool notifications.

use super::location_text;
use crate::finding::{Finding, Location, Severity};
use crate::scan::ScanReport;
use serde_json::{Value, json};

pub(crate) fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// One finding as a SARIF result: its rule and the rule's index in
/// `rules`, its level, its message after its location, `locations`, and
/// as properties its evidence, help and example document's id.
pub(crate) fn result(f: &Finding, rules: &[&crate::rules::Rule], locations: Value) -> Value {
    let evidence: serde_json::Map<String, Value> = f
        .evidence
        .iter()
        .map(|e| (e.name.clone(), e.value.clone()))
        .collect();
    let mut props = json!({ "evidence": evidence });
    if let Location::Collection {
        example_id: Some(id),
        ..
    } = &f.location
    {
        props["exampleId"] = json!(id);
    }
    if let Some(h) = &f.help {
        props["help"] = json!(h);
    }
    json!({
        "ruleId": f.rule,
        "ruleIndex": rules.iter().position(|r| r.id == f.rule),
        "level": level(f.severity),
        "message": { "text": format!("{}: {}", location_text(&f.location), f.message) },
        "locations": locations,
        "properties": props,
    })
}

fn uri(path: &std::path::Path) -> String {
    crate::outputs::sarif_uri::uri(&path.to_string_lossy())
}

fn locations(loc: &Location) -> Vec<Value> {
    match loc {
        Location::Collection {
            file,
            database,
            collection,
            field,
            ..
        } => {
            let mut name = match database {
                Some(db) => format!("{db}.{collection}"),
                None => collection.clone(),
            };
            if let Some(f) = field {
                name.push('.');
                name.push_str(f);
            }
            let mut l = json!({
                "logicalLocations": [{
                    "fullyQualifiedName": name,
                    "kind": if field.is_some() { "member" } else { "type" },
                }]
            });
            if let Some(file) = file {
                l["physicalLocation"] = json!({ "artifactLocation": { "uri": uri(file) } });
            }
            vec![l]
        }
        Location::File {
            path, byte_offset, ..
        } => {
            let mut p = json!({ "artifactLocation": { "uri": uri(path) } });
            if let Some(b) = byte_offset {
                p["region"] = json!({ "byteOffset": b });
            }
            vec![json!({ "physicalLocation": p })]
        }
        Location::Model { path } => vec![json!({
            "logicalLocations": [{ "fullyQualifiedName": path }]
        })],
    }
}

/// A rule as SARIF's `reportingDescriptor`: its summary, its whole doc as
/// help, its default level and its sources.
pub(crate) fn rule_object(r: &crate::rules::Rule) -> Value {
    json!({
        "id": r.id,
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": r.summary },
        "help": { "text": r.docs, "markdown": r.docs },
        "defaultConfiguration": { "level": level(r.default_severity) },
        "properties": { "sources": crate::rules::citation::cited(r.sources) },
    })
}

pub fn sarif(report: &ScanReport) -> String {
    let rules: Vec<&crate::rules::Rule> = crate::rules::data::ALL.to_vec();
    let rule_objects: Vec<Value> = rules.iter().map(|r| rule_object(r)).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| result(f, &rules, json!(locations(&f.location))))
        .collect();
    let notifications: Vec<Value> = report
        .errors
        .iter()
        .map(|e| ("error", e))
        .chain(report.skipped.iter().map(|e| ("note", e)))
        .map(|(level, e)| {
            let mut n = json!({ "level": level, "message": { "text": e.message } });
            if let Some(file) = &e.file {
                let mut p = json!({ "artifactLocation": { "uri": uri(file) } });
                if let Some(b) = e.byte_offset {
                    p["region"] = json!({ "byteOffset": b });
                }
                n["locations"] = json!([{ "physicalLocation": p }]);
            }
            n
        })
        .collect();
    document(
        rule_objects,
        notifications,
        results,
        report.errors.is_empty(),
    )
}

/// One SARIF run of squill: its rules, the notifications of the inputs it
/// could not read (`ok` when there are none), its results; pretty JSON.
pub(crate) fn document(
    rules: Vec<Value>,
    notifications: Vec<Value>,
    results: Vec<Value>,
    ok: bool,
) -> String {
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "squill",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://example.invalid/squill",
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": ok,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}
