//! English for people, made at the edge: numbers with separators and units,
//! plurals and articles of a model's names, suggestions for misspelt names.
//! The lowest layer: everything that writes a sentence calls here, nothing here
//! knows a stage of the pipeline.

pub mod human;
mod suggest;

pub use suggest::edit_distance;

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

/// Bytes in the binary units every reporter uses (`human`).
pub fn bytes(b: f64) -> String {
    if !b.is_finite() {
        return "unbounded".to_string();
    }
    human::bytes(b)
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

/// The singular of a plural entity name (`users` → `user`, `categories` →
/// `category`); other words unchanged.
pub fn singular(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    if !lower.ends_with('s') || lower.ends_with("ss") {
        return word.to_string();
    }
    let n = word.len();
    if lower.ends_with("ies") {
        format!("{}y", &word[..n - 3])
    } else if ["sses", "xes", "ches", "shes"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        word[..n - 2].to_string()
    } else {
        word[..n - 1].to_string()
    }
}

/// Mends reasons written with entity names in fixed slots, word by word:
/// "{name}s" becomes the name's plural ("addresss" → "addresses", "categorys"
/// → "categories", "userss" → "users"); a plural name where one instance is
/// meant becomes singular ("a regions" → "a region", "each items" → "each
/// item", "the users's id" → "the user's id"), with "a" turned into "an"
/// before a, e, i, o ("a user", "an item").
pub fn mend_plurals(text: &str, names: &[&str]) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    // Tokens: runs of word characters and runs of the rest.
    let mut tokens: Vec<String> = Vec::new();
    for c in text.chars() {
        match tokens.last_mut() {
            Some(t) if t.chars().next().is_some_and(is_word) == is_word(c) => t.push(c),
            _ => tokens.push(c.to_string()),
        }
    }
    let one = ["a", "an", "each", "every", "per", "one"];
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    for i in 0..tokens.len() {
        let word = &tokens[i];
        if !word.chars().next().is_some_and(is_word) {
            out.push(word.clone());
            continue;
        }
        if let Some(stem) = word.strip_suffix('s')
            && names.contains(&stem)
        {
            out.push(plural(stem));
            continue;
        }
        let plural_name = names.contains(&word.as_str()) && singular(word) != *word;
        let before = (i >= 2 && tokens[i - 1] == " ").then(|| tokens[i - 2].to_ascii_lowercase());
        let article = before.as_deref().is_some_and(|w| one.contains(&w));
        let possessive = tokens.get(i + 1).is_some_and(|t| t == "'")
            && tokens.get(i + 2).is_some_and(|t| t == "s");
        if plural_name && (article || possessive) {
            let one_of = singular(word);
            if before.as_deref() == Some("a")
                && one_of.starts_with(['a', 'e', 'i', 'o'])
                && let Some(a) = out.get_mut(i - 2)
            {
                a.push('n');
            }
            out.push(one_of);
        } else {
            out.push(word.clone());
        }
    }
    out.concat()
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers() {
        assert_eq!(super::num(1200.0), "1,200");
        assert_eq!(super::num(0.5), "0.5");
        assert_eq!(super::num(12.34), "12.3");
        assert_eq!(super::num(3.0), "3");
        assert_eq!(super::bytes(16_777_216.0), "16.0 MiB");
        assert_eq!(super::count(1.0, "product"), "1 product");
        assert_eq!(super::plural("address"), "addresses");
        assert_eq!(super::plural("category"), "categories");
        assert_eq!(super::plural("views"), "views");
        assert_eq!(
            super::mend_plurals("a person has 5 addresss.", &["address"]),
            "a person has 5 addresses."
        );
        let names = ["users", "items", "regions", "categories"];
        assert_eq!(
            super::mend_plurals("a regions can have 400 userss", &names),
            "a region can have 400 users"
        );
        assert_eq!(
            super::mend_plurals("the users's id in each items; a items", &names),
            "the user's id in each item; an item"
        );
        assert_eq!(super::singular("categories"), "category");
        assert_eq!(super::singular("addresses"), "address");
        assert_eq!(super::singular("address"), "address");
    }
}
