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
        element(
            &col.name,
            col.kind,
            v,
            bson,
            json,
            &mut first,
            &mut scratch.text,
            true,
        )
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

/// The arrays of one document read as child rows: each item appended as
/// it arrives, the arrays closed onto the document when its rows end.
pub struct Arrays {
    names: Vec<String>,
    bson: Vec<Vec<u8>>,
    json: Vec<Vec<u8>>,
    counts: Vec<u32>,
    item_bson: Vec<u8>,
    item_json: Vec<u8>,
    index: String,
}

impl Arrays {
    pub fn new(names: Vec<String>) -> Self {
        let n = names.len();
        Arrays {
            names,
            bson: vec![Vec::new(); n],
            json: vec![Vec::new(); n],
            counts: vec![0; n],
            item_bson: Vec::new(),
            item_json: Vec::new(),
            index: String::new(),
        }
    }

    /// Empties every array, for the next document.
    pub fn clear(&mut self) {
        for i in 0..self.names.len() {
            self.bson[i].clear();
            self.json[i].clear();
            self.counts[i] = 0;
        }
    }

    /// One item of array `i`: an object of `columns`, or the one value
    /// when `scalar`.
    pub fn push<'v>(
        &mut self,
        i: usize,
        columns: &[Column],
        scalar: bool,
        values: impl IntoIterator<Item = Option<&'v [u8]>>,
        scratch: &mut Scratch,
    ) -> Result<(), String> {
        let n = self.counts[i];
        self.index.clear();
        let _ = write!(self.index, "{n}");
        let (bson, json) = (&mut self.bson[i], &mut self.json[i]);
        if n > 0 {
            json.push(b',');
        }
        if scalar {
            let (Some(col), Some(Some(v))) = (columns.first(), values.into_iter().next()) else {
                // A null id is no item (json_agg's null, stripped).
                if n > 0 {
                    json.pop();
                }
                return Ok(());
            };
            let mut first = true;
            element(
                &self.index,
                col.kind,
                v,
                bson,
                json,
                &mut first,
                &mut scratch.text,
                false,
            )?;
        } else {
            document(
                columns,
                values,
                b"{}",
                scratch,
                &mut self.item_bson,
                &mut self.item_json,
            )?;
            bson.push(0x03);
            bson.extend_from_slice(self.index.as_bytes());
            bson.push(0);
            bson.extend_from_slice(&self.item_bson);
            json.extend_from_slice(&self.item_json);
        }
        self.counts[i] = n + 1;
        Ok(())
    }

    /// Appends every array (an empty one too: the validator wants it) to
    /// the complete document in `bson` and `json`.
    pub fn close(&self, bson: &mut Vec<u8>, json: &mut Vec<u8>) -> Result<(), String> {
        bson.pop();
        json.pop();
        for (i, name) in self.names.iter().enumerate() {
            if name.as_bytes().contains(&0) {
                return Err(format!("field {name}: a field name with a NUL byte"));
            }
            bson.push(0x04);
            bson.extend_from_slice(name.as_bytes());
            bson.push(0);
            let len = i32::try_from(self.bson[i].len() + 5)
                .map_err(|_| "an array over 2 GB".to_string())?;
            bson.extend_from_slice(&len.to_le_bytes());
            bson.extend_from_slice(&self.bson[i]);
            bson.push(0);
            if json.len() > 1 {
                json.push(b',');
            }
            crate::synthetic::json_text::write_json_string(json, name);
            json.extend_from_slice(b":[");
            json.extend_from_slice(&self.json[i]);
            json.push(b']');
        }
        bson.push(0);
        let len = i32::try_from(bson.len()).map_err(|_| "a document over 2 GB".to_string())?;
        bson[..4].copy_from_slice(&len.to_le_bytes());
        json.push(b'}');
        Ok(())
    }
}

fn fixed<const N: usize>(v: &[u8]) -> Result<[u8; N], String> {
    v.try_into()
        .map_err(|_| format!("{} bytes where {N} were expected", v.len()))
}

/// One typed value as a BSON element named `name` and a JSON member (or,
/// when not `member`, a bare JSON value: an array's item).
#[allow(clippy::too_many_arguments)] // one value's pieces, named
fn element(
    field: &str,
    kind: Kind,
    v: &[u8],
    bson: &mut Vec<u8>,
    json: &mut Vec<u8>,
    first: &mut bool,
    text: &mut String,
    member: bool,
) -> Result<(), String> {
    let name = field.as_bytes();
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
    if member {
        crate::synthetic::json_text::write_json_string(json, field);
        json.push(b':');
    }
    text.clear();
    match kind {
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
            crate::synthetic::json_text::write_json_string(json, s);
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
    use crate::migration::from_postgres::document::{Column, Kind};

    fn col(name: &str, kind: Kind) -> Column {
        Column {
            name: name.into(),
            kind,
        }
    }

    #[test]
    fn arrays_of_child_rows_close_onto_the_document_in_both_forms() {
        let root = [col("_id", Kind::Int32)];
        let id = 1i32.to_be_bytes();
        let (mut bson, mut json) = (Vec::new(), Vec::new());
        let mut scratch = Scratch::default();
        document(
            &root,
            [Some(&id[..])],
            br#"{"name":"a"}"#,
            &mut scratch,
            &mut bson,
            &mut json,
        )
        .unwrap();
        let mut arrays = super::Arrays::new(vec!["payments".into(), "ids".into(), "none".into()]);
        let item = [col("_id", Kind::Int32), col("amount", Kind::Decimal)];
        for (i, amount) in [(10i32, "1.50"), (11, "2.00")] {
            let i = i.to_be_bytes();
            arrays
                .push(
                    0,
                    &item,
                    false,
                    [Some(&i[..]), Some(amount.as_bytes())],
                    &mut scratch,
                )
                .unwrap();
        }
        let one = [col("", Kind::Int64)];
        for x in [7i64, 8] {
            let x = x.to_be_bytes();
            arrays
                .push(1, &one, true, [Some(&x[..])], &mut scratch)
                .unwrap();
        }
        // A null id is no item.
        arrays.push(1, &one, true, [None], &mut scratch).unwrap();
        arrays.close(&mut bson, &mut json).unwrap();
        let text = String::from_utf8(json).unwrap();
        assert_eq!(
            text,
            r#"{"_id":1,"name":"a","payments":[{"_id":10,"amount":{"$numberDecimal":"1.50"}},{"_id":11,"amount":{"$numberDecimal":"2.00"}}],"ids":[{"$numberLong":"7"},{"$numberLong":"8"}],"none":[]}"#
        );
        let mut again = Vec::new();
        crate::inputs::ejson::transcode_document(
            text.as_bytes(),
            &mut again,
            crate::inputs::ejson::Options { legacy: false },
        )
        .unwrap();
        assert_eq!(again, bson);
        // Cleared, the next document starts with empty arrays.
        arrays.clear();
        let (mut b2, mut j2) = (Vec::new(), Vec::new());
        document(
            &root,
            [Some(&id[..])],
            b"{}",
            &mut scratch,
            &mut b2,
            &mut j2,
        )
        .unwrap();
        arrays.close(&mut b2, &mut j2).unwrap();
        assert_eq!(
            String::from_utf8(j2).unwrap(),
            r#"{"_id":1,"payments":[],"ids":[],"none":[]}"#
        );
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
