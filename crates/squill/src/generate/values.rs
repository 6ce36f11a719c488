//! Realistic-looking scalar values for a model's fields, chosen by the field's
//! BSON type, its enum values and size, and words in its name (an `email`
//! looks like an address, an `ip` like an IPv4 address). Every value is a pure
//! function of (seed, entity, instance, field), so a copy of a field kept in
//! another collection (an extended reference) has the same value as the
//! original.

use super::population::{Rng, name_hash};
use super::value::{Document, Value};
use crate::model::Field;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

const FIRST: &[&str] = &[
    "Ada",
    "Grace",
    "Alan",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "Ken",
    "Margaret",
    "Dennis",
    "Radia",
    "Tim",
    "Sophie",
    "Linus",
    "Hedy",
    "John",
    "Katherine",
    "Niklaus",
    "Leslie",
    "Mary",
];
const LAST: &[&str] = &[
    "Lovelace",
    "Hopper",
    "Turing",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Allen",
    "Thompson",
    "Hamilton",
    "Ritchie",
    "Perlman",
    "Berners-Lee",
    "Wilson",
    "Torvalds",
    "Lamarr",
    "Backus",
    "Johnson",
    "Wirth",
    "Lamport",
    "Jackson",
];
const WORDS: &[&str] = &[
    "amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
    "kelp", "lumen", "meadow", "nectar", "onyx", "pebble", "quartz", "river", "sierra", "timber",
    "umber", "velvet", "willow", "xenon", "yarrow", "zephyr",
];
const NOUNS: &[&str] = &[
    "widget", "gear", "valve", "sensor", "bracket", "spring", "bolt", "panel", "lamp", "cable",
];
const CITIES: &[&str] = &[
    "Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi", "Lyon", "Perth", "Quito", "Tallinn", "Osaka",
];
const COUNTRIES: &[&str] = &["PT", "NO", "JP", "US", "KE", "FR", "AU", "EC", "EE", "DE"];

/// 2024-01-01T00:00:00Z in milliseconds.
pub const EPOCH_2024_MS: i64 = 1_704_067_200_000;
/// Milliseconds between consecutive instances' dates (plus jitter below it).
pub const DATE_STEP_MS: i64 = 37_000;

fn pick<'s>(rng: &mut Rng, list: &[&'s str]) -> &'s str {
    list[rng.below(list.len() as u64) as usize]
}

fn words(rng: &mut Rng, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 8);
    while s.len() < bytes.max(3) {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(pick(rng, WORDS));
    }
    s
}

/// What the value is for, from words in the field name.
fn has(name: &str, words: &[&str]) -> bool {
    words.iter().any(|w| name.contains(w))
}

/// A number in the field's BSON type.
pub fn number(bson_type: &str, x: f64) -> Value {
    match bson_type {
        "int" => Value::Int(x.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32),
        "long" => Value::Long(x.round() as i64),
        "decimal" => Value::Decimal {
            coefficient: (x * 100.0).round() as i64,
            exponent: -2,
        },
        _ => Value::Double(x),
    }
}

/// The value of `field` (of an entity named `entity`) for instance `key`.
/// `bson_type` is the design's type for it; `field` is the model's field when
/// known (enum values, average size).
pub fn scalar(
    seed: u64,
    entity: &str,
    key: u64,
    name: &str,
    bson_type: &str,
    field: Option<&Field>,
    enum_values: &[String],
) -> Value {
    let mut rng = Rng::new(&[seed, name_hash(entity), key, name_hash(name)]);
    // Lowercase only when needed: most field names already are.
    let lname: Cow<'_, str> = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Borrowed(name)
    };
    let avg = field.and_then(|f| f.avg_size).map(|n| n as usize);
    if !enum_values.is_empty() {
        let v = &enum_values[rng.below(enum_values.len() as u64) as usize];
        return match bson_type {
            "string" => Value::String(v.clone()),
            other => v
                .parse::<f64>()
                .map(|x| number(other, x))
                .unwrap_or_else(|_| Value::String(v.clone())),
        };
    }
    match bson_type {
        "string" => Value::String(string_value(&mut rng, entity, key, &lname, avg)),
        "int" | "long" | "double" | "decimal" | "number" => {
            let x = number_value(&mut rng, &lname, bson_type);
            number(
                if bson_type == "number" {
                    "int"
                } else {
                    bson_type
                },
                x,
            )
        }
        "bool" => Value::Bool(rng.below(2) == 1),
        "date" => Value::Date(date_value(&mut rng, key)),
        "objectId" => {
            let mut id = [0u8; 12];
            for chunk in id.chunks_mut(4) {
                chunk.copy_from_slice(&(rng.next_u64() as u32).to_be_bytes());
            }
            Value::ObjectId(id)
        }
        "binData" => Value::Binary(
            (0..avg.unwrap_or(16))
                .map(|_| (rng.next_u64() & 0xff) as u8)
                .collect(),
        ),
        "null" => Value::Null,
        // An object whose inner shape the model does not detail.
        _ => Value::Document(Document(vec![
            ("kind".into(), Value::String(pick(&mut rng, WORDS).into())),
            ("value".into(), Value::Int(rng.below(100) as i32)),
        ])),
    }
}

/// Dates rise with the instance number (children of one parent are numbered
/// consecutively, so "the latest K" are the last K), with jitter below one step.
pub fn date_value(rng: &mut Rng, key: u64) -> i64 {
    let step = (key % (1 << 32)) as i64;
    EPOCH_2024_MS + step * DATE_STEP_MS + rng.below(DATE_STEP_MS as u64) as i64
}

/// What a string field holds, from its name and its entity's name: decided
/// once per (entity, field) and cached, since the name tests are the bulk of
/// the work per value otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StrKind {
    Email,
    First,
    Last,
    PersonName,
    Ip,
    Url,
    Street,
    City,
    Country,
    Zip,
    Phone,
    Sku,
    Host,
    Title { product: bool },
    Words { default: usize },
}

fn str_kind(lentity: &str, name: &str) -> StrKind {
    if has(name, &["email"]) {
        StrKind::Email
    } else if name == "first_name" || name == "firstname" {
        StrKind::First
    } else if name == "last_name" || name == "lastname" {
        StrKind::Last
    } else if has(name, &["name"])
        && has(
            lentity,
            &[
                "person", "user", "author", "customer", "member", "employee", "seller",
            ],
        )
    {
        StrKind::PersonName
    } else if name == "ip" || has(name, &["ip_addr", "_ip", "ip_"]) {
        StrKind::Ip
    } else if has(name, &["url", "uri", "link"]) {
        StrKind::Url
    } else if has(name, &["street", "address"]) {
        StrKind::Street
    } else if has(name, &["city", "town"]) {
        StrKind::City
    } else if has(name, &["country"]) {
        StrKind::Country
    } else if has(name, &["zip", "postal"]) {
        StrKind::Zip
    } else if has(name, &["phone"]) {
        StrKind::Phone
    } else if has(name, &["sku", "code", "serial"]) {
        StrKind::Sku
    } else if has(name, &["host"]) {
        StrKind::Host
    } else if has(name, &["name", "title", "subject", "label"]) {
        StrKind::Title {
            product: has(lentity, &["part", "product", "item"]),
        }
    } else {
        StrKind::Words {
            default: if has(
                name,
                &[
                    "text",
                    "body",
                    "message",
                    "content",
                    "comment",
                    "description",
                ],
            ) {
                80
            } else {
                12
            },
        }
    }
}

thread_local! {
    /// `str_kind` by entity name, then lowercased field name.
    static KINDS: RefCell<HashMap<String, HashMap<String, StrKind>>> = RefCell::new(HashMap::new());
}

fn cached_str_kind(entity: &str, name: &str) -> StrKind {
    KINDS.with(|k| {
        let mut k = k.borrow_mut();
        // Looked up without allocating; a miss (once per field) pays for the keys.
        if let Some(kind) = k.get(entity).and_then(|m| m.get(name)) {
            return *kind;
        }
        let kind = str_kind(&entity.to_ascii_lowercase(), name);
        k.entry(entity.to_string())
            .or_default()
            .insert(name.to_string(), kind);
        kind
    })
}

fn string_value(rng: &mut Rng, entity: &str, key: u64, name: &str, avg: Option<usize>) -> String {
    let first = pick(rng, FIRST);
    let last = pick(rng, LAST);
    match cached_str_kind(entity, name) {
        StrKind::Email => format!(
            "{}.{}{key}@example.com",
            first.to_lowercase(),
            last.to_lowercase()
        ),
        StrKind::First => first.into(),
        StrKind::Last => last.into(),
        StrKind::PersonName => format!("{first} {last}"),
        StrKind::Ip => format!(
            "10.{}.{}.{}",
            rng.below(256),
            rng.below(256),
            1 + rng.below(254)
        ),
        StrKind::Url => format!("https://example.com/{}/{key}", entity.to_ascii_lowercase()),
        StrKind::Street => format!(
            "{} {} Street",
            1 + rng.below(999),
            capital(pick(rng, WORDS))
        ),
        StrKind::City => pick(rng, CITIES).into(),
        StrKind::Country => pick(rng, COUNTRIES).into(),
        StrKind::Zip => format!("{:05}", rng.below(100_000)),
        StrKind::Phone => format!("+1-555-{:04}", rng.below(10_000)),
        StrKind::Sku => format!(
            "{}-{:06}",
            entity
                .to_ascii_uppercase()
                .chars()
                .take(3)
                .collect::<String>(),
            key
        ),
        StrKind::Host => format!("{}-{key}.example.net", pick(rng, WORDS)),
        StrKind::Title { product } => {
            let noun = if product {
                pick(rng, NOUNS)
            } else {
                pick(rng, WORDS)
            };
            format!("{} {noun} {key}", capital(pick(rng, WORDS)))
        }
        StrKind::Words { default } => words(rng, avg.unwrap_or(default)),
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn number_value(rng: &mut Rng, name: &str, bson_type: &str) -> f64 {
    let whole = matches!(bson_type, "int" | "long" | "number");
    let x = if has(
        name,
        &["price", "amount", "total", "cost", "balance", "salary"],
    ) {
        1.0 + rng.unit() * 999.0
    } else if has(name, &["rating", "stars"]) {
        1.0 + rng.below(5) as f64
    } else if has(name, &["age"]) {
        18.0 + rng.below(70) as f64
    } else if has(name, &["year"]) {
        1950.0 + rng.below(76) as f64
    } else if has(name, &["temp"]) {
        -10.0 + rng.unit() * 45.0
    } else if has(
        name,
        &["qty", "quantity", "count", "stock", "views", "score", "num"],
    ) {
        rng.below(1000) as f64
    } else {
        rng.unit() * 10_000.0
    };
    if whole {
        x.round()
    } else {
        (x * 100.0).round() / 100.0
    }
}
