//! SARIF 2.1.0 for `squill workload`: one run, the workload rules with their
//! full docs as help, one result per finding (logical location the
//! namespace), unreadable lines as notes and unreadable files as errors
//! among the tool's notifications, each with its file and line.

use super::reason;
use crate::outputs::sarif_uri::uri;
use crate::outputs::scan::location_text;
use crate::outputs::scan::sarif::{document, result, rule_object};
use crate::workload::WorkloadReport;
use serde_json::{Value, json};

pub fn sarif(report: &WorkloadReport) -> String {
    let rules = crate::rules::workload::ALL;
    let rule_objects: Vec<Value> = rules.iter().map(|r| rule_object(r)).collect();
    // The namespace is the finding's logical location: a log has no file
    // per collection.
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let at = json!([{ "logicalLocations": [{
                "fullyQualifiedName": location_text(&f.location),
                "kind": "type",
            }]}]);
            result(f, rules, at)
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
