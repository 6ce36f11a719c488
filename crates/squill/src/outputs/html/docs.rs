//! The docs of the rules a report cites, inlined so that a rule id in the
//! report is one click (or one Tab and Enter) from what the rule checks and
//! why: each rule's Markdown (`rules/docs/<id>.md`, the same source as
//! `squill rule ID`) rendered to HTML.

use super::page::{esc, id};
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use std::fmt::Write as _;

/// The "Rules cited" section: `rules` of `ids`, or "None.".
pub(super) fn section<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let docs = rules(ids);
    format!(
        "<section id=\"rules\"><h2>Rules cited</h2>\n{}</section>\n",
        if docs.is_empty() {
            "<p>None.</p>\n"
        } else {
            &docs
        }
    )
}

/// One `<details>` per rule, in the order given; unknown ids are skipped.
pub(super) fn rules<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for rule in ids.into_iter().filter_map(crate::rules::by_id) {
        let _ = writeln!(
            out,
            "<details class=\"rule\" id=\"{}\"><summary><code>{}</code> — {}</summary>",
            id("rule", rule.id),
            esc(rule.id),
            esc(rule.summary)
        );
        out.push_str(&markdown(rule.docs));
        out.push_str("</details>\n");
    }
    out
}

/// Markdown to HTML, headings moved down three levels so that a doc's
/// `# id` sits below the report's own `<h2>`.
fn markdown(text: &str) -> String {
    let demote = |level: HeadingLevel| match level {
        HeadingLevel::H1 => HeadingLevel::H4,
        HeadingLevel::H2 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    };
    let events = Parser::new(text).map(|event| match event {
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: demote(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(demote(level))),
        // The docs are ours, but a report is opened by people who did not
        // write them: raw HTML is shown as text, never run.
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        other => other,
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_rule_s_docs_become_html_under_its_anchor() {
        let html = super::rules(["embed-one-to-few", "no-such-rule"]);
        assert!(
            html.starts_with("<details class=\"rule\" id=\"rule-embed-one-to-few\">"),
            "{html}"
        );
        assert!(html.contains("<h5>Why</h5>"), "{html}");
        assert_eq!(html.matches("<details").count(), 1);
    }
}
