//! Damaged inputs made here, one test per kind of damage the issue names:
//! each message has the file and the byte offset or line, the documents
//! before and after the damage are still delivered where possible, and
//! nothing panics.

use super::shared::read_all;
use crate::support::TempDir;
use squill::inputs::dump::InputFormat;
use std::io::Write;
use std::path::PathBuf;

/// `{"i": n}` as BSON (12 bytes).
fn doc(n: i32) -> Vec<u8> {
    let mut d = vec![12, 0, 0, 0, 0x10, b'i', 0];
    d.extend_from_slice(&n.to_le_bytes());
    d.push(0);
    d
}

/// `{"s": text}` as BSON, the string bytes taken as given.
fn string_doc(text: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, b's', 0];
    body.extend(((text.len() + 1) as i32).to_le_bytes());
    body.extend(text);
    body.push(0);
    let mut d = ((body.len() + 5) as i32).to_le_bytes().to_vec();
    d.extend(body);
    d.push(0);
    d
}

fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Reads one file; returns the documents' `i` values (or 0) and the errors.
fn read(path: PathBuf) -> (usize, Vec<String>) {
    let r = read_all(&[path], InputFormat::Auto, false);
    (r.counts.values().sum::<u64>() as usize, r.errors)
}

#[test]
fn a_length_that_lies_is_reported_and_reading_resumes() {
    let t = TempDir::new("lying-length");
    let mut bytes = [doc(1), doc(2), doc(3), doc(4)].concat();
    bytes[12] = 200; // doc 2 claims 200 bytes
    let (docs, errors) = read(write(&t, "c.bson", &bytes));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("c.bson: byte 12: stream ends inside a document (declared 200 bytes"),
        "{errors:?}"
    );
    assert!(errors[0].contains("resumed at byte 24"), "{errors:?}");
    assert_eq!(docs, 3);
}

#[test]
fn a_missing_terminator_is_reported_and_reading_resumes() {
    let t = TempDir::new("terminator");
    let mut bytes = [doc(1), doc(2), doc(3)].concat();
    bytes[23] = 9;
    let (docs, errors) = read(write(&t, "c.bson", &bytes));
    assert!(errors[0].contains("c.bson: byte 12: document of declared length 12 is not terminated by a NUL byte; resumed at byte 24"), "{errors:?}");
    assert_eq!(docs, 2);
}

#[test]
fn an_unknown_type_byte_fails_that_document_only() {
    let t = TempDir::new("type-byte");
    let mut bytes = [doc(1), doc(2), doc(3)].concat();
    bytes[16] = 0x42;
    let (docs, errors) = read(write(&t, "c.bson", &bytes));
    assert_eq!(
        errors,
        [format!(
            "{}: byte 16: invalid BSON document: unknown element type byte 0x42",
            t.path().join("c.bson").display()
        )]
    );
    assert_eq!(
        docs, 3,
        "all three are delivered; the walk rejects the second"
    );
}

#[test]
fn invalid_utf8_names_the_byte() {
    let t = TempDir::new("utf8");
    let bytes = [doc(1), string_doc(b"ok\xFFno"), doc(3)].concat();
    let (_, errors) = read(write(&t, "c.bson", &bytes));
    assert_eq!(errors.len(), 1, "{errors:?}");
    // doc 2 starts at 12; its string bytes start at 12 + 4 + 3 + 4 = 23; the bad byte is 2 further.
    assert!(
        errors[0]
            .ends_with("c.bson: byte 25: invalid BSON document: invalid UTF-8 in a key or string"),
        "{errors:?}"
    );
}

#[test]
fn a_document_over_16_mib_is_refused_and_reading_resumes() {
    let t = TempDir::new("huge");
    let big = string_doc(&vec![b'x'; 16 * 1024 * 1024 + 10]);
    let bytes = [doc(1), big, doc(3)].concat();
    let (docs, errors) = read(write(&t, "c.bson", &bytes));
    assert!(
        errors[0].contains("c.bson: byte 12: document length 16777239 is over the 16 MiB limit"),
        "{errors:?}"
    );
    assert!(
        errors[0].contains(&format!("resumed at byte {}", 12 + 16 * 1024 * 1024 + 23)),
        "{errors:?}"
    );
    assert_eq!(docs, 2);
}

#[test]
fn nesting_over_100_levels_is_refused() {
    fn nest(levels: u32) -> Vec<u8> {
        if levels == 0 {
            return vec![5, 0, 0, 0, 0];
        }
        let body = [&[0x03, b'a', 0][..], &nest(levels - 1), &[0]].concat();
        [&((body.len() + 4) as i32).to_le_bytes()[..], &body].concat()
    }
    let t = TempDir::new("deep");
    let bytes = [doc(1), nest(150), doc(3)].concat();
    let (docs, errors) = read(write(&t, "c.bson", &bytes));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("c.bson: byte ") && errors[0].contains("nesting deeper than 100 levels"),
        "{errors:?}"
    );
    assert_eq!(docs, 3);
}

#[test]
fn a_malformed_json_line_names_line_and_column_and_reading_goes_on() {
    let t = TempDir::new("json-line");
    let text = "{\"a\": 1}\n{\"a\": 2, \"b\": }\n{\"a\": {\"$oid\": \"nothex\"}}\n{\"a\": 4}\n";
    let (docs, errors) = read(write(&t, "c.json", text.as_bytes()));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("c.json:2:15: expected a JSON value; resumed at line 3"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("c.json:3:16: $oid `nothex` is not 24 hex digits; resumed at line 4"),
        "{errors:?}"
    );
    assert_eq!(docs, 2);
}

#[test]
fn a_json_array_cut_short_is_reported() {
    let t = TempDir::new("json-array");
    let text = "[\n{\"a\": 1},\n{\"a\": 2},\n{\"a\": 3";
    let (docs, errors) = read(write(&t, "c.json", text.as_bytes()));
    assert_eq!(docs, 2);
    assert!(
        errors[0].contains("c.json:4:1: the input ends inside a document"),
        "{errors:?}"
    );
}

#[test]
fn unreadable_and_empty_files_are_reported() {
    let t = TempDir::new("unreadable");
    let empty = write(&t, "empty.bson", b"");
    let missing = t.path().join("missing.bson");
    let dir = t.path().join("nothing-here");
    std::fs::create_dir(&dir).unwrap();
    let r = read_all(&[empty, missing, dir], InputFormat::Auto, false);
    assert_eq!(r.errors.len(), 3, "{:?}", r.errors);
    assert!(r.errors[0].ends_with("empty.bson: file is empty"));
    assert!(r.errors[1].contains("missing.bson: cannot read: No such file"));
    assert!(r.errors[2].ends_with("nothing-here: no input files found in the directory"));
}

#[test]
fn a_gzip_stream_that_ends_early_keeps_what_came_before() {
    let t = TempDir::new("gzip-cut");
    let docs: Vec<u8> = (0..5000).flat_map(doc).collect();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&docs).unwrap();
    let gz = e.finish().unwrap();
    let (n, errors) = read(write(&t, "c.bson.gz", &gz[..gz.len() * 3 / 4]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("c.bson.gz: byte ")
            && errors[0].contains("gzip: compressed stream is damaged or ends early"),
        "{errors:?}"
    );
    assert!(n > 1000 && n < 5000, "{n}");
}

#[test]
fn random_bytes_forced_as_bson_never_panic() {
    let t = TempDir::new("random");
    // A fixed pseudo-random sequence (xorshift) with one real document in the middle.
    let mut x: u32 = 0x9E37_79B9;
    let mut bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    bytes.splice(2000..2000, [doc(7), doc(8)].concat());
    let r = read_all(&[write(&t, "r.bson", &bytes)], InputFormat::Bson, false);
    assert!(!r.errors.is_empty());
    assert!(
        r.errors.iter().all(|e| e.contains("r.bson: byte ")),
        "{:?}",
        r.errors
    );
    assert!(
        r.counts.values().sum::<u64>() >= 2,
        "the two real documents are found: {:?}",
        r.counts
    );
}
