//! Which reader an input needs. Detected from the content (the first bytes),
//! never from the file name alone; `--input-format` overrides it. Gzip is
//! always detected from its magic bytes whatever the format says.

use std::fmt;
use std::str::FromStr;

/// The kind of an input. `Auto` detects from content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    #[default]
    Auto,
    /// Concatenated BSON documents (`.bson`, `bsondump` input).
    Bson,
    /// A mongodump directory (a whole dump or one database's directory).
    Dump,
    /// A `mongodump --archive` stream.
    Archive,
    /// JSON documents one after another (mongoexport's default; any whitespace between them).
    JsonLines,
    /// One JSON array of documents (`mongoexport --jsonArray`).
    JsonArray,
}

impl InputFormat {
    /// The names `FromStr` accepts, for `--input-format` help and clap's
    /// `PossibleValuesParser`.
    pub const NAMES: [&'static str; 6] = ["auto", "bson", "dump", "archive", "jsonl", "json-array"];

    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Auto => "auto",
            InputFormat::Bson => "bson",
            InputFormat::Dump => "dump",
            InputFormat::Archive => "archive",
            InputFormat::JsonLines => "jsonl",
            InputFormat::JsonArray => "json-array",
        }
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "auto" => InputFormat::Auto,
            "bson" => InputFormat::Bson,
            "dump" | "mongodump" => InputFormat::Dump,
            "archive" => InputFormat::Archive,
            "jsonl" | "json-lines" | "ndjson" | "json" => InputFormat::JsonLines,
            "json-array" | "jsonarray" => InputFormat::JsonArray,
            other => {
                return Err(format!(
                    "unknown input format `{other}` (expected one of: {})",
                    Self::NAMES.join(", ")
                ));
            }
        })
    }
}

/// The magic number that starts a mongodump archive (0x8199e26d, little-endian).
pub(crate) const ARCHIVE_MAGIC: [u8; 4] = [0x6d, 0xe2, 0x99, 0x81];
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

pub(crate) fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(&GZIP_MAGIC)
}

/// Detects a (decompressed) stream's format from its first bytes. `None` when
/// nothing fits (including an empty stream).
pub(crate) fn detect(head: &[u8]) -> Option<InputFormat> {
    if head.starts_with(&ARCHIVE_MAGIC) {
        return Some(InputFormat::Archive);
    }
    // A BSON document under 16 MiB has a zero fourth byte; JSON text never has NUL.
    if head.len() >= 5 && head[3] == 0 {
        let len = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        if len >= 5 {
            return Some(InputFormat::Bson);
        }
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => Some(InputFormat::JsonArray),
        Some(b'{') => Some(InputFormat::JsonLines),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_kind_from_content() {
        assert_eq!(detect(&[5, 0, 0, 0, 0]), Some(InputFormat::Bson));
        assert_eq!(detect(b"\x6d\xe2\x99\x81rest"), Some(InputFormat::Archive));
        assert_eq!(detect(b"  [{}]"), Some(InputFormat::JsonArray));
        assert_eq!(
            detect(b"\xEF\xBB\xBF{\"a\":1}"),
            Some(InputFormat::JsonLines)
        );
        // `{` is also 123, a plausible BSON length: the NUL bytes decide.
        assert_eq!(detect(b"{\0\0\0\x0a\0\0"), Some(InputFormat::Bson));
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"hello"), None);
        assert!(is_gzip(&[0x1f, 0x8b, 8]));
    }

    #[test]
    fn parses_names() {
        for name in InputFormat::NAMES {
            assert_eq!(name.parse::<InputFormat>().unwrap().name(), name);
        }
        assert!("xml".parse::<InputFormat>().is_err());
    }
}
