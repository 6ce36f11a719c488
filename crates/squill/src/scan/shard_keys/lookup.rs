//! The wanted fields' values in one document, found by their dotted paths
//! without walking the rest: the top level is read once for all of them,
//! and at each level the elements' keys are compared with the paths' next
//! parts and every other element is skipped by its size, so a document's
//! sub-documents and arrays off the paths are never entered.
//! The full walk (`extract::Reader` over `inputs::bson::walk`) visits and
//! validates every element; it cost about 40 % of `scan --shard-keys`
//! (BENCHMARKS.md, issue 42). This reader is only used on a file the scan
//! read without an error, so every document in it has passed that full
//! validation once already: skipping what is off the path loses no check.
//! Anything it does not decode (a rare type, a length out of bounds) is
//! `Unsure`, and the caller walks that document fully instead.

use crate::inputs::bson::{Scalar, Text};

/// What the full walk records for one field in one document.
#[derive(Debug, Default, PartialEq)]
pub struct Hit<'a> {
    /// The scalar at the path; the last one when a key repeats.
    pub value: Option<Scalar<'a>>,
    /// The field is an array, or the path passes through one.
    pub array: bool,
    /// The field holds a sub-document.
    pub document: bool,
}

/// The document needs the full walk.
#[derive(Debug, PartialEq)]
pub struct Unsure;

/// Finds every path of `paths` (dotted paths split at their dots, none
/// empty) in `doc`, `hits[i]` for `paths[i]`, in one pass over the
/// document's top level: looking each path up on its own read the top
/// level's keys and sizes once per path (BENCHMARKS.md, issue 42). Each
/// path still sees its own elements in document order, so a hit is what
/// `paths[i]` looked up alone would give.
pub fn find_all<'a>(
    doc: &'a [u8],
    paths: &[Vec<String>],
    hits: &mut [Hit<'a>],
) -> Result<(), Unsure> {
    if paths.iter().any(Vec::is_empty) {
        return Err(Unsure);
    }
    elements(doc, 0, |key, ty, at, size| {
        for (parts, hit) in paths.iter().zip(hits.iter_mut()) {
            if key == parts[0].as_bytes() {
                element(doc, ty, at, size, &parts[1..], hit)?;
            }
        }
        Ok(())
    })
}

/// Finds `parts` (not empty) in the sub-document at `start` of `b`.
fn container<'a>(
    b: &'a [u8],
    start: usize,
    parts: &[String],
    hit: &mut Hit<'a>,
) -> Result<(), Unsure> {
    let (want, rest) = parts.split_first().ok_or(Unsure)?;
    let want = want.as_bytes();
    elements(b, start, |key, ty, at, size| {
        if key == want {
            element(b, ty, at, size, rest, hit)?;
        }
        Ok(())
    })
}

/// What an element whose key is the path's next part gives `hit`; `rest`
/// is the path after that part.
fn element<'a>(
    b: &'a [u8],
    ty: u8,
    at: usize,
    size: usize,
    rest: &[String],
    hit: &mut Hit<'a>,
) -> Result<(), Unsure> {
    match ty {
        0x04 => hit.array = true,
        0x03 if rest.is_empty() => hit.document = true,
        0x03 => container(b, at, rest, hit)?,
        _ if rest.is_empty() => hit.value = Some(scalar(b, ty, at, size)?),
        _ => {}
    }
    Ok(())
}

/// Calls `each(key, type, value's offset, value's size)` on every element
/// of the document at `start` of `b`, in order, skipping each value by its
/// size; unsure on a length out of bounds or a type it cannot size.
fn elements<'a>(
    b: &'a [u8],
    start: usize,
    mut each: impl FnMut(&'a [u8], u8, usize, usize) -> Result<(), Unsure>,
) -> Result<(), Unsure> {
    let len = i32_at(b, start)?;
    if len < 5 {
        return Err(Unsure);
    }
    let end = (start + len as usize).checked_sub(1).ok_or(Unsure)?;
    if end >= b.len() {
        return Err(Unsure);
    }
    let mut pos = start + 4;
    while pos < end {
        let ty = b[pos];
        let key_at = pos + 1;
        let nul = b[key_at..end].iter().position(|&x| x == 0).ok_or(Unsure)?;
        let at = key_at + nul + 1;
        let size = value_size(b, ty, at)?;
        if at + size > end {
            return Err(Unsure);
        }
        each(&b[key_at..key_at + nul], ty, at, size)?;
        pos = at + size;
    }
    if pos != end {
        return Err(Unsure);
    }
    Ok(())
}

fn i32_at(b: &[u8], at: usize) -> Result<i32, Unsure> {
    let raw = b.get(at..at + 4).ok_or(Unsure)?;
    Ok(i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]))
}

fn len_at(b: &[u8], at: usize) -> Result<usize, Unsure> {
    usize::try_from(i32_at(b, at)?).map_err(|_| Unsure)
}

/// The encoded size of a value of type `ty` at `at`.
fn value_size(b: &[u8], ty: u8, at: usize) -> Result<usize, Unsure> {
    Ok(match ty {
        0x06 | 0x0A | 0xFF | 0x7F => 0,
        0x08 => 1,
        0x10 => 4,
        0x01 | 0x09 | 0x11 | 0x12 => 8,
        0x07 => 12,
        0x13 => 16,
        0x02 | 0x0D | 0x0E => 4 + len_at(b, at)?,
        0x03 | 0x04 | 0x0F => len_at(b, at)?,
        0x05 => 5 + len_at(b, at)?,
        0x0C => 4 + len_at(b, at)? + 12,
        0x0B => {
            let tail = b.get(at..).ok_or(Unsure)?;
            let mut nuls = tail.iter().enumerate().filter(|(_, x)| **x == 0);
            nuls.nth(1).map(|(i, _)| i + 1).ok_or(Unsure)?
        }
        _ => return Err(Unsure),
    })
}

/// The scalar of type `ty` at `at` (`size` bytes), as the walk decodes it;
/// the types a shard key rarely holds (binary, regular expressions, code,
/// pointers) are left to the walk.
fn scalar(b: &[u8], ty: u8, at: usize, size: usize) -> Result<Scalar<'_>, Unsure> {
    let v = &b[at..at + size];
    let le8 = |v: &[u8]| -> [u8; 8] { v[..8].try_into().unwrap_or_default() };
    Ok(match ty {
        0x01 => Scalar::Double(f64::from_le_bytes(le8(v))),
        0x02 | 0x0E => {
            // Length, bytes, NUL: the walk checked it once already.
            let bytes = v.get(4..size - 1).ok_or(Unsure)?;
            let text = if bytes.is_ascii() {
                Text::from_ascii(bytes)
            } else {
                Text::from(std::str::from_utf8(bytes).map_err(|_| Unsure)?)
            };
            if ty == 0x02 {
                Scalar::String(text)
            } else {
                Scalar::Symbol(std::str::from_utf8(bytes).map_err(|_| Unsure)?)
            }
        }
        0x06 => Scalar::Undefined,
        0x07 => Scalar::ObjectId(v.try_into().map_err(|_| Unsure)?),
        0x08 => match v[0] {
            0 => Scalar::Boolean(false),
            1 => Scalar::Boolean(true),
            _ => return Err(Unsure),
        },
        0x09 => Scalar::DateTime(i64::from_le_bytes(le8(v))),
        0x0A => Scalar::Null,
        0x10 => Scalar::Int32(i32::from_le_bytes([v[0], v[1], v[2], v[3]])),
        0x11 => Scalar::Timestamp {
            increment: u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
            time: u32::from_le_bytes([v[4], v[5], v[6], v[7]]),
        },
        0x12 => Scalar::Int64(i64::from_le_bytes(le8(v))),
        0x13 => Scalar::Decimal128(v.try_into().map_err(|_| Unsure)?),
        0xFF => Scalar::MinKey,
        0x7F => Scalar::MaxKey,
        _ => return Err(Unsure),
    })
}
