//! Reporters for a `Design` (what `squill advise` prints): text for a terminal,
//! Markdown for reviews, JSON for tools, SARIF for code scanning (`sarif`,
//! which also needs the model file's positions). All return strings; none print.

// The HTML report (`outputs::html`) says the same things in the same words.
pub(in crate::outputs) mod capacity;
pub(in crate::outputs) mod current;
pub(in crate::outputs) mod describe;
pub(in crate::outputs) mod describe_markdown;
pub mod json;
pub mod markdown;
mod medium;
mod mermaid;
#[cfg(test)]
pub(crate) mod sample;
pub mod sarif;
pub(in crate::outputs) mod sharding;
pub mod text;

use crate::design::Design;

/// The output formats of `squill advise`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Json,
    /// One self-contained page with diagrams (`outputs::html`).
    Html,
}

/// Renders `design` in `format`; `color` applies to text only.
pub fn render(design: &Design, format: Format, color: bool) -> String {
    match format {
        Format::Text => text::render(design, color),
        Format::Markdown => markdown::render(design),
        Format::Json => json::render(design),
        Format::Html => crate::outputs::html::design(design),
    }
}
