//! Numbers of a `squill.toml` checked as they are read: a NaN weight, a
//! negative cost or a zero document limit would silently turn every design
//! into nonsense, so they are errors at their line:column instead. Each
//! function reads an optional number and refuses it outside its range.

use serde::{Deserialize, Deserializer, de::Error};

fn in_range<'de, D: Deserializer<'de>>(
    d: D,
    low: f64,
    high: f64,
    what: &str,
) -> Result<Option<f64>, D::Error> {
    let Some(v) = Option::<f64>::deserialize(d)? else {
        return Ok(None);
    };
    if !v.is_finite() || v < low || v > high {
        return Err(D::Error::custom(format!(
            "{what} must be a number from {low} to {high}, found {v}"
        )));
    }
    Ok(Some(v))
}

/// A cost coefficient: a weight in round trips, from 0 to a million.
pub(super) fn weight<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    in_range(d, 0.0, 1e6, "a cost coefficient")
}

/// A ratio of rates (reads per write): above 0, at most a billion.
pub(super) fn ratio<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = in_range(d, 0.0, 1e9, "a ratio")?;
    if v == Some(0.0) {
        return Err(D::Error::custom("a ratio must be above 0, found 0"));
    }
    Ok(v)
}

/// A share of something: from 0 to 1.
pub(super) fn share<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    in_range(d, 0.0, 1.0, "a share")
}

fn whole<'de, D: Deserializer<'de>>(
    d: D,
    low: u64,
    high: u64,
    what: &str,
) -> Result<Option<u64>, D::Error> {
    let Some(v) = Option::<u64>::deserialize(d)? else {
        return Ok(None);
    };
    if !(low..=high).contains(&v) {
        return Err(D::Error::custom(format!(
            "{what} must be from {low} to {high}, found {v}"
        )));
    }
    Ok(Some(v))
}

/// A document size limit: at least one byte, at most MongoDB's 16 MiB.
pub(super) fn document_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, 1, 16 * 1024 * 1024, "a document size limit (bytes)")
}

/// A nesting limit: 1 to MongoDB's 100 levels.
pub(super) fn nesting_depth<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    Ok(whole(d, 1, 100, "a nesting limit (levels)")?.map(|v| v as u32))
}

/// A count of array elements shown in an example: 1 to a million.
pub(super) fn example_elements<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    whole(d, 1, 1_000_000, "an example's array length")
}

#[cfg(test)]
mod tests {
    use crate::settings::{SettingsError, parse};
    use std::path::Path;

    /// The message and the line:column of a refused `squill.toml`.
    fn refused(text: &str) -> (String, (usize, usize)) {
        match parse(Path::new("squill.toml"), text) {
            Err(SettingsError::Parse(e)) => {
                let at = e.span.map(|s| s.offset()).unwrap_or(usize::MAX);
                let line = text[..at.min(text.len())].matches('\n').count() + 1;
                let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
                (e.message, (line, column))
            }
            other => panic!("accepted {text:?}: {other:?}"),
        }
    }

    #[test]
    fn numbers_out_of_range_are_refused_where_they_are() {
        let cases = [
            ("[design]\nread-heavy-ratio = nan\n", "a ratio", (2, 20)),
            ("[design]\nread-mostly-ratio = 0\n", "above 0", (2, 21)),
            (
                "[design]\nmax-document-bytes = 0\n",
                "document size limit",
                (2, 22),
            ),
            (
                "[design]\nmax-document-bytes = 20000000\n",
                "16777216",
                (2, 22),
            ),
            (
                "[cardinality]\nembed-max = 12000\n",
                "embed-max (12000) must not pass reference-array-max (5000)",
                (1, 1),
            ),
            (
                "[cardinality]\nreference-array-max = 0\n",
                "at least 1",
                (1, 1),
            ),
            (
                "[cardinality]\nembed-document-bytes = 0\n",
                "document size limit",
                (2, 24),
            ),
            (
                "[design]\nmax-nesting-depth = 500\n",
                "nesting limit",
                (2, 21),
            ),
            (
                "[design.costs]\ntransaction = -3\n",
                "cost coefficient",
                (2, 15),
            ),
            (
                "[design.costs]\nbyte-read = inf\n",
                "cost coefficient",
                (2, 13),
            ),
            (
                "[scan.relationships]\nmin-match-share = 1.5\n",
                "a share",
                (2, 19),
            ),
            // Inside a rule's table the value is read with the table: the
            // error points at the table.
            (
                "[scan.dangling-reference]\nmax-share = -0.1\n",
                "a share",
                (1, 1),
            ),
        ];
        for (text, says, at) in cases {
            let (message, where_) = refused(text);
            assert!(message.contains(says), "{text:?}: {message}");
            assert_eq!(where_, at, "{text:?}: {message}");
        }
    }

    #[test]
    fn numbers_in_range_are_taken() {
        let s = parse(
            Path::new("squill.toml"),
            "[design]\nread-heavy-ratio = 4\nmax-nesting-depth = 20\n[design.costs]\ntransaction = 0\n",
        )
        .unwrap();
        assert_eq!(s.design.read_heavy_ratio, 4.0);
        assert_eq!(s.design.max_nesting_depth, 20);
        assert_eq!(s.design.costs.transaction, 0.0);
        // "Few" may pass what is embedded (the migration tests embed 3).
        let small = parse(
            Path::new("squill.toml"),
            "[cardinality]\nembed-max = 3\nreference-array-max = 3\n",
        )
        .unwrap();
        assert_eq!(small.cardinality.embed_max, 3);
    }
}
