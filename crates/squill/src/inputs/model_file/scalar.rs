//! The one way a model file's scalars are written: `to_yaml` (`scan
//! --emit-model`) and `import sql`/`import postgres` both come here, so a
//! name YAML would read as something else is quoted the same way by both.
//!
//! A scalar is written plain only when YAML 1.2 and 1.1 both read it back
//! as the same string: it starts with a letter, `_` or a `-` before one, is
//! made of letters, digits and `_.-()?`, and is no YAML word (`null`,
//! `true`, `no`, `on`, … in any case). Everything else is a JSON string,
//! which is a YAML double-quoted scalar. `[` and `]` are flow indicators:
//! plain only in block context (`block`), as in `tags: string[5]`; inside
//! `{…}` or `[…]` (`flow`) they are quoted (issue 44: `import sql` wrote
//! `{type: int[]?, …}`, which does not parse).

/// Words YAML reads as something other than a string: null, booleans
/// (YAML 1.1 reads `yes`, `on`, `y` too), and the special floats as some
/// readers take them without their dot.
const YAML_WORDS: [&str; 12] = [
    "null", "true", "false", "yes", "no", "on", "off", "y", "n", "nan", "inf", "_",
];

/// `text` as a scalar safe anywhere: a key, a value, inside `{…}` or `[…]`.
pub fn flow(text: &str) -> String {
    written(text, "")
}

/// `text` as a value in block context (`name: string[5]`), where `[` and
/// `]` may stay plain.
pub fn block(text: &str) -> String {
    written(text, "[]")
}

fn written(text: &str, also: &str) -> String {
    let body = text.strip_prefix('-').unwrap_or(text);
    let plain = body.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-()?".contains(c) || also.contains(c))
        && !YAML_WORDS.contains(&text.to_ascii_lowercase().as_str());
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_words_and_indicators_are_quoted() {
        for word in [
            "null", "NULL", "Null", "~", "true", "False", "no", "ON", "y", "nan", "_", "", "-",
            "1e3", "0x1", ".inf", "a: b", "x#y", "- a", "-1",
        ] {
            assert_eq!(flow(word), serde_json::to_string(word).unwrap(), "{word}");
        }
        assert_eq!(flow("int[5]"), "\"int[5]\"");
        assert_eq!(block("int[5]"), "int[5]");
    }

    #[test]
    fn plain_names_paths_and_types_stay_plain() {
        for text in [
            "order_items",
            "nano",
            "yesterday",
            "-placed_at",
            "seller.region",
            "string(40)?",
            "sum(lines.qty)",
        ] {
            assert_eq!(flow(text), text);
        }
    }
}
