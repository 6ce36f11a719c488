//! SQL column types as the model's field types, declared or measured, and
//! the growth of a relationship the workload keeps inserting into.

use super::evidence::{ColumnStats, Evidence};

/// A squill field type for an SQL column type, and whether the size is an
/// assumption.
pub(super) fn field_type(sql: &str) -> (String, Option<String>) {
    let s = sql.to_lowercase();
    let len = s
        .split_once('(')
        .and_then(|(_, r)| r.split([')', ',']).next())
        .and_then(|n| n.trim().parse::<u64>().ok())
        // A length past a document's 16 MiB says nothing of the values
        // (`varchar(99999999999)`): read as no length at all.
        .filter(|&n| n <= 16 * 1024 * 1024);
    let array = s.ends_with("[]");
    let base = s.trim_end_matches("[]");
    let word = |w: &str| {
        base.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|x| x == w)
    };
    let (ty, note) = if base.starts_with("tinyint(1)")
        || word("bool")
        || word("boolean")
        || base == "bit"
    {
        ("bool".to_string(), None)
    } else if word("bigint") || word("int8") || word("bigserial") {
        ("long".to_string(), None)
    } else if base.contains("int") || word("serial") || word("smallserial") || word("year") {
        ("int".to_string(), None)
    } else if word("numeric") || word("decimal") || word("money") {
        ("decimal".to_string(), None)
    } else if word("real") || word("float") || word("double") || word("float4") || word("float8") {
        ("double".to_string(), None)
    } else if word("date")
        || word("time")
        || word("timestamp")
        || word("datetime")
        || word("timestamptz")
    {
        ("date".to_string(), None)
    } else if word("bytea") || base.contains("blob") || base.contains("binary") || word("image") {
        (
            "binary".to_string(),
            Some("assumed: a binary's average size: 64 bytes".to_string()),
        )
    } else if word("json") || word("jsonb") {
        (
            "object".to_string(),
            Some("assumed: a JSON value's average size: 64 bytes".to_string()),
        )
    } else if base.contains("char") {
        match len {
            Some(n) => (format!("string({n})"), None),
            None => (
                "string".to_string(),
                Some("assumed: no declared length, 16 bytes".to_string()),
            ),
        }
    } else if base.contains("text") || base.contains("clob") {
        (
            "string(200)".to_string(),
            Some("assumed: a text column, 200 bytes".to_string()),
        )
    } else if word("uuid") {
        ("string(36)".to_string(), None)
    } else {
        (
            "string".to_string(),
            Some(format!(
                "assumed: type `{sql}` read as a string of 16 bytes"
            )),
        )
    };
    if array {
        (
            format!("{}[]", ty.split('(').next().unwrap_or("string")),
            note,
        )
    } else {
        (ty, note)
    }
}

/// Children per parent per day, and rows per second, when the workload
/// measured inserts rows into `child`.
pub(super) fn growth(evidence: Option<&Evidence>, child: &str, parent: &str) -> Option<(f64, f64)> {
    let e = evidence?;
    let per_second = *e.inserts.get(child)?;
    let parents = *e.counts.get(parent)?;
    (per_second > 0.0 && parents > 0).then(|| (per_second * 86_400.0 / parents as f64, per_second))
}

/// The field type of a column with measured statistics: a string, binary
/// or JSON value sized by its average width, other types as declared.
pub(super) fn measured_type(sql: &str, st: &ColumnStats) -> (String, Option<String>) {
    let (ty, note) = field_type(sql);
    let base = ty.split(['(', '[']).next().unwrap_or("string").to_string();
    if !matches!(base.as_str(), "string" | "binary" | "object") || ty.ends_with(']') {
        return (ty, note);
    }
    // A variable-length value carries a 1-byte header when short (4 when long).
    let width = if st.avg_width > 127 {
        st.avg_width.saturating_sub(4)
    } else {
        st.avg_width.saturating_sub(1)
    }
    .max(1);
    (
        format!("{base}({width})"),
        Some(format!(
            "measured: {width} byte{} on average{}",
            if width == 1 { "" } else { "s" },
            if st.null_frac > 0.0 {
                format!(", null in {:.1}%", st.null_frac * 100.0)
            } else {
                String::new()
            }
        )),
    )
}
