//! The libpq keywords the driver does not know. `service` and `passfile`
//! are libpq's (its URL and `key=value` forms both take them), but the
//! driver's parser refuses any keyword it does not know: they are taken out
//! here, and the rest goes to the driver as written.

/// A connection string split into what the driver reads and libpq's own
/// keywords.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Split {
    /// The string without `service` and `passfile`.
    pub rest: String,
    pub service: Option<String>,
    pub passfile: Option<String>,
    /// Whether the text names a port. The driver records 5432 for a URL
    /// host without one, which would hide `PGPORT` and a service's port.
    pub port_given: bool,
}

/// Splits `text`, a `postgres://` URL or `key=value` pairs.
pub(super) fn split(text: &str) -> Split {
    if text.starts_with("postgres://") || text.starts_with("postgresql://") {
        split_url(text)
    } else {
        split_pairs(text)
    }
}

/// `postgres://…?service=a&sslmode=disable` → the URL with `?sslmode=disable`.
fn split_url(url: &str) -> Split {
    let mut split = Split {
        port_given: url_names_a_port(url),
        ..Split::default()
    };
    let Some((base, query)) = url.split_once('?') else {
        split.rest = url.to_string();
        return split;
    };
    let mut kept = Vec::new();
    for param in query.split('&') {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        match key {
            "service" => split.service = Some(percent_decode(value)),
            "passfile" => split.passfile = Some(percent_decode(value)),
            _ => {
                split.port_given |= key == "port";
                kept.push(param);
            }
        }
    }
    split.rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    split
}

/// `host=a service='my svc' dbname=b` → `host=a dbname=b`, each kept pair
/// as written (quotes and escapes are the driver's to read).
fn split_pairs(text: &str) -> Split {
    let mut split = Split::default();
    let mut rest = String::new();
    for pair in pairs(text) {
        match pair.key.as_str() {
            "service" => split.service = Some(pair.value),
            "passfile" => split.passfile = Some(pair.value),
            _ => {
                split.port_given |= pair.key == "port";
                if !rest.is_empty() {
                    rest.push(' ');
                }
                rest.push_str(&text[pair.span.clone()]);
            }
        }
    }
    split.rest = rest;
    split
}

/// Whether the hosts of `postgres://user@host:port,…/db` name a port.
fn url_names_a_port(url: &str) -> bool {
    let after = url.split_once("://").map_or("", |(_, rest)| rest);
    let netloc = after.split(['/', '?']).next().unwrap_or("");
    let hosts = netloc.rsplit_once('@').map_or(netloc, |(_, hosts)| hosts);
    hosts.split(',').any(|host| {
        // `[::1]:5432`: the port follows the bracket.
        let tail = host.rsplit_once(']').map_or(host, |(_, tail)| tail);
        tail.split_once(':')
            .is_some_and(|(_, port)| !port.is_empty())
    })
}

/// One `key = value` of the `key=value` form, its value unquoted.
#[derive(Debug)]
struct Pair {
    key: String,
    value: String,
    span: std::ops::Range<usize>,
}

/// The pairs of libpq's `key=value` form: blanks around `=` allowed, a
/// value bare or in single quotes, `\` escaping the next character. Text
/// that is no pair is kept whole as one, for the driver to refuse with its
/// own message.
fn pairs(text: &str) -> Vec<Pair> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let skip_blanks = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    loop {
        i = skip_blanks(i);
        if i >= bytes.len() {
            return out;
        }
        let start = i;
        while i < bytes.len() && bytes[i] != b'=' && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = text[start..i].to_string();
        i = skip_blanks(i);
        if bytes.get(i) != Some(&b'=') {
            // Not a pair: the driver says what is wrong with it.
            out.push(Pair {
                key: String::new(),
                value: String::new(),
                span: start..text.len(),
            });
            return out;
        }
        i = skip_blanks(i + 1);
        let mut value = String::new();
        let quoted = bytes.get(i) == Some(&b'\'');
        if quoted {
            i += 1;
        }
        // Characters, not bytes: a value may hold any UTF-8.
        let mut chars = text[i..].char_indices();
        let mut end = text.len();
        while let Some((at, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        value.push(next);
                    }
                }
                '\'' if quoted => {
                    end = i + at + 1;
                    break;
                }
                c if !quoted && c.is_whitespace() => {
                    end = i + at;
                    break;
                }
                c => value.push(c),
            }
        }
        out.push(Pair {
            key,
            value,
            span: start..end,
        });
        i = end;
    }
}

/// `%2F` → `/`; a malformed escape is kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            // Two hex digits make one byte: at most 255.
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_loses_its_libpq_keywords_and_keeps_the_rest() {
        let s = split("postgres://u@h/db?service=my%20svc&sslmode=disable&passfile=%2Ftmp%2Fpw");
        assert_eq!(s.rest, "postgres://u@h/db?sslmode=disable");
        assert_eq!(s.service.as_deref(), Some("my svc"));
        assert_eq!(s.passfile.as_deref(), Some("/tmp/pw"));
        let s = split("postgresql:///shop?service=a");
        assert_eq!(s.rest, "postgresql:///shop");
        assert_eq!(s.service.as_deref(), Some("a"));
    }

    #[test]
    fn a_port_is_seen_wherever_it_is_written() {
        for (url, given) in [
            ("postgres://u:p@h/db", false),
            ("postgres://u:p@h:5433/db", true),
            ("postgres://u:p@[::1]/db", false),
            ("postgres://u:p@[::1]:5433/db", true),
            ("postgres://a,b:5433/db", true),
            ("postgres:///db?port=5433", true),
            ("host=h port=5433", true),
            ("host=h", false),
        ] {
            assert_eq!(split(url).port_given, given, "{url}");
        }
    }

    #[test]
    fn pairs_lose_their_libpq_keywords_and_keep_the_rest_as_written() {
        let s = split("host=h  service = 'my \\'svc\\'' dbname='a b' passfile=/x\\ y");
        assert_eq!(s.rest, "host=h dbname='a b'");
        assert_eq!(s.service.as_deref(), Some("my 'svc'"));
        assert_eq!(s.passfile.as_deref(), Some("/x y"));
        // Not a pair: kept for the driver to refuse.
        assert_eq!(split("host=h nonsense").rest, "host=h nonsense");
        assert_eq!(split("service=ü").service.as_deref(), Some("ü"));
    }
}
