//! The streaming tokenizer: JSON text in, BSON bytes out.

use super::bson_framing::{finish_len, push_index_key};
use super::wrapper::{self, J};
use super::{EjsonError, Options};
use crate::inputs::bson::MAX_DEPTH;
use std::borrow::Cow;

/// Transcodes the JSON object at the start of `input` (after optional
/// whitespace) into one BSON document appended to `out`. Returns the index
/// just past the object's closing brace.
pub fn transcode_document(
    input: &[u8],
    out: &mut Vec<u8>,
    options: Options,
) -> Result<usize, EjsonError> {
    let mut p = Parser {
        s: input,
        i: 0,
        options,
    };
    p.ws();
    if p.peek()? != b'{' {
        return Err(p.err(p.i, "expected `{` to start a document"));
    }
    let start = out.len();
    if let Err(e) = p.document(out, 0) {
        out.truncate(start);
        return Err(e);
    }
    Ok(p.i)
}

pub(super) struct Parser<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    pub(super) options: Options,
}

pub(super) type R<T> = Result<T, EjsonError>;

impl<'a> Parser<'a> {
    pub(super) fn err(&self, at: usize, message: impl Into<String>) -> EjsonError {
        EjsonError {
            offset: at,
            message: message.into(),
            incomplete: false,
        }
    }

    fn eof(&self) -> EjsonError {
        EjsonError {
            offset: self.s.len(),
            message: "unexpected end of input".into(),
            incomplete: true,
        }
    }

    #[inline]
    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    pub(super) fn peek(&self) -> R<u8> {
        self.s.get(self.i).copied().ok_or_else(|| self.eof())
    }

    fn expect(&mut self, c: u8, what: &str) -> R<()> {
        if self.peek()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(self.i, format!("expected {what}")))
        }
    }

    fn check_depth(&self, depth: u32) -> R<()> {
        if depth >= MAX_DEPTH {
            return Err(self.err(self.i, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    /// `{ "k": v, … }` at `self.i` → a BSON document.
    pub(super) fn document(&mut self, out: &mut Vec<u8>, depth: u32) -> R<()> {
        self.check_depth(depth)?;
        let open = self.i;
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        self.i += 1;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
        } else {
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return Err(self.err(self.i, "expected a key in quotes"));
                }
                let type_at = out.len();
                out.push(0);
                self.key(out)?;
                self.ws();
                self.expect(b':', "`:` after a key")?;
                self.ws();
                out[type_at] = self.value(out, depth + 1)?;
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b'}' => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.err(self.i, "expected `,` or `}` in an object")),
                }
            }
        }
        out.push(0);
        finish_len(out, start).map_err(|m| self.err(open, m))
    }

    fn array(&mut self, out: &mut Vec<u8>, depth: u32) -> R<()> {
        self.check_depth(depth)?;
        let open = self.i;
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        self.i += 1;
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
        } else {
            let mut index = 0u32;
            loop {
                self.ws();
                let type_at = out.len();
                out.push(0);
                push_index_key(out, index);
                out[type_at] = self.value(out, depth + 1)?;
                index += 1;
                self.ws();
                match self.peek()? {
                    b',' => self.i += 1,
                    b']' => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.err(self.i, "expected `,` or `]` in an array")),
                }
            }
        }
        out.push(0);
        finish_len(out, start).map_err(|m| self.err(open, m))
    }

    /// A key as a BSON cstring (no NUL allowed inside).
    fn key(&mut self, out: &mut Vec<u8>) -> R<()> {
        let at = self.i;
        let from = out.len();
        self.string_into(out)?;
        if memchr::memchr(0, &out[from..]).is_some() {
            return Err(self.err(at, "a key contains a NUL character"));
        }
        out.push(0);
        Ok(())
    }

    /// A value; returns its BSON type byte.
    fn value(&mut self, out: &mut Vec<u8>, depth: u32) -> R<u8> {
        match self.peek()? {
            b'"' => {
                let start = out.len();
                out.extend_from_slice(&[0; 4]);
                self.string_into(out)?;
                out.push(0);
                let n = (out.len() - start - 4) as i32;
                out[start..start + 4].copy_from_slice(&n.to_le_bytes());
                Ok(0x02)
            }
            b'{' => self.object_value(out, depth),
            b'[' => {
                self.array(out, depth)?;
                Ok(0x04)
            }
            b't' => {
                self.literal(b"true")?;
                out.push(1);
                Ok(0x08)
            }
            b'f' => {
                self.literal(b"false")?;
                out.push(0);
                Ok(0x08)
            }
            b'n' => {
                self.literal(b"null")?;
                Ok(0x0A)
            }
            b'-' | b'0'..=b'9' => {
                let at = self.i;
                let text = self.number_text()?;
                wrapper::emit_number(text, out).map_err(|m| self.err(at, m))
            }
            _ => Err(self.err(self.i, "expected a JSON value")),
        }
    }

    fn literal(&mut self, word: &[u8]) -> R<()> {
        let end = self.i + word.len();
        match self.s.get(self.i..end) {
            Some(w) if w == word => {
                self.i = end;
                Ok(())
            }
            Some(_) => Err(self.err(self.i, "expected a JSON value")),
            None if word.starts_with(&self.s[self.i..]) => Err(self.eof()),
            None => Err(self.err(self.i, "expected a JSON value")),
        }
    }

    /// An object value: a plain document, or an Extended JSON type wrapper
    /// when its first key starts with `$`.
    fn object_value(&mut self, out: &mut Vec<u8>, depth: u32) -> R<u8> {
        let open = self.i;
        self.i += 1;
        self.ws();
        let dollar = self.peek()? == b'"' && self.s.get(self.i + 1) == Some(&b'$');
        self.i = open;
        if !dollar {
            self.document(out, depth)?;
            return Ok(0x03);
        }
        // Fast path: `{"$oid": "…"}` and the other one-string wrappers.
        self.i += 1;
        self.ws();
        let key = self.string_cow()?;
        self.ws();
        self.expect(b':', "`:` after a key")?;
        self.ws();
        if self.peek()? == b'"' {
            let value_at = self.i;
            let value = self.string_cow()?;
            self.ws();
            if self.peek()? == b'}' {
                self.i += 1;
                let done = wrapper::single_string(&key, &value, self.options, out)
                    .map_err(|m| self.err(value_at, m))?;
                if let Some(t) = done {
                    return Ok(t);
                }
            }
        }
        // Slow path: collect the object, then decide.
        self.i = open;
        let j = self.j_value(depth)?;
        wrapper::emit(&j, out, self.options, depth).map_err(|(at, m)| self.err(at, m))
    }

    /// Any value as a small tree (only used under `$` objects).
    pub(super) fn j_value(&mut self, depth: u32) -> R<J<'a>> {
        let at = self.i;
        Ok(match self.peek()? {
            b'"' => J::Str(self.string_cow()?),
            b'{' => {
                self.check_depth(depth)?;
                self.i += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if self.peek()? != b'"' {
                            return Err(self.err(self.i, "expected a key in quotes"));
                        }
                        let key_at = self.i;
                        let key = self.string_cow()?;
                        if key.contains('\0') {
                            return Err(self.err(key_at, "a key contains a NUL character"));
                        }
                        self.ws();
                        self.expect(b':', "`:` after a key")?;
                        self.ws();
                        entries.push((key, self.j_value(depth + 1)?));
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.err(self.i, "expected `,` or `}` in an object")),
                        }
                    }
                }
                J::Obj(at, entries)
            }
            b'[' => {
                self.check_depth(depth)?;
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.j_value(depth + 1)?);
                        self.ws();
                        match self.peek()? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return Err(self.err(self.i, "expected `,` or `]` in an array")),
                        }
                    }
                }
                J::Arr(at, items)
            }
            b't' => {
                self.literal(b"true")?;
                J::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                J::Bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                J::Null
            }
            b'-' | b'0'..=b'9' => J::Num(at, self.number_text()?),
            _ => return Err(self.err(self.i, "expected a JSON value")),
        })
    }

    /// A JSON number's text, checked against the JSON grammar.
    fn number_text(&mut self) -> R<&'a str> {
        let s = self.s;
        let start = self.i;
        let mut i = start;
        let digits = |i: &mut usize| -> usize {
            let from = *i;
            while s.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_at = i;
        let n = digits(&mut i);
        if n == 0 {
            return Err(if i >= s.len() {
                self.eof()
            } else {
                self.err(i, "invalid number")
            });
        }
        if n > 1 && s[int_at] == b'0' {
            return Err(self.err(int_at, "invalid number (leading zero)"));
        }
        if s.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return Err(if i >= s.len() {
                    self.eof()
                } else {
                    self.err(i, "invalid number")
                });
            }
        }
        if let Some(b'e' | b'E') = s.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = s.get(i) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return Err(if i >= s.len() {
                    self.eof()
                } else {
                    self.err(i, "invalid number")
                });
            }
        }
        if i >= s.len() {
            // The number may go on in input not read yet.
            return Err(self.eof());
        }
        self.i = i;
        // The grammar above admits ASCII only.
        Ok(std::str::from_utf8(&s[start..i]).unwrap_or("0"))
    }

    /// A string at `self.i` (on its opening quote), unescaped, borrowed when it has no escapes.
    pub(super) fn string_cow(&mut self) -> R<Cow<'a, str>> {
        let at = self.i;
        let body = at + 1;
        if let Some(q) = memchr::memchr2(b'"', b'\\', &self.s[body..])
            && self.s[body + q] == b'"'
        {
            let raw = &self.s[body..body + q];
            let text = check_raw(raw).map_err(|(off, m)| self.err(body + off, m))?;
            self.i = body + q + 1;
            return Ok(Cow::Borrowed(text));
        }
        let mut buf = Vec::new();
        self.string_into(&mut buf)?;
        String::from_utf8(buf)
            .map(Cow::Owned)
            .map_err(|_| self.err(at, "invalid UTF-8 in a string"))
    }

    /// Unescapes the string at `self.i` (on its opening quote) into `out`.
    fn string_into(&mut self, out: &mut Vec<u8>) -> R<()> {
        self.i += 1;
        loop {
            let Some(q) = memchr::memchr2(b'"', b'\\', &self.s[self.i..]) else {
                return Err(self.eof());
            };
            let raw = &self.s[self.i..self.i + q];
            check_raw(raw).map_err(|(off, m)| self.err(self.i + off, m))?;
            out.extend_from_slice(raw);
            self.i += q;
            if self.s[self.i] == b'"' {
                self.i += 1;
                return Ok(());
            }
            self.escape(out)?;
        }
    }

    /// One escape sequence at `self.i` (on the backslash).
    fn escape(&mut self, out: &mut Vec<u8>) -> R<()> {
        let at = self.i;
        let Some(&c) = self.s.get(self.i + 1) else {
            return Err(self.eof());
        };
        self.i += 2;
        let simple = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let first = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&first) {
                    if self.s.get(self.i) != Some(&b'\\') || self.s.get(self.i + 1) != Some(&b'u') {
                        if self.i + 1 >= self.s.len() {
                            return Err(self.eof());
                        }
                        return Err(self.err(at, "unpaired surrogate in a \\u escape"));
                    }
                    self.i += 2;
                    let second = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&second) {
                        return Err(self.err(at, "unpaired surrogate in a \\u escape"));
                    }
                    0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                } else if (0xDC00..0xE000).contains(&first) {
                    return Err(self.err(at, "unpaired surrogate in a \\u escape"));
                } else {
                    first
                };
                let ch = char::from_u32(code).ok_or_else(|| self.err(at, "invalid \\u escape"))?;
                let mut tmp = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                return Ok(());
            }
            _ => return Err(self.err(at, "invalid escape in a string")),
        };
        out.push(simple);
        Ok(())
    }

    fn hex4(&mut self) -> R<u32> {
        let Some(h) = self.s.get(self.i..self.i + 4) else {
            return Err(self.eof());
        };
        let mut v = 0u32;
        for &b in h {
            let d = (b as char)
                .to_digit(16)
                .ok_or_else(|| self.err(self.i, "invalid \\u escape"))?;
            v = v * 16 + d;
        }
        self.i += 4;
        Ok(v)
    }
}

/// Raw string bytes between escapes: valid UTF-8 and no control characters.
fn check_raw(raw: &[u8]) -> Result<&str, (usize, &'static str)> {
    if let Some(p) = raw.iter().position(|&b| b < 0x20) {
        return Err((p, "control character in a string (must be escaped)"));
    }
    std::str::from_utf8(raw).map_err(|e| (e.valid_up_to(), "invalid UTF-8 in a string"))
}
