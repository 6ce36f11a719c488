//! Decimal128 (IEEE 754-2008 BID encoding) to and from its Extended JSON
//! string, following the BSON Decimal128 specification: exact only, so a
//! string that would need rounding is rejected rather than rounded.

const BIAS: i64 = 6176;
const MAX_EXP: i64 = 6111;
const MIN_EXP: i64 = -6176;
const MAX_DIGITS: usize = 34;

/// Parses a decimal string into the 16 little-endian bytes of a Decimal128.
pub(crate) fn parse(s: &str) -> Result<[u8; 16], String> {
    let bad = || format!("`{s}` is not a Decimal128");
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Ok(encode_special(negative, 0x7800_0000_0000_0000));
    }
    if lower == "nan" {
        return Ok(encode_special(false, 0x7C00_0000_0000_0000));
    }
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut digits = String::new();
    let mut frac = 0i64;
    let mut seen_point = false;
    let mut any_digit = false;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => {
                any_digit = true;
                if !(digits.is_empty() && bytes[i] == b'0') {
                    digits.push(bytes[i] as char);
                }
                if seen_point {
                    frac += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            b'e' | b'E' => break,
            _ => return Err(bad()),
        }
        i += 1;
    }
    if !any_digit {
        return Err(bad());
    }
    let mut exp: i64 = 0;
    if i < bytes.len() {
        // Exponent: [eE][+-]?digits
        i += 1;
        let mut neg_exp = false;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            neg_exp = bytes[i] == b'-';
            i += 1;
        }
        if i == bytes.len() {
            return Err(bad());
        }
        for &b in &bytes[i..] {
            if !b.is_ascii_digit() {
                return Err(bad());
            }
            exp = exp.saturating_mul(10).saturating_add(i64::from(b - b'0'));
        }
        if neg_exp {
            exp = -exp;
        }
    }
    let mut exp = exp.saturating_sub(frac);
    if digits.is_empty() {
        digits.push('0');
    }
    let zero = digits == "0";
    let mut digits = digits.into_bytes();
    if zero {
        exp = exp.clamp(MIN_EXP, MAX_EXP);
    }
    while digits.len() > MAX_DIGITS {
        if digits.last() == Some(&b'0') {
            digits.pop();
            exp = exp.saturating_add(1);
        } else {
            return Err(format!(
                "`{s}` cannot be represented exactly as a Decimal128"
            ));
        }
    }
    while exp > MAX_EXP {
        if digits.len() < MAX_DIGITS {
            digits.push(b'0');
            exp -= 1;
        } else {
            return Err(format!("`{s}` overflows Decimal128"));
        }
    }
    while exp < MIN_EXP {
        if digits.len() > 1 && digits.last() == Some(&b'0') {
            digits.pop();
            exp += 1;
        } else {
            return Err(format!(
                "`{s}` cannot be represented exactly as a Decimal128"
            ));
        }
    }
    let mut significand: u128 = 0;
    for d in digits {
        significand = significand * 10 + u128::from(d - b'0');
    }
    let biased = (exp + BIAS) as u128;
    let hi_sig = (significand >> 64) as u64;
    let lo = significand as u64;
    let mut hi = ((biased as u64) << 49) | hi_sig;
    if negative {
        hi |= 1 << 63;
    }
    Ok(to_bytes(hi, lo))
}

fn encode_special(negative: bool, hi: u64) -> [u8; 16] {
    to_bytes(if negative { hi | 1 << 63 } else { hi }, 0)
}

fn to_bytes(hi: u64, lo: u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&lo.to_le_bytes());
    out[8..].copy_from_slice(&hi.to_le_bytes());
    out
}

/// The exponent and significand of a finite Decimal128 (its two halves,
/// little-endian), non-canonical significands read as zero as the
/// specification says.
pub(crate) fn finite_parts(hi: u64, lo: u64) -> (i64, u128) {
    let (biased, significand) = if (hi >> 61) & 3 == 3 {
        // The implicit "100" form: always above 10^34 - 1, so non-canonical zero.
        ((hi >> 47) & 0x3FFF, 0u128)
    } else {
        (
            (hi >> 49) & 0x3FFF,
            (u128::from(hi & 0x1_FFFF_FFFF_FFFF) << 64) | u128::from(lo),
        )
    };
    let significand = if significand >= 10u128.pow(34) {
        0
    } else {
        significand
    };
    (biased as i64 - BIAS, significand)
}

/// Formats a Decimal128 as the specification's canonical string.
pub fn format(bytes: &[u8; 16]) -> String {
    let lo = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
    let negative = hi >> 63 == 1;
    let sign = if negative { "-" } else { "" };
    let combination = (hi >> 58) & 0x1F;
    if combination == 0x1F {
        return "NaN".into();
    }
    if combination == 0x1E {
        return format!("{sign}Infinity");
    }
    let (exp, significand) = finite_parts(hi, lo);
    let digits = significand.to_string();
    let n = digits.len() as i64;
    let adjusted = exp + n - 1;
    let mut out = String::from(sign);
    if exp <= 0 && adjusted >= -6 {
        if exp == 0 {
            out.push_str(&digits);
        } else if n > -exp {
            let point = (n + exp) as usize;
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        } else {
            out.push_str("0.");
            for _ in 0..(-exp - n) {
                out.push('0');
            }
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('E');
        if adjusted >= 0 {
            out.push('+');
        }
        out.push_str(&adjusted.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_typical_values() {
        for s in [
            "0",
            "-0",
            "1.05E+3",
            "0.001234",
            "1E-6176",
            "-1.00E-8",
            "NaN",
            "-Infinity",
        ] {
            assert_eq!(format(&parse(s).unwrap()), s);
        }
        assert_eq!(format(&parse("1e3").unwrap()), "1E+3");
        assert!(parse("1.2.3").is_err());
        assert!(parse("1E-6177").is_err());
        assert!(parse(" 1").is_err());
    }
}
