//! Data rules, one file per rule, and `apply`, which runs them over a scan
//! report: scan measures, the rules judge what it measured.

use crate::finding::{Finding, Location, sort_findings};
use crate::scan::{Analysis, ScanReport};
use crate::settings::Settings;

pub mod bloated_document;
pub mod dangling_reference;
pub mod deep_nesting;
pub mod document_near_size_limit;
pub mod field_name_overhead;
pub mod long_reference_array;
pub mod massive_array;
pub mod missing_id_index;
pub mod mixed_field_types;
pub mod redundant_index;
pub mod too_many_collections;
pub mod too_many_indexes;

/// All data rules, in id order.
pub const ALL: &[&crate::rules::Rule] = &[
    &bloated_document::RULE,
    &dangling_reference::RULE,
    &deep_nesting::RULE,
    &document_near_size_limit::RULE,
    &field_name_overhead::RULE,
    &long_reference_array::RULE,
    &massive_array::RULE,
    &missing_id_index::RULE,
    &mixed_field_types::RULE,
    &redundant_index::RULE,
    &too_many_collections::RULE,
    &too_many_indexes::RULE,
];

/// Runs every data rule over a scan report and stores their findings, sorted.
pub fn apply(report: &mut ScanReport, settings: &Settings) {
    let analysis = Analysis {
        collections: &report.collections,
        relationships: &report.relationships,
        settings,
    };
    let mut findings = Vec::new();
    check_all(&analysis, &mut findings);
    sort_findings(&mut findings);
    report.findings = findings;
}

/// Runs every data rule's check over a scan.
fn check_all(a: &Analysis<'_>, out: &mut Vec<Finding>) {
    bloated_document::check(a, out);
    dangling_reference::check(a, out);
    deep_nesting::check(a, out);
    document_near_size_limit::check(a, out);
    field_name_overhead::check(a, out);
    long_reference_array::check(a, out);
    massive_array::check(a, out);
    missing_id_index::check(a, out);
    mixed_field_types::check(a, out);
    redundant_index::check(a, out);
    too_many_collections::check(a, out);
    too_many_indexes::check(a, out);
}

/// Helper for findings: a rule's finding on a collection, at the severity
/// `squill.toml` sets or else the rule's default.
pub fn finding(
    rule: &'static crate::rules::Rule,
    severity: Option<crate::finding::Severity>,
    message: String,
    location: Location,
    evidence: Vec<crate::finding::Evidence>,
    help: &str,
) -> Finding {
    Finding {
        rule: rule.id,
        severity: severity.unwrap_or(rule.default_severity),
        message,
        location,
        evidence,
        help: Some(help.to_string()),
    }
}

/// Test support: the scan fixtures, with `scan` running the data rules too.
#[cfg(test)]
pub(crate) mod testing {
    pub use crate::scan::testing::*;

    /// Scans test collections with `settings` and applies every data rule.
    pub fn scan(colls: Vec<Coll>, settings: &crate::settings::Settings) -> crate::scan::ScanReport {
        let mut report = crate::scan::testing::scan(colls, settings);
        super::apply(&mut report, settings);
        report
    }
}
