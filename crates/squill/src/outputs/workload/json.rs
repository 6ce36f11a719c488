//! The JSON form: the `WorkloadReport` as serde writes it, every figure raw.

use crate::workload::WorkloadReport;

pub fn json(report: &WorkloadReport) -> String {
    let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|_| "{}".to_string());
    s.push('\n');
    s
}
