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
pub(in crate::outputs) mod search_run;
pub(in crate::outputs) mod sharding;
pub mod text;

use crate::design::Design;
pub use search_run::SearchRun;

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
    render_run(design, format, color, None)
}

/// `render`, the human formats closing with how the search ran (`run`,
/// when the caller measured it); JSON is the same with or without it.
pub fn render_run(design: &Design, format: Format, color: bool, run: Option<&SearchRun>) -> String {
    match format {
        Format::Text => {
            let mut out = text::render(design, color);
            if let Some(run) = run {
                out.push_str(&text::search_section(run, color));
            }
            out
        }
        Format::Markdown => {
            let mut out = markdown::render(design);
            if let Some(run) = run {
                out.push_str(&format!(
                    "\n## {}\n\n{}\n",
                    search_run::HEADING,
                    search_run::sentence(run)
                ));
            }
            out
        }
        Format::Json => json::render(design),
        Format::Html => crate::outputs::html::design_run(design, run),
    }
}
