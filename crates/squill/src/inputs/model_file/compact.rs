//! The short spellings a person types by hand: field types (`string(40)`,
//! `string[5]`, `date?`), sort keys (`-date`), aggregates (`avg(readings.value)`),
//! and the writer's inverse of each, so `to_yaml` and `parse` agree.

use crate::model::{AggregateFn, FieldType};

/// The base type names, as written in files (lowercase is accepted too).
pub(super) const TYPE_NAMES: &[&str] = &[
    "string",
    "int",
    "long",
    "double",
    "decimal",
    "bool",
    "date",
    "objectId",
    "binary",
    "object",
    "attributes",
    "point",
    "polygon",
];

/// A field type with its optional size and whether it may be absent.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ShortType {
    pub ty: FieldType,
    pub size: Option<f64>,
    /// An array's element size: `polygon(12)[3]` (each element as
    /// `polygon(12)` is alone).
    pub element_size: Option<f64>,
    pub optional: bool,
}

/// Error of a short type: the message and the name to suggest a fix for, if any.
#[derive(Debug)]
pub(super) struct ShortTypeError {
    pub message: String,
    pub unknown_name: Option<String>,
}

fn base_type(name: &str) -> Option<FieldType> {
    Some(match name.to_ascii_lowercase().as_str() {
        "string" | "str" => FieldType::String,
        "int" | "int32" => FieldType::Int,
        "long" | "int64" => FieldType::Long,
        "double" | "float" | "number" => FieldType::Double,
        "decimal" | "decimal128" => FieldType::Decimal,
        "bool" | "boolean" => FieldType::Bool,
        "date" | "datetime" | "timestamp" => FieldType::Date,
        "objectid" | "oid" => FieldType::ObjectId,
        "binary" | "bindata" => FieldType::Binary,
        "object" | "document" => FieldType::Object,
        // The number of names is the long form's `keys`.
        "attributes" => FieldType::Attributes { keys: 0 },
        // GeoJSON; a polygon's size is its number of corners.
        "point" | "geopoint" => FieldType::Point,
        "polygon" => FieldType::Polygon,
        _ => return None,
    })
}

/// Parses `name`, `name(size)`, `name[]`, `name[count]`, `name[][]`, each with an
/// optional trailing `?`.
pub(super) fn parse_type(text: &str) -> Result<ShortType, ShortTypeError> {
    let err = |message: String| ShortTypeError {
        message,
        unknown_name: None,
    };
    let mut rest = text.trim();
    let optional = rest.ends_with('?');
    if optional {
        rest = rest[..rest.len() - 1].trim_end();
    }
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..name_end];
    if name.is_empty() {
        return Err(err(format!(
            "`{text}` is not a field type (e.g. `string(40)`, `int`, `date?`, `string[5]`)"
        )));
    }
    let mut ty = base_type(name).ok_or_else(|| ShortTypeError {
        message: format!("unknown field type `{name}`"),
        unknown_name: Some(name.to_string()),
    })?;
    rest = rest[name_end..].trim_start();
    let mut size = None;
    if let Some(after) = rest.strip_prefix('(') {
        let close = after
            .find(')')
            .ok_or_else(|| err(format!("`{text}`: missing `)`")))?;
        size = Some(parse_size(&after[..close], text)?);
        rest = after[close + 1..].trim_start();
    }
    let mut arrays = 0;
    let mut element_size = None;
    while let Some(after) = rest.strip_prefix('[') {
        let close = after
            .find(']')
            .ok_or_else(|| err(format!("`{text}`: missing `]`")))?;
        let inner = after[..close].trim();
        if arrays == 0 {
            // `string(20)[5]`: the size before `[…]` is each element's.
            element_size = size.take();
        } else if element_size.is_some() {
            return Err(err(format!(
                "`{text}`: an element size (the number in `(…)`) is for an array of one level only"
            )));
        }
        if !inner.is_empty() {
            size = Some(parse_size(inner, text)?);
        }
        ty = FieldType::Array(Box::new(ty));
        arrays += 1;
        rest = after[close + 1..].trim_start();
        if !inner.is_empty() && rest.starts_with('[') {
            return Err(err(format!(
                "`{text}`: only the outermost `[…]` may carry an element count"
            )));
        }
    }
    if !rest.is_empty() {
        return Err(err(format!(
            "`{text}`: unexpected `{rest}` (e.g. `string(40)`, `int`, `date?`, `string[5]`)"
        )));
    }
    Ok(ShortType {
        ty,
        size,
        element_size,
        optional,
    })
}

fn parse_size(inner: &str, text: &str) -> Result<f64, ShortTypeError> {
    match inner.trim().replace('_', "").parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        _ => Err(ShortTypeError {
            message: format!("`{text}`: `{}` is not a size (a number ≥ 0)", inner.trim()),
            unknown_name: None,
        }),
    }
}

/// The short spelling of a type and sizes (the inverse of `parse_type`).
pub(super) fn write_type(
    ty: &FieldType,
    size: Option<u32>,
    element_size: Option<u32>,
    required: bool,
) -> String {
    let mut out = match ty {
        FieldType::Array(item) => {
            let mut inner = item.as_ref();
            let mut depth = 1;
            while let FieldType::Array(i) = inner {
                inner = i;
                depth += 1;
            }
            let mut s = base_name(inner).to_string();
            if let Some(n) = element_size.filter(|_| depth == 1) {
                s.push_str(&format!("({n})"));
            }
            for _ in 1..depth {
                s.push_str("[]");
            }
            match size {
                Some(n) => s.push_str(&format!("[{n}]")),
                None => s.push_str("[]"),
            }
            s
        }
        other => match size {
            Some(n) => format!("{}({n})", base_name(other)),
            None => base_name(other).to_string(),
        },
    };
    if !required {
        out.push('?');
    }
    out
}

fn base_name(ty: &FieldType) -> &'static str {
    match ty {
        FieldType::String => "string",
        FieldType::Int => "int",
        FieldType::Long => "long",
        FieldType::Double => "double",
        FieldType::Decimal => "decimal",
        FieldType::Bool => "bool",
        FieldType::Date => "date",
        FieldType::ObjectId => "objectId",
        FieldType::Binary => "binary",
        FieldType::Object => "object",
        FieldType::Array(_) => "array",
        FieldType::Attributes { .. } => "attributes",
        FieldType::Point => "point",
        FieldType::Polygon => "polygon",
    }
}

/// `-field` (descending) or `field` / `+field` (ascending).
pub(super) fn parse_sort(text: &str) -> (String, bool) {
    let t = text.trim();
    if let Some(f) = t.strip_prefix('-') {
        (f.trim().to_string(), true)
    } else {
        (t.strip_prefix('+').unwrap_or(t).trim().to_string(), false)
    }
}

/// `fn(path)`: the function and the dotted path inside the parentheses.
pub(super) fn parse_aggregate(text: &str) -> Result<(AggregateFn, Vec<String>), String> {
    let t = text.trim();
    let open = t.find('(');
    let (name, inner) = match (open, t.ends_with(')')) {
        (Some(open), true) => (t[..open].trim(), t[open + 1..t.len() - 1].trim()),
        _ => {
            return Err(format!(
                "`{text}` is not an aggregate: write `count(relationship)` or `sum(relationship.field)` (also min, max, avg)"
            ));
        }
    };
    let function = match name.to_ascii_lowercase().as_str() {
        "count" => AggregateFn::Count,
        "sum" => AggregateFn::Sum,
        "min" => AggregateFn::Min,
        "max" => AggregateFn::Max,
        "avg" | "average" | "mean" => AggregateFn::Avg,
        "first" => AggregateFn::First,
        "last" => AggregateFn::Last,
        _ => {
            return Err(format!(
                "unknown aggregate function `{name}` (count, sum, min, max, avg, first, last)"
            ));
        }
    };
    let path: Vec<String> = inner.split('.').map(|s| s.trim().to_string()).collect();
    if path.iter().any(String::is_empty) {
        return Err(format!("`{text}`: empty name inside the parentheses"));
    }
    Ok((function, path))
}

pub(super) fn aggregate_name(f: AggregateFn) -> &'static str {
    f.name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_types_parse_and_write_back() {
        for text in [
            "string",
            "string(40)",
            "int",
            "date?",
            "string[5]",
            "objectId[]",
            "int[][]",
            "int[][3]",
            "binary(1024)?",
            "string(20)[5]",
            "polygon(12)[3]",
            "point(8)[]",
        ] {
            let t = parse_type(text).unwrap();
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let size = |s: Option<f64>| s.map(|s| s as u32);
            assert_eq!(
                write_type(&t.ty, size(t.size), size(t.element_size), !t.optional),
                text
            );
        }
        let t = parse_type("polygon(12)[3]").unwrap();
        assert_eq!((t.size, t.element_size), (Some(3.0), Some(12.0)));
        assert!(
            parse_type("string(20)[][3]")
                .unwrap_err()
                .message
                .contains("one level only")
        );
        assert_eq!(
            parse_type("String (12)").unwrap().ty,
            FieldType::String,
            "case and spaces are forgiven"
        );
    }

    #[test]
    fn bad_short_types_say_why() {
        assert!(parse_type("strin(4)").unwrap_err().unknown_name.is_some());
        assert!(
            parse_type("string(-4)")
                .unwrap_err()
                .message
                .contains("not a size")
        );
        assert!(parse_type("string(4").is_err());
        assert!(parse_type("string(4)[3][]").is_err());
        assert!(parse_type("string(4)[][]").is_err());
        assert!(parse_type("int x").is_err());
        assert!(parse_type("").is_err());
        assert!(parse_type("?").is_err());
    }

    #[test]
    fn aggregates_parse() {
        assert_eq!(
            parse_aggregate("avg(readings.value)").unwrap(),
            (AggregateFn::Avg, vec!["readings".into(), "value".into()])
        );
        assert!(parse_aggregate("median(x)").is_err());
        assert!(parse_aggregate("count").is_err());
        assert!(parse_aggregate("count(a.)").is_err());
    }
}
