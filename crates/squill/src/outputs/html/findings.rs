//! The findings section every report ends with: one row per finding, its
//! rule linked to the rule's docs further down the page (`docs::rules`).

use super::page::{esc, rule_link};
use crate::finding::Finding;
use crate::outputs::design::describe;
use std::fmt::Write as _;

/// `<section id="findings">` with a table of `findings`, in their order.
pub(super) fn section(findings: &[Finding]) -> String {
    let mut out = String::from("<section id=\"findings\"><h2>Findings</h2>\n");
    if findings.is_empty() {
        out.push_str("<p>None.</p></section>\n");
        return out;
    }
    out.push_str("<table><tr><th>severity</th><th>rule</th><th>where</th><th>message</th><th>evidence</th><th>help</th></tr>\n");
    for f in findings {
        let _ = writeln!(
            out,
            "<tr><td class=\"severity-{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            f.severity.as_str(),
            f.severity,
            rule_link(f.rule),
            esc(&describe::location(&f.location)),
            esc(&f.message),
            esc(&describe::evidence(&f.evidence)),
            esc(f.help.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</table></section>\n");
    out
}
