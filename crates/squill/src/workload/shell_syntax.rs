//! A tolerant reader of the mongo-shell-like objects legacy logs print
//! (`{ name: "x", at: new Date(1396), _id: ObjectId('…'), tags: { $in: [ 1, 2 ] },
//! title: /^abc/i }`). It recovers structure only (keys, operators, nesting,
//! value kinds): that is all a query shape needs. It never panics: on text it
//! cannot read it stops with the byte offset and why, and the caller counts
//! the line as unreadable.

use super::node::{Node, RegexFlags, Scalar};

/// Why an object could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SyntaxError {
    /// The text ends inside the object.
    Unterminated,
    /// mongod cut the object short and wrote `...` in its place.
    Elided,
    /// Nested deeper than any real command.
    TooDeep,
    /// A character where none of the syntax fits.
    Unexpected,
}

const MAX_DEPTH: usize = 64;

/// Reads one object or array starting at `at` (a `{` or `[`, after optional
/// spaces); returns the node and the offset just past it.
pub(super) fn parse_value_at(text: &str, at: usize) -> Result<(Node, usize), (SyntaxError, usize)> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        text,
        pos: at,
    };
    let node = p.value(0)?;
    Ok((node, p.pos))
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

type Res<T> = Result<T, (SyntaxError, usize)>;

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn err<T>(&self, e: SyntaxError) -> Res<T> {
        Err((e, self.pos))
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn at_elision(&self) -> bool {
        self.bytes.get(self.pos..self.pos + 3) == Some(b"...")
    }

    fn value(&mut self, depth: usize) -> Res<Node> {
        if depth > MAX_DEPTH {
            return self.err(SyntaxError::TooDeep);
        }
        self.skip_space();
        if self.at_elision() {
            return self.err(SyntaxError::Elided);
        }
        match self.peek() {
            None => self.err(SyntaxError::Unterminated),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(q @ (b'"' | b'\'')) => self.string(q).map(Node::Str),
            Some(b'/') => self.regex(),
            Some(_) => self.word(),
        }
    }

    fn object(&mut self, depth: usize) -> Res<Node> {
        self.pos += 1; // `{`
        let mut fields = Vec::new();
        loop {
            self.skip_space();
            if self.at_elision() {
                return self.err(SyntaxError::Elided);
            }
            match self.peek() {
                None => return self.err(SyntaxError::Unterminated),
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                Some(_) => {}
            }
            let key = self.key()?;
            self.skip_space();
            if self.peek() != Some(b':') {
                return if self.peek().is_none() {
                    self.err(SyntaxError::Unterminated)
                } else {
                    self.err(SyntaxError::Unexpected)
                };
            }
            self.pos += 1;
            let value = self.value(depth + 1)?;
            fields.push((key, value));
        }
        Ok(Node::from_wrapper(&fields).unwrap_or(Node::Object(fields)))
    }

    fn array(&mut self, depth: usize) -> Res<Node> {
        self.pos += 1; // `[`
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => return self.err(SyntaxError::Unterminated),
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                Some(b',') => {
                    self.pos += 1;
                    continue;
                }
                Some(_) => items.push(self.value(depth + 1)?),
            }
        }
        Ok(Node::Array(items))
    }

    /// A quoted key, or a bare one up to the `:` (dots, `$`, anything but
    /// the delimiters). mongod prints `{ : 1 }` for index bounds: an empty key.
    fn key(&mut self) -> Res<String> {
        if let Some(q @ (b'"' | b'\'')) = self.peek() {
            return self.string(q);
        }
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b == b':' || b == b'{' || b == b'}' || b == b',' || b == b'[' || b == b']' {
                break;
            }
            self.pos += 1;
        }
        match self.text.get(start..self.pos) {
            Some(k) => Ok(k.trim().to_string()),
            None => self.err(SyntaxError::Unexpected),
        }
    }

    /// A quoted string with backslash escapes; the quotes are dropped.
    fn string(&mut self, quote: u8) -> Res<String> {
        self.pos += 1;
        let start = self.pos;
        let mut escaped = false;
        while let Some(b) = self.peek() {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == quote {
                let s = self.text.get(start..self.pos).unwrap_or("").to_string();
                self.pos += 1;
                return Ok(s);
            }
            self.pos += 1;
        }
        self.err(SyntaxError::Unterminated)
    }

    /// `/pattern/flags`: only whether it is anchored and case-insensitive is kept.
    fn regex(&mut self) -> Res<Node> {
        self.pos += 1;
        let start = self.pos;
        let (mut escaped, mut in_class) = (false, false);
        while let Some(b) = self.peek() {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'[' {
                in_class = true;
            } else if b == b']' {
                in_class = false;
            } else if b == b'/' && !in_class {
                let pattern = self.text.get(start..self.pos).unwrap_or("");
                self.pos += 1;
                let flags_start = self.pos;
                while self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
                    self.pos += 1;
                }
                let flags = self.text.get(flags_start..self.pos).unwrap_or("");
                return Ok(Node::Regex(RegexFlags::new(pattern, flags)));
            }
            self.pos += 1;
        }
        self.err(SyntaxError::Unterminated)
    }

    /// Anything unquoted up to the next `,`, `}` or `]` outside parentheses:
    /// numbers, `true`, `null`, `new Date(…)`, `ObjectId('…')`,
    /// `Timestamp 0|0`, `BinData(0, …)`, a redacted hash.
    fn word(&mut self) -> Res<Node> {
        let start = self.pos;
        let mut parens = 0usize;
        let mut quote: Option<u8> = None;
        while let Some(b) = self.peek() {
            match (quote, b) {
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(b),
                (None, b'(') => parens += 1,
                (None, b')') => parens = parens.saturating_sub(1),
                (None, b',' | b'}' | b']') if parens == 0 => break,
                (None, b'{' | b'[') if parens == 0 => return self.err(SyntaxError::Unexpected),
                _ => {}
            }
            self.pos += 1;
        }
        if self.peek().is_none() {
            return self.err(SyntaxError::Unterminated);
        }
        let word = self.text.get(start..self.pos).unwrap_or("").trim();
        if word.is_empty() {
            return self.err(SyntaxError::Unexpected);
        }
        if word.contains("...") {
            return self.err(SyntaxError::Elided);
        }
        Ok(classify_word(word))
    }
}

fn classify_word(word: &str) -> Node {
    let first = word.as_bytes().first().copied().unwrap_or(b' ');
    if first.is_ascii_digit() || ((first == b'-' || first == b'.') && word.len() > 1) {
        return Node::Number {
            negative: first == b'-',
            zero: word.parse::<f64>().is_ok_and(|f| f == 0.0),
            value: word.parse::<f64>().ok(),
        };
    }
    let name = word
        .strip_prefix("new ")
        .unwrap_or(word)
        .split(['(', ' '])
        .next()
        .unwrap_or("");
    match name {
        "true" => Node::Other(Scalar::Bool(true)),
        "false" => Node::Other(Scalar::Bool(false)),
        "null" | "undefined" => Node::Other(Scalar::Null),
        "Date" | "ISODate" => Node::Other(Scalar::Date),
        "ObjectId" => Node::Other(Scalar::ObjectId),
        "NumberLong" | "NumberInt" | "NumberDecimal" | "inf" | "nan" | "Infinity" | "NaN" => {
            Node::Number {
                negative: word.contains("(-") || word.contains("(\"-"),
                zero: false,
                value: None,
            }
        }
        _ => Node::Other(Scalar::Other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Node, SyntaxError> {
        parse_value_at(text, 0).map(|(n, _)| n).map_err(|(e, _)| e)
    }

    #[test]
    fn reads_shell_values_by_kind() {
        let n = parse(
            r#"{ name: "x", 'q': 'y', at: new Date(1396), _id: ObjectId('5a'), n: -1.0, big: NumberLong(7),
               tags: { $in: [ 1, 2, 3 ] }, title: /^a\/b[/]c/i, ts: Timestamp 0|0, bin: BinData(0, 41B5), h: cf61573f3f }"#,
        )
        .unwrap();
        assert_eq!(n.get("name"), Some(&Node::Str("x".into())));
        assert_eq!(n.get("q"), Some(&Node::Str("y".into())));
        assert_eq!(n.get("at"), Some(&Node::Other(Scalar::Date)));
        assert_eq!(n.get("_id"), Some(&Node::Other(Scalar::ObjectId)));
        assert_eq!(
            n.get("n"),
            Some(&Node::Number {
                negative: true,
                zero: false,
                value: Some(-1.0)
            })
        );
        assert_eq!(
            n.get("big"),
            Some(&Node::Number {
                negative: false,
                zero: false,
                value: None
            })
        );
        assert_eq!(
            n.get("tags").and_then(|t| t.get("$in")),
            Some(&Node::Array(
                [1.0, 2.0, 3.0]
                    .map(|v| Node::Number {
                        negative: false,
                        zero: false,
                        value: Some(v)
                    })
                    .to_vec()
            ))
        );
        assert_eq!(
            n.get("title"),
            Some(&Node::Regex(RegexFlags {
                anchored: true,
                case_insensitive: true
            }))
        );
        assert_eq!(n.get("ts"), Some(&Node::Other(Scalar::Other)));
        assert_eq!(n.get("bin"), Some(&Node::Other(Scalar::Other)));
        assert_eq!(n.get("h"), Some(&Node::Other(Scalar::Other)));
    }

    #[test]
    fn dotted_and_quoted_keys_and_index_bounds() {
        let n = parse(r#"{ Header._id: null, "$or": [ { "x": 1 } ], : 5 }"#).unwrap();
        assert_eq!(n.get("Header._id"), Some(&Node::Other(Scalar::Null)));
        assert!(matches!(n.get("$or"), Some(Node::Array(a)) if a.len() == 1));
        assert!(n.get("").is_some());
    }

    #[test]
    fn gives_up_cleanly() {
        assert_eq!(parse("{ a: 1"), Err(SyntaxError::Unterminated));
        assert_eq!(parse("{ a: { b: 1 }"), Err(SyntaxError::Unterminated));
        assert_eq!(parse("{...}"), Err(SyntaxError::Elided));
        assert_eq!(parse("{ a: 1, b: ... }"), Err(SyntaxError::Elided));
        assert_eq!(parse(r#"{ a: "x"#), Err(SyntaxError::Unterminated));
        assert_eq!(parse("{ a: /x"), Err(SyntaxError::Unterminated));
        assert_eq!(parse("{ a b }"), Err(SyntaxError::Unexpected));
        assert_eq!(parse(&"[".repeat(500)), Err(SyntaxError::TooDeep));
        // Multi-byte characters never split: keys and strings keep them whole.
        assert_eq!(
            parse("{ é: \"ü\" }").unwrap().get("é"),
            Some(&Node::Str("ü".into()))
        );
        for text in [
            "", "{", "}", "{:", "{ a: [", "/", "{ a: 'é", "{ a: (", "{ a: x(",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn stops_after_the_object() {
        let text = "{ a: 1 } planSummary: COLLSCAN";
        let (_, end) = parse_value_at(text, 0).unwrap();
        assert_eq!(&text[end..], " planSummary: COLLSCAN");
    }
}
