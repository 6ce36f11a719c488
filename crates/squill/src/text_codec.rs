//! Base64 and hex encoding of bytes, as Extended JSON writes binary values and
//! ObjectIds. One copy for the BSON renderer, the scan report and the generator.

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// Every byte's two lowercase hex digits: one look-up per byte.
static HEX2: [[u8; 2]; 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [HEX[i >> 4], HEX[i & 15]];
        i += 1;
    }
    t
};

/// Appends the standard, padded base64 of `bytes` to `out`.
pub(crate) fn base64_into(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

/// The standard, padded base64 of `bytes`.
pub(crate) fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    base64_into(&mut out, bytes);
    out
}

/// Writes the lowercase hex of `bytes` over `dst` (twice as long; the
/// generator fills a fixed `{"$oid":"…"}` buffer with it).
pub(crate) fn hex_over(dst: &mut [u8], bytes: &[u8]) {
    for (pair, b) in dst.chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&HEX2[usize::from(*b)]);
    }
}

/// Appends the lowercase hex of `bytes` to `out`, through a stack buffer so
/// that each 32 bytes are one append rather than 64.
pub(crate) fn hex_into(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len() * 2);
    let mut buf = [0u8; 64];
    for chunk in bytes.chunks(32) {
        let hex = &mut buf[..2 * chunk.len()];
        hex_over(hex, chunk);
        // Only hex digits were written.
        out.push_str(std::str::from_utf8(hex).unwrap_or_default());
    }
}

/// The lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    hex_into(&mut out, bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_like_the_rfc() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0xff, 0xff]), "//8=");
        assert_eq!(base64(b"TEST T3ST"), "VEVTVCBUM1NU");
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0a, 0xff, 0x65]), "000aff65");
    }
}
