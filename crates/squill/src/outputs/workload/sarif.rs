//! SARIF 2.1.0 for `squill workload`: one run, the workload rules with their
//! full docs as help, one result per finding (logical location the
//! namespace), unreadable lines as notes and unreadable files as errors
//! among the tool's notifications, each with its file and line.

use super::reason;
use crate::inputs::mongolog::WorkloadReport;
use crate::outputs::scan::location_text;
use crate::outputs::scan::sarif::{document, level, rule_object};
use serde_json::{Value, json};

fn uri(path: &str) -> String {
    path.replace('\\', "/")
}

pub fn sarif(report: &WorkloadReport) -> String {
    let rules = crate::rules::workload::ALL;
    let rule_objects: Vec<Value> = rules.iter().map(|r| rule_object(r)).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let evidence: serde_json::Map<String, Value> = f
                .evidence
                .iter()
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect();
            let mut props = json!({ "evidence": evidence });
            if let Some(h) = &f.help {
                props["help"] = json!(h);
            }
            let mut result = json!({
                "ruleId": f.rule,
                "level": level(f.severity),
                "message": { "text": format!("{}: {}", location_text(&f.location), f.message) },
                "locations": [{ "logicalLocations": [{
                    "fullyQualifiedName": location_text(&f.location),
                    "kind": "type",
                }]}],
                "properties": props,
            });
            if let Some(i) = rules.iter().position(|r| r.id == f.rule) {
                result["ruleIndex"] = json!(i);
            }
            result
        })
        .collect();
    let lines = report.problems.examples.iter().map(|p| {
        // A `.bson` file has no lines: its problems are at a byte offset.
        let (what, region) = match p.offset {
            Some(offset) => ("document", json!({ "byteOffset": offset })),
            None => ("line", json!({ "startLine": p.line.max(1) })),
        };
        json!({
            "level": "note",
            "message": { "text": format!("{what} not read: {}", reason(p.reason)) },
            "locations": [{ "physicalLocation": {
                "artifactLocation": { "uri": uri(&p.file) },
                "region": region,
            }}],
        })
    });
    let files = report.errors.iter().map(|e| {
        json!({
            "level": "error",
            "message": { "text": e.message },
            "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri(&e.path) } } }],
        })
    });
    let notifications: Vec<Value> = files.chain(lines).collect();
    document(
        rule_objects,
        notifications,
        results,
        report.errors.is_empty(),
    )
}
