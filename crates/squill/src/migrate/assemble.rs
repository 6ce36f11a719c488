//! One document from one COPY row: the typed columns (binary, as
//! PostgreSQL sends them) become BSON elements and Extended JSON members,
//! then the rest of the document — the JSON the server built for nested and
//! related values — is compacted (`compact`), transcoded and appended. The
//! BSON goes to the dump, the JSON to the lines file; both say the same.

use super::compact::strip_nulls;
use super::document::{Column, Kind};
use crate::inputs::ejson::{Options, transcode_document};
use std::fmt::Write as _;

/// Milliseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
const PG_EPOCH_MS: i64 = 946_684_800_000;

/// Buffers reused from one document to the next.
#[derive(Default)]
pub struct Scratch {
    rest: Vec<u8>,
    rest_bson: Vec<u8>,
    text: String,
}

/// Builds the document of one row into `bson` and `json` (both cleared
/// first): `values` gives each column's binary value, `None` when null.
pub fn document<'v>(
    columns: &[Column],
    values: impl IntoIterator<Item = Option<&'v [u8]>>,
    rest: &[u8],
    scratch: &mut Scratch,
    bson: &mut Vec<u8>,
    json: &mut Vec<u8>,
) -> Result<(), String> {
    bson.clear();
    json.clear();
    bson.extend_from_slice(&[0; 4]);
    json.push(b'{');
    let mut first = true;
    for (col, value) in columns.iter().zip(values) {
        let Some(v) = value else { continue };
        element(col, v, bson, json, &mut first, &mut scratch.text)
            .map_err(|e| format!("field {}: {e}", col.name))?;
    }
    // The rest: compacted (nulls out), then its members after ours.
    scratch.rest.clear();
    strip_nulls(rest, &mut scratch.rest);
    if scratch.rest.len() > 2 {
        scratch.rest_bson.clear();
        transcode_document(
            &scratch.rest,
            &mut scratch.rest_bson,
            Options { legacy: false },
        )
        .map_err(|e| e.to_string())?;
        let n = scratch.rest_bson.len();
        bson.extend_from_slice(&scratch.rest_bson[4..n - 1]);
        if !first {
            json.push(b',');
        }
        json.extend_from_slice(&scratch.rest[1..scratch.rest.len() - 1]);
    }
    bson.push(0);
    let len = i32::try_from(bson.len()).map_err(|_| "a document over 2 GB".to_string())?;
    bson[..4].copy_from_slice(&len.to_le_bytes());
    json.push(b'}');
    Ok(())
}

fn fixed<const N: usize>(v: &[u8]) -> Result<[u8; N], String> {
    v.try_into()
        .map_err(|_| format!("{} bytes where {N} were expected", v.len()))
}

/// One typed value as a BSON element and a JSON member.
fn element(
    col: &Column,
    v: &[u8],
    bson: &mut Vec<u8>,
    json: &mut Vec<u8>,
    first: &mut bool,
    text: &mut String,
) -> Result<(), String> {
    let name = col.name.as_bytes();
    if name.contains(&0) {
        return Err("a field name with a NUL byte".into());
    }
    let head = |bson: &mut Vec<u8>, t: u8| {
        bson.push(t);
        bson.extend_from_slice(name);
        bson.push(0);
    };
    if !*first {
        json.push(b',');
    }
    *first = false;
    crate::generate::json_text::write_json_string(json, &col.name);
    json.push(b':');
    text.clear();
    match col.kind {
        Kind::Int32 => {
            let x = i32::from_be_bytes(fixed(v)?);
            head(bson, 0x10);
            bson.extend_from_slice(&x.to_le_bytes());
            let _ = write!(text, "{x}");
        }
        Kind::Int64 => {
            let x = i64::from_be_bytes(fixed(v)?);
            head(bson, 0x12);
            bson.extend_from_slice(&x.to_le_bytes());
            let _ = write!(text, "{{\"$numberLong\":\"{x}\"}}");
        }
        Kind::Double => {
            let x = f64::from_bits(u64::from_be_bytes(fixed(v)?));
            head(bson, 0x01);
            bson.extend_from_slice(&x.to_le_bytes());
            let shown = if x.is_nan() {
                "NaN".to_string()
            } else if x.is_infinite() {
                if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
            } else {
                format!("{x:?}")
            };
            let _ = write!(text, "{{\"$numberDouble\":\"{shown}\"}}");
        }
        Kind::Decimal => {
            let s = std::str::from_utf8(v).map_err(|e| e.to_string())?;
            let d = crate::inputs::ejson::decimal::parse(s)?;
            head(bson, 0x13);
            bson.extend_from_slice(&d);
            let _ = write!(text, "{{\"$numberDecimal\":\"{s}\"}}");
        }
        Kind::Date => {
            let us = i64::from_be_bytes(fixed(v)?);
            let ms = us.div_euclid(1000).saturating_add(PG_EPOCH_MS);
            head(bson, 0x09);
            bson.extend_from_slice(&ms.to_le_bytes());
            let _ = write!(text, "{{\"$date\":{{\"$numberLong\":\"{ms}\"}}}}");
        }
        Kind::Bool => {
            let [b] = fixed::<1>(v)?;
            head(bson, 0x08);
            bson.push(u8::from(b != 0));
            text.push_str(if b != 0 { "true" } else { "false" });
        }
        Kind::Str => {
            let s =
                simdutf8::basic::from_utf8(v).map_err(|_| "text that is not UTF-8".to_string())?;
            head(bson, 0x02);
            let len = i32::try_from(v.len() + 1).map_err(|_| "a string over 2 GB".to_string())?;
            bson.extend_from_slice(&len.to_le_bytes());
            bson.extend_from_slice(v);
            bson.push(0);
            crate::generate::json_text::write_json_string(json, s);
            return Ok(());
        }
        Kind::Binary => {
            head(bson, 0x05);
            let len = i32::try_from(v.len()).map_err(|_| "a binary over 2 GB".to_string())?;
            bson.extend_from_slice(&len.to_le_bytes());
            bson.push(0);
            bson.extend_from_slice(v);
            text.push_str("{\"$binary\":{\"base64\":\"");
            crate::text_codec::base64_into(text, v);
            text.push_str("\",\"subType\":\"00\"}}");
        }
        Kind::ObjectIdHex => {
            let hex = std::str::from_utf8(v).map_err(|e| e.to_string())?;
            if hex.len() != 24 {
                return Err(format!("`{hex}` is no ObjectId (24 hexadecimal digits)"));
            }
            let mut id = [0u8; 12];
            for (i, b) in id.iter_mut().enumerate() {
                *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
                    .map_err(|_| format!("`{hex}` is no ObjectId"))?;
            }
            head(bson, 0x07);
            bson.extend_from_slice(&id);
            let _ = write!(text, "{{\"$oid\":\"{}\"}}", hex.to_ascii_lowercase());
        }
    }
    json.extend_from_slice(text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Scratch, document};
    use crate::migrate::document::{Column, Kind};

    fn col(name: &str, kind: Kind) -> Column {
        Column {
            name: name.into(),
            kind,
        }
    }

    #[test]
    fn typed_columns_and_the_rest_make_one_document_in_both_forms() {
        let columns = [
            col("_id", Kind::Int32),
            col("n", Kind::Int64),
            col("price", Kind::Decimal),
            col("at", Kind::Date),
            col("name", Kind::Str),
            col("gone", Kind::Str),
            col("ok", Kind::Bool),
        ];
        // 2000-01-02T00:00:00Z is 86,400,000,000 µs after PostgreSQL's epoch.
        let at = 86_400_000_000i64.to_be_bytes();
        let (id, n) = (7i32.to_be_bytes(), (-3i64).to_be_bytes());
        let values: Vec<Option<&[u8]>> = vec![
            Some(&id),
            Some(&n),
            Some(b"12.50"),
            Some(&at),
            Some("Zoë \"Z\"".as_bytes()),
            None,
            Some(&[1]),
        ];
        let (mut bson, mut json) = (Vec::new(), Vec::new());
        document(
            &columns,
            values,
            br#"{"tags":[1, 2], "x":null}"#,
            &mut Scratch::default(),
            &mut bson,
            &mut json,
        )
        .unwrap();
        let text = String::from_utf8(json).unwrap();
        assert_eq!(
            text,
            r#"{"_id":7,"n":{"$numberLong":"-3"},"price":{"$numberDecimal":"12.50"},"at":{"$date":{"$numberLong":"946771200000"}},"name":"Zoë \"Z\"","ok":true,"tags":[1,2]}"#
        );
        // The JSON line transcodes to exactly the BSON written.
        let mut again = Vec::new();
        crate::inputs::ejson::transcode_document(
            text.as_bytes(),
            &mut again,
            crate::inputs::ejson::Options { legacy: false },
        )
        .unwrap();
        assert_eq!(again, bson);
    }
}
