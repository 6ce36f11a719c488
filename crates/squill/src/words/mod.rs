//! English for people, made at the edge: numbers with separators and units,
//! plurals and articles of a model's names, suggestions for misspelt names.
//! The lowest layer: everything that writes a sentence calls here, nothing here
//! knows a stage of the pipeline.

mod grammar;
mod number;
mod suggest;

pub use grammar::{a, article, count, plural, sides, singular};
pub use number::{bytes, int, num, rate};
pub use suggest::edit_distance;

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
