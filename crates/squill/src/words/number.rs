//! The one number formatter: every figure a person reads (text, Markdown,
//! reasons, explanations) goes through here, so a rate reads the same in every
//! place (`13/s`), whatever output shows it. JSON carries the raw numbers.

/// `1200.0` → `"1,200"`, `12.6` → `"13"`, `2.5` → `"2.5"`, `0.25` → `"0.25"`,
/// `0.0001` → `"0.0001"`. Whole numbers and everything from 10 up get
/// separators and no decimals; one decimal from 1 to 10, two significant
/// digits below 1 (trailing zeros dropped).
/// An infinite value reads "unbounded"; NaN, which no figure should be,
/// reads "unknown" rather than a made-up number.
pub fn num(value: f64) -> String {
    if value.is_nan() {
        return "unknown".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 {
            "unbounded"
        } else {
            "-unbounded"
        }
        .to_string();
    }
    let negative = value < 0.0;
    let v = value.abs();
    let text = if (v - v.round()).abs() < 1e-9 || v >= 10.0 {
        // A whole number below 2^53 prints as the integer it is, without
        // the float formatter's slow exact path (a report formats thousands).
        let whole = v.round();
        if whole < 9.0e15 {
            group(&(whole as u64).to_string())
        } else {
            group(&format!("{whole:.0}"))
        }
    } else if v >= 1.0 {
        trim_zeros(format!("{v:.1}"))
    } else {
        // Two significant digits below 1, so a rare rate (0.0001/s) does
        // not read as none at all.
        let decimals = (1 - v.log10().floor() as i32).clamp(2, 12) as usize;
        trim_zeros(format!("{v:.decimals$}"))
    };
    if negative && text != "0" {
        format!("-{text}")
    } else {
        text
    }
}

/// An integer with separators: `16,777,216`.
/// A share as a percentage: `0.00995` → `"1.0%"`, `0.25` → `"25%"`.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 || p == p.round() {
        format!("{}%", num(p))
    } else {
        format!("{p:.1}%")
    }
}

pub fn int(value: u64) -> String {
    group(&value.to_string())
}

/// A per-second rate: `1,200/s`.
pub fn rate(value: f64) -> String {
    format!("{}/s", num(value))
}

/// Bytes in binary units: `412 B`, `4.2 KiB`, `16.0 MiB`; "unbounded" when
/// infinite.
pub fn bytes(value: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if !value.is_finite() {
        return num(value);
    }
    let v = value.abs();
    // A difference that rounds to nothing has no sign: never "-0 B".
    let sign = if value < 0.0 && !rounds_to_nothing(value) {
        "-"
    } else {
        ""
    };
    if v < 1024.0 {
        return format!("{sign}{} B", num(v));
    }
    let mut scaled = v / 1024.0;
    let mut unit = 0;
    while scaled >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    format!("{sign}{scaled:.1} {}", UNITS[unit])
}

/// The figure reads "0" as `num` writes it (a float's noise, a
/// difference of 1e-13): a sentence then says "the same", and a signed
/// delta leaves it out, never "-0" or "0 more".
pub fn rounds_to_nothing(value: f64) -> bool {
    value.is_finite() && num(value.abs()) == "0"
}

fn group(digits: &str) -> String {
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

/// A relationship's maximum as a sentence says it: "at most 5", or "an
/// unbounded number of" (`None`).
pub fn at_most(max: Option<f64>) -> String {
    match max {
        Some(n) => format!("at most {}", num(n)),
        None => "an unbounded number of".to_string(),
    }
}

/// A count as a sentence says it: "5,000", or "an unbounded number of" (`None`).
pub fn how_many(n: Option<f64>) -> String {
    n.map_or_else(|| "an unbounded number of".to_string(), num)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_a_person_wrote_them() {
        assert_eq!(num(1200.0), "1,200");
        assert_eq!(num(1_234_567.0), "1,234,567");
        assert_eq!(num(999.0), "999");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.25), "0.25");
        assert_eq!(num(0.05), "0.05");
        assert_eq!(num(0.0001), "0.0001");
        assert_eq!(num(0.000_123_45), "0.00012");
        assert_eq!(num(-0.002), "-0.002");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(12.6), "13");
        assert_eq!(num(12.5), "13");
        assert_eq!(num(40.0), "40");
        assert_eq!(num(-300.0), "-300");
        assert_eq!(num(f64::INFINITY), "unbounded");
        assert_eq!(num(f64::NAN), "unknown");
        assert_eq!(int(16_777_216), "16,777,216");
    }

    /// Audit48 C3: a difference of a float's noise reads as nothing, with
    /// no sign, in numbers and in bytes.
    #[test]
    fn noise_has_no_sign() {
        assert!(rounds_to_nothing(-1e-13));
        assert!(rounds_to_nothing(0.0));
        assert!(!rounds_to_nothing(0.0001));
        assert_eq!(num(-1e-13), "0");
        assert_eq!(bytes(-1e-13), "0 B");
        assert_eq!(bytes(-2.0), "-2 B");
    }

    /// The same rate reads the same as a number and as a rate.
    #[test]
    fn a_rate_is_its_number_per_second() {
        for v in [0.2, 0.7, 12.5, 40.0, 1200.0] {
            assert_eq!(rate(v), format!("{}/s", num(v)));
        }
        assert_eq!(rate(1200.0), "1,200/s");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(412.0), "412 B");
        assert_eq!(bytes(4300.0), "4.2 KiB");
        assert_eq!(bytes(16.0 * 1024.0 * 1024.0), "16.0 MiB");
        assert_eq!(bytes(-2048.0), "-2.0 KiB");
        assert_eq!(bytes(f64::INFINITY), "unbounded");
    }
}
