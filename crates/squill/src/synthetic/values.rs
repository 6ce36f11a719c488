//! Realistic-looking scalar values for a model's fields, chosen by the field's
//! BSON type, its enum values and size, and words in its name (an `email`
//! looks like an address, an `ip` like an IPv4 address). Every value is a pure
//! function of (seed, entity, instance, field), so a copy of a field kept in
//! another collection (an extended reference) has the same value as the
//! original.

use super::json_text::needs_escape;
use super::rng::{Rng, name_hash};
use super::value::{Document, Scalar, Value};
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

/// Every pair of `WORDS` as ` first second`, padded to 16 bytes (the
/// longest word has 7), with the lengths of ` first` and of the whole: two
/// words are then one fixed-size copy. Picking a pair from the 676 is the
/// same as picking its two words one after the other (see `pick_pair`).
static PAIRS: [([u8; 16], u8, u8); WORDS.len() * WORDS.len()] = {
    let n = WORDS.len();
    let mut t = [([0u8; 16], 0u8, 0u8); WORDS.len() * WORDS.len()];
    let mut p = 0;
    while p < n * n {
        let first = space_then(&mut t[p].0, 0, WORDS[p / n].as_bytes());
        let both = space_then(&mut t[p].0, first, WORDS[p % n].as_bytes());
        (t[p].1, t[p].2) = (first as u8, both as u8);
        p += 1;
    }
    t
};

/// Writes a space and `word` into `buf` at `at`; where they end.
const fn space_then(buf: &mut [u8; 16], at: usize, word: &[u8]) -> usize {
    buf[at] = b' ';
    let mut i = 0;
    while i < word.len() {
        buf[at + 1 + i] = word[i];
        i += 1;
    }
    at + 1 + word.len()
}

/// Words picked from one random draw: each pick takes the top
/// log2(26) ≈ 4.7 bits of what is left of the draw (`pick_word`), so the
/// eighth pick still has about 26 bits to itself and its bias is below
/// 26 / 2^26. With one draw per word, drawing a log message's value took
/// 130 M instructions of `generate data` at scale 1; now 111 M (callgrind,
/// BENCHMARKS.md). Even, so that a pair never straddles two draws.
const WORDS_PER_DRAW: u32 = 8;
const _: () = assert!(
    WORDS_PER_DRAW.is_multiple_of(2),
    "a pair must not straddle two draws"
);

/// The random bits words are picked from, drawn as they run out.
struct WordBits {
    bits: u64,
    left: u32,
}

impl WordBits {
    fn new() -> Self {
        WordBits { bits: 0, left: 0 }
    }

    /// The index of the next word: the integer part of the fraction
    /// `bits / 2^64` times the number of words; the fractional part is what
    /// the next pick uses. `words` picks two at a time (`pick_pair`); this
    /// is the definition its test holds it to.
    #[cfg(test)]
    fn pick_word(&mut self, rng: &mut Rng) -> usize {
        self.pick(rng, WORDS.len(), 1)
    }

    /// The index in `PAIRS` of the next two words, as `pick_word` twice
    /// would pick them: with `bits × 26 = a·2^64 + r` and
    /// `r × 26 = b·2^64 + r'`, `bits × 676 = (26a + b)·2^64 + r'`.
    fn pick_pair(&mut self, rng: &mut Rng) -> usize {
        self.pick(rng, PAIRS.len(), 2)
    }

    /// One of `choices`, worth `words` of the draw's picks.
    #[inline(always)]
    fn pick(&mut self, rng: &mut Rng, choices: usize, words: u32) -> usize {
        if self.left == 0 {
            self.bits = rng.next_u64();
            self.left = WORDS_PER_DRAW;
        }
        self.left -= words;
        let wide = u128::from(self.bits) * choices as u128;
        self.bits = wide as u64;
        (wide >> 64) as usize
    }
}

/// Words from `WORDS`, space-separated, until `out` holds `bytes` (at least
/// 3). They are picked two at a time and gathered in a stack buffer that is
/// appended a bufferful at a time. Into bytes rather than a `String`: the
/// test that they are ASCII, which a `String` would need, cost as much as
/// picking them.
fn words(out: &mut Vec<u8>, rng: &mut Rng, bytes: usize) {
    let mut buf = [0u8; 128];
    // Each pair comes with a space before it; the first is cut when the
    // text starts with the pair.
    let mut skip = usize::from(out.is_empty());
    let mut len = 0;
    // What the buffer may hold (after `skip`) before `out` reaches the size.
    let mut room = bytes.max(3).saturating_sub(out.len());
    let mut bits = WordBits::new();
    while len < room + skip {
        if len + 16 > buf.len() {
            out.extend_from_slice(&buf[skip..len]);
            room -= len - skip;
            (len, skip) = (0, 0);
        }
        let (pair, first, both) = &PAIRS[bits.pick_pair(rng)];
        buf[len..len + 16].copy_from_slice(pair);
        if len + usize::from(*first) >= room + skip {
            // The first word reaches the size: one word at a time would stop here.
            len += usize::from(*first);
            break;
        }
        len += usize::from(*both);
    }
    out.extend_from_slice(&buf[skip..len]);
}

/// What the value is for, from words in the field name.
fn has(name: &str, words: &[&str]) -> bool {
    words.iter().any(|w| name.contains(w))
}

/// The numeric BSON types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumType {
    Int,
    Long,
    Decimal,
    Double,
}

impl NumType {
    /// By `$jsonSchema` name; anything else is a double.
    pub fn of(bson_type: &str) -> Self {
        match bson_type {
            "int" => NumType::Int,
            "long" => NumType::Long,
            "decimal" => NumType::Decimal,
            _ => NumType::Double,
        }
    }

    pub fn scalar(self, x: f64) -> Scalar<'static> {
        match self {
            NumType::Int => {
                Scalar::Int(x.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32)
            }
            NumType::Long => Scalar::Long(x.round() as i64),
            NumType::Decimal => Scalar::Decimal {
                coefficient: (x * 100.0).round() as i64,
                exponent: -2,
            },
            NumType::Double => Scalar::Double(x),
        }
    }
}

/// An enum value (the model keeps them as text) in the field's BSON type:
/// a number field's values are numbers, which its validator's `enum`
/// lists as numbers too (audit50 A6: `stars: {type: int, enum: [1..5]}`
/// was written as "1", which no int validator takes).
pub fn enum_scalar<'v>(bson_type: &str, v: &'v str) -> Scalar<'v> {
    match bson_type {
        "int" | "long" | "double" | "decimal" | "number" => match v.parse::<f64>() {
            Ok(x) => NumType::of(bson_type).scalar(x),
            Err(_) => Scalar::Str(v),
        },
        _ => Scalar::Str(v),
    }
}

/// Whether a drawn scalar is one of an enum's values, compared as the
/// field's type compares them (numbers by value).
#[allow(clippy::float_cmp)] // membership is exact equality, as the server tests it
pub fn enum_allows(values: &[String], s: &Scalar<'_>) -> bool {
    let number = |x: f64| {
        values
            .iter()
            .any(|v| v.parse::<f64>().is_ok_and(|y| y == x))
    };
    match *s {
        Scalar::Str(t) => values.iter().any(|e| e == t),
        Scalar::Plain(t) => values.iter().any(|e| e.as_bytes() == t),
        Scalar::Int(x) => number(f64::from(x)),
        Scalar::Long(x) => number(x as f64),
        Scalar::Double(x) => number(x),
        Scalar::Decimal {
            coefficient,
            exponent,
        } => number(coefficient as f64 * 10f64.powi(exponent)),
        _ => false,
    }
}

/// A number in the field's BSON type.
pub fn number(bson_type: &str, x: f64) -> Value {
    NumType::of(bson_type).scalar(x).to_value()
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
    ScalarSpec::new(seed, entity, name, bson_type, field, enum_values)
        .value(key, &mut Scratch::default())
}

/// Reused space for the text and bytes of generated values.
#[derive(Debug, Default)]
pub struct Scratch {
    text: String,
    bytes: Vec<u8>,
}

impl Scratch {
    /// The text space, emptied.
    pub fn text(&mut self) -> &mut String {
        self.text.clear();
        &mut self.text
    }
}

/// A generated value: a scalar, borrowing the scratch space or the spec, or
/// (for a type squill has no generator for) a small owned document.
#[derive(Debug)]
pub enum Generated<'s> {
    Scalar(Scalar<'s>),
    Value(Value),
}

/// What a field's value is drawn from.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Str(StrKind),
    Num {
        kind: NumKind,
        out: NumType,
        whole: bool,
    },
    Bool,
    Date,
    ObjectId,
    Binary,
    Null,
    Other,
}

/// Everything about a field's values that does not depend on the instance,
/// worked out once (from its names, type, size and enum), so that generating
/// a value costs the random draws and the writing only.
#[derive(Debug, Clone)]
pub struct ScalarSpec<'m> {
    entity: &'m str,
    /// The value's random stream is keyed by (seed, entity, instance,
    /// field): the first two mixed once (`Rng::prefix`), and the field's
    /// name hash.
    stream: (u64, u64),
    kind: Kind,
    avg: Option<usize>,
    enum_values: &'m [String],
    bson_type: &'m str,
    /// Generated text needs no JSON escape: it is made of the word lists
    /// above, digits and punctuation, and the entity's name (when that
    /// needs none).
    plain: bool,
    /// No enum value needs a JSON escape: they are written without the test.
    enum_plain: bool,
    /// Fields of the same instance a number must stay under, as the
    /// model's write conditions compare them (`relations`).
    ceilings: Vec<Ceiling<'m>>,
    /// For the date an expiry counts from: when the data is loaded and the
    /// life, in milliseconds (`live_date`).
    live: Option<(i64, i64)>,
    /// A date a later write sets (`relations::set_later`): drawn one step
    /// after the instance's own, so it never comes before the dates its
    /// insert wrote.
    later: bool,
    /// For the date an archive splits its entity by: the span its dates
    /// lie in, from and to in milliseconds (`window_date`). Wins over `live`.
    window: Option<(i64, i64)>,
}

impl<'m> ScalarSpec<'m> {
    pub fn new(
        seed: u64,
        entity: &'m str,
        name: &str,
        bson_type: &'m str,
        field: Option<&Field>,
        enum_values: &'m [String],
    ) -> Self {
        // Lowercase only when needed: most field names already are.
        let lname: Cow<'_, str> = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(name.to_ascii_lowercase())
        } else {
            Cow::Borrowed(name)
        };
        let kind = match bson_type {
            "string" => Kind::Str(cached_str_kind(entity, &lname)),
            "int" | "long" | "double" | "decimal" | "number" => Kind::Num {
                kind: num_kind(&lname),
                out: NumType::of(if bson_type == "number" {
                    "int"
                } else {
                    bson_type
                }),
                whole: matches!(bson_type, "int" | "long" | "number"),
            },
            "bool" => Kind::Bool,
            "date" => Kind::Date,
            "objectId" => Kind::ObjectId,
            "binData" => Kind::Binary,
            "null" => Kind::Null,
            // An object whose inner shape the model does not detail.
            _ => Kind::Other,
        };
        ScalarSpec {
            entity,
            stream: (Rng::prefix(&[seed, name_hash(entity)]), name_hash(name)),
            kind,
            avg: field.and_then(|f| f.avg_size).map(|n| n as usize),
            enum_values,
            bson_type,
            plain: !needs_escape(entity.as_bytes()),
            enum_plain: enum_values.iter().all(|v| !needs_escape(v.as_bytes())),
            ceilings: Vec::new(),
            live: None,
            later: false,
            window: None,
        }
    }

    /// The same field, as a date a write after the insert sets: after
    /// every date of the instance the insert wrote.
    #[must_use]
    pub fn set_later(self) -> Self {
        ScalarSpec {
            later: true,
            ..self
        }
    }

    /// The same field, as the date an expiry of `life_s` seconds counts
    /// from, in data loaded at `now_ms` (`live_date`).
    #[must_use]
    pub fn alive_at(self, now_ms: i64, life_s: u64) -> Self {
        let life_ms = i64::try_from(life_s.saturating_mul(1000)).unwrap_or(i64::MAX);
        ScalarSpec {
            live: Some((now_ms, life_ms)),
            ..self
        }
    }

    /// The same field, its dates from `from_ms` up to `to_ms`
    /// (`window_date`): an archive's side of its horizon.
    #[must_use]
    pub fn between(self, from_ms: i64, to_ms: i64) -> Self {
        ScalarSpec {
            window: Some((from_ms, to_ms.max(from_ms + 1))),
            ..self
        }
    }

    /// The same spec, its numbers kept under `ceilings`.
    pub fn under(mut self, ceilings: Vec<Ceiling<'m>>) -> Self {
        self.ceilings = ceilings;
        self
    }

    /// Whether every value is a string of `allowed`: true for a string
    /// field whose every enum value is one of them.
    pub fn bson_type(&self) -> &str {
        self.bson_type
    }

    pub fn only_strings_of(&self, allowed: &[String]) -> bool {
        self.bson_type == "string"
            && !self.enum_values.is_empty()
            && self.enum_values.iter().all(|v| allowed.contains(v))
    }

    /// Whether every value is a scalar (`Generated::Scalar`): all but a
    /// type squill has no generator for.
    pub fn is_scalar(&self) -> bool {
        !self.enum_values.is_empty() || !matches!(self.kind, Kind::Other)
    }

    /// The value for instance `key`, owned.
    pub fn value(&self, key: u64, scratch: &mut Scratch) -> Value {
        match self.generate(key, scratch) {
            Generated::Scalar(s) => s.to_value(),
            Generated::Value(v) => v,
        }
    }

    /// The value for instance `key`.
    pub fn generate<'s>(&'s self, key: u64, scratch: &'s mut Scratch) -> Generated<'s> {
        let mut rng = Rng::resume(self.stream.0, &[key, self.stream.1]);
        if !self.enum_values.is_empty() {
            let v = &self.enum_values[rng.below(self.enum_values.len() as u64) as usize];
            return Generated::Scalar(match self.bson_type {
                "string" if self.enum_plain => Scalar::Plain(v.as_bytes()),
                other => enum_scalar(other, v),
            });
        }
        Generated::Scalar(match self.kind {
            Kind::Str(StrKind::Words { default }) => {
                scratch.bytes.clear();
                words(&mut scratch.bytes, &mut rng, self.avg.unwrap_or(default));
                // Words and spaces: ASCII, with nothing to escape.
                Scalar::Plain(&scratch.bytes)
            }
            Kind::Str(kind) => {
                scratch.text.clear();
                string_value(&mut scratch.text, &mut rng, self.entity, key, kind);
                if let Some(n) = self.avg {
                    fit(&mut scratch.text, &mut rng, n, kind);
                }
                if self.plain {
                    Scalar::Plain(scratch.text.as_bytes())
                } else {
                    Scalar::Str(&scratch.text)
                }
            }
            Kind::Num { kind, out, whole } => {
                let x = number_draw(&mut rng, kind);
                let (x, step) = if whole {
                    (x.round(), 1.0)
                } else {
                    ((x * 100.0).round() / 100.0, 0.01)
                };
                if self.ceilings.is_empty() {
                    out.scalar(x)
                } else {
                    out.scalar(fold(x, key, &self.ceilings, step))
                }
            }
            Kind::Bool => Scalar::Bool(rng.below(2) == 1),
            Kind::Date => Scalar::Date(match (self.window, self.live) {
                (Some((from, to)), _) => window_date(&mut rng, key, from, to),
                (None, Some((now, life))) => live_date(&mut rng, key, now, life),
                (None, None) if self.later => date_value(&mut rng, key) + DATE_STEP_MS,
                (None, None) => date_value(&mut rng, key),
            }),
            Kind::ObjectId => {
                let mut id = [0u8; 12];
                for chunk in id.chunks_mut(4) {
                    chunk.copy_from_slice(&(rng.next_u64() as u32).to_be_bytes());
                }
                Scalar::ObjectId(id)
            }
            Kind::Binary => {
                scratch.bytes.clear();
                scratch
                    .bytes
                    .extend((0..self.avg.unwrap_or(16)).map(|_| (rng.next_u64() & 0xff) as u8));
                Scalar::Binary(&scratch.bytes)
            }
            Kind::Null => Scalar::Null,
            Kind::Other => {
                return Generated::Value(Value::Document(Document(vec![
                    ("kind".into(), Value::String(pick(&mut rng, WORDS).into())),
                    ("value".into(), Value::Int(rng.below(100) as i32)),
                ])));
            }
        })
    }
}

/// One field's ceiling: the other field of the same instance, which the
/// field's value must not exceed (`strict`: must stay below).
#[derive(Debug, Clone)]
pub struct Ceiling<'m> {
    pub spec: ScalarSpec<'m>,
    pub strict: bool,
}

/// `x` folded under its ceilings for instance `key`: kept when it already
/// lies under every one, else wrapped into `[0, limit]` (the lowest
/// ceiling, less one step when strict), which spreads the values over the
/// room the ceiling leaves rather than piling them on it. `step` is the
/// value's precision (1 for a whole number, 0.01 otherwise).
fn fold(x: f64, key: u64, ceilings: &[Ceiling<'_>], step: f64) -> f64 {
    let limit = ceilings
        .iter()
        .filter_map(|c| {
            let high = as_number(&c.spec.generate(key, &mut Scratch::default()))?;
            Some(if c.strict { high - step } else { high })
        })
        .fold(f64::INFINITY, f64::min);
    if !limit.is_finite() {
        return x;
    }
    let (n, m) = ((x / step).round(), (limit / step + 1e-9).floor());
    if n <= m {
        return x;
    }
    let n = if m < 0.0 { m } else { n.rem_euclid(m + 1.0) };
    // Back to the value's precision (no 12.340000000001).
    (n * step * 100.0).round() / 100.0
}

/// A drawn scalar as a number.
fn as_number(g: &Generated<'_>) -> Option<f64> {
    match g {
        Generated::Scalar(s) => match *s {
            Scalar::Int(i) => Some(f64::from(i)),
            Scalar::Long(i) => Some(i as f64),
            Scalar::Double(d) => Some(d),
            Scalar::Decimal {
                coefficient,
                exponent,
            } => Some(coefficient as f64 * 10f64.powi(exponent)),
            _ => None,
        },
        Generated::Value(_) => None,
    }
}

/// Dates rise with the instance number (children of one parent are numbered
/// consecutively, so "the latest K" are the last K), with jitter below one step.
pub fn date_value(rng: &mut Rng, key: u64) -> i64 {
    let step = (key % (1 << 32)) as i64;
    EPOCH_2024_MS + step * DATE_STEP_MS + rng.below(DATE_STEP_MS as u64) as i64
}

/// The date an expiry counts from, for data loaded at `now`: within the
/// newest half of the life before it, so that none has expired when the
/// data is loaded up to half a life later (a date of 2024 with a life of
/// hours is deleted by the TTL monitor's first pass). A life of 0 (the
/// field holds the moment of expiry) puts the dates in the second half of
/// the day after `now` instead: the model gives no other span. The dates
/// spread evenly over their half, cycling with the instance number at the
/// usual step, with jitter below it: how long ago a document was last
/// touched is not its place in the numbering, and an even spread is what
/// a TTL collection in use holds.
pub fn live_date(rng: &mut Rng, key: u64, now: i64, life: i64) -> i64 {
    const DAY_MS: i64 = 86_400_000;
    let half = (if life == 0 { DAY_MS } else { life } / 2).max(1);
    let step = (key % (1 << 32)) as i64;
    let offset = (step * DATE_STEP_MS + rng.below(DATE_STEP_MS as u64) as i64) % half;
    if life == 0 {
        now + half + 1 + offset
    } else {
        now - half + 1 + offset
    }
}

/// A date from `from` up to `to` (milliseconds), spread over the span as
/// `live_date` spreads its own: cycling with the instance number at the
/// usual step, with jitter below it, back from `to`, so that a small load
/// holds the newest dates of its side (far from the horizon the live side
/// is moved past).
pub fn window_date(rng: &mut Rng, key: u64, from: i64, to: i64) -> i64 {
    let span = (to - from).max(1);
    let step = (key % (1 << 32)) as i64;
    to - 1 - (step * DATE_STEP_MS + rng.below(DATE_STEP_MS as u64) as i64) % span
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
    /// `717-63-3144`.
    Ssn,
    Sku,
    Host,
    Title {
        product: bool,
    },
    Words {
        default: usize,
    },
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
    } else if has(name, &["url", "link"]) || name.split('_').any(|w| w == "uri" || w == "uris") {
        // `uri` only as a word of its own: `courier_id` and `security`
        // hold it by chance (audit46 D9: a courier's id drawn as a URL).
        StrKind::Url
    } else if has(name, &["street", "address"]) {
        StrKind::Street
    } else if has(name, &["city", "town"]) {
        StrKind::City
    } else if has(name, &["country"]) || name == "cc" || name.ends_with("_cc") {
        StrKind::Country
    } else if has(name, &["ssn"]) {
        StrKind::Ssn
    } else if has(name, &["zip", "postal"]) {
        StrKind::Zip
    } else if has(name, &["phone"]) {
        StrKind::Phone
    } else if has(name, &["sku", "code", "serial", "isbn"])
        || name.ends_with("_id")
        || name.ends_with("_no")
        || name.ends_with("_number")
    {
        // An identifier is a code (`SEN-000042`), not words.
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

/// A string of any kind but `Words` (which `words` writes as bytes).
fn string_value(out: &mut String, rng: &mut Rng, entity: &str, key: u64, kind: StrKind) {
    // Pieces are appended one by one rather than through `write!`, whose
    // formatting machinery cost more than the values themselves.
    let mut num = itoa::Buffer::new();
    match kind {
        StrKind::Email => {
            let (first, last) = (pick(rng, FIRST), pick(rng, LAST));
            out.extend(first.chars().flat_map(char::to_lowercase));
            out.push('.');
            out.extend(last.chars().flat_map(char::to_lowercase));
            out.push_str(num.format(key));
            out.push_str("@example.com");
        }
        StrKind::First => out.push_str(pick(rng, FIRST)),
        StrKind::Last => out.push_str(pick(rng, LAST)),
        StrKind::PersonName => {
            let (first, last) = (pick(rng, FIRST), pick(rng, LAST));
            out.push_str(first);
            out.push(' ');
            out.push_str(last);
        }
        StrKind::Ip => {
            let (a, b, c) = (rng.below(256), rng.below(256), 1 + rng.below(254));
            out.push_str("10.");
            out.push_str(num.format(a));
            out.push('.');
            out.push_str(num.format(b));
            out.push('.');
            out.push_str(num.format(c));
        }
        StrKind::Url => {
            out.push_str("https://example.com/");
            out.push_str(&entity.to_ascii_lowercase());
            out.push('/');
            out.push_str(num.format(key));
        }
        StrKind::Street => {
            let n = 1 + rng.below(999);
            out.push_str(num.format(n));
            out.push(' ');
            capital(out, pick(rng, WORDS));
            out.push_str(" Street");
        }
        StrKind::City => out.push_str(pick(rng, CITIES)),
        StrKind::Country => out.push_str(pick(rng, COUNTRIES)),
        StrKind::Zip => padded(out, rng.below(100_000), 5),
        StrKind::Ssn => {
            padded(out, 100 + rng.below(800), 3);
            out.push('-');
            padded(out, 1 + rng.below(99), 2);
            out.push('-');
            padded(out, rng.below(10_000), 4);
        }
        StrKind::Phone => {
            out.push_str("+1-555-");
            padded(out, rng.below(10_000), 4);
        }
        StrKind::Sku => {
            out.extend(entity.to_ascii_uppercase().chars().take(3));
            out.push('-');
            padded(out, key, 6);
        }
        StrKind::Host => {
            out.push_str(pick(rng, WORDS));
            out.push('-');
            out.push_str(num.format(key));
            out.push_str(".example.net");
        }
        StrKind::Title { product } => {
            let noun = if product {
                pick(rng, NOUNS)
            } else {
                pick(rng, WORDS)
            };
            capital(out, pick(rng, WORDS));
            out.push(' ');
            out.push_str(noun);
            out.push(' ');
            out.push_str(num.format(key));
        }
        // `ScalarSpec::generate` has `words` write these, as bytes.
        StrKind::Words { .. } => debug_assert!(false, "words are written as bytes"),
    }
}

/// Makes a value of kind `kind` `n` bytes long, the size the model declares
/// (`string(n)`): the documents then weigh what the design was priced at.
/// Longer values are cut (codes keep their end, where the instance number
/// is, so they stay distinct); shorter ones grow with words where the format
/// allows it: an email's local part, a URL's path, or after a space.
fn fit(out: &mut String, rng: &mut Rng, n: usize, kind: StrKind) {
    // A code too long drops the zeros of its number first (`SEN-000042`
    // in 8 bytes: `SEN-0042`), then its prefix.
    if out.len() > n
        && matches!(kind, StrKind::Sku)
        && let Some(dash) = out.find('-')
    {
        let zeros = out[dash + 1..].bytes().take_while(|b| *b == b'0').count();
        let digits = out.len() - dash - 1;
        let drop = out.len() - n;
        // Only when that is enough: else the number's end is kept, as before.
        if drop <= zeros.min(digits.saturating_sub(1)) {
            out.replace_range(dash + 1..dash + 1 + drop, "");
        }
    }
    if out.len() > n {
        let keep_end = matches!(kind, StrKind::Sku);
        let mut at = if keep_end { out.len() - n } else { n };
        while !out.is_char_boundary(at) {
            at = if keep_end { at + 1 } else { at - 1 };
        }
        if keep_end {
            out.drain(..at);
        } else {
            out.truncate(at);
        }
        return;
    }
    if out.len() == n {
        return;
    }
    // Numbers grow with digits: an extension for a phone, more digits for
    // a postal code or a code.
    if matches!(kind, StrKind::Phone | StrKind::Zip | StrKind::Ssn) {
        let room = n - out.len();
        if matches!(kind, StrKind::Phone) && room > 2 {
            out.push_str(" x");
        } else if room > 1 {
            out.push('-');
        }
        while out.len() < n {
            out.push(char::from(b'0' + rng.below(10) as u8));
        }
        return;
    }
    let (sep, before) = match kind {
        StrKind::Email => ('.', out.find('@')),
        StrKind::Url => ('/', None),
        StrKind::Host => ('-', out.find('.')),
        _ => (' ', None),
    };
    let tail = before.map(|at| out.split_off(at)).unwrap_or_default();
    let room = n - out.len() - tail.len();
    if room > 1 {
        let mut pad = Vec::with_capacity(room + 8);
        words(&mut pad, rng, room - 1);
        pad.truncate(room - 1);
        // Words are lowercase ASCII with spaces between: the separator
        // stands for the spaces where a space is not allowed.
        // A cut word's space would end the value: a letter instead.
        if pad.last() == Some(&b' ') {
            pad.pop();
            pad.push(b's');
        }
        out.push(sep);
        out.extend(
            pad.iter()
                .map(|&b| if b == b' ' { sep } else { char::from(b) }),
        );
    }
    out.push_str(&tail);
}

/// Appends `n` zero-padded to `width` digits, as `{n:0width$}` does.
fn padded(out: &mut String, n: u64, width: usize) {
    let mut num = itoa::Buffer::new();
    let digits = num.format(n);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// Appends `s` with its first letter in upper case.
fn capital(out: &mut String, s: &str) {
    let mut c = s.chars();
    if let Some(f) = c.next() {
        out.extend(f.to_uppercase());
        out.push_str(c.as_str());
    }
}

/// What a number field holds, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumKind {
    Money,
    Rating,
    Age,
    Year,
    Temperature,
    Quantity,
    Other,
}

fn num_kind(name: &str) -> NumKind {
    if has(
        name,
        &["price", "amount", "total", "cost", "balance", "salary"],
    ) {
        NumKind::Money
    } else if has(name, &["rating", "stars"]) {
        NumKind::Rating
    } else if has(name, &["age"]) {
        NumKind::Age
    } else if has(name, &["year"]) {
        NumKind::Year
    } else if has(name, &["temp"]) {
        NumKind::Temperature
    } else if has(
        name,
        &["qty", "quantity", "count", "stock", "views", "score", "num"],
    ) {
        NumKind::Quantity
    } else {
        NumKind::Other
    }
}

fn number_draw(rng: &mut Rng, kind: NumKind) -> f64 {
    match kind {
        NumKind::Money => 1.0 + rng.unit() * 999.0,
        NumKind::Rating => 1.0 + rng.below(5) as f64,
        NumKind::Age => 18.0 + rng.below(70) as f64,
        NumKind::Year => 1950.0 + rng.below(76) as f64,
        NumKind::Temperature => -10.0 + rng.unit() * 45.0,
        NumKind::Quantity => rng.below(1000) as f64,
        NumKind::Other => rng.unit() * 10_000.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// audit46 D9: `courier_id` holds "uri" by chance: an identifier, not
    /// a URL; a field named for a URI still is one.
    #[test]
    fn an_id_named_after_a_courier_is_no_url() {
        assert_eq!(str_kind("courier_job", "courier_id"), StrKind::Sku);
        assert_eq!(
            str_kind("courier", "security_note"),
            StrKind::Words { default: 12 }
        );
        assert_eq!(str_kind("doc", "source_uri"), StrKind::Url);
        assert_eq!(str_kind("doc", "avatar_url"), StrKind::Url);
    }

    #[test]
    fn strings_take_the_declared_size() {
        let fields = [
            ("bio", 400),
            ("name", 60),
            ("email", 50),
            ("email", 10),
            ("code", 3),
            ("title", 5),
            ("url", 70),
            ("host", 40),
            ("city", 2),
        ];
        for (name, size) in fields {
            let field = Field {
                name: name.into(),
                ty: crate::model::FieldType::String,
                avg_size: Some(size),
                element_size: None,
                distinct: None,
                enum_values: Vec::new(),
                required: true,
                description: None,
            };
            let spec = ScalarSpec::new(1, "person", name, "string", Some(&field), &[]);
            let mut scratch = Scratch::default();
            for key in [0, 7, 123_456] {
                let Generated::Scalar(Scalar::Plain(bytes)) = spec.generate(key, &mut scratch)
                else {
                    panic!("{name}: not a plain string");
                };
                let text = String::from_utf8_lossy(bytes).into_owned();
                // Text ends on a whole word: at most a word (7 bytes) past.
                let words = name == "bio";
                let (low, high) = (size as usize, size as usize + if words { 7 } else { 0 });
                assert!(
                    (low..=high).contains(&text.len()),
                    "{name}({size}) of {key}: {} bytes, {text:?}",
                    text.len()
                );
                if name == "email" && size > 30 {
                    assert!(
                        text.ends_with("@example.com") && !text.contains(' '),
                        "{text}"
                    );
                }
                if name == "code" {
                    assert!(text.ends_with(&format!("{:03}", key % 1000)), "{text}");
                }
            }
        }
    }

    #[test]
    fn words_fill_to_the_size_as_one_pick_after_another_does() {
        // Every size up to two bufferfuls, so that the text ends after the
        // first and after the second word of a pair, on either side of a
        // flush of the buffer.
        for bytes in (0..300).chain([1000]) {
            for start in ["", "x"] {
                let (mut a, mut b) = (Rng::new(&[bytes as u64]), Rng::new(&[bytes as u64]));
                let mut got = start.as_bytes().to_vec();
                words(&mut got, &mut a, bytes);
                let mut want = start.to_string();
                let mut bits = WordBits::new();
                while want.len() < bytes.max(3) {
                    if !want.is_empty() {
                        want.push(' ');
                    }
                    want.push_str(WORDS[bits.pick_word(&mut b)]);
                }
                assert_eq!(got, want.as_bytes());
                assert_eq!(a.next_u64(), b.next_u64());
            }
        }
    }

    /// Several words from one draw are still as likely as each other,
    /// whichever pick of the draw they are.
    #[test]
    fn every_word_is_about_as_likely_at_every_pick_of_a_draw() {
        let mut rng = Rng::new(&[42]);
        let mut bits = WordBits::new();
        let draws = 26_000;
        let mut counts = [[0u32; WORDS.len()]; WORDS_PER_DRAW as usize];
        for _ in 0..draws {
            for pick in &mut counts {
                pick[bits.pick_word(&mut rng)] += 1;
            }
        }
        // 1,000 expected per cell; 5 standard deviations is about 160.
        for (i, pick) in counts.iter().enumerate() {
            for (w, n) in pick.iter().enumerate() {
                assert!((840..=1160).contains(n), "pick {i}, word {}: {n}", WORDS[w]);
            }
        }
    }

    /// What makes generated text `Scalar::Plain`.
    #[test]
    fn the_word_lists_need_no_json_escape() {
        for list in [FIRST, LAST, WORDS, NOUNS, CITIES, COUNTRIES] {
            for w in list {
                assert!(!needs_escape(w.as_bytes()), "{w}");
            }
        }
    }
}
