//! Names as a terminal shows them. A name comes from data (a model, a dump, a
//! log) and may hold characters a terminal obeys instead of showing: ESC
//! sequences that retitle or clear it, a carriage return that overwrites the
//! line, a line feed that forges a line of the report, right-to-left
//! overrides that reorder what follows. Every text output writes names
//! through `visible`, so they read as data: `\u{1b}]0;x\u{7}` stays those
//! characters, not a new window title.

use std::borrow::Cow;

/// Whether a terminal (or a text viewer) would act on `c` rather than show it:
/// C0 and C1 controls, DEL, the bidirectional formatting characters and the
/// Unicode line and paragraph separators.
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `text` on one line, every hidden character (`is_hidden`) written as its
/// escape: `\n`, `\r`, `\t`, else `\u{1b}`, `\u{202e}`. Borrowed when there is
/// nothing to escape, which is almost always.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

/// As `visible`, keeping line feeds: for text made of several lines (an
/// error with its causes), where a line feed is the text's own.
pub fn visible_lines(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n')
}

/// As `visible_lines`, keeping also the color sequences a report adds
/// itself (SGR: `ESC [` digits and `;` `m`). Any other escape sequence,
/// from a name the report forgot to escape, is escaped here.
pub fn visible_styled(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden_line) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&visible_lines(&rest[..at]));
        let after = &rest[at + 1..];
        let sgr = after.strip_prefix('[').and_then(|s| {
            let end = s.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
            s[end..].starts_with('m').then_some(end + 2)
        });
        match sgr {
            Some(len) => {
                out.push('\x1b');
                out.push_str(&after[..len]);
                rest = &after[len..];
            }
            None => {
                out.push_str("\\u{1b}");
                rest = after;
            }
        }
    }
    out.push_str(&visible_lines(rest));
    Cow::Owned(out)
}

fn is_hidden_line(c: char) -> bool {
    c != '\n' && is_hidden(c)
}

fn escape(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hidden(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !is_hidden(c) || keep(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                use std::fmt::Write as _;
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hidden_class_is_escaped() {
        for (raw, shown) in [
            ("a\x1b]0;pwned\x07b", "a\\u{1b}]0;pwned\\u{7}b"),
            ("x\ry", "x\\ry"),
            ("x\ny", "x\\ny"),
            ("tab\there", "tab\\there"),
            ("c1\u{9b}2J", "c1\\u{9b}2J"),
            ("del\u{7f}", "del\\u{7f}"),
            ("abc\u{202e}fed", "abc\\u{202e}fed"),
            ("iso\u{2066}late\u{2069}", "iso\\u{2066}late\\u{2069}"),
            ("js\u{2028}line\u{2029}", "js\\u{2028}line\\u{2029}"),
            ("nul\0", "nul\\u{0}"),
        ] {
            assert_eq!(visible(raw), shown, "{raw:?}");
        }
    }

    #[test]
    fn plain_names_are_borrowed_untouched() {
        for name in ["orders", "shop.orders", "naïve", "注文", "👨‍👩‍👧", "a`b<c>"] {
            assert!(matches!(visible(name), Cow::Borrowed(n) if n == name));
        }
    }

    #[test]
    fn lines_keep_line_feeds_only() {
        assert_eq!(visible_lines("one\ntwo\r\x1b[2J"), "one\ntwo\\r\\u{1b}[2J");
    }

    #[test]
    fn styled_keeps_color_and_escapes_the_rest() {
        assert_eq!(
            visible_styled("\x1b[1mbold\x1b[0m \x1b[2J\x1b]0;t\x07\x1b[31;1m\n"),
            "\x1b[1mbold\x1b[0m \\u{1b}[2J\\u{1b}]0;t\\u{7}\x1b[31;1m\n"
        );
        assert_eq!(visible_styled("end\x1b"), "end\\u{1b}");
        assert_eq!(visible_styled("\x1b[12"), "\\u{1b}[12");
    }
}
