//! mongoexport output: JSON documents one after another (any whitespace
//! between them, so JSON lines and pretty-printed exports alike), or one JSON
//! array. Each document is transcoded straight to BSON (`inputs::ejson`)
//! into a reused buffer. A malformed document is reported with line and
//! column and reading resumes at the next line.

use super::{Event, InputError, InputErrorKind as K, Position};
use crate::inputs::ejson::{self, Options};
use std::io::{self, Read};
use std::path::Path;

const CHUNK: usize = 1 << 20;
/// The largest JSON text of one document we buffer (BSON's limit is 16 MiB;
/// JSON text of the same data is larger).
const MAX_TEXT: usize = 64 << 20;

struct Text<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    eof: bool,
    /// A read error that came after some bytes, reported once those are used.
    pending: Option<io::Error>,
    /// Line number (1-based) at `pos`, and the stream offset where it starts.
    line: u64,
    line_start: u64,
}

impl<R: Read> Text<R> {
    /// Reads another chunk after the unconsumed bytes (moved to the front);
    /// `Ok(false)` when nothing more came.
    fn fill(&mut self) -> io::Result<bool> {
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
        let before = self.buf.len();
        let result = (&mut self.reader)
            .take(CHUNK as u64)
            .read_to_end(&mut self.buf);
        self.end = self.buf.len();
        let got = match result {
            Ok(n) => n,
            // Use what arrived before the error; report it when more is needed.
            Err(e) if self.end > before => {
                self.pending = Some(e);
                return Ok(true);
            }
            Err(e) => return Err(e),
        };
        if got < CHUNK {
            self.eof = true;
        }
        Ok(got > 0)
    }

    fn offset(&self, at: usize) -> u64 {
        self.base + at as u64
    }

    /// Moves `pos` to `to`, counting lines.
    fn advance(&mut self, to: usize) {
        let seg = &self.buf[self.pos..to];
        let newlines = memchr::memchr_iter(b'\n', seg).count();
        if newlines > 0 {
            self.line += newlines as u64;
            let last = memchr::memrchr(b'\n', seg).expect("a newline");
            self.line_start = self.offset(self.pos + last + 1);
        }
        self.pos = to;
    }

    /// Line and column (1-based, in bytes) of buffer index `at` (≥ `pos`).
    fn locate(&self, at: usize) -> Position {
        let seg = &self.buf[self.pos..at];
        let mut line = self.line;
        let mut start = self.line_start;
        let n = memchr::memchr_iter(b'\n', seg).count();
        if n > 0 {
            line += n as u64;
            start = self.offset(self.pos + memchr::memrchr(b'\n', seg).expect("a newline") + 1);
        }
        let offset = self.offset(at);
        Position {
            byte_offset: offset,
            line: Some(line),
            column: Some(offset - start + 1),
        }
    }

    /// Skips whitespace, refilling; returns the next byte or `None` at the end.
    fn next_non_ws(&mut self) -> io::Result<Option<u8>> {
        loop {
            let mut i = self.pos;
            while i < self.end && matches!(self.buf[i], b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            self.advance(i);
            if self.pos < self.end {
                return Ok(Some(self.buf[self.pos]));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Skips past the next newline (resynchronizing after an error).
    fn skip_line(&mut self) -> io::Result<bool> {
        loop {
            if let Some(nl) = memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                self.advance(self.pos + nl + 1);
                return Ok(true);
            }
            self.advance(self.end);
            if !self.fill()? {
                return Ok(false);
            }
        }
    }
}

/// Reads JSON documents (`array`: inside one top-level array) and reports
/// each as BSON. Returns the bytes of text consumed.
pub(crate) fn read_json(
    path: &Path,
    reader: impl Read,
    array: bool,
    collection: usize,
    on_event: &mut dyn FnMut(Event<'_>),
) -> u64 {
    let mut t = Text {
        reader,
        buf: Vec::with_capacity(1 << 16),
        pos: 0,
        end: 0,
        base: 0,
        eof: false,
        pending: None,
        line: 1,
        line_start: 0,
    };
    let mut out = Vec::with_capacity(1 << 16);
    let options = Options::default();
    let report = |on_event: &mut dyn FnMut(Event<'_>), position: Position, message: String| {
        on_event(Event::Error(InputError::new(
            path,
            Some(position),
            K::Json {
                message,
                resumed_at_line: None,
            },
        )));
    };
    let io_fail = |on_event: &mut dyn FnMut(Event<'_>), t: &Text<_>, e: io::Error| {
        on_event(Event::Error(InputError::io(
            path,
            Some(t.locate(t.pos)),
            &e,
        )));
    };
    macro_rules! next {
        () => {
            match t.next_non_ws() {
                Ok(b) => b,
                Err(e) => {
                    io_fail(on_event, &t, e);
                    return t.offset(t.pos);
                }
            }
        };
    }
    // A byte-order mark may open the file.
    if let Err(e) = t.fill() {
        io_fail(on_event, &t, e);
        return 0;
    }
    if t.buf[..t.end].starts_with(b"\xEF\xBB\xBF") {
        t.pos = 3;
    }
    let mut in_array = false;
    if array {
        match next!() {
            Some(b'[') => {
                t.advance(t.pos + 1);
                in_array = true;
            }
            _ => {
                let at = t.locate(t.pos);
                report(on_event, at, "expected `[` to start a JSON array".into());
                return t.offset(t.pos);
            }
        }
    }
    let mut first = true;
    loop {
        let Some(b) = next!() else {
            if in_array {
                let at = t.locate(t.pos);
                report(on_event, at, "the JSON array is not closed with `]`".into());
            }
            break;
        };
        if in_array {
            if b == b']' {
                t.advance(t.pos + 1);
                in_array = false;
                continue;
            }
            if !first && b == b',' {
                t.advance(t.pos + 1);
                if next!().is_none() {
                    continue;
                }
            }
        } else if array && !first {
            // Text after the closing bracket.
            let at = t.locate(t.pos);
            report(on_event, at, "unexpected text after the JSON array".into());
            break;
        }
        first = false;
        out.clear();
        match ejson::transcode_document(&t.buf[t.pos..t.end], &mut out, options) {
            Ok(n) => {
                let position = t.locate(t.pos);
                t.advance(t.pos + n);
                on_event(Event::Document {
                    collection,
                    bytes: &out,
                    position,
                });
            }
            Err(e) if e.incomplete && !t.eof => {
                if t.end - t.pos >= MAX_TEXT {
                    let at = t.locate(t.pos);
                    report(
                        on_event,
                        at,
                        format!("a document's JSON text exceeds {} MiB", MAX_TEXT >> 20),
                    );
                    match t.skip_line() {
                        Ok(true) => continue,
                        Ok(false) => break,
                        Err(err) => {
                            io_fail(on_event, &t, err);
                            break;
                        }
                    }
                }
                match t.fill() {
                    Ok(_) => {}
                    Err(err) => {
                        io_fail(on_event, &t, err);
                        break;
                    }
                }
            }
            Err(e) => {
                // A document cut short by the end is reported where it starts.
                let at = if e.incomplete {
                    t.locate(t.pos)
                } else {
                    t.locate((t.pos + e.offset).min(t.end))
                };
                // Resume on the next line: one document per line is the common layout.
                let resumed = match t.skip_line() {
                    Ok(more) => more && t.next_non_ws().ok().flatten().is_some(),
                    Err(err) => {
                        io_fail(on_event, &t, err);
                        false
                    }
                };
                let message = if e.incomplete {
                    "the input ends inside a document".to_string()
                } else {
                    e.message
                };
                on_event(Event::Error(InputError::new(
                    path,
                    Some(at),
                    K::Json {
                        message,
                        resumed_at_line: resumed.then_some(t.line),
                    },
                )));
                if !resumed {
                    break;
                }
            }
        }
    }
    t.offset(t.pos)
}
