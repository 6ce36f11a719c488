//! Numbers in words for reasons and explanations: "1,200 reads/s", "2.5 KB".

/// A count or rate with thousands separators and at most two decimals.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return "unbounded".to_string();
    }
    let neg = x < 0.0;
    let x = x.abs();
    let mut s = if (x - x.round()).abs() < 0.005 || x >= 100.0 {
        group(x.round() as u64)
    } else if x >= 10.0 {
        format!(
            "{}.{}",
            group(x.trunc() as u64),
            ((x.fract() * 10.0).round() as u64).min(9)
        )
    } else {
        let t = format!("{x:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if neg {
        s.insert(0, '-');
    }
    s
}

fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes with a unit: "310 B", "12.4 KB", "16 MiB" style (1 KB = 1,000 B).
pub fn bytes(b: f64) -> String {
    if !b.is_finite() {
        return "unbounded".to_string();
    }
    if b < 1_000.0 {
        format!("{} B", num(b.round()))
    } else if b < 1_000_000.0 {
        format!("{:.1} KB", b / 1_000.0)
    } else {
        format!("{:.1} MB", b / 1_000_000.0)
    }
}

/// "1 product" / "300 products".
pub fn count(n: f64, what: &str) -> String {
    if (n - 1.0).abs() < 1e-9 {
        format!("1 {what}")
    } else {
        format!("{} {}", num(n), plural(what))
    }
}

/// English plural of a model's entity name: address → addresses, category →
/// categories, log → logs; names already plural stay.
pub fn plural(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    if lower.ends_with("ss")
        || lower.ends_with('x')
        || lower.ends_with("ch")
        || lower.ends_with("sh")
    {
        format!("{word}es")
    } else if lower.ends_with('s') {
        word.to_string()
    } else if lower.ends_with('y')
        && !lower.ends_with("ay")
        && !lower.ends_with("ey")
        && !lower.ends_with("oy")
    {
        format!("{}ies", &word[..word.len() - 1])
    } else {
        format!("{word}s")
    }
}

/// Mends "{name}s" written after an entity name into its plural
/// ("addresss" → "addresses", "categorys" → "categories").
pub fn mend_plurals(text: &str, names: &[&str]) -> String {
    let mut out = text.to_string();
    let mut sorted: Vec<&str> = names.to_vec();
    sorted.sort_by_key(|n| std::cmp::Reverse(n.len()));
    for n in sorted {
        let wrong = format!("{n}s");
        let right = plural(n);
        if wrong == right || !out.contains(&wrong) {
            continue;
        }
        let mut fixed = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(&wrong) {
            let before_ok = at == 0
                || !rest[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let after = &rest[at + wrong.len()..];
            let after_ok = !after
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            fixed.push_str(&rest[..at]);
            fixed.push_str(if before_ok && after_ok {
                &right
            } else {
                &wrong
            });
            rest = after;
        }
        fixed.push_str(rest);
        out = fixed;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers() {
        assert_eq!(super::num(1200.0), "1,200");
        assert_eq!(super::num(0.5), "0.5");
        assert_eq!(super::num(12.34), "12.3");
        assert_eq!(super::num(3.0), "3");
        assert_eq!(super::bytes(16_777_216.0), "16.8 MB");
        assert_eq!(super::count(1.0, "product"), "1 product");
        assert_eq!(super::plural("address"), "addresses");
        assert_eq!(super::plural("category"), "categories");
        assert_eq!(super::plural("views"), "views");
        assert_eq!(
            super::mend_plurals("a person has 5 addresss.", &["address"]),
            "a person has 5 addresses."
        );
    }
}
