//! A number's value as the server compares it: MongoDB matches `3`, `3L`,
//! `3.0` and `NumberDecimal("3")` to each other in `find`, `$lookup` and
//! indexes, so a reference kept as a double still points at an int `_id`.
//! Only integral values can be keys; a fraction or a value past `i64` is none.

use super::Scalar;

impl Scalar<'_> {
    /// The integer this number equals, for ints, longs, integral doubles and
    /// integral decimals; `None` for anything else.
    pub fn integral_value(&self) -> Option<i64> {
        match *self {
            Scalar::Int32(i) => Some(i64::from(i)),
            Scalar::Int64(i) => Some(i),
            Scalar::Double(d) => integral_double(d),
            Scalar::Decimal128(b) => integral_decimal(b),
            _ => None,
        }
    }
}

/// `d` as an `i64` when it has no fraction and fits (2^63 itself does not).
pub fn integral_double(d: f64) -> Option<i64> {
    // -2^63 is exact in f64; 2^63 is the first value past i64::MAX.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    (d.is_finite() && d.fract() == 0.0 && (-LIMIT..LIMIT).contains(&d)).then_some(d as i64)
}

/// A Decimal128 (BID encoding) as an `i64` when it is an integer that fits:
/// `30E-1` is 3, `3.5` is none.
pub fn integral_decimal(bytes: &[u8; 16]) -> Option<i64> {
    let lo = u64::from_le_bytes(bytes[..8].try_into().ok()?);
    let hi = u64::from_le_bytes(bytes[8..].try_into().ok()?);
    let negative = hi >> 63 == 1;
    let combination = (hi >> 58) & 0x1F;
    if combination >= 0x1E {
        return None; // NaN or infinity
    }
    let (mut exp, significand) = crate::inputs::ejson::decimal::finite_parts(hi, lo);
    let mut value = significand;
    while exp < 0 {
        if value % 10 != 0 {
            return None;
        }
        value /= 10;
        exp += 1;
    }
    while exp > 0 && value != 0 {
        value = value
            .checked_mul(10)
            .filter(|v| *v <= u128::from(u64::MAX))?;
        exp -= 1;
    }
    let value = i128::try_from(value).ok()?;
    i64::try_from(if negative { -value } else { value }).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::ejson::decimal::parse;

    #[test]
    fn integral_numbers_of_every_type_have_one_value() {
        assert_eq!(Scalar::Int32(3).integral_value(), Some(3));
        assert_eq!(Scalar::Int64(3).integral_value(), Some(3));
        assert_eq!(Scalar::Double(3.0).integral_value(), Some(3));
        assert_eq!(Scalar::Double(-0.0).integral_value(), Some(0));
        assert_eq!(Scalar::Double(3.5).integral_value(), None);
        assert_eq!(Scalar::Double(f64::NAN).integral_value(), None);
        assert_eq!(Scalar::Double(1e19).integral_value(), None);
        for (text, want) in [
            ("3", Some(3)),
            ("30E-1", Some(3)),
            ("3.0", Some(3)),
            ("-12E+2", Some(-1200)),
            ("3.5", None),
            ("0", Some(0)),
            ("NaN", None),
            ("1E+30", None),
        ] {
            let bytes = parse(text).unwrap();
            assert_eq!(Scalar::Decimal128(&bytes).integral_value(), want, "{text}");
        }
    }
}
