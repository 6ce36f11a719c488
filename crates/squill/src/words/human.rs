//! Numbers for people: thousands separators, binary byte units, rates. Every
//! reporter formats through here so the same figure reads the same everywhere.

/// `1200.0` → `"1,200"`, `2.5` → `"2.5"`, `0.25` → `"0.25"`. Whole numbers get
/// separators; fractions keep two significant decimals below 10, none above.
pub fn count(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let negative = value < 0.0;
    let v = value.abs();
    let text = if (v - v.round()).abs() < 1e-9 || v >= 10.0 {
        group(format!("{:.0}", v.round()))
    } else if v >= 1.0 {
        trim_zeros(format!("{v:.1}"))
    } else {
        trim_zeros(format!("{v:.2}"))
    };
    if negative && text != "0" {
        format!("-{text}")
    } else {
        text
    }
}

/// An integer with separators.
pub fn int(value: u64) -> String {
    group(value.to_string())
}

/// Bytes in binary units: `412 B`, `4.2 KiB`, `16.0 MiB`.
pub fn bytes(value: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if !value.is_finite() {
        return format!("{value} B");
    }
    let v = value.abs();
    let sign = if value < 0.0 { "-" } else { "" };
    if v < 1024.0 {
        return format!("{sign}{} B", count(v));
    }
    let mut scaled = v / 1024.0;
    let mut unit = 0;
    while scaled >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    format!("{sign}{scaled:.1} {}", UNITS[unit])
}

/// A per-second rate: `1,200/s`.
pub fn rate(value: f64) -> String {
    format!("{}/s", count(value))
}

/// `1 round trip`, `2 round trips`: the noun agrees with the number.
pub fn plural(value: f64, one: &str, many: &str) -> String {
    let noun = if (value - 1.0).abs() < 1e-9 {
        one
    } else {
        many
    };
    format!("{} {noun}", count(value))
}

fn group(digits: String) -> String {
    let bytes = digits.as_bytes();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 && (bytes.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(char::from(*b));
    }
    out
}

fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_like_a_person_wrote_them() {
        assert_eq!(count(1200.0), "1,200");
        assert_eq!(count(1_234_567.0), "1,234,567");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(2.5), "2.5");
        assert_eq!(count(2.0), "2");
        assert_eq!(count(0.25), "0.25");
        assert_eq!(count(0.0), "0");
        assert_eq!(count(12.6), "13");
        assert_eq!(count(-300.0), "-300");
        assert_eq!(int(16_777_216), "16,777,216");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(412.0), "412 B");
        assert_eq!(bytes(4300.0), "4.2 KiB");
        assert_eq!(bytes(16.0 * 1024.0 * 1024.0), "16.0 MiB");
        assert_eq!(bytes(-2048.0), "-2.0 KiB");
    }

    #[test]
    fn rates_and_plurals() {
        assert_eq!(rate(1200.0), "1,200/s");
        assert_eq!(plural(1.0, "round trip", "round trips"), "1 round trip");
        assert_eq!(plural(2.0, "round trip", "round trips"), "2 round trips");
    }
}
