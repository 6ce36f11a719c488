//! Extended JSON text for the pieces squill writes: strings with their
//! escapes, doubles, decimals, ISO dates, ObjectId hex. Generic over where the
//! text goes (`JsonOut`): the data encoder's bytes, or a `String` for the
//! `Value` tree's writers.

use super::byte_out::ByteOut;
use std::cell::Cell;
use std::fmt;

/// Where Extended JSON text goes: the data encoder's byte buffer, or a
/// `String` (the `Value` tree's writers, examples, tests). The leaf writers
/// are generic over it so that, into bytes, the pieces that are ASCII by
/// construction (dates, hex, digits, punctuation) are appended without the
/// ASCII test a `String` needs, and small fixed pieces are fixed-size copies.
pub trait JsonOut {
    fn push_str(&mut self, s: &str);
    /// Appends bytes that are ASCII by construction.
    fn push_ascii(&mut self, bytes: &[u8]);
    /// Appends bytes that are UTF-8 by construction.
    fn push_utf8(&mut self, bytes: &[u8]);
    /// Appends one ASCII byte.
    fn push_byte(&mut self, b: u8);
    fn push_char(&mut self, c: char);
    /// Appends `s`, whose copy `padded` (16 bytes or fewer) holds.
    fn push_padded(&mut self, s: &str, padded: &[u8; 16]);
    /// The bytes written since `start`.
    fn since(&self, start: usize) -> &[u8];
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// What `write!` calls; writing to memory cannot fail.
    fn write_fmt(&mut self, args: fmt::Arguments<'_>);
}

impl JsonOut for String {
    #[inline]
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
    #[inline]
    fn push_ascii(&mut self, bytes: &[u8]) {
        String::push_str(self, std::str::from_utf8(bytes).unwrap_or_default());
    }
    #[inline]
    fn push_utf8(&mut self, bytes: &[u8]) {
        debug_assert!(std::str::from_utf8(bytes).is_ok(), "UTF-8 by construction");
        String::push_str(self, &String::from_utf8_lossy(bytes));
    }
    #[inline]
    fn push_byte(&mut self, b: u8) {
        self.push(char::from(b));
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.push(c);
    }
    #[inline]
    fn push_padded(&mut self, s: &str, _: &[u8; 16]) {
        String::push_str(self, s);
    }
    fn since(&self, start: usize) -> &[u8] {
        &self.as_bytes()[start..]
    }
    fn len(&self) -> usize {
        String::len(self)
    }
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) {
        let _ = fmt::Write::write_fmt(self, args);
    }
}

impl JsonOut for Vec<u8> {
    #[inline]
    fn push_str(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
    #[inline]
    fn push_ascii(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn push_utf8(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn push_byte(&mut self, b: u8) {
        self.push(b);
    }
    #[inline]
    fn push_char(&mut self, c: char) {
        self.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    #[inline]
    fn push_padded(&mut self, s: &str, padded: &[u8; 16]) {
        ByteOut::put_padded(self, padded, s.len());
    }
    fn since(&self, start: usize) -> &[u8] {
        &self[start..]
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) {
        let _ = std::io::Write::write_fmt(self, args);
    }
}

/// The decimal's text, e.g. `12.34`, `-0.5`, `300`.
pub fn decimal_text(coefficient: i64, exponent: i32) -> String {
    let mut s = String::new();
    write_decimal(&mut s, coefficient, exponent);
    s
}

/// Appends the decimal's text (see `decimal_text`) without allocating.
pub(super) fn write_decimal<O: JsonOut>(s: &mut O, coefficient: i64, exponent: i32) {
    let neg = coefficient < 0;
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(coefficient.unsigned_abs()).as_bytes();
    if neg {
        s.push_byte(b'-');
    }
    if exponent >= 0 {
        s.push_ascii(digits);
        for _ in 0..exponent {
            s.push_byte(b'0');
        }
    } else {
        let scale = exponent.unsigned_abs() as usize;
        if digits.len() > scale {
            let (a, b) = digits.split_at(digits.len() - scale);
            s.push_ascii(a);
            s.push_byte(b'.');
            s.push_ascii(b);
        } else {
            s.push_ascii(b"0.");
            for _ in digits.len()..scale {
                s.push_byte(b'0');
            }
            s.push_ascii(digits);
        }
    }
}

pub fn object_id_hex(id: &[u8; 12]) -> String {
    crate::text_codec::hex(id)
}

/// A double that a relaxed reader reads back as a double: always with a point
/// or an exponent; non-finite values as `$numberDouble`.
pub(super) fn write_double<O: JsonOut>(out: &mut O, f: f64) {
    if !f.is_finite() {
        let text = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        };
        write!(out, "{{\"$numberDouble\":\"{text}\"}}");
        return;
    }
    if let Some(cents) = whole_cents(f) {
        write_cents(out, cents);
        return;
    }
    let start = out.len();
    write!(out, "{f:?}");
    if !out
        .since(start)
        .iter()
        .any(|b| matches!(b, b'.' | b'e' | b'E'))
    {
        out.push_ascii(b".0");
    }
}

/// Below this, distinct multiples of 0.01 are more than an ulp apart.
pub(super) const CENTS_LIMIT: f64 = 1e13;

/// `f` as a whole number of cents, when it is exactly the double nearest
/// one (what the generator's prices, ratings and ids are) and small enough
/// that the shortest text that reads back as `f` is that number of cents
/// written out: no other decimal with as few digits lies within half an ulp.
/// `-0.0` is left to the general path.
pub(super) fn whole_cents(f: f64) -> Option<i64> {
    if f.abs() >= CENTS_LIMIT {
        return None;
    }
    let cents = (f * 100.0).round() as i64;
    ((cents as f64 / 100.0).to_bits() == f.to_bits()).then_some(cents)
}

/// `cents / 100` as `{f:?}` writes it: `12.5`, `-0.07`, `3.0`.
pub(super) fn write_cents<O: JsonOut>(out: &mut O, cents: i64) {
    if cents < 0 {
        out.push_byte(b'-');
    }
    let c = cents.unsigned_abs();
    out.push_ascii(itoa::Buffer::new().format(c / 100).as_bytes());
    let frac = (c % 100) as u8;
    let (tens, ones) = (b'0' + frac / 10, b'0' + frac % 10);
    if ones == b'0' {
        out.push_ascii(&[b'.', tens]);
    } else {
        out.push_ascii(&[b'.', tens, ones]);
    }
}

pub fn write_json_string<O: JsonOut>(out: &mut O, s: &str) {
    out.push_byte(b'"');
    // Most generated text needs no escape: copy it whole.
    if !needs_escape(s.as_bytes()) {
        out.push_str(s);
        out.push_byte(b'"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_ascii(b"\\\""),
            '\\' => out.push_ascii(b"\\\\"),
            '\n' => out.push_ascii(b"\\n"),
            '\r' => out.push_ascii(b"\\r"),
            '\t' => out.push_ascii(b"\\t"),
            c if (c as u32) < 0x20 => {
                write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push_char(c),
        }
    }
    out.push_byte(b'"');
}

/// Whether JSON needs an escape in `bytes` (a quote, a backslash or a control
/// character), eight bytes at a time: the test runs on every string written.
pub(super) fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero exactly where the high bit of the result is set
    // (the classic test; false positives only above a real zero byte).
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Bytes below 0x20, except that bytes at or above 0x80 are masked out.
        let control = x.wrapping_sub(0x20 * ONES) & !x & HIGHS;
        if control | zero(x ^ (u64::from(b'"') * ONES)) | zero(x ^ (u64::from(b'\\') * ONES)) != 0 {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| b == b'"' || b == b'\\' || b < 0x20)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for years 1970–9999 (relaxed Extended JSON's
/// range), else `None`.
pub fn iso_date(ms: i64) -> Option<String> {
    if !iso_range(ms) {
        return None;
    }
    let mut buf = *b"0000-00-00T00:00:00.000Z";
    iso_date_into(&mut buf, ms);
    Some(String::from_utf8_lossy(&buf).into_owned())
}

pub(super) fn iso_range(ms: i64) -> bool {
    (0..253_402_300_800_000).contains(&ms)
}

/// Writes `ms` (within `iso_range`) as `YYYY-MM-DDTHH:MM:SS.mmmZ` over the
/// 24 bytes of `buf`, two digits at a time rather than through `format!`.
/// The `YYYY-MM-DD` of the last day written is kept per thread: consecutive
/// documents' dates mostly fall on one day.
pub(super) fn iso_date_into(buf: &mut [u8], ms: i64) {
    thread_local! {
        static LAST_DAY: Cell<(i64, [u8; 10])> = const { Cell::new((i64::MIN, [0; 10])) };
    }
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000) as usize;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400) as usize;
    let ymd = LAST_DAY.with(|last| match last.get() {
        (day, text) if day == days => text,
        _ => {
            let text = ymd_text(days);
            last.set((days, text));
            text
        }
    });
    buf[..10].copy_from_slice(&ymd);
    put2(&mut buf[11..13], rem / 3600);
    put2(&mut buf[14..16], (rem / 60) % 60);
    put2(&mut buf[17..19], rem % 60);
    buf[20] = b'0' + (millis / 100) as u8;
    put2(&mut buf[21..23], millis % 100);
}

/// `YYYY-MM-DD` of a day since 1970-01-01 (years 1970–9999).
pub(super) fn ymd_text(days: i64) -> [u8; 10] {
    let (y, m, d) = civil_from_days(days);
    let y = y as usize;
    let mut text = *b"0000-00-00";
    put2(&mut text[0..2], y / 100);
    put2(&mut text[2..4], y % 100);
    put2(&mut text[5..7], m as usize);
    put2(&mut text[8..10], d as usize);
    text
}

/// `00` to `99`, two bytes each.
pub(super) static PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// Writes `n` (below 100) as two digits over the first two bytes of `dst`.
pub(super) fn put2(dst: &mut [u8], n: usize) {
    dst[..2].copy_from_slice(&PAIRS[2 * n..2 * n + 2]);
}

/// Days since 1970-01-01 → (year, month, day), after Howard Hinnant's
/// `civil_from_days`.
pub(super) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_wise_escape_test_agrees_with_the_byte_wise_one() {
        let naive = |b: &[u8]| b.iter().any(|&c| c == b'"' || c == b'\\' || c < 0x20);
        for len in 0..20 {
            for pos in 0..len {
                for byte in 0..=255u8 {
                    let mut s = vec![b'a'; len];
                    s[pos] = byte;
                    assert_eq!(needs_escape(&s), naive(&s), "{s:?}");
                }
            }
        }
        assert!(!needs_escape("välj ümlaut 日本語 plain text!".as_bytes()));
    }

    /// The shortcut for whole cents writes what `{f:?}` writes.
    #[test]
    fn doubles_in_cents_read_like_debug() {
        let mut rng = crate::synthetic::population::Rng::new(&[3]);
        let mut xs: Vec<f64> = vec![0.0, -0.0, 0.01, -0.01, 0.1, 1.0, 3.5, 12.34, 1e12, 9.99e12];
        xs.extend([1e13, 1e16, 1e-5, 0.125, f64::MIN_POSITIVE, 123_456_789.01]);
        for _ in 0..100_000 {
            let x = rng.unit() * 10f64.powi(rng.below(15) as i32 - 2);
            xs.push((x * 100.0).round() / 100.0);
            xs.push(-x.round());
            xs.push(x);
        }
        for x in xs {
            let mut out = String::new();
            write_double(&mut out, x);
            let mut want = format!("{x:?}");
            if !want.contains(['.', 'e', 'E']) {
                want.push_str(".0");
            }
            assert_eq!(out, want);
        }
    }

    #[test]
    fn dates_and_decimals_render() {
        assert_eq!(
            iso_date(1_700_000_000_123).unwrap(),
            "2023-11-14T22:13:20.123Z"
        );
        assert_eq!(decimal_text(5, -3), "0.005");
        assert_eq!(decimal_text(-120, 1), "-1200");
        assert_eq!(iso_date(-1), None);
    }
}
