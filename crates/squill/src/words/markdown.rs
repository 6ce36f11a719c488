//! Names in Markdown. A Markdown report is read rendered (GitHub, a wiki), and
//! a renderer passes raw HTML through: a collection named `<img src=x
//! onerror=…>` would run in the reader's browser, `[x](javascript:…)` would
//! be a link, `*` and `_` would restyle the rest of the line. So a name, or a
//! sentence made around one, goes into Markdown through one of these:
//! `text` in prose, headings and table cells, `code` as an inline code span.
//! Both also escape what a terminal would obey (`words::visible`): the file
//! may be read with `cat`.

use super as words;

/// `text` as literal Markdown prose: `<`, `>` and `&` as HTML entities, the
/// characters that start emphasis, links, code, tables or headings behind a
/// backslash (CommonMark lets any ASCII punctuation be escaped so), on one line.
pub fn text(text: &str) -> String {
    let text = words::visible(text);
    let mut out = String::with_capacity(text.len() + 8);
    let mut before = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // Inside a word `_` never starts emphasis (`rename_part`): it
            // stays as it is, so snake_case names read as they are.
            '_' if before.is_some_and(char::is_alphanumeric)
                && chars.peek().copied().is_some_and(char::is_alphanumeric) =>
            {
                out.push(c);
            }
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
        before = Some(c);
    }
    out
}

/// `text` as an inline code span: HTML is literal inside one, so only the
/// fence needs care. It is one backtick longer than the longest run of
/// backticks inside, and padded with a space on each side when the text
/// starts or ends with a backtick or a space (CommonMark strips one space
/// from each side of a span that has both). Pipes are escaped: GitHub
/// splits table cells on them even inside a code span, and removes the
/// backslash there; `| a \| b |` outside a table shows the backslash, so a
/// code span meant for prose is `code_in_prose`.
pub fn code(text: &str) -> String {
    code_in_prose(text).replace('|', "\\|")
}

/// As `code`, for a code span outside a table (a heading, a list item).
pub fn code_in_prose(text: &str) -> String {
    let text = words::visible(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = text.starts_with('`')
        || text.ends_with('`')
        || (text.starts_with(' ') && text.ends_with(' ') && !text.trim().is_empty())
        || text.is_empty();
    let space = if pad { " " } else { "" };
    format!("{fence}{space}{text}{space}{fence}")
}

/// A sentence made around names (a finding's message, a rule's reason),
/// which quotes each name between backticks (`` `orders` holds … ``): each
/// quoted name in `names` becomes a code span, whatever characters it
/// holds, and the rest of the sentence is `text`, so it reads as prose. A
/// name is found by its exact text between backticks, so a backtick, pipe
/// or line feed inside it cannot end the span early; a quoted text that is
/// not one of `names` stays escaped text. `in_table`: the sentence goes in
/// a table cell (`code`, pipes escaped), else in prose (`code_in_prose`).
pub fn sentence(sentence: &str, names: &[&str], in_table: bool) -> String {
    let mut names: Vec<&str> = names.iter().copied().filter(|n| !n.is_empty()).collect();
    // The longest first: a name that holds another quoted name wins.
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    names.dedup();
    let mut out = String::with_capacity(sentence.len() + 16);
    let mut plain = 0;
    let mut at = 0;
    while at < sentence.len() {
        let rest = &sentence[at..];
        let quoted = rest.strip_prefix('`').and_then(|r| {
            names.iter().find(|n| {
                r.strip_prefix(**n)
                    .is_some_and(|after| after.starts_with('`'))
            })
        });
        match quoted {
            Some(name) => {
                out.push_str(&text(&sentence[plain..at]));
                out.push_str(&if in_table {
                    code(name)
                } else {
                    code_in_prose(name)
                });
                at += name.len() + 2;
                plain = at;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out.push_str(&text(&sentence[plain..]));
    out
}

/// Every string inside `value` (a finding's evidence, a reason's): the
/// names a sentence may quote.
pub fn strings_in(value: &serde_json::Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => out.push(s.as_str()),
            serde_json::Value::Array(a) => stack.extend(a),
            serde_json::Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What GitHub shows: the events of CommonMark with GFM tables.
    fn rendered(markdown: &str) -> String {
        let mut html = String::new();
        let parser = pulldown_cmark::Parser::new_ext(markdown, pulldown_cmark::Options::all());
        pulldown_cmark::html::push_html(&mut html, parser);
        html
    }

    #[test]
    fn html_in_a_name_is_text() {
        for name in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "a & b <b>",
        ] {
            let html = rendered(&format!("Collection {}.", text(name)));
            for tag in ["<script", "<img", "<b>"] {
                assert!(!html.contains(tag), "{html}");
            }
            assert!(html.contains("&lt;"), "{html}");
        }
    }

    #[test]
    fn markdown_in_a_name_is_text() {
        let name = "[x](javascript:alert(1)) *em* _u_ `c` # h | p ~~s~~ ![i](y)";
        let html = rendered(&format!("| a |\n|---|\n| {} |\n", text(name)));
        assert!(!html.contains("<a "), "{html}");
        assert!(!html.contains("<em>") && !html.contains("<code>"), "{html}");
        assert!(!html.contains("<del>") && !html.contains("<img"), "{html}");
        // One cell: the pipe did not split it.
        assert_eq!(html.matches("<td>").count(), 1, "{html}");
    }

    #[test]
    fn a_code_span_holds_any_backticks() {
        for name in ["a`b", "``x", "y`", "` ", "plain", "a``b```c", " spaced "] {
            let html = rendered(&format!("x {} y", code_in_prose(name)));
            let inner = html
                .split_once("<code>")
                .and_then(|(_, r)| r.split_once("</code>"))
                .map(|(c, _)| c.to_string());
            assert_eq!(inner.as_deref(), Some(name), "{name:?}: {html}");
        }
    }

    #[test]
    fn a_code_span_in_a_table_keeps_its_pipes_in_one_cell() {
        let html = rendered(&format!("| a |\n|---|\n| {} |\n", code("x|y`<b>")));
        assert!(
            html.contains("<td><code>x|y`&lt;b&gt;</code></td>"),
            "{html}"
        );
    }

    #[test]
    fn snake_case_stays_as_it_is() {
        assert_eq!(text("rename_part"), "rename_part");
        assert_eq!(text("_id _u_ a_"), "\\_id \\_u\\_ a\\_");
    }

    #[test]
    fn quoted_names_are_code_spans_and_the_rest_reads_as_prose() {
        let out = sentence(
            "`user_id` of `orders` is *not* indexed",
            &["orders", "user_id"],
            false,
        );
        assert_eq!(out, "`user_id` of `orders` is \\*not\\* indexed");
        let html = rendered(&out);
        assert!(
            html.contains("<code>user_id</code> of <code>orders</code> is *not* indexed"),
            "{html}"
        );
        // A quoted text that is no name stays text.
        assert_eq!(sentence("`x` and `y`", &["y"], false), "\\`x\\` and `y`");
    }

    #[test]
    fn hostile_names_stay_inside_their_code_spans() {
        for name in [
            "a`b",
            "x|y",
            "<img src=x onerror=alert(1)>",
            "line\n# heading",
            "[l](javascript:alert(1))",
            "`",
            "a` <b>|x",
        ] {
            let message = format!("`{name}` holds arrays of up to 9 elements");
            for table in [false, true] {
                let md = sentence(&message, &[name], table);
                let doc = if table {
                    format!("| a |\n|---|\n| {md} |\n")
                } else {
                    format!("{md}\n")
                };
                let html = rendered(&doc);
                assert!(
                    !html.contains("<img") && !html.contains("<a "),
                    "{name:?}: {html}"
                );
                assert!(!html.contains("<h1"), "{name:?}: {html}");
                assert_eq!(html.matches("<code>").count(), 1, "{name:?}: {html}");
                assert!(
                    html.contains("</code> holds arrays of up to 9 elements"),
                    "{name:?}: {html}"
                );
                if table {
                    assert_eq!(html.matches("<td>").count(), 1, "{name:?}: {html}");
                }
            }
        }
    }

    #[test]
    fn a_line_feed_cannot_end_the_line() {
        assert_eq!(text("a\n# b"), "a\\\\n\\# b");
        assert_eq!(code("a\nb"), "`a\\nb`");
    }
}
