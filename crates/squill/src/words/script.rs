//! Names in generated code. A name from data (a model, a scanned field, a
//! SQL table) lands in comments and string literals of the mongosh,
//! Node.js and Python scripts squill writes. A line feed, a carriage return
//! or U+2028/U+2029 (line terminators in JavaScript) would end a comment and
//! run the rest as code; a quote or a backslash would end a string. Every
//! script writes names through these three functions, one per place a name
//! lands, so no name is ever code.

use std::borrow::Cow;

/// `name` inside a line comment (`// …`, `# …`) of JavaScript or Python:
/// every character that could end the line (or that a terminal would obey)
/// written as its escape, as the text reports show it.
pub fn comment(name: &str) -> Cow<'_, str> {
    super::visible(name)
}

/// `s` as a double-quoted JavaScript string literal: JSON's escapes, and
/// U+2028/U+2029 escaped too (JSON leaves them raw; older engines end a
/// line there).
pub fn js_string(s: &str) -> String {
    js_json(&serde_json::Value::String(s.to_owned()).to_string())
}

/// JSON text as a JavaScript literal: U+2028/U+2029, which JSON leaves raw
/// in its strings, escaped.
pub fn js_json(json: &str) -> String {
    json.replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// `s` as a double-quoted Python string literal. JSON's escapes (`\"`,
/// `\\`, `\n`, `\uXXXX`) mean the same in Python, so the JavaScript literal
/// serves both.
pub fn py_string(s: &str) -> String {
    js_string(s)
}

/// `text` inside a Python triple-quoted docstring: a quote or a backslash
/// escaped (neither ends the string), and on one line (`comment`).
pub fn py_docstring(text: &str) -> String {
    comment(&text.replace('\\', "\\\\").replace('"', "\\\"")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_in_a_name_ends_a_comment_or_a_string() {
        let name = "a\nb\rc\u{2028}d\u{2029}e\"f'g\\h\0";
        assert_eq!(comment(name), "a\\nb\\rc\\u{2028}d\\u{2029}e\"f'g\\h\\u{0}");
        assert_eq!(js_string(name), r#""a\nb\rc\u2028d\u2029e\"f'g\\h\u0000""#);
        assert_eq!(py_string("plain"), "\"plain\"");
        assert_eq!(py_docstring("a\"\"\"b\\\n"), r#"a\"\"\"b\\\n"#);
    }
}
