//! Every case of ../shared/data/mongo/bson-corpus: valid BSON walks and renders
//! to its canonical Extended JSON, and its Extended JSON transcodes back to the
//! canonical bytes; decodeErrors are rejected by the walker; parseErrors are
//! rejected by the transcoder.

use crate::support::shared_data;
use serde_json::Value;
use squill::inputs::bson::{to_canonical_extjson, walk};
use squill::inputs::ejson::{Options, transcode_document};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

struct Nothing;
impl squill::inputs::bson::Visitor for Nothing {
    fn enter(&mut self, _: &str, _: squill::inputs::bson::Container, _: u32, _: u32) {}
    fn leave(&mut self, _: squill::inputs::bson::Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: squill::inputs::bson::Scalar<'_>, _: u32, _: u32) {}
}

/// Doubles compare by value (their text has many spellings); all else exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if let (Some(Value::String(p)), Some(Value::String(q))) =
                (x.get("$numberDouble"), y.get("$numberDouble"))
            {
                let (p, q) = (parse_double(p), parse_double(q));
                return p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
            }
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}

fn parse_double(s: &str) -> f64 {
    match s {
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ => s.parse().unwrap_or(f64::NAN),
    }
}

/// Numbers of any width compare as numbers (relaxed Extended JSON drops the width).
fn relax(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.len() == 1 => {
            let (k, inner) = m.iter().next().expect("one");
            match (k.as_str(), inner) {
                ("$numberInt" | "$numberLong" | "$numberDouble", Value::String(s)) => {
                    serde_json::Number::from_f64(parse_double(s))
                        .map_or_else(|| v.clone(), Value::Number)
                }
                _ => Value::Object(m.iter().map(|(k, v)| (k.clone(), relax(v))).collect()),
            }
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), relax(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(relax).collect()),
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| v.clone(), Value::Number),
        other => other.clone(),
    }
}

fn transcode(text: &str, options: Options) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let n = transcode_document(text.as_bytes(), &mut out, options).map_err(|e| e.to_string())?;
    if !text[n..].trim().is_empty() {
        return Err(format!("text after the document: {:?}", &text[n..]));
    }
    Ok(out)
}

#[derive(Default, Debug)]
struct Counts {
    valid: usize,
    decode_errors: usize,
    parse_errors: usize,
    parse_errors_not_applicable: usize,
}

#[test]
fn bson_corpus_passes_in_full() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("mongo/bson-corpus");
    let strict = Options { legacy: false };
    let mut failures = Vec::new();
    let mut counts = Counts::default();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    for file in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let suite: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let bson_type = suite["bson_type"].as_str().unwrap_or("");
        for case in suite["valid"].as_array().into_iter().flatten() {
            counts.valid += 1;
            let what = format!("{name}: {}", case["description"].as_str().unwrap_or(""));
            let cb = unhex(case["canonical_bson"].as_str().unwrap());
            let cej: Value =
                serde_json::from_str(case["canonical_extjson"].as_str().unwrap()).unwrap();
            let lossy = case["lossy"].as_bool().unwrap_or(false);
            // BSON → canonical Extended JSON.
            match to_canonical_extjson(&cb) {
                Ok(v) if same(&v, &cej) => {}
                Ok(v) => failures.push(format!("{what}: rendered {v} expected {cej}")),
                Err(e) => failures.push(format!("{what}: walk rejected canonical_bson: {e}")),
            }
            if let Some(db) = case["degenerate_bson"].as_str() {
                match to_canonical_extjson(&unhex(db)) {
                    Ok(v) if same(&v, &cej) => {}
                    other => failures.push(format!("{what}: degenerate_bson gave {other:?}")),
                }
            }
            // Extended JSON → BSON.
            let mut texts = vec![("canonical", case["canonical_extjson"].as_str().unwrap())];
            if let Some(d) = case["degenerate_extjson"].as_str() {
                texts.push(("degenerate", d));
            }
            for (kind, text) in texts {
                match transcode(text, strict) {
                    Ok(b) if b == cb || lossy => {}
                    Ok(b) => {
                        failures.push(format!("{what}: {kind}_extjson transcoded to {b:02X?}"))
                    }
                    Err(e) => failures.push(format!("{what}: {kind}_extjson rejected: {e}")),
                }
            }
            if let Some(r) = case["relaxed_extjson"].as_str() {
                match transcode(r, strict).map(|b| to_canonical_extjson(&b)) {
                    Ok(Ok(v)) if relax(&v) == relax(&cej) || lossy => {}
                    other => failures.push(format!("{what}: relaxed_extjson gave {other:?}")),
                }
            }
        }
        for case in suite["decodeErrors"].as_array().into_iter().flatten() {
            counts.decode_errors += 1;
            let bytes = unhex(case["bson"].as_str().unwrap());
            if walk(&bytes, &mut Nothing).is_ok() {
                failures.push(format!(
                    "{name}: decodeError accepted: {}",
                    case["description"]
                ));
            }
        }
        for case in suite["parseErrors"].as_array().into_iter().flatten() {
            counts.parse_errors += 1;
            let string = case["string"].as_str().unwrap();
            let text = match bson_type {
                // The decimal suites give bare strings for $numberDecimal.
                "0x13" => format!(r#"{{"d": {{"$numberDecimal": {}}}}}"#, Value::from(string)),
                _ => string.to_string(),
            };
            if transcode(&text, strict).is_ok() {
                failures.push(format!(
                    "{name}: parseError accepted: {} {text}",
                    case["description"]
                ));
            }
        }
    }
    eprintln!("bson-corpus: {counts:?}");
    assert!(counts.valid > 700, "{counts:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let _ = counts.parse_errors_not_applicable;
}
