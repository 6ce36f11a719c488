//! Extended JSON type wrappers (`{"$oid": …}`, `{"$date": …}`, …): what each
//! means in BSON, and the small tree used for objects whose first key starts
//! with `$` (rare outside wrappers, and wrappers are small).

use super::bson_framing::{finish_len, push_index_key};
use super::{Options, date, decimal};
use crate::inputs::bson::MAX_DEPTH;
use std::borrow::Cow;

/// A JSON value collected under a `$` object. Offsets point into the input.
#[derive(Debug)]
pub(crate) enum J<'a> {
    Null,
    Bool(bool),
    Num(usize, &'a str),
    Str(Cow<'a, str>),
    Arr(usize, Vec<J<'a>>),
    Obj(usize, Vec<(Cow<'a, str>, J<'a>)>),
}

type E = (usize, String);

/// A plain JSON number: integers as int32 or int64 when they fit, else double.
pub(crate) fn emit_number(text: &str, out: &mut Vec<u8>) -> Result<u8, String> {
    if !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
        && let Ok(v) = text.parse::<i64>()
    {
        if let Ok(v) = i32::try_from(v) {
            out.extend_from_slice(&v.to_le_bytes());
            return Ok(0x10);
        }
        out.extend_from_slice(&v.to_le_bytes());
        return Ok(0x12);
    }
    let v: f64 = text
        .parse()
        .map_err(|_| format!("invalid number `{text}`"))?;
    out.extend_from_slice(&v.to_le_bytes());
    Ok(0x01)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn put_cstr(out: &mut Vec<u8>, s: &str, what: &str) -> Result<(), String> {
    if s.contains('\0') {
        return Err(format!("{what} contains a NUL character"));
    }
    out.extend_from_slice(s.as_bytes());
    out.push(0);
    Ok(())
}

fn oid(s: &str) -> Result<[u8; 12], String> {
    let b = s.as_bytes();
    if b.len() != 24 {
        return Err(format!("$oid `{s}` is not 24 hex digits"));
    }
    let mut id = [0u8; 12];
    for (k, pair) in b.chunks(2).enumerate() {
        let hex = std::str::from_utf8(pair).map_err(|_| "bad $oid".to_string())?;
        id[k] =
            u8::from_str_radix(hex, 16).map_err(|_| format!("$oid `{s}` is not 24 hex digits"))?;
    }
    Ok(id)
}

fn int_text(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn number_double(s: &str) -> Result<f64, String> {
    match s {
        "Infinity" => return Ok(f64::INFINITY),
        "-Infinity" => return Ok(f64::NEG_INFINITY),
        "NaN" => return Ok(f64::NAN),
        _ => {}
    }
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    if !ok {
        return Err(format!("$numberDouble `{s}` is not a number"));
    }
    s.parse()
        .map_err(|_| format!("$numberDouble `{s}` is not a number"))
}

fn binary(out: &mut Vec<u8>, subtype: u8, data: &[u8]) {
    if subtype == 2 {
        out.extend_from_slice(&((data.len() + 4) as i32).to_le_bytes());
        out.push(2);
        out.extend_from_slice(&(data.len() as i32).to_le_bytes());
    } else {
        out.extend_from_slice(&(data.len() as i32).to_le_bytes());
        out.push(subtype);
    }
    out.extend_from_slice(data);
}

fn subtype(s: &str) -> Result<u8, String> {
    if s.is_empty() || s.len() > 2 {
        return Err(format!("binary subType `{s}` is not one or two hex digits"));
    }
    u8::from_str_radix(s, 16).map_err(|_| format!("binary subType `{s}` is not hex"))
}

fn uuid(s: &str) -> Result<[u8; 16], String> {
    let b = s.as_bytes();
    let bad = || format!("$uuid `{s}` is not a UUID");
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&k| b[k] != b'-') {
        return Err(bad());
    }
    let hex: Vec<u8> = b.iter().copied().filter(|&c| c != b'-').collect();
    if hex.len() != 32 {
        return Err(bad());
    }
    let mut out = [0u8; 16];
    for (k, pair) in hex.chunks(2).enumerate() {
        let t = std::str::from_utf8(pair).map_err(|_| bad())?;
        out[k] = u8::from_str_radix(t, 16).map_err(|_| bad())?;
    }
    Ok(out)
}

/// Standard base64 with padding (what Extended JSON uses).
pub(crate) fn base64(s: &str) -> Result<Vec<u8>, String> {
    let bad = || format!("`{s}` is not valid base64");
    let b = s.as_bytes();
    if !b.len().is_multiple_of(4) {
        return Err(bad());
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (k, chunk) in b.chunks(4).enumerate() {
        let last = k == b.len() / 4 - 1;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return Err(bad());
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = n << 6 | val(c).ok_or_else(bad)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Ok(out)
}

/// The one-key, string-valued wrappers, straight from the tokens. `Ok(None)`
/// when the key is not one of them (the caller takes the slow path).
pub(crate) fn single_string(
    key: &str,
    value: &str,
    options: Options,
    out: &mut Vec<u8>,
) -> Result<Option<u8>, String> {
    Ok(Some(match key {
        "$oid" => {
            out.extend_from_slice(&oid(value)?);
            0x07
        }
        "$numberInt" => {
            let v: i32 = value
                .parse()
                .ok()
                .filter(|_| int_text(value))
                .ok_or_else(|| format!("$numberInt `{value}` is not a 32-bit integer"))?;
            out.extend_from_slice(&v.to_le_bytes());
            0x10
        }
        "$numberLong" => {
            let v: i64 = value
                .parse()
                .ok()
                .filter(|_| int_text(value))
                .ok_or_else(|| format!("$numberLong `{value}` is not a 64-bit integer"))?;
            out.extend_from_slice(&v.to_le_bytes());
            0x12
        }
        "$numberDouble" => {
            out.extend_from_slice(&number_double(value)?.to_le_bytes());
            0x01
        }
        "$numberDecimal" => {
            out.extend_from_slice(&decimal::parse(value)?);
            0x13
        }
        "$date" => {
            let ms = date::parse_iso(value)
                .or_else(|| options.legacy.then(|| value.parse::<i64>().ok()).flatten())
                .ok_or_else(|| format!("$date `{value}` is not an ISO-8601 date"))?;
            out.extend_from_slice(&ms.to_le_bytes());
            0x09
        }
        "$symbol" => {
            put_str(out, value);
            0x0E
        }
        "$code" => {
            put_str(out, value);
            0x0D
        }
        "$uuid" => {
            binary(out, 4, &uuid(value)?);
            0x05
        }
        "$regex" => {
            put_cstr(out, value, "a regular expression")?;
            out.push(0);
            0x0B
        }
        _ => return Ok(None),
    }))
}

fn get<'j, 'a>(entries: &'j [(Cow<'a, str>, J<'a>)], key: &str) -> Option<&'j J<'a>> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn str_of<'j>(j: Option<&'j J<'_>>) -> Option<&'j str> {
    match j {
        Some(J::Str(s)) => Some(s),
        _ => None,
    }
}

/// Keys that make an object a type wrapper (`$regex` only with a string value).
const WRAPPER_KEYS: [&str; 16] = [
    "$oid",
    "$symbol",
    "$numberInt",
    "$numberLong",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$code",
    "$timestamp",
    "$regularExpression",
    "$dbPointer",
    "$date",
    "$minKey",
    "$maxKey",
    "$undefined",
];

/// Emits a collected value; returns its type byte.
pub(crate) fn emit(j: &J<'_>, out: &mut Vec<u8>, options: Options, depth: u32) -> Result<u8, E> {
    match j {
        J::Null => Ok(0x0A),
        J::Bool(b) => {
            out.push(u8::from(*b));
            Ok(0x08)
        }
        J::Num(at, text) => emit_number(text, out).map_err(|m| (*at, m)),
        J::Str(s) => {
            put_str(out, s);
            Ok(0x02)
        }
        J::Arr(at, items) => {
            if depth >= MAX_DEPTH {
                return Err((*at, format!("nesting deeper than {MAX_DEPTH} levels")));
            }
            let start = out.len();
            out.extend_from_slice(&[0; 4]);
            for (k, item) in items.iter().enumerate() {
                let type_at = out.len();
                out.push(0);
                push_index_key(out, k as u32);
                out[type_at] = emit(item, out, options, depth + 1)?;
            }
            out.push(0);
            finish_len(out, start).map_err(|m| (*at, m))?;
            Ok(0x04)
        }
        J::Obj(at, entries) => {
            let wrapper = entries.iter().find(|(k, v)| {
                WRAPPER_KEYS.contains(&k.as_ref()) || (k == "$regex" && matches!(v, J::Str(_)))
            });
            match wrapper {
                Some((key, _)) => typed(key, entries, out, options, depth).map_err(|m| (*at, m)),
                None => {
                    document(entries, out, options, depth, *at)?;
                    Ok(0x03)
                }
            }
        }
    }
}

fn document(
    entries: &[(Cow<'_, str>, J<'_>)],
    out: &mut Vec<u8>,
    options: Options,
    depth: u32,
    at: usize,
) -> Result<(), E> {
    if depth >= MAX_DEPTH {
        return Err((at, format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (k, v) in entries {
        let type_at = out.len();
        out.push(0);
        put_cstr(out, k, "a key").map_err(|m| (at, m))?;
        out[type_at] = emit(v, out, options, depth + 1)?;
    }
    out.push(0);
    finish_len(out, start).map_err(|m| (at, m))
}

/// Exactly the keys `want` (in any order)?
fn keys_are(entries: &[(Cow<'_, str>, J<'_>)], want: &[&str]) -> bool {
    entries.len() == want.len() && want.iter().all(|w| entries.iter().any(|(k, _)| k == w))
}

fn u32_of(j: Option<&J<'_>>) -> Option<u32> {
    match j {
        Some(J::Num(_, t)) => t.parse().ok(),
        _ => None,
    }
}

fn typed(
    key: &str,
    entries: &[(Cow<'_, str>, J<'_>)],
    out: &mut Vec<u8>,
    options: Options,
    depth: u32,
) -> Result<u8, String> {
    let bad = |what: &str| format!("invalid {key}: {what}");
    let value = get(entries, key);
    let one = entries.len() == 1;
    match key {
        "$oid" | "$symbol" | "$numberInt" | "$numberLong" | "$numberDouble" | "$numberDecimal"
        | "$uuid" => {
            let (true, Some(s)) = (one, str_of(value)) else {
                return Err(bad("expected exactly one key with a string value"));
            };
            Ok(single_string(key, s, options, out)?.expect("known wrapper"))
        }
        "$binary" => match value {
            Some(J::Obj(_, inner)) if one => {
                if !keys_are(inner, &["base64", "subType"]) {
                    return Err(bad("expected {\"base64\": …, \"subType\": …}"));
                }
                let (Some(data), Some(sub)) =
                    (str_of(get(inner, "base64")), str_of(get(inner, "subType")))
                else {
                    return Err(bad("base64 and subType must be strings"));
                };
                binary(out, subtype(sub)?, &base64(data)?);
                Ok(0x05)
            }
            Some(J::Str(data)) if keys_are(entries, &["$binary", "$type"]) => {
                let sub = str_of(get(entries, "$type"))
                    .ok_or_else(|| bad("$type must be a hex string"))?;
                binary(out, subtype(sub)?, &base64(data)?);
                Ok(0x05)
            }
            _ => Err(bad(
                "expected {\"$binary\": {\"base64\": …, \"subType\": …}}",
            )),
        },
        "$code" => {
            let code = str_of(value).ok_or_else(|| bad("the code must be a string"))?;
            if one {
                put_str(out, code);
                return Ok(0x0D);
            }
            if !keys_are(entries, &["$code", "$scope"]) {
                return Err(bad("expected $code and $scope only"));
            }
            let Some(J::Obj(at, scope)) = get(entries, "$scope") else {
                return Err(bad("$scope must be a document"));
            };
            let start = out.len();
            out.extend_from_slice(&[0; 4]);
            put_str(out, code);
            document(scope, out, options, depth + 1, *at).map_err(|(_, m)| m)?;
            let total = (out.len() - start) as i32;
            out[start..start + 4].copy_from_slice(&total.to_le_bytes());
            Ok(0x0F)
        }
        "$timestamp" => {
            let Some(J::Obj(_, inner)) = value.filter(|_| one) else {
                return Err(bad("expected {\"$timestamp\": {\"t\": …, \"i\": …}}"));
            };
            if !keys_are(inner, &["t", "i"]) {
                return Err(bad("expected the keys t and i"));
            }
            let (Some(t), Some(i)) = (u32_of(get(inner, "t")), u32_of(get(inner, "i"))) else {
                return Err(bad("t and i must be unsigned 32-bit integers"));
            };
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&t.to_le_bytes());
            Ok(0x11)
        }
        "$regularExpression" => {
            let Some(J::Obj(_, inner)) = value.filter(|_| one) else {
                return Err(bad(
                    "expected {\"$regularExpression\": {\"pattern\": …, \"options\": …}}",
                ));
            };
            if !keys_are(inner, &["pattern", "options"]) {
                return Err(bad("expected the keys pattern and options"));
            }
            let (Some(p), Some(o)) = (str_of(get(inner, "pattern")), str_of(get(inner, "options")))
            else {
                return Err(bad("pattern and options must be strings"));
            };
            regex(out, p, o)?;
            Ok(0x0B)
        }
        "$regex" => {
            let p = str_of(value).unwrap_or_default();
            let o = match get(entries, "$options") {
                None if one => "",
                Some(J::Str(o)) if entries.len() == 2 => o,
                _ => return Err(bad("expected $regex and $options strings")),
            };
            regex(out, p, o)?;
            Ok(0x0B)
        }
        "$dbPointer" => {
            let Some(J::Obj(_, inner)) = value.filter(|_| one) else {
                return Err(bad("expected {\"$dbPointer\": {\"$ref\": …, \"$id\": …}}"));
            };
            if !keys_are(inner, &["$ref", "$id"]) {
                return Err(bad("expected the keys $ref and $id"));
            }
            let ns = str_of(get(inner, "$ref")).ok_or_else(|| bad("$ref must be a string"))?;
            let Some(J::Obj(_, id)) = get(inner, "$id") else {
                return Err(bad("$id must be an $oid"));
            };
            let id = match id.as_slice() {
                [(k, J::Str(s))] if k == "$oid" => oid(s)?,
                _ => return Err(bad("$id must be an $oid")),
            };
            put_str(out, ns);
            out.extend_from_slice(&id);
            Ok(0x0C)
        }
        "$date" => {
            if !one {
                return Err(bad("expected exactly one key"));
            }
            let ms = match value {
                Some(J::Str(s)) => {
                    return Ok(single_string("$date", s, options, out)?.expect("known"));
                }
                Some(J::Obj(_, inner)) => match inner.as_slice() {
                    [(k, J::Str(s))] if k == "$numberLong" && int_text(s) => s
                        .parse::<i64>()
                        .map_err(|_| bad("$numberLong out of range"))?,
                    _ => return Err(bad("expected {\"$numberLong\": \"…\"}")),
                },
                // `1e400` parses as infinity and `as i64` would saturate it to
                // a date 292 million years away: only finite values in range.
                Some(J::Num(_, t)) if options.legacy => t
                    .parse::<i64>()
                    .ok()
                    .or_else(|| {
                        t.parse::<f64>()
                            .ok()
                            .filter(|f| f.is_finite() && f.abs() < 9.2e18)
                            .map(|f| f as i64)
                    })
                    .ok_or_else(|| bad("not a number of milliseconds in range"))?,
                _ => return Err(bad("expected an ISO-8601 string or {\"$numberLong\": …}")),
            };
            out.extend_from_slice(&ms.to_le_bytes());
            Ok(0x09)
        }
        "$minKey" | "$maxKey" => match value {
            Some(J::Num(_, "1")) if one => Ok(if key == "$minKey" { 0xFF } else { 0x7F }),
            _ => Err(bad("expected the value 1")),
        },
        "$undefined" => match value {
            Some(J::Bool(true)) if one => Ok(0x06),
            _ => Err(bad("expected the value true")),
        },
        _ => Err(bad("unknown wrapper")),
    }
}

fn regex(out: &mut Vec<u8>, pattern: &str, options: &str) -> Result<(), String> {
    put_cstr(out, pattern, "a regular expression")?;
    let mut opts: Vec<char> = options.chars().collect();
    opts.sort_unstable();
    put_cstr(
        out,
        &opts.into_iter().collect::<String>(),
        "regular expression options",
    )
}
