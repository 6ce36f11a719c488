//! The page around a report: the HTML skeleton with the stylesheet inlined
//! (a report is one file that opens offline), a table of contents, and the
//! escaping every piece of text goes through.

use std::fmt::Write as _;

/// The stylesheet, kept as CSS so that it reads as CSS.
const STYLE: &str = include_str!("style.css");

/// Text safe inside an element or a quoted attribute.
pub(super) fn esc(text: &str) -> String {
    // Most text has nothing to escape: copied whole, not char by char.
    let Some(first) = text.find(['&', '<', '>', '"', '\'']) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate or a length with one decimal (`12.5`), as the SVG of the
/// diagrams and charts writes thousands of them: written from the rounded
/// tenths, not through the float formatter's exact path, which took a tenth
/// of the scan report's rendering (BENCHMARKS.md, issue 22).
#[derive(Clone, Copy)]
pub(super) struct F1(pub f64);

impl std::fmt::Display for F1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tenths = (self.0 * 10.0).round();
        if !tenths.is_finite() || tenths.abs() >= 1e15 {
            return write!(f, "{:.1}", self.0);
        }
        let t = tenths as i64;
        let sign = if t < 0 { "-" } else { "" };
        let t = t.unsigned_abs();
        write!(f, "{sign}{}.{}", t / 10, t % 10)
    }
}

/// A fragment id from a name, with a prefix that keeps kinds apart (`op-`,
/// `rel-`, `rule-`): ASCII letters, digits, `-`, `_` and `.` kept (a
/// namespace reads as itself: `ns-shop.orders`), any other character as
/// its code point in hex between tildes (`view item` → `view~20~item`).
/// Two names never share an id: a name made only of the kept characters
/// has no tilde in its id, and the tildes of the others say exactly which
/// characters stood there. (Issue 40: `a.b`, `a-b` and `a b` had one id,
/// `a-b`, and one collection's link led to the other's row.)
pub(super) fn id(prefix: &str, name: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + name.len() + 1);
    out.push_str(prefix);
    out.push('-');
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
            out.push(c);
        } else {
            let _ = write!(out, "~{:x}~", u32::from(c));
        }
    }
    out
}

/// A link to a rule's docs further down the page.
pub(super) fn rule_link(rule: &str) -> String {
    format!(
        "<a class=\"mono\" href=\"#{}\">{}</a>",
        id("rule", rule),
        esc(rule)
    )
}

/// The whole document: `sections` are (id, title) for the table of
/// contents, in order; `body` holds them.
pub(super) fn document(title: &str, sections: &[(&str, &str)], body: &str) -> String {
    let mut out = String::with_capacity(body.len() + STYLE.len() + 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", esc(title));
    let _ = writeln!(out, "<style>\n{STYLE}</style>\n</head>\n<body>");
    out.push_str("<nav class=\"toc\" aria-label=\"Sections\"><ul>\n");
    for (id, name) in sections {
        let _ = writeln!(out, "<li><a href=\"#{id}\">{}</a></li>", esc(name));
    }
    out.push_str("</ul></nav>\n<main>\n");
    out.push_str(body);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40: names that differ only by punctuation had one id.
    #[test]
    fn names_that_differ_only_by_punctuation_have_ids_of_their_own() {
        let names = ["a.b", "a-b", "a b", "a_b", "a/b", "a~2f~b", "a~b", "a:b"];
        let ids: std::collections::BTreeSet<String> = names.iter().map(|n| id("coll", n)).collect();
        assert_eq!(ids.len(), names.len(), "{ids:?}");
        // No whitespace: an HTML id may hold none.
        assert!(ids.iter().all(|i| !i.contains(char::is_whitespace)));
    }

    #[test]
    fn text_and_ids_are_safe() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(id("op", "view item/2"), "op-view~20~item~2f~2");
        assert_eq!(id("ns", "shop.orders"), "ns-shop.orders");
        assert_eq!(id("coll", "order_items-2"), "coll-order_items-2");
        for (v, text) in [
            (12.0, "12.0"),
            (-3.25, "-3.3"),
            (0.04, "0.0"),
            (1e20, "100000000000000000000.0"),
        ] {
            assert_eq!(F1(v).to_string(), text);
        }
    }
}
