//! Deterministic, plausible example values: the same model always gives the
//! same example documents, with strings of the model's average sizes.

use crate::model::{Field, FieldType};
use serde_json::{Value, json};

fn hash(parts: &[&str], n: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= n;
    h.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// An ObjectId for instance `n` of `entity`, as relaxed Extended JSON.
pub(super) fn object_id(entity: &str, n: u64) -> Value {
    // 4-byte timestamp (2026-01-01 + n minutes) then 8 bytes derived from the name.
    let ts = 1_767_225_600u64 + n * 60;
    json!({ "$oid": format!("{:08x}{:016x}", ts as u32, hash(&[entity], n)) })
}

/// A date for instance `n`, as relaxed Extended JSON.
pub(super) fn date(n: u64) -> Value {
    let day = 1 + (n % 28);
    let hour = (n * 7) % 24;
    let minute = (n * 13) % 60;
    json!({ "$date": format!("2026-01-{day:02}T{hour:02}:{minute:02}:00Z") })
}

const FIRST: &[&str] = &[
    "Ada",
    "Grace",
    "Alan",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "John",
    "Katherine",
    "Linus",
];
const LAST: &[&str] = &[
    "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Johnson",
    "Torvalds",
];
const WORDS: &[&str] = &[
    "amber", "river", "stone", "quiet", "harbor", "maple", "signal", "copper", "meadow", "lantern",
    "orbit", "cedar", "velvet", "summit", "willow", "ember", "garnet", "prairie", "beacon",
    "falcon",
];
const COMPANY: &[&str] = &["Corp", "Ltd", "Works", "Industries", "GmbH", "& Sons"];
const COUNTRIES: &[&str] = &["USA", "PRT", "NOR", "JPN", "KEN", "FRA", "CAN", "BRA"];
const CITIES: &[&str] = &[
    "Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi", "Lyon", "Porto", "Quebec",
];

fn pick<'a>(list: &[&'a str], n: u64, salt: &str) -> &'a str {
    list[(hash(&[salt], n) % list.len() as u64) as usize]
}

fn fit(mut s: String, len: usize, n: u64, salt: &str) -> String {
    let mut i = 0;
    while s.len() < len {
        s.push(' ');
        s.push_str(pick(WORDS, n + i, salt));
        i += 1;
    }
    if s.len() > len {
        let mut cut = len;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        let cut_inside_word = s.as_bytes().get(cut).is_some_and(|b| *b != b' ');
        s.truncate(cut);
        // No cut word at the end, unless that leaves too little text.
        if cut_inside_word
            && let Some(sp) = s.rfind(' ')
            && sp >= len / 2
        {
            s.truncate(sp);
        }
        s = s.trim_end().to_string();
    }
    s
}

/// A string for field `name` of about `len` bytes. Values with a form of their
/// own (names, emails, codes, addresses) keep it whole, since a cut email reads
/// as a bug and sizes come from the model, not from the example; free text is
/// filled to the model's size.
pub(super) fn string(entity: &str, name: &str, len: usize, n: u64) -> String {
    let len = len.max(1);
    match structured(entity, name, n) {
        Some(value) => value,
        None => {
            let mut s = pick(WORDS, n, name).to_string();
            if let Some(c) = s.get_mut(0..1) {
                c.make_ascii_uppercase();
            }
            fit(s, len, n, name)
        }
    }
}

/// A value shaped by the field's name, or `None` for free text.
fn structured(entity: &str, name: &str, n: u64) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let first = pick(FIRST, n, entity);
    let last = pick(LAST, n, entity);
    let h = hash(&[entity, name], n);
    Some(if has(&["email"]) {
        format!(
            "{}.{}@example.com",
            first.to_lowercase(),
            last.to_lowercase()
        )
    } else if lower == "firstname" || lower == "first_name" {
        first.to_string()
    } else if lower == "lastname" || lower == "last_name" {
        last.to_string()
    } else if has(&["nick", "user", "login", "handle"]) {
        format!("{}{}", first.to_lowercase(), n % 100)
    } else if has(&["city", "town"]) {
        pick(CITIES, n, name).to_string()
    } else if lower == "cc" || has(&["country"]) {
        pick(COUNTRIES, n, name).to_string()
    } else if lower == "ip"
        || lower.starts_with("ipaddr")
        || lower.ends_with("_ip")
        || lower == "ip_address"
    {
        format!("10.{}.{}.{}", n % 250, (n * 7) % 250, (n * 13) % 250 + 1)
    } else if has(&["street", "address"]) {
        format!(
            "{} {} Street",
            1 + n % 300,
            capitalized(pick(WORDS, n, "street"))
        )
    } else if has(&["password", "hash", "token", "secret"]) {
        format!("{h:016x}{:016x}", hash(&[name], n))
    } else if has(&["ssn"]) {
        format!(
            "{:03}-{:02}-{:04}",
            h % 900 + 100,
            h / 1000 % 90 + 10,
            h / 100_000 % 9000 + 1000
        )
    } else if has(&["phone", "mobile"]) {
        format!("+1 555 {:03} {:04}", h % 1000, h / 1000 % 10_000)
    } else if has(&["partno", "sku", "code", "serial"]) {
        format!(
            "{:03}-{}-{:03}",
            h % 1000,
            &format!("{:x}", h >> 20)[..3],
            h / 1000 % 1000
        )
    } else if has(&["isbn"]) {
        format!("978{:010}", h % 10_000_000_000)
    } else if has(&["slug"]) {
        format!(
            "{}-{}-{n}",
            pick(WORDS, n, name),
            pick(WORDS, n + 1, entity)
        )
    } else if lower.ends_with("_id")
        || lower.ends_with("number")
        || lower.ends_with("_no")
        || lower.ends_with("_key")
    {
        // An identifier the application assigns (an invoice number, a
        // sensor's id): a code, not words.
        let prefix: String = lower
            .chars()
            .filter(char::is_ascii_alphabetic)
            .take(3)
            .collect::<String>()
            .to_ascii_uppercase();
        format!("{prefix}-{:06}", n + 1)
    } else if has(&["manufacturer", "company", "brand", "vendor", "publisher"]) {
        format!(
            "{} {}",
            capitalized(pick(WORDS, n, name)),
            pick(COMPANY, n, entity)
        )
    } else if has(&["url", "link", "website"]) {
        format!("https://example.com/{}/{}", entity, n)
    } else if lower == "name"
        && [
            "user", "person", "author", "customer", "owner", "member", "employee",
        ]
        .iter()
        .any(|e| entity.contains(e))
    {
        format!("{first} {last}")
    } else if lower == "name" || lower == "title" || lower.ends_with("_name") {
        format!(
            "{} {}",
            capitalized(pick(WORDS, n, name)),
            capitalized(pick(WORDS, n + 1, entity))
        )
    } else {
        return None;
    })
}

fn capitalized(word: &str) -> String {
    let mut s = word.to_string();
    if let Some(c) = s.get_mut(0..1) {
        c.make_ascii_uppercase();
    }
    s
}

/// A value of `field` for instance `n` of `entity`.
pub(super) fn value(entity: &str, field: &Field, n: u64, array_max: u64) -> Value {
    if !field.enum_values.is_empty() {
        return Value::String(field.enum_values[(n as usize) % field.enum_values.len()].clone());
    }
    scalar(
        entity,
        &field.name,
        &field.ty,
        field.avg_size,
        field.distinct,
        n,
        array_max,
    )
}

fn scalar(
    entity: &str,
    name: &str,
    ty: &FieldType,
    avg: Option<u32>,
    distinct: Option<u64>,
    n: u64,
    array_max: u64,
) -> Value {
    let spread = distinct.unwrap_or(1000).max(1);
    match ty {
        FieldType::String => Value::String(string(entity, name, avg.unwrap_or(16) as usize, n)),
        FieldType::Int | FieldType::Long => json!((hash(&[entity, name], n) % spread) as i64),
        FieldType::Double => {
            let cents = hash(&[entity, name], n) % (spread * 100).max(100);
            json!(cents as f64 / 100.0)
        }
        FieldType::Decimal => {
            json!({ "$numberDecimal": format!("{}.{:02}", hash(&[name], n) % 1000, n % 100) })
        }
        FieldType::Bool => Value::Bool(hash(&[entity, name], n).is_multiple_of(2)),
        FieldType::Date => date(n),
        FieldType::ObjectId => object_id(name, n),
        FieldType::Binary => {
            let len = avg.unwrap_or(16) as usize;
            let b64_len = len.div_ceil(3) * 4;
            let s: String = (0..b64_len)
                .map(|i| (b'A' + ((hash(&[name], n + i as u64) % 26) as u8)) as char)
                .collect();
            json!({ "$binary": { "base64": s, "subType": "00" } })
        }
        FieldType::Object => json!({}),
        FieldType::Point | FieldType::Polygon => crate::synthetic::geo::example(ty, name, n),
        FieldType::Array(item) => {
            let k = u64::from(avg.unwrap_or(3)).min(array_max);
            Value::Array(
                (0..k)
                    .map(|i| scalar(entity, name, item, None, distinct, n * 31 + i, array_max))
                    .collect(),
            )
        }
        FieldType::Attributes { keys } => Value::Array(
            attribute_names(name, *keys, avg, n, array_max)
                .into_iter()
                .map(|(i, k)| {
                    let v = hash(&[entity, &k], n * 7 + i) % spread;
                    json!({"k": k, "v": format!("{k}-{v}")})
                })
                .collect(),
        ),
    }
}

/// The names instance `n` has: consecutive ones from a point its number
/// picks, so no name repeats (`specs_17`, `specs_18`, …), with their rank.
fn attribute_names(
    field: &str,
    keys: u64,
    avg: Option<u32>,
    n: u64,
    array_max: u64,
) -> Vec<(u64, String)> {
    let per = avg
        .map_or(crate::model::ATTRIBUTES_TYPICAL, u64::from)
        .min(keys)
        .min(array_max);
    let start = hash(&[field], n) % keys.max(1);
    (0..per)
        .map(|i| (i, format!("{field}_{}", (start + i) % keys.max(1))))
        .collect()
}
