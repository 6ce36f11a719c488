//! The JSON form: the `ScanReport` as serde writes it (docs/scan-json.md).

use crate::scan::ScanReport;

pub fn json(report: &ScanReport) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("a report always serializes");
    s.push('\n');
    s
}
