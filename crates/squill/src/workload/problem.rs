//! Why a line could not be read. Each unreadable line is counted under its
//! reason and the first few are kept with file and line, so a report can say
//! where to look; the rest of the log is analysed.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Neither a JSON object nor a line starting with a timestamp.
    NotALogLine,
    /// An operation's line ends early: a JSON object without its closing
    /// brace, a text line without its closing duration (`…12ms`), a `.bson`
    /// file that ends inside a document.
    CutShort,
    /// The syntax cannot be read (invalid JSON, an unreadable command, BSON
    /// that is not a valid document).
    Corrupt,
    /// mongod shortened the command itself (`attr.truncated`, or `...` in a
    /// text log): its shape would be wrong, so it is left out.
    TruncatedByMongod,
    /// The command's values were replaced before logging (`$msg`, `###`).
    Redacted,
    /// Longer than the reader keeps in memory for one line.
    TooLong,
    /// The file ends inside a gzip stream, or the stream is damaged: the
    /// lines before it were read.
    TruncatedGzip,
    /// An input/output error while reading the file.
    ReadError,
}

/// An unreadable line: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    /// 1-based; for a damaged gzip stream, the line the reading stopped at;
    /// 0 in a `.bson` file, which has no lines (see `offset`).
    pub line: u64,
    /// In a `.bson` file: the byte offset of the problem (in the
    /// uncompressed bytes of a gzip'ed one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    pub reason: Reason,
}

impl Problem {
    /// Where to look, for a reader: `file:line`, or `file at byte N` in a
    /// `.bson` file.
    pub fn place(&self) -> String {
        match self.offset {
            Some(offset) => format!("{} at byte {offset}", self.file),
            None => format!("{}:{}", self.file, self.line),
        }
    }
}
