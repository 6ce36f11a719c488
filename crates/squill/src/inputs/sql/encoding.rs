//! A DDL file's bytes as text, in the encoding the file declares: a byte
//! order mark; then `SET client_encoding = 'LATIN1'` (pg_dump) or
//! `SET NAMES latin1` (mysqldump), the first one in the file; then UTF-8
//! when the bytes are UTF-8; then a table's `CHARSET=latin1` (a MySQL dump
//! written in its tables' encoding). Bytes the encoding cannot read are an
//! error at their byte offset, never replaced.

use encoding_rs::Encoding;
use std::borrow::Cow;

/// The text of a file and how it was read.
#[derive(Debug)]
pub struct Decoded<'a> {
    pub text: Cow<'a, str>,
    /// The encoding read (`UTF-8`, `ISO-8859-1`, `windows-1252`, …).
    pub encoding: &'static str,
    /// What chose it, when not plain UTF-8: the declaration and its byte
    /// offset, or the byte order mark.
    pub because: Option<String>,
}

/// Why the bytes are no text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeError {
    #[error(
        "byte offset {offset}: not {encoding} text ({because}); convert the file or correct the declaration"
    )]
    Malformed {
        offset: usize,
        encoding: &'static str,
        because: String,
    },
    #[error("byte offset {offset}: encoding `{name}` is declared, which squill cannot read")]
    Unknown { offset: usize, name: String },
}

/// How to read bytes of one declared encoding.
#[derive(Clone, Copy)]
enum Reading {
    Utf8,
    /// ISO-8859-1 exactly (PostgreSQL's LATIN1): each byte one character.
    /// The WHATWG encodings read `latin1` as windows-1252, as MySQL does.
    Latin1,
    /// PostgreSQL's SQL_ASCII: no encoding; UTF-8 when the bytes are.
    Undeclared,
    Other(&'static Encoding),
}

/// The encoding a name declares. `postgres`: the name comes from
/// `client_encoding`, where LATIN1 is ISO-8859-1 (MySQL's latin1 is
/// windows-1252).
fn reading(name: &str, postgres: bool) -> Option<Reading> {
    let n: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    let label = match n.as_str() {
        "utf8" | "utf8mb3" | "utf8mb4" | "unicode" => return Some(Reading::Utf8),
        "sqlascii" | "ascii" | "usascii" | "binary" => return Some(Reading::Undeclared),
        "latin1" | "iso88591" if postgres => return Some(Reading::Latin1),
        "latin1" => "windows-1252",
        "latin2" => "iso-8859-2",
        "latin3" => "iso-8859-3",
        "latin4" => "iso-8859-4",
        "latin5" => "iso-8859-9",
        "latin6" => "iso-8859-10",
        "latin7" => "iso-8859-13",
        "latin8" => "iso-8859-14",
        "latin9" => "iso-8859-15",
        "latin10" => "iso-8859-16",
        "greek" => "iso-8859-7",
        "hebrew" => "iso-8859-8",
        "koi8r" => "koi8-r",
        "koi8u" => "koi8-u",
        "eucjp" | "ujis" | "eucjpms" => "euc-jp",
        "euckr" | "uhc" => "euc-kr",
        "euccn" | "gb2312" => "gbk",
        "sjis" | "cp932" | "shiftjis" | "shiftjis2004" => "shift_jis",
        "win866" | "cp866" | "alt" => "ibm866",
        other => {
            if let Some(code) = other
                .strip_prefix("win")
                .or_else(|| other.strip_prefix("cp"))
                .filter(|c| c.chars().all(|d| d.is_ascii_digit()))
            {
                return Encoding::for_label(format!("windows-{code}").as_bytes())
                    .map(Reading::Other);
            }
            return Encoding::for_label(name.trim().as_bytes()).map(Reading::Other);
        }
    };
    Encoding::for_label(label.as_bytes()).map(Reading::Other)
}

/// The first declaration among `patterns` outside a `--` comment: the
/// encoding's name and the byte offset of the declaration.
fn declared<'a>(bytes: &'a [u8], lower: &[u8], patterns: &[&str]) -> Option<(&'a str, usize)> {
    let mut best: Option<(&str, usize)> = None;
    for p in patterns {
        for at in memchr::memmem::find_iter(lower, p.as_bytes()) {
            if best.is_some_and(|(_, b)| b < at) {
                break;
            }
            let line = lower[..at]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            if memchr::memmem::find(&lower[line..at], b"--").is_some() {
                continue;
            }
            // `= 'LATIN1'`, ` TO latin1`, `=latin1`, ` latin1`.
            let mut i = at + p.len();
            let skip = |i: &mut usize, what: &[u8]| {
                while *i < lower.len() && what.contains(&lower[*i]) {
                    *i += 1;
                }
            };
            skip(&mut i, b" \t=");
            if lower[i..].starts_with(b"to ") {
                i += 3;
                skip(&mut i, b" \t");
            }
            skip(&mut i, b"'\"");
            let end = lower[i..]
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'))
                .map_or(lower.len(), |e| i + e);
            if end > i
                && let Ok(name) = std::str::from_utf8(&bytes[i..end])
            {
                best = Some((name, at));
                break;
            }
        }
    }
    best
}

/// `bytes` as text (see the module's comment).
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, DecodeError> {
    if let Some((enc, bom)) = Encoding::for_bom(bytes) {
        return by(
            Reading::Other(enc),
            &bytes[bom..],
            bom,
            "byte order mark".to_string(),
        );
    }
    let lower = bytes.to_ascii_lowercase();
    let file = declared(bytes, &lower, &["client_encoding", "set names"]);
    let utf8 = std::str::from_utf8(bytes);
    let (name, at, postgres) = match (file, &utf8) {
        (Some((name, at)), _) => {
            let postgres = lower[at..].starts_with(b"client_encoding");
            (name, at, postgres)
        }
        (None, Ok(text)) => {
            return Ok(Decoded {
                text: Cow::Borrowed(text),
                encoding: "UTF-8",
                because: None,
            });
        }
        (None, Err(e)) => match declared(bytes, &lower, &["character set", "charset"]) {
            Some((name, at))
                if reading(name, false).is_some_and(|r| !matches!(r, Reading::Utf8)) =>
            {
                (name, at, false)
            }
            _ => {
                return Err(DecodeError::Malformed {
                    offset: e.valid_up_to(),
                    encoding: "UTF-8",
                    because: "no other encoding is declared".into(),
                });
            }
        },
    };
    let r = reading(name, postgres).ok_or_else(|| DecodeError::Unknown {
        offset: at,
        name: name.to_string(),
    })?;
    let because = format!(
        "`{}` at byte offset {at} declares {name}",
        if postgres {
            "client_encoding"
        } else if lower[at..].starts_with(b"set names") {
            "SET NAMES"
        } else {
            "CHARSET"
        }
    );
    by(r, bytes, 0, because)
}

/// `bytes` read as `r`; offsets in errors are counted from `base`.
fn by(r: Reading, bytes: &[u8], base: usize, because: String) -> Result<Decoded<'_>, DecodeError> {
    let utf8 = |bytes| {
        std::str::from_utf8(bytes).map_err(|e| DecodeError::Malformed {
            offset: base + e.valid_up_to(),
            encoding: "UTF-8",
            because: because.clone(),
        })
    };
    match r {
        Reading::Utf8 => Ok(Decoded {
            text: Cow::Borrowed(utf8(bytes)?),
            encoding: "UTF-8",
            because: Some(because),
        }),
        Reading::Undeclared | Reading::Latin1 => {
            if matches!(r, Reading::Undeclared)
                && let Ok(text) = std::str::from_utf8(bytes)
            {
                return Ok(Decoded {
                    text: Cow::Borrowed(text),
                    encoding: "UTF-8",
                    because: Some(because),
                });
            }
            Ok(Decoded {
                text: Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
                encoding: "ISO-8859-1",
                because: Some(because),
            })
        }
        Reading::Other(enc) if enc == encoding_rs::UTF_8 => Ok(Decoded {
            text: Cow::Borrowed(utf8(bytes)?),
            encoding: "UTF-8",
            because: Some(because),
        }),
        Reading::Other(enc) => {
            let mut decoder = enc.new_decoder_without_bom_handling();
            let capacity = decoder
                .max_utf8_buffer_length_without_replacement(bytes.len())
                .unwrap_or(bytes.len().saturating_mul(3));
            let mut text = String::with_capacity(capacity);
            let (result, read) =
                decoder.decode_to_string_without_replacement(bytes, &mut text, true);
            match result {
                encoding_rs::DecoderResult::InputEmpty => Ok(Decoded {
                    text: Cow::Owned(text),
                    encoding: enc.name(),
                    because: Some(because),
                }),
                encoding_rs::DecoderResult::Malformed(bad, after) => Err(DecodeError::Malformed {
                    offset: base + read.saturating_sub(usize::from(bad) + usize::from(after)),
                    encoding: enc.name(),
                    because,
                }),
                // The buffer was sized for the whole input.
                encoding_rs::DecoderResult::OutputFull => Err(DecodeError::Malformed {
                    offset: base + read,
                    encoding: enc.name(),
                    because,
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_encoding_reads_the_bytes() {
        // pg_dump's LATIN1: é is one byte, 0xE9.
        let pg = b"SET client_encoding = 'LATIN1';\nCREATE TABLE caf\xe9 (id integer);\n";
        let d = decode(pg).unwrap();
        assert_eq!(d.encoding, "ISO-8859-1");
        assert!(d.text.contains("CREATE TABLE café ("));
        // mysqldump's tables in latin1 (windows-1252: 0x80 is €), no SET NAMES.
        let my =
            b"CREATE TABLE t (p varchar(3) DEFAULT '\x80') ENGINE=InnoDB DEFAULT CHARSET=latin1;";
        let d = decode(my).unwrap();
        assert_eq!(d.encoding, "windows-1252");
        assert!(d.text.contains("DEFAULT '€'"));
        // Another declared encoding, through encoding_rs.
        let ru = b"SET client_encoding = 'WIN1251';\nCREATE TABLE \"\xf2\" (id integer);";
        assert!(decode(ru).unwrap().text.contains("\"т\""));
        // UTF-8 as it is, with nothing declared.
        assert_eq!(
            decode("CREATE TABLE é (id int);".as_bytes())
                .unwrap()
                .encoding,
            "UTF-8"
        );
        // A declaration in a comment declares nothing.
        assert!(
            decode(b"-- SET client_encoding = 'LATIN1';\nCREATE TABLE caf\xe9 (id int);").is_err()
        );
    }

    #[test]
    fn wrong_bytes_are_an_error_at_their_offset() {
        let bad = b"SET client_encoding = 'UTF8';\nCREATE TABLE caf\xe9 (id integer);";
        assert_eq!(
            decode(bad).unwrap_err(),
            DecodeError::Malformed {
                offset: 46,
                encoding: "UTF-8",
                because: "`client_encoding` at byte offset 4 declares UTF8".into()
            }
        );
        let undeclared = b"CREATE TABLE caf\xe9 (id integer);";
        assert!(matches!(
            decode(undeclared),
            Err(DecodeError::Malformed { offset: 16, .. })
        ));
        // Shift_JIS: 0x81 starts a two-byte character; 0x81 0x20 is none.
        let sjis = b"SET NAMES sjis;\nCREATE TABLE t (a int); -- \x81 ";
        assert!(matches!(
            decode(sjis),
            Err(DecodeError::Malformed {
                offset: 43,
                encoding: "Shift_JIS",
                ..
            })
        ));
        let unknown = b"SET client_encoding = 'MULE_INTERNAL';";
        assert_eq!(
            decode(unknown).unwrap_err(),
            DecodeError::Unknown {
                offset: 4,
                name: "MULE_INTERNAL".into()
            }
        );
    }
}
