//! Where a sentence with names from data lands — a terminal or Markdown —
//! and so how its names and the words around them are written: the
//! capacity sentences, and the layouts and entity decisions of
//! `describe`, whose names a Markdown report shows as code spans.

use crate::words;

/// Where a sentence lands, and so how its names and words are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Medium {
    /// A terminal: names in backticks, every hidden character escaped
    /// (`words::visible`).
    Text,
    /// Markdown: names as code spans (`words::markdown::code`), the words
    /// around them as literal prose (`words::markdown::text`).
    Markdown,
}

impl Medium {
    /// A name from data.
    pub(crate) fn name(self, name: &str) -> String {
        match self {
            Medium::Text => format!("`{}`", words::visible(name)),
            Medium::Markdown => words::markdown::code(name),
        }
    }

    /// Words that may hold a name but are not one (a layout in words, a
    /// plural of an entity).
    pub(crate) fn prose(self, text: &str) -> String {
        match self {
            Medium::Text => words::visible(text).into_owned(),
            Medium::Markdown => words::markdown::text(text),
        }
    }
}
