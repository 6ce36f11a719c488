//! Where a problem in the input is, and what it is. Every message names the
//! file and a byte offset (BSON) or a line and column (JSON), so a user can
//! find the damage with `xxd -s` or an editor.

use crate::inputs::bson::BsonError;
use std::fmt;
use std::path::{Path, PathBuf};

/// A place in an input. For BSON, `byte_offset` counts bytes of the
/// (decompressed) stream from its start; for JSON it is the offset in the text
/// and `line`/`column` (1-based) are set too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    pub byte_offset: u64,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

impl Position {
    pub fn byte(byte_offset: u64) -> Self {
        Position {
            byte_offset,
            line: None,
            column: None,
        }
    }
}

/// One problem in one input. Display: `path: byte 1234: message` for binary
/// inputs, `path:17:5: message` for text inputs, `path: message` otherwise.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InputError {
    pub path: PathBuf,
    pub position: Option<Position>,
    pub kind: InputErrorKind,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        match self.position {
            Some(Position {
                line: Some(line),
                column,
                ..
            }) => {
                write!(f, ":{line}")?;
                if let Some(col) = column {
                    write!(f, ":{col}")?;
                }
            }
            Some(p) => write!(f, ": byte {}", p.byte_offset)?,
            None => {}
        }
        write!(f, ": {}", self.kind)
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputErrorKind {
    #[error("cannot read: {0}")]
    Io(String),
    #[error("file is empty")]
    Empty,
    #[error(
        "not a recognised input (expected BSON, a mongodump archive, JSON, or a dump directory)"
    )]
    UnknownFormat,
    #[error("no input files found in the directory")]
    NoInputs,
    /// A document could not be framed (length out of range, missing
    /// terminator, stream ends inside it). `resumed_at` is where reading
    /// picked up again, if a later document was found.
    #[error("{message}{}", resumed(*.resumed_at))]
    Framing {
        message: String,
        resumed_at: Option<u64>,
    },
    /// A framed document whose content is invalid BSON.
    #[error("invalid BSON document: {0}")]
    Bson(String),
    /// A JSON text that is malformed or not valid Extended JSON.
    #[error("{message}{}", resumed_line(*.resumed_at_line))]
    Json {
        message: String,
        resumed_at_line: Option<u64>,
    },
    #[error("gzip: {0}")]
    Gzip(String),
    #[error("archive: {0}")]
    Archive(String),
    #[error("metadata: {0}")]
    Metadata(String),
    /// A FIFO, device or socket met while walking a directory: reading it
    /// could block forever, so it is passed over (given by its own path, it
    /// is read as a stream).
    #[error("not a regular file (a FIFO, device or socket): skipped")]
    NotRegular,
    /// A path whose real location was read already: a symbolic link leads
    /// back to it (a loop, or two names for one file).
    #[error("already read as {}: skipped", .0.display())]
    AlreadyRead(std::path::PathBuf),
    #[error("{0}")]
    Other(String),
}

fn resumed(at: Option<u64>) -> String {
    match at {
        Some(at) => format!("; resumed at byte {at}"),
        None => "; the rest of this input is skipped".to_string(),
    }
}

fn resumed_line(at: Option<u64>) -> String {
    match at {
        Some(line) => format!("; resumed at line {line}"),
        None => String::new(),
    }
}

impl InputError {
    pub fn new(path: &Path, position: Option<Position>, kind: InputErrorKind) -> Self {
        InputError {
            path: path.to_path_buf(),
            position,
            kind,
        }
    }

    /// The error for a document that `inputs::bson::walk` rejected: the
    /// position is the document's, moved to the offending byte.
    pub fn invalid_document(path: &Path, document: Position, error: &BsonError) -> Self {
        let at = document.byte_offset + error.offset as u64;
        InputError {
            path: path.to_path_buf(),
            position: Some(Position {
                byte_offset: at,
                line: document.line,
                column: document.column,
            }),
            kind: InputErrorKind::Bson(error.kind.to_string()),
        }
    }

    pub(crate) fn io(path: &Path, position: Option<Position>, e: &std::io::Error) -> Self {
        let kind = if e.kind() == std::io::ErrorKind::UnexpectedEof
            || e.kind() == std::io::ErrorKind::InvalidInput
            || e.kind() == std::io::ErrorKind::InvalidData
        {
            InputErrorKind::Gzip(format!("compressed stream is damaged or ends early ({e})"))
        } else {
            InputErrorKind::Io(e.to_string())
        };
        InputError::new(path, position, kind)
    }
}
