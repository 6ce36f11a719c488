//! Reporters for a `Design` (what `squill advise` prints): text for a terminal,
//! Markdown for reviews, JSON for tools. All return strings; none print.

mod current;
mod describe;
pub mod json;
pub mod markdown;
mod mermaid;
#[cfg(test)]
pub(crate) mod sample;
pub mod text;

use crate::design::Design;

/// The output formats of `squill advise`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Json,
}

/// Renders `design` in `format`; `color` applies to text only.
pub fn render(design: &Design, format: Format, color: bool) -> String {
    match format {
        Format::Text => text::render(design, color),
        Format::Markdown => markdown::render(design),
        Format::Json => json::render(design),
    }
}
