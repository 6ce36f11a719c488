//! Reporters for `squill scan`: the same `ScanReport` as text (for people at a
//! terminal), Markdown (for pull requests and wikis), JSON (stable, documented
//! in docs/scan-json.md) and SARIF 2.1.0 (for code-scanning dashboards).

mod estimate;
pub mod growth;
mod json;
mod markdown;
pub(crate) mod sarif;
mod text;

pub use json::json;
pub use markdown::markdown;
pub use sarif::sarif;
pub use text::text;

use crate::finding::Location;
use crate::scan::report::{CollectionReport, TypeCount};

/// `db.collection` or `collection`.
pub(crate) fn collection_name(c: &CollectionReport) -> String {
    match &c.database {
        Some(db) => format!("{db}.{}", c.name),
        None => c.name.clone(),
    }
}

/// Where a finding points, as one line of text.
pub(crate) fn location_text(loc: &Location) -> String {
    match loc {
        Location::Collection {
            database,
            collection,
            field,
            ..
        } => {
            let mut s = match database {
                Some(db) => format!("{db}.{collection}"),
                None => collection.clone(),
            };
            if let Some(f) = field {
                s.push_str(&format!(" `{f}`"));
            }
            s
        }
        Location::Model { path } => path.clone(),
        Location::File {
            path,
            line,
            byte_offset,
        } => match (line, byte_offset) {
            (Some(l), _) => format!("{}:{l}", path.display()),
            (None, Some(b)) => format!("{}: byte {b}", path.display()),
            _ => path.display().to_string(),
        },
    }
}

/// `location_text` for Markdown: the collection as prose, the field as a
/// code span whatever characters its name holds (escaping the whole line
/// showed the field's backticks as characters, and a backtick in the
/// name could not be told from them).
pub(crate) fn location_markdown(loc: &Location) -> String {
    use crate::words::markdown as md;
    match loc {
        Location::Collection {
            database,
            collection,
            field: Some(f),
            ..
        } => {
            let coll = match database {
                Some(db) => format!("{db}.{collection}"),
                None => collection.clone(),
            };
            format!("{} {}", md::text(&coll), md::code(f))
        }
        other => md::text(&location_text(other)),
    }
}

pub(crate) fn example_id(loc: &Location) -> Option<&str> {
    match loc {
        Location::Collection { example_id, .. } => example_id.as_deref(),
        _ => None,
    }
}

/// "string 95 %, int 5 %".
pub(crate) fn types_text(types: &[TypeCount]) -> String {
    let total: u64 = types.iter().map(|t| t.count).sum();
    types
        .iter()
        .map(|t| {
            if types.len() == 1 {
                t.ty.to_string()
            } else {
                format!("{} {}", t.ty, percent(t.count as f64 / total.max(1) as f64))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn percent(share: f64) -> String {
    let p = share * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// An evidence value without JSON quotes around strings.
pub(crate) fn evidence_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A key pattern as `{a: 1, b: -1}`.
pub(crate) fn key_text(key: &[(String, serde_json::Value)]) -> String {
    let parts: Vec<String> = key.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod markdown_names {
    use super::*;
    use pulldown_cmark::{Event, Options, Parser};

    fn code_spans(markdown: &str) -> Vec<String> {
        Parser::new_ext(markdown, Options::all())
            .filter_map(|e| match e {
                Event::Code(c) => Some(c.to_string()),
                _ => None,
            })
            .collect()
    }

    /// A finding's field, whatever backticks its name holds, renders as
    /// one code span, whole; the collection is prose. Before, the line was
    /// escaped whole: no code span at all, the backticks shown as
    /// characters.
    #[test]
    fn a_findings_field_is_one_code_span_whatever_its_name() {
        let loc = Location::Collection {
            file: None,
            database: Some("shop".into()),
            collection: "or*ders".into(),
            field: Some("b`ack``tick<i>".into()),
            example_id: None,
        };
        let md = location_markdown(&loc);
        assert_eq!(
            code_spans(&format!("### error `rule`: {md}")),
            ["rule", "b`ack``tick<i>"]
        );
        assert!(md.starts_with("shop.or\\*ders "), "{md}");
    }
}
