//! Data rules, one file per rule, and `apply`, which runs them over a scan
//! report: scan measures, the rules judge what it measured.

use crate::finding::{Finding, Location, sort_findings};
use crate::scan::{Analysis, ScanReport};
use crate::settings::Settings;

include!(concat!(env!("OUT_DIR"), "/data_rules.rs"));

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
    for rule in ALL {
        if let crate::rules::Check::Data(check) = rule.check {
            check(a, out);
        }
    }
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
    pub(crate) use crate::scan::testing::*;

    /// Scans test collections with `settings` and applies every data rule.
    pub(crate) fn scan(
        colls: Vec<Coll>,
        settings: &crate::settings::Settings,
    ) -> crate::scan::ScanReport {
        let mut report = crate::scan::testing::scan(colls, settings);
        super::apply(&mut report, settings);
        report
    }
}
