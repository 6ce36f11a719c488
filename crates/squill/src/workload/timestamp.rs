//! Log timestamps as milliseconds since the Unix epoch (UTC): ISO-8601 with an
//! offset (`2014-04-09T23:16:20.596-0400`, `2023-09-23T16:25:03.588-04:00`,
//! `…Z`) and the ctime form of mongod 2.4 and older (`Wed Mar  5 17:14:57.407`),
//! which has no year: it is placed in a leap year (so 29 February reads) and
//! the report says the year is unknown.

/// The year ctime timestamps are placed in.
pub(super) const CTIME_YEAR: i64 = 2000;

/// An ISO-8601 timestamp at the start of `text`; the offset just past it.
pub(super) fn parse_iso(text: &str) -> Option<(i64, usize)> {
    crate::inputs::ejson::date::parse_iso_prefix(text)
}

/// A ctime timestamp (`Wed Mar  5 17:14:57.407`) at the start of `text`,
/// placed in `CTIME_YEAR`; the offset just past it.
pub(super) fn parse_ctime(text: &str) -> Option<(i64, usize)> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let mut words = Words { text, pos: 0 };
    if !DAYS.contains(&words.next()?) {
        return None;
    }
    let month_name = words.next()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as i64 + 1;
    let day: i64 = words.next()?.parse().ok()?;
    let time = words.next()?;
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut parts = hms.split(':').map(|p| p.parse::<i64>().ok());
    let (hour, minute, second) = (parts.next()??, parts.next()??, parts.next()??);
    let millis = frac
        .get(..frac.len().min(3))
        .and_then(|f| f.parse::<i64>().ok())
        .map_or(0, |f| f * 10i64.pow(3 - frac.len().min(3) as u32));
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = crate::inputs::ejson::date::days_from_civil(CTIME_YEAR, month, day);
    Some((
        ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis,
        words.pos,
    ))
}

/// Whitespace-separated words with the offset after the last one read.
struct Words<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Words<'a> {
    fn next(&mut self) -> Option<&'a str> {
        let rest = self.text.get(self.pos..)?;
        let start = self.pos + (rest.len() - rest.trim_start().len());
        let word_len = self
            .text
            .get(start..)?
            .find(char::is_whitespace)
            .unwrap_or(self.text.len() - start);
        self.pos = start + word_len;
        self.text.get(start..self.pos).filter(|w| !w.is_empty())
    }
}

/// Milliseconds since the epoch as `2014-04-09T23:16:20.596Z`.
pub(super) fn iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_forms_agree_on_the_instant() {
        let a = parse_iso("2014-04-09T23:16:20.596-0400 [x]").unwrap();
        let b = parse_iso("2014-04-10T03:16:20.596Z").unwrap();
        let c = parse_iso("2014-04-09T23:16:20.596-04:00").unwrap();
        assert_eq!(a.0, b.0);
        assert_eq!(a.0, c.0);
        assert_eq!(a.1, 28);
        assert_eq!(iso(a.0), "2014-04-10T03:16:20.596Z");
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn ctime_has_no_year() {
        let (ms, end) = parse_ctime("Wed Mar  5 17:14:57.407 [conn4] query").unwrap();
        assert_eq!(iso(ms), "2000-03-05T17:14:57.407Z");
        assert_eq!(end, 23);
        assert_eq!(
            parse_ctime("Mon Aug  5 20:21:43 [conn2]").map(|t| iso(t.0)),
            Some("2000-08-05T20:21:43.000Z".into())
        );
    }

    #[test]
    fn rejects_what_is_not_a_time() {
        for text in [
            "",
            "2014-04-0 [conn48] buil",
            "2014-13-09T23:16:20",
            "****",
            "Wed Foo 5 1:2:3",
            "Wed Mar  5 17:14",
            "Wed Mar 5 é:1:1",
        ] {
            assert!(
                parse_iso(text).is_none() && parse_ctime(text).is_none(),
                "{text}"
            );
        }
    }
}
