//! The frame of a BSON document as it is written: the length prefix patched
//! when a document closes, and the keys "0", "1", … of an array. Both the
//! tokenizer and the wrapper tree write documents, so neither owns these.

use crate::inputs::bson::MAX_DOCUMENT_BYTES;

/// Patches the length prefix of the document that started at `start`.
pub(super) fn finish_len(out: &mut [u8], start: usize) -> Result<(), String> {
    let len = out.len() - start;
    if len > MAX_DOCUMENT_BYTES {
        return Err(format!(
            "document would be {len} bytes of BSON, over the 16 MiB limit"
        ));
    }
    out[start..start + 4].copy_from_slice(&(len as i32).to_le_bytes());
    Ok(())
}

/// Array keys "0", "1", … as cstrings.
pub(super) fn push_index_key(out: &mut Vec<u8>, index: u32) {
    if index < 10 {
        out.push(b'0' + index as u8);
    } else {
        let mut tmp = [0u8; 10];
        let mut n = index;
        let mut k = tmp.len();
        while n > 0 {
            k -= 1;
            tmp[k] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend_from_slice(&tmp[k..]);
    }
    out.push(0);
}
