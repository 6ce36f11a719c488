//! The one grammar helper: how a model's names read in a sentence. Names are
//! the user's (`address`, `users`, `clothing`), singular or plural; a sentence
//! asks for the form it needs — one, many, with an article, counted — instead
//! of writing `"{name}s"` and patching the result afterwards.

/// Mass nouns, and nouns used only in the plural ("electronics": one of
/// them is not "an electronic"): one form, no "a".
const UNCOUNTABLE: &[&str] = &[
    "clothing",
    "equipment",
    "information",
    "data",
    "metadata",
    "news",
    "software",
    "hardware",
    "feedback",
    "stock",
    "media",
    "series",
    "staff",
    "furniture",
    "luggage",
    "baggage",
    "music",
    "electronics",
    "goods",
    "clothes",
    "analytics",
    "logistics",
    "earnings",
    "savings",
    "belongings",
    "premises",
    "headquarters",
];

/// Words that start with a vowel letter but a consonant sound ("a user").
const CONSONANT_SOUND: &[&str] = &[
    "uni", "use", "usa", "usu", "uti", "ure", "eu", "one", "once",
];
/// Words that start with a consonant letter but a vowel sound ("an hour").
const VOWEL_SOUND: &[&str] = &["hour", "honest", "honor", "honour", "heir"];

fn last_word(phrase: &str) -> (&str, &str) {
    match phrase.rfind([' ', '_', '-']) {
        Some(at) => (&phrase[..=at], &phrase[at + 1..]),
        None => ("", phrase),
    }
}

fn uncountable(word: &str) -> bool {
    UNCOUNTABLE.contains(&word.to_ascii_lowercase().as_str())
}

/// The plural of a name or a phrase's last word: address → addresses,
/// category → categories, log → logs, round trip → round trips; names
/// already plural and mass nouns stay.
pub fn plural(name: &str) -> String {
    let (head, word) = last_word(name);
    let lower = word.to_ascii_lowercase();
    let tail = if uncountable(word) {
        word.to_string()
    } else if lower.ends_with("ss")
        || lower.ends_with('x')
        || lower.ends_with("ch")
        || lower.ends_with("sh")
        || lower.ends_with("zz")
    {
        format!("{word}es")
    } else if lower.ends_with('s') {
        word.to_string()
    } else if lower.ends_with('y')
        && !["ay", "ey", "iy", "oy", "uy"]
            .iter()
            .any(|e| lower.ends_with(e))
    {
        format!("{}ies", &word[..word.len() - 1])
    } else if lower == "person" {
        format!("{}eople", &word[..1])
    } else if lower == "child" {
        format!("{word}ren")
    } else {
        format!("{word}s")
    };
    format!("{head}{tail}")
}

/// The singular of a name or a phrase's last word: users → user, categories →
/// category, addresses → address; singular names stay.
pub fn singular(name: &str) -> String {
    let (head, word) = last_word(name);
    let lower = word.to_ascii_lowercase();
    let n = word.len();
    let tail = if lower == "people" {
        format!("{}erson", &word[..1])
    } else if lower == "children" {
        word[..n - 3].to_string()
    } else if !lower.ends_with('s')
        // A one-letter name ("s") is not a plural of nothing.
        || n == 1
        || lower.ends_with("ss")
        || lower.ends_with("us")
        || lower.ends_with("is")
        || uncountable(word)
    {
        word.to_string()
    } else if lower.ends_with("ies") && n > 4 {
        format!("{}y", &word[..n - 3])
    } else if ["sses", "xes", "ches", "shes", "zzes"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        word[..n - 2].to_string()
    } else {
        word[..n - 1].to_string()
    };
    format!("{head}{tail}")
}

/// One of a name, with its article: "a user", "an account", "an hour",
/// "a unit"; a mass noun takes none ("clothing").
pub fn a(name: &str) -> String {
    let one = singular(name);
    if uncountable(last_word(&one).1) {
        return one;
    }
    format!("{} {one}", article(&one))
}

/// "a" or "an" before `word`, by its sound as far as spelling tells.
pub fn article(word: &str) -> &'static str {
    let lower = word.to_ascii_lowercase();
    if VOWEL_SOUND.iter().any(|p| lower.starts_with(p)) {
        return "an";
    }
    if CONSONANT_SOUND.iter().any(|p| lower.starts_with(p)) {
        return "a";
    }
    if lower.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A number and the name agreeing with it: "1 product", "300 products",
/// "0.5 documents", "2 round trips".
pub fn count(n: f64, name: &str) -> String {
    let figure = super::num(n);
    if figure == "1" {
        format!("1 {}", singular(name))
    } else {
        format!("{figure} {}", plural(name))
    }
}

/// The newest `k` of `name`, with the article: "the latest version" for
/// one, "the latest 20 versions" for more (not "the latest 1 versions").
pub fn latest(k: u64, name: &str) -> String {
    if k == 1 {
        format!("the latest {}", singular(name))
    } else {
        format!("the latest {} {}", super::int(k), plural(name))
    }
}

/// "is" for one, "are" for any other number: the verb agreeing with
/// `count` or `latest`.
pub fn is_are(n: u64) -> &'static str {
    if n == 1 { "is" } else { "are" }
}

/// How the two sides of a relationship are named in one sentence. A
/// self-relationship (employee → employee) would read "an employee has at most
/// 10 employees"; the sides then take the relationship's words: "a manager
/// employee" and "report employees" read better than the same name twice, so
/// they are named by role: `("parent employee", "child employee")` unless the
/// caller has roles of its own.
pub fn sides(parent: &str, child: &str) -> (String, String) {
    if singular(parent) == singular(child) {
        let one = singular(parent);
        (format!("parent {one}"), format!("child {one}"))
    } else {
        (singular(parent), singular(child))
    }
}

/// What a count of one parent's children calls them, when the
/// relationship's own name says it better than the child entity's plural:
/// a user's `followers` (each a `follow`), a folder's `subfolders`. The
/// name must be a plural noun of its own: not the child's plural
/// (`orders`), nor that plural with a qualifier (`store_orders`,
/// `customer_redemptions`), nor a word that is no plural (`following`,
/// `authored`, `sold`), which would not read as a count. `None`: the
/// child's plural is the word. A relationship named by what the parent
/// does (`hosts`, `contains`, `has_items`) would read "a venue can have
/// 2,000 hosts" for its shows: such a name, or one led by such a verb, is
/// no count word either. Nor is a name with a phrase after its noun
/// (`members_of_ws`, `items_in_cart`): "400,000 members_of_ws" reads as
/// an identifier; the child's plural reads as English.
pub fn items_named(relationship: &str, child: &str) -> Option<String> {
    let rel = relationship.to_ascii_lowercase();
    let own = plural(child).to_ascii_lowercase();
    let verb = |word: &str| RELATION_VERBS.contains(&word);
    let plain = rel == own
        || verb(&rel)
        || rel.split('_').next().is_some_and(verb)
        || singular(&rel) == rel
        || singular(&rel) == singular(child).to_ascii_lowercase()
        || rel.ends_with(&format!("_{own}"))
        || rel.starts_with(&format!("{own}_"))
        || rel.split('_').skip(1).any(|w| PREPOSITIONS.contains(&w));
    (!plain).then(|| relationship.to_string())
}

/// Words that start a phrase after a noun (`members_of_ws`): a name
/// with one is an identifier, not a count word.
const PREPOSITIONS: &[&str] = &[
    "of", "in", "for", "by", "per", "from", "to", "at", "on", "with", "into", "under",
];

/// Verbs that name a relationship by what its parent does to its
/// children, in the form a name takes (`venue hosts show`). Each also
/// reads as a plural noun, which is why a name alone cannot tell them
/// apart; the list holds the ones whose noun would name the parent's side
/// (a host, an owner), never the children.
const RELATION_VERBS: &[&str] = &[
    "has",
    "have",
    "hosts",
    "owns",
    "holds",
    "contains",
    "includes",
    "employs",
    "manages",
    "runs",
    "organizes",
    "organises",
    "publishes",
    "sells",
    "sends",
    "receives",
    "serves",
    "teaches",
    "attends",
    "creates",
    "makes",
    "places",
    "writes",
    "authors",
    "keeps",
    "supervises",
    "sponsors",
    "leads",
];

/// Seconds in the largest unit that divides them: `30 minutes`, `7 days`,
/// `0 seconds` (a TTL whose date is the moment of expiry).
pub fn duration_seconds(secs: u64) -> String {
    for (unit, n) in [("day", 86_400), ("hour", 3_600), ("minute", 60)] {
        if secs >= n && secs.is_multiple_of(n) {
            return count((secs / n) as f64, unit);
        }
    }
    count(secs as f64, "second")
}

/// A period back from now, in the largest unit that divides it: "the
/// last day", "the last 30 days", "the last 12 hours" (not "the last 1
/// days"). A period of no whole second is said in days.
pub fn last_period(days: f64) -> String {
    let secs = days * 86_400.0;
    let said = if secs >= 1.0 && (secs - secs.round()).abs() < 1e-6 {
        duration_seconds(secs.round() as u64)
    } else {
        count(days, "day")
    };
    match said.strip_prefix("1 ") {
        Some(unit) => format!("the last {unit}"),
        None => format!("the last {said}"),
    }
}

/// The children of one parent in a count: `items` (from `items_named`)
/// where the relationship names them, else the child's plural.
pub fn items(items: Option<&str>, child: &str) -> String {
    items.map_or_else(|| plural(child), str::to_string)
}

/// `read_orders_by_customer_id` from any text: ASCII letters and digits
/// lower-cased, every run of anything else one `_`, none at either end.
pub fn snake(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 41: "the latest version", not "the latest 1 versions".
    /// audit48 C2: "the last 1 days".
    #[test]
    fn a_period_of_one_unit_is_singular() {
        assert_eq!(last_period(1.0), "the last day");
        assert_eq!(last_period(30.0), "the last 30 days");
        assert_eq!(last_period(0.5), "the last 12 hours");
        assert_eq!(last_period(1.0 / 24.0), "the last hour");
    }

    #[test]
    fn the_latest_one_is_singular() {
        assert_eq!(latest(1, "version"), "the latest version");
        assert_eq!(latest(1, "versions"), "the latest version");
        assert_eq!(latest(20, "submission"), "the latest 20 submissions");
        assert_eq!(latest(1_000, "logmsg"), "the latest 1,000 logmsgs");
        assert_eq!((is_are(1), is_are(0), is_are(20)), ("is", "are", "are"));
    }

    #[test]
    fn plurals() {
        assert_eq!(plural("address"), "addresses");
        assert_eq!(plural("category"), "categories");
        assert_eq!(plural("day"), "days");
        assert_eq!(plural("views"), "views");
        assert_eq!(plural("clothing"), "clothing");
        assert_eq!(plural("round trip"), "round trips");
        assert_eq!(plural("index entry"), "index entries");
        assert_eq!(plural("order_line"), "order_lines");
        assert_eq!(plural("person"), "people");
        assert_eq!(plural("box"), "boxes");
    }

    /// A count names a parent's children by the relationship where its
    /// name is a plural of its own (issue 41: "at most 80,000,000 follows"
    /// for a user's `followers`), by the child's plural otherwise.
    #[test]
    fn items_take_the_relationship_name_where_it_names_them() {
        assert_eq!(
            items_named("followers", "follow").as_deref(),
            Some("followers")
        );
        assert_eq!(
            items_named("subfolders", "folder").as_deref(),
            Some("subfolders")
        );
        assert_eq!(
            items_named("stargazers", "star").as_deref(),
            Some("stargazers")
        );
        for (rel, child) in [
            ("following", "follow"),
            ("authored", "message"),
            ("sold", "line"),
            ("orders", "order"),
            ("store_orders", "order"),
            ("customer_redemptions", "redemption"),
            ("active_loans", "active_loan"),
            ("items_sold", "items"),
            ("address", "address"),
            ("hosts", "show"),
            ("contains", "item"),
            ("has_items", "item"),
            ("owns", "pet"),
            ("members_of_ws", "user"),
            ("items_in_cart", "line"),
        ] {
            assert_eq!(items_named(rel, child), None, "{rel} of {child}");
        }
        assert_eq!(items(None, "follow"), "follows");
        assert_eq!(items(Some("followers"), "follow"), "followers");
    }

    #[test]
    fn singulars() {
        assert_eq!(singular("users"), "user");
        assert_eq!(singular("categories"), "category");
        assert_eq!(singular("addresses"), "address");
        assert_eq!(singular("address"), "address");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("people"), "person");
        assert_eq!(singular("order_lines"), "order_line");
        // Plural-only nouns keep their one form (issue 41: "the electronic").
        assert_eq!(singular("electronics"), "electronics");
        assert_eq!(singular("sale_goods"), "sale_goods");
        assert_eq!(plural("electronics"), "electronics");
    }

    #[test]
    fn articles() {
        assert_eq!(a("account"), "an account");
        assert_eq!(a("employee"), "an employee");
        assert_eq!(a("user"), "a user");
        assert_eq!(a("users"), "a user");
        assert_eq!(a("items"), "an item");
        assert_eq!(a("hour"), "an hour");
        assert_eq!(a("unit"), "a unit");
        assert_eq!(a("order"), "an order");
        assert_eq!(a("clothing"), "clothing");
        assert_eq!(a("product"), "a product");
        assert_eq!(a("electronics"), "electronics");
    }

    #[test]
    fn counts_agree() {
        assert_eq!(count(1.0, "product"), "1 product");
        assert_eq!(count(1.0, "users"), "1 user");
        assert_eq!(count(300.0, "product"), "300 products");
        assert_eq!(count(0.5, "document"), "0.5 documents");
        assert_eq!(count(2.0, "round trip"), "2 round trips");
        assert_eq!(count(1.0, "round trip"), "1 round trip");
    }

    #[test]
    fn self_relationships_name_their_sides() {
        assert_eq!(
            sides("employee", "employee"),
            ("parent employee".to_string(), "child employee".to_string())
        );
        assert_eq!(
            sides("person", "addresses"),
            ("person".to_string(), "address".to_string())
        );
    }
}
