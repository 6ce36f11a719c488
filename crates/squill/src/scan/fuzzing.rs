//! Entry points for the fuzz targets (`fuzz/`): not part of the API.

use super::profile::{CollectionProfile, Limits};

/// Cuts `data` into documents by their length prefixes (a length that lies
/// is cut at the end of the data), profiles them all, and asserts that the
/// profile is the one of the valid documents alone: a rejected document,
/// however malformed, counts in no field.
pub fn rejected_documents_count_nowhere(data: &[u8]) {
    let (mut all, mut valid) = (
        CollectionProfile::new(Limits::default()),
        CollectionProfile::new(Limits::default()),
    );
    let mut at = 0;
    // The smallest document is 5 bytes: a length and the closing NUL.
    while at + 5 <= data.len() {
        let len = i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        let len = usize::try_from(len).unwrap_or(0).clamp(5, data.len() - at);
        let doc = &data[at..at + len];
        if all.add(doc).is_ok() {
            valid.add(doc).expect("valid once, valid twice");
        }
        at += len;
    }
    all.finish();
    valid.finish();
    assert_eq!(all.summary(), valid.summary());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::testing::{B, doc};

    #[test]
    fn valid_and_truncated_documents_together() {
        let mut data = doc(&[("_id", B::I32(1)), ("a", B::Arr(vec![B::I32(1)]))]);
        let second = doc(&[("_id", B::I32(2)), ("b", B::Str("text"))]);
        data.extend_from_slice(&second[..second.len() - 3]);
        rejected_documents_count_nowhere(&data);
    }

    /// Found by the fuzzer: a field known as a scalar, then an array in a
    /// document rejected inside that array (before the array closes).
    #[test]
    fn rejected_inside_an_array_on_a_scalar_field() {
        let mut data = doc(&[("_id", B::I32(1)), ("ex", B::I32(5))]);
        let mut bad = doc(&[
            ("_id", B::I32(2)),
            ("ex", B::Arr(vec![B::I32(7), B::Str("x")])),
        ]);
        // The array's string now claims more bytes than the array holds.
        let at = bad.len() - 8;
        bad[at] = 0x40;
        data.extend_from_slice(&bad);
        rejected_documents_count_nowhere(&data);
    }
}
