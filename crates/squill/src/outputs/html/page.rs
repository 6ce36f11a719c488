//! The page around a report: the HTML skeleton with the stylesheet inlined
//! (a report is one file that opens offline), a table of contents, and the
//! escaping every piece of text goes through.

use std::fmt::Write as _;

/// The stylesheet, kept as CSS so that it reads as CSS.
const STYLE: &str = include_str!("style.css");

/// Text safe inside an element or a quoted attribute.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
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

/// A fragment id from a name: ASCII letters, digits, `-` and `_` kept, the
/// rest `-`, with a prefix that keeps kinds apart (`op-`, `rel-`, `rule-`).
pub fn id(prefix: &str, name: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + name.len() + 1);
    out.push_str(prefix);
    out.push('-');
    out.extend(name.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '-'
        }
    }));
    out
}

/// A link to a rule's docs further down the page.
pub fn rule_link(rule: &str) -> String {
    format!(
        "<a class=\"mono\" href=\"#{}\">{}</a>",
        id("rule", rule),
        esc(rule)
    )
}

/// The whole document: `sections` are (id, title) for the table of
/// contents, in order; `body` holds them.
pub fn document(title: &str, sections: &[(&str, &str)], body: &str) -> String {
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

    #[test]
    fn text_and_ids_are_safe() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(id("op", "view item/2"), "op-view-item-2");
    }
}
