//! Workload rules, one file per rule, and `apply`, which runs them over a
//! workload read from logs (`crate::workload`) and adds the suggested
//! indexes: the reader measures, the rules judge what it measured.

mod indexes;

use crate::finding::{Evidence, Finding, Location, sort_findings};
use crate::workload::WorkloadReport;
use crate::workload::report::{NamespaceReport, ShapeReport};

pub use indexes::{esr_keys, index_for};

include!(concat!(env!("OUT_DIR"), "/workload_rules.rs"));

/// A shape is hot when it takes at least this share of the logged time…
pub const HOT_TIME_SHARE: f64 = 0.01;
/// …or runs at least this many times.
pub const HOT_COUNT: u64 = 100;

/// What a workload rule looks at.
pub struct Analysis<'a> {
    pub report: &'a WorkloadReport,
}

impl Analysis<'_> {
    /// Every shape with its namespace, hottest namespace first.
    pub fn shapes(&self) -> impl Iterator<Item = (&NamespaceReport, &ShapeReport)> {
        self.report
            .namespaces
            .iter()
            .flat_map(|ns| ns.shapes.iter().map(move |s| (ns, s)))
    }
}

/// Whether a shape matters enough for the rules that judge cost, not
/// correctness (`HOT_TIME_SHARE`, `HOT_COUNT`).
pub fn is_hot(s: &ShapeReport) -> bool {
    s.time_share >= HOT_TIME_SHARE || s.count >= HOT_COUNT
}

/// Runs every workload rule, stores their findings sorted, and the indexes
/// that would serve the shapes whose plans are poor.
pub fn apply(report: &mut WorkloadReport) {
    let mut findings = Vec::new();
    {
        let a = Analysis { report };
        for rule in ALL {
            if let crate::rules::Check::Workload(check) = rule.check {
                check(&a, &mut findings);
            }
        }
    }
    sort_findings(&mut findings);
    report.findings = findings;
    report.suggested_indexes = indexes::suggest(report);
}

/// A rule's finding on one shape: the message starts with the shape's id
/// and notation, the evidence with its count, rate and time.
pub fn finding(
    rule: &'static crate::rules::Rule,
    ns: &NamespaceReport,
    s: &ShapeReport,
    message: &str,
    mut evidence: Vec<Evidence>,
    help: &str,
) -> Finding {
    let mut all = vec![
        Evidence::new("shape", s.id.clone()),
        Evidence::new("count", s.count),
        Evidence::new("total_ms", s.total_ms),
        Evidence::new("time_share", (s.time_share * 1000.0).round() / 1000.0),
    ];
    if let Some(r) = s.rate_per_hour {
        all.push(Evidence::new("per_hour", (r * 100.0).round() / 100.0));
    }
    all.append(&mut evidence);
    Finding {
        rule: rule.id,
        severity: rule.default_severity,
        message: format!("{} `{}` {message}", s.id, s.text),
        location: Location::Collection {
            file: None,
            database: Some(ns.database.clone()),
            collection: ns.collection.clone(),
            field: None,
            example_id: None,
        },
        evidence: all,
        help: Some(help.to_string()),
    }
}

/// Test support: a report read from inline log lines, with the rules applied.
#[cfg(test)]
pub(crate) mod testing {
    pub(crate) fn judged(log: &str) -> crate::workload::WorkloadReport {
        let mut r = crate::workload::read_bytes(
            "t.log",
            log.as_bytes(),
            crate::workload::Options::default(),
        );
        super::apply(&mut r);
        r
    }

    pub(crate) fn fired<'a>(
        r: &'a crate::workload::WorkloadReport,
        rule: &str,
    ) -> Vec<&'a crate::finding::Finding> {
        r.findings.iter().filter(|f| f.rule == rule).collect()
    }

    /// A legacy `find` line on `shop.orders` with the given parts.
    pub(crate) fn find(filter: &str, sort: &str, plan: &str, metrics: &str, ms: u64) -> String {
        format!(
            "2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find {{ find: \"orders\", filter: {filter}{sort} }} planSummary: {plan} {metrics} {ms}ms\n"
        )
    }
}
