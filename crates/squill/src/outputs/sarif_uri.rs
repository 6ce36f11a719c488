//! A file path as SARIF's `artifactLocation.uri`: a URI reference (RFC 3986),
//! which a path is not. A space, `%`, `#`, `?`, `:` or a control character
//! from a file's name would make viewers cut the path short, read a
//! fragment or a scheme, or refuse the log; so every byte outside the
//! unreserved set (letters, digits, `-._~`) and the `/` between segments is
//! percent-encoded, as UTF-8.

use std::fmt::Write as _;

/// `path` as a URI reference: relative paths stay relative, `/abs` stays a
/// path from the root. On Windows, `\` separates segments and becomes `/`;
/// elsewhere it is a character of a name and is encoded (`%5C`).
pub(crate) fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(b));
            }
            b'\\' if cfg!(windows) => out.push('/'),
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn plain_paths_are_unchanged() {
        for path in ["dump/shop/orders.bson", "/var/log/mongod.log", "a-b_c.~1"] {
            assert_eq!(uri(path), path);
        }
    }

    #[test]
    fn everything_else_is_percent_encoded() {
        assert_eq!(uri("logs/my log#1?.json"), "logs/my%20log%231%3F.json");
        assert_eq!(uri("c:x%y"), "c%3Ax%25y");
        assert_eq!(uri("a\u{1b}]0;t\u{7}"), "a%1B%5D0%3Bt%07");
        assert_eq!(uri("é<>\""), "%C3%A9%3C%3E%22");
    }

    /// What a URI reference may hold (RFC 3986, section 2): every byte of
    /// the result is unreserved, `/`, or part of a `%XX`.
    #[test]
    fn only_uri_characters_remain() {
        let hostile = "../x y/\u{202e}<script>`\r\n\\%zz";
        let u = uri(hostile);
        let mut rest = u.as_str();
        while let Some(c) = rest.chars().next() {
            if c == '%' {
                assert!(rest[1..3].chars().all(|h| h.is_ascii_hexdigit()), "{u}");
                rest = &rest[3..];
            } else {
                assert!(c.is_ascii_alphanumeric() || "-._~/".contains(c), "{u}");
                rest = &rest[1..];
            }
        }
    }
}
