//! Cuts a stream of concatenated BSON documents into documents without
//! trusting the lengths: a length out of range, a missing terminator or a
//! stream that ends inside a document is reported with its byte offset, then
//! reading resynchronizes on the next plausible document (one that validates
//! and is followed by another plausible length or the end), or stops.

use crate::inputs::bson::{MAX_DOCUMENT_BYTES, walk};
use std::io::{self, Read};

/// What the framer found.
pub(crate) enum Frame<'a> {
    /// A document (its bytes pass the length and terminator checks; the
    /// content is validated by whoever walks it).
    Document { offset: u64, bytes: &'a [u8] },
    /// A framing problem at `offset`; `resumed_at` is where the next document
    /// starts, `None` when no later document was found (the rest is skipped).
    Damage {
        offset: u64,
        message: String,
        resumed_at: Option<u64>,
        /// The stream ends inside the document (a cut file), rather than
        /// bytes that are no document.
        cut_short: bool,
    },
}

/// Buffered reader over concatenated documents. Offsets are `base` plus the
/// bytes consumed from `reader`.
pub(crate) struct Framer<R> {
    reader: R,
    buf: Vec<u8>,
    /// Start of unconsumed bytes in `buf`.
    pos: usize,
    /// End of filled bytes in `buf`.
    end: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    eof: bool,
    /// A read error that came after some bytes, reported once those are used.
    pending: Option<io::Error>,
}

const CHUNK: usize = 1 << 17;

impl<R: Read> Framer<R> {
    pub(crate) fn new(reader: R, base: u64) -> Self {
        Framer {
            reader,
            buf: Vec::with_capacity(1 << 16),
            pos: 0,
            end: 0,
            base,
            eof: false,
            pending: None,
        }
    }

    /// The stream offset of the next unconsumed byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn available(&self) -> usize {
        self.end - self.pos
    }

    /// Makes at least `need` unconsumed bytes available; `Ok(false)` at the end.
    #[inline]
    fn fill(&mut self, need: usize) -> io::Result<bool> {
        if self.available() >= need {
            return Ok(true);
        }
        self.refill(need)
    }

    /// Reads a chunk at a time with `read_to_end`, so the buffer is never
    /// zeroed first (a damaged length may ask for up to 16 MiB).
    #[cold]
    fn refill(&mut self, need: usize) -> io::Result<bool> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        while self.available() < need && !self.eof {
            let want = (need - self.available()).max(CHUNK);
            let before = self.buf.len();
            let result = (&mut self.reader)
                .take(want as u64)
                .read_to_end(&mut self.buf);
            self.end = self.buf.len();
            match result {
                Ok(n) if n < want => self.eof = true,
                Ok(_) => {}
                // Deliver what arrived before the error; report it when more is needed.
                Err(e) if self.end > before => {
                    self.pending = Some(e);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(self.available() >= need)
    }

    fn len_at(&self, at: usize) -> i32 {
        let b = &self.buf[at..at + 4];
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// The next document or problem; `Ok(None)` at the clean end of the stream.
    /// An I/O error (a gzip stream that ends early, a read error) is returned
    /// as `Err`: the caller reports it and stops.
    pub(crate) fn next_frame(&mut self) -> io::Result<Option<Frame<'_>>> {
        if !self.fill(4)? {
            if self.available() == 0 {
                return Ok(None);
            }
            let offset = self.offset();
            let n = self.available();
            self.pos = self.end;
            return Ok(Some(Frame::Damage {
                offset,
                message: format!("stream ends inside a document ({n} trailing bytes)"),
                resumed_at: None,
                cut_short: true,
            }));
        }
        let offset = self.offset();
        let declared = self.len_at(self.pos);
        let mut cut_short = false;
        let problem = if declared < 5 {
            Some(format!(
                "document length {declared} is below the 5-byte minimum"
            ))
        } else if declared as usize > MAX_DOCUMENT_BYTES {
            Some(format!(
                "document length {declared} is over the 16 MiB limit"
            ))
        } else if !self.fill(declared as usize)? {
            cut_short = true;
            Some(format!(
                "stream ends inside a document (declared {declared} bytes, {} remain)",
                self.available()
            ))
        } else if self.buf[self.pos + declared as usize - 1] != 0 {
            Some(format!(
                "document of declared length {declared} is not terminated by a NUL byte"
            ))
        } else {
            None
        };
        match problem {
            None => {
                let start = self.pos;
                self.pos += declared as usize;
                Ok(Some(Frame::Document {
                    offset,
                    bytes: &self.buf[start..self.pos],
                }))
            }
            Some(message) => {
                self.pos += 1;
                let resumed_at = self.resync()?;
                Ok(Some(Frame::Damage {
                    offset,
                    message,
                    resumed_at,
                    cut_short,
                }))
            }
        }
    }

    /// Skips bytes until a plausible document starts; returns its offset, or
    /// `None` after consuming the rest of the stream.
    fn resync(&mut self) -> io::Result<Option<u64>> {
        loop {
            if !self.fill(4)? {
                self.pos = self.end;
                return Ok(None);
            }
            if self.plausible_at_pos()? {
                return Ok(Some(self.offset()));
            }
            self.pos += 1;
        }
    }

    /// Whether a valid document starts at `pos` and is followed by the end of
    /// the stream or by another plausible length.
    fn plausible_at_pos(&mut self) -> io::Result<bool> {
        let len = self.len_at(self.pos);
        if len < 5 || len as usize > MAX_DOCUMENT_BYTES {
            return Ok(false);
        }
        let len = len as usize;
        // Cheap checks first: the type byte of the first element, then the terminator.
        if !self.fill(5)? {
            return Ok(false);
        }
        let first = self.buf[self.pos + 4];
        if len == 5 {
            if first != 0 {
                return Ok(false);
            }
        } else if crate::inputs::bson::ElementType::from_byte(first).is_none() {
            return Ok(false);
        }
        if !self.fill(len)? || self.buf[self.pos + len - 1] != 0 {
            return Ok(false);
        }
        if walk(&self.buf[self.pos..self.pos + len], &mut NoVisit).is_err() {
            return Ok(false);
        }
        if !self.fill(len + 4)? {
            // Valid and the stream ends here (or within 3 bytes).
            return Ok(true);
        }
        let next = self.len_at(self.pos + len);
        Ok(next >= 5 && next as usize <= MAX_DOCUMENT_BYTES)
    }

    /// Consumes the next `n` bytes; `None` if the stream ends first.
    pub(crate) fn take_exact(&mut self, n: usize) -> io::Result<Option<Vec<u8>>> {
        if !self.fill(n)? {
            return Ok(None);
        }
        let bytes = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        Ok(Some(bytes))
    }

    /// Consumes an archive block terminator (four 0xFF bytes) if one is next.
    pub(crate) fn take_terminator(&mut self) -> io::Result<bool> {
        if self.fill(4)? && self.buf[self.pos..self.pos + 4] == [0xFF; 4] {
            self.pos += 4;
            return Ok(true);
        }
        Ok(false)
    }
}

struct NoVisit;

impl crate::inputs::bson::Visitor for NoVisit {
    fn enter(&mut self, _: &str, _: crate::inputs::bson::Container, _: u32, _: u32) {}
    fn leave(&mut self, _: crate::inputs::bson::Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: crate::inputs::bson::Scalar<'_>, _: u32, _: u32) {}
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `{"i": n}` as BSON (12 bytes).
    pub(crate) fn doc(n: i32) -> Vec<u8> {
        let mut d = vec![12, 0, 0, 0, 0x10, b'i', 0];
        d.extend_from_slice(&n.to_le_bytes());
        d.push(0);
        d
    }

    fn frames(bytes: &[u8]) -> Vec<String> {
        let mut f = Framer::new(bytes, 0);
        let mut out = Vec::new();
        while let Some(frame) = f.next_frame().unwrap() {
            out.push(match frame {
                Frame::Document { offset, bytes } => format!("doc@{offset} {}", bytes[7]),
                Frame::Damage {
                    offset,
                    message,
                    resumed_at,
                    ..
                } => format!("damage@{offset} {message} -> {resumed_at:?}"),
            });
        }
        out
    }

    #[test]
    fn frames_clean_stream() {
        let s = [doc(1), doc(2), doc(3)].concat();
        assert_eq!(frames(&s), ["doc@0 1", "doc@12 2", "doc@24 3"]);
        assert!(frames(&[]).is_empty());
    }

    #[test]
    fn resynchronizes_after_a_lying_length() {
        let mut s = [doc(1), doc(2), doc(3), doc(4)].concat();
        s[12] = 40; // doc 2 claims 40 bytes: its "terminator" lands inside doc 4
        let f = frames(&s);
        assert_eq!(f[0], "doc@0 1");
        assert!(f[1].starts_with("damage@12 "), "{f:?}");
        assert_eq!(f[2..], ["doc@24 3", "doc@36 4"], "{f:?}");
    }

    #[test]
    fn reports_truncation_at_the_end() {
        let s = [doc(1), doc(2)].concat();
        let f = frames(&s[..20]);
        assert_eq!(f[0], "doc@0 1");
        assert!(
            f[1].contains("damage@12 stream ends inside a document"),
            "{f:?}"
        );
        let f = frames(&s[..14]);
        assert!(f[1].contains("2 trailing bytes"), "{f:?}");
    }

    #[test]
    fn rejects_documents_over_16_mib() {
        let mut s = doc(1);
        s[..4].copy_from_slice(&(17 * 1024 * 1024i32).to_le_bytes());
        s.extend(doc(2));
        let f = frames(&s);
        assert!(f[0].contains("over the 16 MiB limit"), "{f:?}");
        assert_eq!(f[1], "doc@12 2");
    }
}
