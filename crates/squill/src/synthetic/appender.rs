//! Appending to a byte buffer: the flat loop (`flat.rs`) appends some thirty
//! small pieces per document (field names, `{"$oid":"…"}`, a date, words,
//! lengths) through this one interface, for Extended JSON and BSON alike.
//!
//! Without `unsafe` (issue 18), the pieces go through `Vec`'s own
//! `extend_from_slice`: the bookkeeping the unsafe version saved is back, and
//! BENCHMARKS.md ("generate without unsafe") gives what it costs.

use super::byte_out::ByteOut;
use super::json_text::JsonOut;
use std::fmt;

pub(super) struct Appender<'v> {
    vec: &'v mut Vec<u8>,
}

impl<'v> Appender<'v> {
    pub(super) fn new(vec: &'v mut Vec<u8>) -> Self {
        Appender { vec }
    }

    /// Appends `bytes`.
    #[inline(always)]
    pub(super) fn put(&mut self, bytes: &[u8]) {
        self.vec.extend_from_slice(bytes);
    }

    /// Appends the first `len` bytes of `padded` as one fixed-size copy of
    /// all 16, then cuts to length.
    #[inline(always)]
    pub(super) fn put_padded(&mut self, padded: &[u8; 16], len: usize) {
        debug_assert!(len <= 16);
        let end = self.vec.len() + len.min(16);
        self.vec.extend_from_slice(padded);
        self.vec.truncate(end);
    }

    #[inline(always)]
    pub(super) fn put_byte(&mut self, b: u8) {
        self.vec.push(b);
    }

    /// Where the next byte goes.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.vec.len()
    }

    /// Writes `bytes` over the bytes written at `start`, which must all be
    /// written already.
    #[inline(always)]
    pub(super) fn patch<const N: usize>(&mut self, start: usize, bytes: [u8; N]) {
        let at = self.vec.len();
        assert!(start <= at && N <= at - start, "patching unwritten bytes");
        self.vec[start..start + N].copy_from_slice(&bytes);
    }

    /// The bytes written since `start` (clamped to what is written).
    pub(super) fn since(&self, start: usize) -> &[u8] {
        &self.vec[start.min(self.vec.len())..]
    }
}

impl ByteOut for Appender<'_> {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        Appender::put(self, bytes);
    }
    #[inline(always)]
    fn put_byte(&mut self, b: u8) {
        Appender::put_byte(self, b);
    }
    #[inline(always)]
    fn put_padded(&mut self, padded: &[u8; 16], len: usize) {
        Appender::put_padded(self, padded, len);
    }
}

impl JsonOut for Appender<'_> {
    #[inline(always)]
    fn push_str(&mut self, s: &str) {
        self.put(s.as_bytes());
    }
    #[inline(always)]
    fn push_ascii(&mut self, bytes: &[u8]) {
        self.put(bytes);
    }
    #[inline(always)]
    fn push_utf8(&mut self, bytes: &[u8]) {
        self.put(bytes);
    }
    #[inline(always)]
    fn push_byte(&mut self, b: u8) {
        self.put_byte(b);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.put(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    #[inline(always)]
    fn push_padded(&mut self, s: &str, padded: &[u8; 16]) {
        self.put_padded(padded, s.len());
    }
    fn since(&self, start: usize) -> &[u8] {
        Appender::since(self, start)
    }
    fn len(&self) -> usize {
        self.vec.len()
    }
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) {
        // Rare (doubles, escapes, dates out of ISO range): through a string.
        self.put(fmt::format(args).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_grow_patch_and_read_back_as_a_vec_would() {
        let mut vec = b"ab".to_vec();
        vec.shrink_to_fit();
        let mut expected = vec.clone();
        {
            let mut out = Appender::new(&mut vec);
            // Past the capacity at once, then piece by piece.
            out.put(&[b'x'; 100]);
            expected.extend_from_slice(&[b'x'; 100]);
            for i in 0..5000u32 {
                out.put_byte(b'0' + (i % 10) as u8);
                expected.push(b'0' + (i % 10) as u8);
                let mut padded = [b'.'; 16];
                padded[..3].copy_from_slice(b"key");
                out.put_padded(&padded, 3);
                expected.extend_from_slice(b"key");
            }
            out.patch(2, *b"YZ");
            expected[2..4].copy_from_slice(b"YZ");
            assert_eq!(out.len(), expected.len());
            assert_eq!(out.since(102), &expected[102..]);
            assert_eq!(out.since(usize::MAX), b"");
            write!(out, "{}", 1.5);
            expected.extend_from_slice(b"1.5");
        }
        assert_eq!(vec, expected);
    }

    #[test]
    #[should_panic(expected = "patching unwritten bytes")]
    fn patching_past_the_end_panics_rather_than_write_there() {
        let mut vec = Vec::with_capacity(64);
        let mut out = Appender::new(&mut vec);
        out.put(b"abc");
        out.patch(2, [0; 4]);
    }
}
