//! Where encoded bytes go, whoever encodes them: the BSON writers, the
//! Extended JSON writer and the flat loop's `Appender` all append through
//! this one trait, so each encoder is written once for every destination.

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
