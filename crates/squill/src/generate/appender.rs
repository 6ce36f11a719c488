//! Appending to a byte buffer with its end and capacity held in locals.
//!
//! The flat loop (`flat.rs`) appends some thirty small pieces per document:
//! field names, `{"$oid":"…"}`, a date, words, lengths. Through `Vec`'s own
//! methods, every piece reloaded the vector's pointer, length and capacity
//! from memory (a byte written through the pointer might, for all the
//! compiler knows, have changed them) and stored the length back: about a
//! fifth of `generate data`'s instructions went to `Vec`'s bookkeeping
//! (callgrind, BENCHMARKS.md "generate"). An `Appender` keeps them in
//! locals, which the compiler keeps in registers once the loop is inlined,
//! and gives the vector its new length once, when dropped.
//!
//! Invariant (what the `unsafe` blocks rely on): `ptr` and `cap` are the
//! vector's buffer and capacity, `at <= cap`, and the bytes before `at` are
//! initialised: those before the vector's length were, and every byte from
//! there to `at` was written by `put`. Only `grow` changes the buffer, and it
//! gives the vector its length first.

// The one module of the data path with `unsafe`: see the invariant above.
#![allow(unsafe_code)]

use super::json_text::JsonOut;
use std::fmt;

pub struct Appender<'v> {
    vec: &'v mut Vec<u8>,
    ptr: *mut u8,
    at: usize,
    cap: usize,
}

impl<'v> Appender<'v> {
    pub fn new(vec: &'v mut Vec<u8>) -> Self {
        Appender {
            ptr: vec.as_mut_ptr(),
            at: vec.len(),
            cap: vec.capacity(),
            vec,
        }
    }

    /// Appends `bytes`.
    #[inline(always)]
    pub fn put(&mut self, bytes: &[u8]) {
        if bytes.len() > self.cap - self.at {
            self.grow(bytes.len());
        }
        // SAFETY: `grow` left room for `bytes` after `at` (`at + len <=
        // cap`), in a buffer that `bytes`, borrowed from elsewhere, is not.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(self.at), bytes.len());
        }
        self.at += bytes.len();
    }

    /// Appends the first `len` bytes of `padded` as one fixed-size copy of
    /// all 16 (the bytes past `len` are written over by what comes next, or
    /// left past the end).
    #[inline(always)]
    pub fn put_padded(&mut self, padded: &[u8; 16], len: usize) {
        debug_assert!(len <= 16);
        self.put(padded);
        self.at -= 16 - len.min(16);
    }

    #[inline(always)]
    pub fn put_byte(&mut self, b: u8) {
        self.put(&[b]);
    }

    /// Where the next byte goes (the vector's length, once dropped).
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.at
    }

    /// Writes `bytes` over the bytes written at `start`, which must all be
    /// written already.
    #[inline(always)]
    pub fn patch<const N: usize>(&mut self, start: usize, bytes: [u8; N]) {
        assert!(
            start <= self.at && N <= self.at - start,
            "patching unwritten bytes"
        );
        // SAFETY: `start + N <= at <= cap`, checked above.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(start), N) }
    }

    /// The bytes written since `start` (clamped to what is written).
    pub fn since(&self, start: usize) -> &[u8] {
        let start = start.min(self.at);
        // SAFETY: the bytes before `at` are initialised, in a buffer that
        // `&self` keeps from changing while the slice lives.
        unsafe { std::slice::from_raw_parts(self.ptr.add(start), self.at - start) }
    }

    /// Makes room for `more` bytes after `at`: the vector takes its length,
    /// grows as a `Vec` does, and the locals follow its new buffer.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, more: usize) {
        // SAFETY: the bytes before `at` are initialised, and `at <= cap`.
        unsafe { self.vec.set_len(self.at) };
        self.vec.reserve(more);
        self.ptr = self.vec.as_mut_ptr();
        self.cap = self.vec.capacity();
    }
}

impl Drop for Appender<'_> {
    fn drop(&mut self) {
        // SAFETY: the bytes before `at` are initialised, and `at <= cap`.
        unsafe { self.vec.set_len(self.at) };
    }
}

/// Where BSON bytes go: a `Vec` (the `Value` tree's writers, the walk's
/// encoder) or an `Appender` (the flat loop).
pub trait ByteOut {
    fn put(&mut self, bytes: &[u8]);
    fn put_byte(&mut self, b: u8);
    /// Appends the first `len` bytes of `padded`.
    fn put_padded(&mut self, padded: &[u8; 16], len: usize);
}

impl ByteOut for Vec<u8> {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline(always)]
    fn put_byte(&mut self, b: u8) {
        self.push(b);
    }
    #[inline(always)]
    fn put_padded(&mut self, padded: &[u8; 16], len: usize) {
        // One fixed-size copy, then cut to length.
        let end = self.len() + len;
        self.extend_from_slice(padded);
        self.truncate(end);
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
        self.at
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
