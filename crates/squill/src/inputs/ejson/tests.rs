//! Transcoder cases the BSON corpus does not cover: mongoexport's legacy
//! forms, plain JSON numbers, escapes, and what an incomplete input says.

use super::{EjsonError, Options, transcode_document};
use crate::inputs::bson::to_canonical_extjson;
use serde_json::json;

fn ejson(text: &str) -> serde_json::Value {
    let mut out = Vec::new();
    let n = transcode_document(text.as_bytes(), &mut out, Options::default()).unwrap();
    assert!(text[n..].trim().is_empty());
    to_canonical_extjson(&out).unwrap()
}

fn fails(text: &str, options: Options) -> EjsonError {
    let mut out = Vec::new();
    let e = transcode_document(text.as_bytes(), &mut out, options).unwrap_err();
    assert!(out.is_empty(), "nothing is left in the buffer on failure");
    e
}

#[test]
fn reads_legacy_mongoexport_forms() {
    assert_eq!(
        ejson(r#"{"d": {"$date": 1356351330501}, "s": {"$date": "2009-04-01T00:00:00.000-0700"}}"#),
        json!({"d": {"$date": {"$numberLong": "1356351330501"}}, "s": {"$date": {"$numberLong": "1238569200000"}}})
    );
    assert_eq!(
        ejson(
            r#"{"b": {"$binary": "VEVTVA==", "$type": "00"}, "r": {"$regex": "^a", "$options": "mi"}}"#
        ),
        json!({"b": {"$binary": {"base64": "VEVTVA==", "subType": "00"}}, "r": {"$regularExpression": {"pattern": "^a", "options": "im"}}})
    );
    assert_eq!(
        ejson(
            r#"{"t": {"$timestamp": {"t": 1415991783, "i": 1}}, "u": {"$undefined": true}, "m": {"$minKey": 1}, "x": {"$maxKey": 1}}"#
        ),
        json!({"t": {"$timestamp": {"t": 1415991783, "i": 1}}, "u": {"$undefined": true}, "m": {"$minKey": 1}, "x": {"$maxKey": 1}})
    );
    // Strict mode refuses the number form of $date, as Extended JSON v2 does.
    assert!(
        fails(r#"{"d": {"$date": 42}}"#, Options { legacy: false })
            .message
            .contains("$date")
    );
}

#[test]
fn plain_numbers_take_the_narrowest_type() {
    assert_eq!(
        ejson(r#"{"a": 1, "b": -2147483649, "c": 1.5, "d": 1e2, "e": 99999999999999999999}"#),
        json!({"a": {"$numberInt": "1"}, "b": {"$numberLong": "-2147483649"}, "c": {"$numberDouble": "1.5"},
               "d": {"$numberDouble": "100.0"}, "e": {"$numberDouble": "1.0E+20"}})
    );
}

#[test]
fn unescapes_strings_and_keys() {
    assert_eq!(
        ejson(
            r#"{"k\u00e9y": "a\"b\\c\n\ud83d\ude00", "arr": [true, null, {"$oid": "5ca4bbc7a2dd94ee5816238c"}]}"#
        ),
        json!({"kéy": "a\"b\\c\n😀", "arr": [true, null, {"$oid": "5ca4bbc7a2dd94ee5816238c"}]})
    );
}

#[test]
fn reports_errors_with_offsets_and_incompleteness() {
    let e = fails(r#"{"a": 1, "b": tru"#, Options::default());
    assert!(e.incomplete, "{e:?}");
    let e = fails(r#"{"a": 1, "b": trux}"#, Options::default());
    assert!(!e.incomplete);
    assert_eq!(e.offset, 14);
    let e = fails("{\"a\": \"x\u{1}\"}", Options::default());
    assert!(e.message.contains("control character"), "{e:?}");
    let e = fails(r#"{"a\u0000": 1}"#, Options::default());
    assert!(e.message.contains("NUL"), "{e:?}");
    let e = fails(r#"{"a": 01}"#, Options::default());
    assert!(e.message.contains("leading zero"), "{e:?}");
    let e = fails(r#"{"a": "\ud800"}"#, Options::default());
    assert!(e.message.contains("surrogate"), "{e:?}");
    let e = fails("[1]", Options::default());
    assert!(e.message.contains("expected `{`"), "{e:?}");
}

#[test]
fn refuses_nesting_over_100_levels_without_overflowing_the_stack() {
    let deep = format!("{}{}", r#"{"a":"#.repeat(100_000), "1");
    let e = fails(
        &format!("{deep}{}", "}".repeat(100_000)),
        Options::default(),
    );
    assert!(e.message.contains("nesting deeper than 100"), "{e:?}");
    let deep_dollar = format!(
        "{{\"x\": {}1{}}}",
        r#"{"$a":"#.repeat(100_000),
        "}".repeat(100_000)
    );
    let e = fails(&deep_dollar, Options::default());
    assert!(e.message.contains("nesting deeper than 100"), "{e:?}");
    let ok = format!("{}1{}", r#"{"a":"#.repeat(100), "}".repeat(100));
    assert!(transcode_document(ok.as_bytes(), &mut Vec::new(), Options::default()).is_ok());
}

/// Issue 23: `{"$date": 1e400}` was taken as a date (infinity saturated to
/// the largest 64-bit number of milliseconds). Out-of-range numbers fail,
/// with the offset; a fractional number of milliseconds in range still reads.
#[test]
fn a_date_out_of_range_is_refused() {
    let legacy = Options { legacy: true };
    for text in [
        r#"{"d": {"$date": 1e400}}"#,
        r#"{"d": {"$date": -1e400}}"#,
        r#"{"d": {"$date": 1e19}}"#,
    ] {
        let e = fails(text, legacy);
        assert!(e.message.contains("in range"), "{text}: {}", e.message);
    }
    assert_eq!(
        ejson(r#"{"d": {"$date": 1.5e3}}"#),
        json!({"d": {"$date": {"$numberLong": "1500"}}})
    );
}
