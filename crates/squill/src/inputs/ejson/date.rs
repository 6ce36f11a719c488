//! ISO-8601 dates as mongoexport and relaxed Extended JSON write them:
//! `2012-12-24T12:15:30.501Z`, `2009-04-01T00:00:00.000-0700`, `…+07:00`.

/// Milliseconds since the Unix epoch.
pub(crate) fn parse_iso(s: &str) -> Option<i64> {
    let (ms, len) = parse_iso_prefix(s)?;
    (len == s.len()).then_some(ms)
}

/// An ISO-8601 timestamp at the start of `s` (a log line goes on after
/// it): milliseconds since the Unix epoch, and the bytes it takes.
pub(crate) fn parse_iso_prefix(s: &str) -> Option<(i64, usize)> {
    let b = s.as_bytes();
    // Digits folded by hand: a log's reader parses one time per line, and
    // `str::parse` (with its UTF-8 and sign checks) was 3 % of a JSON log's read.
    let digits = |part: &[u8]| -> Option<i64> {
        part.iter().try_fold(0i64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let num = |from: usize, len: usize| -> Option<i64> { digits(b.get(from..from + len)?) };
    let year = num(0, 4)?;
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't' | b' '))
    {
        return None;
    }
    let (month, day) = (num(5, 2)?, num(8, 2)?);
    let (hour, minute) = (num(11, 2)?, num(14, 2)?);
    if b.get(13) != Some(&b':') {
        return None;
    }
    let mut i = 16;
    let mut second = 0;
    if b.get(16) == Some(&b':') {
        second = num(17, 2)?;
        i = 19;
    }
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        // First three digits are milliseconds; more precision is dropped.
        let frac = b.get(start..i.min(start + 3))?;
        millis = digits(frac)? * 10i64.pow(3 - frac.len() as u32);
    }
    let offset_minutes = match b.get(i) {
        Some(b'Z' | b'z') => {
            i += 1;
            0
        }
        Some(&c @ (b'+' | b'-')) => {
            let h = num(i + 1, 2)?;
            // `+hh`, `+hhmm` or `+hh:mm`.
            let (m, len) = if b.get(i + 3) == Some(&b':') {
                (num(i + 4, 2)?, 6)
            } else {
                num(i + 3, 2).map_or((0, 3), |m| (m, 5))
            };
            i += len;
            let total = h * 60 + m;
            if c == b'-' { -total } else { total }
        }
        _ => 0,
    };
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some((seconds * 1000 + millis, i))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse_iso;

    #[test]
    fn parses_the_forms_exports_use() {
        assert_eq!(parse_iso("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_iso("2012-12-24T12:15:30.501Z"),
            Some(1_356_351_330_501)
        );
        assert_eq!(
            parse_iso("2009-04-01T00:00:00.000-0700"),
            Some(1_238_569_200_000)
        );
        assert_eq!(
            parse_iso("2009-04-01T00:00:00.000-07:00"),
            Some(1_238_569_200_000)
        );
        assert_eq!(parse_iso("1960-01-01T00:00:00Z"), Some(-315_619_200_000));
        assert_eq!(parse_iso("2012-13-24T12:15:30Z"), None);
        assert_eq!(parse_iso("yesterday"), None);
        // A whole value: nothing may follow.
        assert_eq!(parse_iso("2012-12-24T12:15:30Z x"), None);
        assert_eq!(parse_iso("2012-12-24T12:15:30+07:0"), None);
    }

    /// A log line's timestamp, with the line going on after it.
    #[test]
    fn a_prefix_says_how_far_it_read() {
        let line = "2014-04-09T23:16:20.596-0400 I COMMAND [conn1] …";
        assert_eq!(super::parse_iso_prefix(line), Some((1_397_099_780_596, 28)));
        assert_eq!(
            super::parse_iso_prefix("2023-09-23T16:25:03.588Z rest"),
            Some((1_695_486_303_588, 24))
        );
    }
}
