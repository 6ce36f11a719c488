//! Errors of a model file: every problem names `file:line:column` in its message
//! (useful without any rendering), and carries a span into the source so miette
//! draws the snippet. Several problems found in one pass travel together: the
//! first is the diagnostic, the others are its `related` diagnostics.

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceSpan};
use std::fmt;

/// Where a problem is: 1-based line and column (in characters) and, when the
/// source is known, the byte range for the snippet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
    pub len: usize,
}

impl Position {
    /// The position of byte `offset` (clamped to the text) with a span of `len` bytes.
    pub fn at_offset(text: &str, offset: usize, len: usize) -> Self {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = text[line_start..offset].chars().count() + 1;
        let mut end = offset.saturating_add(len).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Position {
            line,
            column,
            offset,
            len: end - offset,
        }
    }

    /// The position of 1-based `line` and `column` (in characters).
    pub fn at_line_column(text: &str, line: usize, column: usize, len: usize) -> Self {
        let mut offset = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line {
                let within: usize = l
                    .char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(l.trim_end_matches('\n').len(), |(b, _)| b);
                return Position::at_offset(text, offset + within, len);
            }
            offset += l.len();
        }
        Position::at_offset(text, text.len(), 0)
    }
}

/// One thing wrong with a model file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file's name as given by the caller.
    pub file: String,
    /// `None` when the problem is the file itself (missing, unreadable).
    pub position: Option<Position>,
    pub message: String,
    /// Short text drawn at the span.
    pub label: String,
    /// What to do, e.g. "did you mean `price`?".
    pub help: Option<String>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}:{}:{}: {}", self.file, p.line, p.column, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let p = self.position?;
        let span = SourceSpan::new(p.offset.into(), p.len);
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(self.label.clone()),
            span,
        ))))
    }
}

/// A model file that could not be read, parsed or validated.
#[derive(Debug)]
pub struct ModelFileError {
    problems: Vec<Problem>,
    source: Option<NamedSource<String>>,
}

impl ModelFileError {
    /// Problems are kept in the order of the file (then as found).
    pub(crate) fn new(mut problems: Vec<Problem>, source: Option<NamedSource<String>>) -> Self {
        debug_assert!(!problems.is_empty());
        problems.sort_by_key(|p| p.position.map_or((0, 0), |p| (p.line, p.column)));
        problems.dedup();
        ModelFileError { problems, source }
    }

    /// A problem with the file itself (no position).
    pub(crate) fn file(file: &str, message: String) -> Self {
        ModelFileError::new(
            vec![Problem {
                file: file.to_string(),
                position: None,
                message,
                label: String::new(),
                help: None,
            }],
            None,
        )
    }

    /// Every problem found, in file order; never empty.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    fn first(&self) -> &Problem {
        &self.problems[0]
    }
}

impl fmt::Display for ModelFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first())?;
        match self.problems.len() {
            1 => Ok(()),
            2 => write!(f, " (and 1 more problem)"),
            n => write!(f, " (and {} more problems)", n - 1),
        }
    }
}

impl std::error::Error for ModelFileError {}

impl Diagnostic for ModelFileError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("squill::model_file"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.first().help()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        self.first().labels()
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.problems.len() < 2 {
            return None;
        }
        Some(Box::new(
            self.problems[1..].iter().map(|p| p as &dyn Diagnostic),
        ))
    }
}

/// The closest of `candidates` to `wanted`, when it is close enough to be a typo.
pub(super) fn closest<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (wanted.chars().count().max(3) / 3).max(1) + 1;
    candidates
        .into_iter()
        .map(|c| {
            let d = crate::words::edit_distance(&wanted.to_lowercase(), &c.to_lowercase());
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// "did you mean `x`?" when one name is near, else the list of valid names when short.
pub(super) fn suggestion<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<String> {
    if let Some(near) = closest(wanted, candidates.clone()) {
        return Some(format!("did you mean `{near}`?"));
    }
    let all: Vec<&str> = candidates.into_iter().collect();
    match all.len() {
        0 => None,
        1..=12 => Some(format!(
            "valid names here: {}",
            all.iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => None,
    }
}
