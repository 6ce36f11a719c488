//! The model file: YAML (or JSON) that a person writes by hand in minutes,
//! turned into a validated `squill::model::Model`.
//!
//! Reading happens in three stages so that each error can point into the file:
//! `raw` deserializes the text with every value's location (serde-saphyr's
//! `Spanned`), `resolve`/`workload` check names, numbers and paths and build the
//! model, collecting every problem instead of stopping at the first, and `error`
//! renders them with `file:line:column`, a snippet and a suggestion. JSON goes
//! through the same YAML parser (JSON is YAML 1.2 flow syntax) so it gets the
//! same locations; serde_json checks it first because it words JSON syntax
//! errors better. The reference of the syntax is docs/model-file.md.

mod aggregate_filter;
mod all_tenants;
mod budget;
mod capacity;
mod changes;
mod compact;
mod conditional;
mod context;
mod error;
mod fields;
mod geo;
mod growth;
mod mixes;
mod names;
mod paging;
mod parent_key;
mod paths;
mod positions;
mod raw;
mod raw_visitors;
mod relationships;
mod resolve;
mod returns;
pub mod scalar;
mod schema;
mod tenancy;
mod tenant_carry;
mod tenant_word;
mod upsert;
mod workload;
mod write;

#[cfg(test)]
mod aggregate_filter_tests;
#[cfg(test)]
mod all_tenants_tests;
#[cfg(test)]
mod amount_tests;
#[cfg(test)]
mod caller_value_tests;
#[cfg(test)]
mod capacity_tests;
#[cfg(test)]
mod field_compare_tests;
#[cfg(test)]
mod geo_tests;
#[cfg(test)]
mod growth_tests;
#[cfg(test)]
mod paging_tests;
#[cfg(test)]
mod returns_tests;
#[cfg(test)]
mod set_value_tests;
#[cfg(test)]
mod tenancy_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod upsert_tests;

pub use context::MAX_WHOLE;
pub use error::{ModelFileError, Position, Problem};
pub use geo::{MAX_AREA_KM2, max_radius_km};
pub use positions::{LineColumn, positions};
pub use schema::schema_json;
pub use write::to_yaml;

use crate::model::Model;
use context::Ctx;
use miette::NamedSource;
use std::path::Path;

/// Parses a model file's text. `source_name` is used in messages (usually the
/// path) and for the model's default name (its stem); a name ending in `.json`
/// is checked as strict JSON first.
pub fn parse(source_name: &str, text: &str) -> Result<Model, ModelFileError> {
    let source = || Some(NamedSource::new(source_name, text.to_string()).with_language("yaml"));
    let fail = |problem: Problem| ModelFileError::new(vec![problem], source());
    let only_comments = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if only_comments {
        return Err(fail(Problem {
            file: source_name.to_string(),
            position: Some(Position::at_offset(text, 0, 0)),
            message: "the model file is empty".into(),
            label: "empty".into(),
            help: Some("a model needs at least `entities:`; see docs/model-file.md".into()),
        }));
    }
    if let Some(problem) = binary_content(source_name, text) {
        return Err(ModelFileError::new(vec![problem], None));
    }
    // Only a `.json` name is held to strict JSON: a YAML file may well be one
    // flow mapping `{entities: …}`, which is not JSON.
    let is_json = Path::new(source_name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json && let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(fail(json_problem(source_name, text, &e)));
    }
    let raw: raw::RawModel = match serde_saphyr::from_str_with_options(text, budget::options(text))
    {
        Ok(raw) => raw,
        Err(e) => return Err(fail(yaml_problem(source_name, text, &e))),
    };
    let default_name = Path::new(source_name)
        .file_stem()
        .map_or_else(|| "model".to_string(), |s| s.to_string_lossy().into_owned());
    let mut ctx = Ctx::new(source_name, text);
    match resolve::resolve(&mut ctx, raw, &default_name) {
        Some(model) => Ok(model),
        None => Err(ModelFileError::new(ctx.problems, source())),
    }
}

/// Reads and parses the model file at `path`; `-` is standard input (named
/// `<stdin>` in messages). Every command that takes a model comes through here.
pub fn load(path: &Path) -> Result<Model, ModelFileError> {
    if path.as_os_str() == "-" {
        let name = "<stdin>".to_string();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(|e| {
            ModelFileError::file(
                &name,
                format!("cannot read the model from standard input: {e}"),
            )
        })?;
        return parse_bytes(name, bytes);
    }
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::IsADirectory => "is a directory, not a model file".to_string(),
            _ => e.to_string(),
        };
        ModelFileError::file(&name, format!("cannot read the model file: {why}"))
    })?;
    parse_bytes(name, bytes)
}

/// Parses bytes read from `name`, refusing text that is not UTF-8 with the
/// byte offset of the first bad byte.
fn parse_bytes(name: String, bytes: Vec<u8>) -> Result<Model, ModelFileError> {
    match String::from_utf8(bytes) {
        Ok(text) => parse(&name, &text),
        Err(e) => {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
            let p = Position::at_offset(valid, valid.len(), 0);
            Err(ModelFileError::new(
                vec![Problem {
                    file: name,
                    position: Some(p),
                    message: format!(
                        "the model file is not UTF-8 text (invalid byte 0x{:02x} at byte offset {at})",
                        bytes[at]
                    ),
                    label: String::new(),
                    help: Some("a model file is YAML or JSON text".into()),
                }],
                None,
            ))
        }
    }
}

/// Text that is valid UTF-8 but holds control characters YAML forbids is most
/// likely not a model file at all; say so instead of a parser message.
fn binary_content(file: &str, text: &str) -> Option<Problem> {
    let (offset, c) = text
        .char_indices()
        .find(|(_, c)| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))?;
    Some(Problem {
        file: file.to_string(),
        position: Some(Position::at_offset(text, offset, c.len_utf8())),
        message: format!(
            "the model file holds a control character (U+{:04X}) at byte offset {offset}: it does not look like YAML or JSON text",
            u32::from(c)
        ),
        label: "control character".into(),
        help: Some("a model file is YAML or JSON text".into()),
    })
}

fn json_problem(file: &str, text: &str, e: &serde_json::Error) -> Problem {
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m)
        .to_string();
    let position = if e.line() == 0 {
        Position::at_offset(text, text.len(), 0)
    } else {
        Position::at_line_column(text, e.line(), e.column().max(1), 1)
    };
    Problem {
        file: file.to_string(),
        position: Some(position),
        message: format!("invalid JSON: {message}"),
        label: "here".into(),
        help: None,
    }
}

/// The names serde lists after "expected one of" in an unknown-key message.
fn expected_names(message: &str) -> Vec<String> {
    let Some((_, list)) = message.split_once("expected one of ") else {
        return message
            .split_once("expected `")
            .map(|(_, rest)| vec![rest.trim_end_matches('`').to_string()])
            .unwrap_or_default();
    };
    list.split(", ")
        .map(|n| n.trim().trim_matches('`').to_string())
        .collect()
}

fn yaml_problem(file: &str, text: &str, e: &serde_saphyr::Error) -> Problem {
    let plain = e.without_snippet().to_string();
    // The message may end with its own " at line L column C"; we print ours.
    let mut message = plain
        .split(" at line ")
        .next()
        .unwrap_or(&plain)
        .trim()
        .to_string();
    if message.starts_with("budget breached") {
        message = format!(
            "the file nests too deeply, or its aliases expand to far more than its text ({message})"
        );
    }
    for (from, to) in [
        ("expected f64", "expected a number"),
        ("expected u64", "expected a whole number"),
        (
            "expected struct RawModel",
            "expected a map of `entities`, `relationships`, `operations`, …",
        ),
        ("struct RawModel", "model"),
        ("struct RawEntity", "entity"),
        ("struct RawOperation", "operation"),
        ("struct RawRelationship", "relationship"),
        ("struct RawFieldLong", "field"),
        ("struct RawInclude", "include"),
        ("struct RawMix", "mix"),
        ("struct RawCardinalityLong", "cardinality"),
        ("unknown field `", "unknown key `"),
        ("missing field `", "missing key `"),
        (
            "expected mapping start",
            "expected a map (`key: value` lines) here",
        ),
    ] {
        message = message.replace(from, to);
    }
    let help = if message.starts_with("missing key `entities`") {
        Some("a model needs at least `entities:`; see docs/model-file.md".to_string())
    } else {
        None
    };
    let help = help.or_else(|| {
        message
            .split_once("unknown key `")
            .and_then(|(_, rest)| rest.split_once('`'))
            .and_then(|(unknown, _)| {
                let names = expected_names(&message);
                error::suggestion(unknown, names.iter().map(String::as_str))
            })
    });
    let position = e
        .location()
        .and_then(|l| context::position(text, l))
        .unwrap_or_else(|| Position::at_offset(text, text.len(), 0));
    if message.starts_with("multiple YAML documents") {
        message = "a model file holds one YAML document; a second one starts here".into();
    }
    // Scalar type errors ("invalid floating point") do not say what was found.
    let found = text
        .get(position.offset..position.offset + position.len)
        .filter(|f| !f.is_empty() && f.len() <= 60);
    if let (Some(found), true) = (found, message.starts_with("invalid ")) {
        message = match message.as_str() {
            "invalid floating point" | "invalid integer" => {
                format!("expected a number, found `{found}`")
            }
            "invalid boolean" => format!("expected true or false, found `{found}`"),
            _ => format!("{message}: `{found}`"),
        };
    }
    let label = if message.contains("unknown key") {
        "unknown key"
    } else {
        "here"
    };
    Problem {
        file: file.to_string(),
        position: Some(position),
        message,
        label: label.into(),
        help,
    }
}
