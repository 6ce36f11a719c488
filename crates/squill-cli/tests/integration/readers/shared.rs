//! The shared real data read end to end: every document delivered walks
//! cleanly, and the counts and errors are the ones the files hold.

use crate::support::shared_data;
use squill::inputs::bson::{Container, Scalar, Visitor, walk};
use squill::inputs::dump::{Event, InputError, InputFormat, Inputs, open};
use std::collections::BTreeMap;
use std::path::PathBuf;

struct Nothing;
impl Visitor for Nothing {
    fn enter(&mut self, _: &str, _: Container, _: u32, _: u32) {}
    fn leave(&mut self, _: Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: Scalar<'_>, _: u32, _: u32) {}
}

/// What reading everything gave.
pub(crate) struct Read {
    pub inputs: Inputs,
    /// "db.collection" → documents.
    pub counts: BTreeMap<String, u64>,
    /// Documents as delivered, per "db.collection" (only when `keep`).
    pub docs: BTreeMap<String, Vec<Vec<u8>>>,
    /// Open errors, read errors and walk failures, as displayed.
    pub errors: Vec<String>,
}

pub(crate) fn read_all(paths: &[PathBuf], format: InputFormat, keep: bool) -> Read {
    let inputs = open(paths, format);
    let mut counts = BTreeMap::new();
    let mut docs: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    let mut errors: Vec<String> = inputs.errors.iter().map(ToString::to_string).collect();
    for c in &inputs.collections {
        counts.entry(name(c)).or_insert(0);
    }
    for source in &inputs.sources {
        let result = source.read(&mut |event| match event {
            Event::Document {
                collection,
                bytes,
                position,
            } => {
                let n = name(&inputs.collections[collection]);
                if let Err(e) = walk(bytes, &mut Nothing) {
                    errors.push(
                        InputError::invalid_document(source.path(), position, &e).to_string(),
                    );
                }
                *counts.entry(n.clone()).or_insert(0) += 1;
                if keep {
                    docs.entry(n).or_default().push(bytes.to_vec());
                }
            }
            Event::Error(e) => errors.push(e.to_string()),
        });
        if let Err(e) = result {
            errors.push(e.to_string());
        }
    }
    Read {
        inputs,
        counts,
        docs,
        errors,
    }
}

fn name(c: &squill::inputs::dump::CollectionInfo) -> String {
    format!("{}.{}", c.database.as_deref().unwrap_or("-"), c.name)
}

#[test]
fn atlas_sample_dump_reads_cleanly_with_indexes() {
    let Some(data) = shared_data() else { return };
    let r = read_all(
        &[data.join("mongo/atlas-sample-dump")],
        InputFormat::Auto,
        false,
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.counts["sample_analytics.accounts"], 1746);
    assert_eq!(r.counts["sample_mflix.theaters"], 1564);
    let movies = r
        .inputs
        .collections
        .iter()
        .find(|c| c.name == "movies" && c.database.as_deref() == Some("sample_mflix"))
        .expect("movies from its metadata alone");
    let names: Vec<_> = movies.indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "_id_",
            "cast_text_fullplot_text_genres_text_title_text",
            "created_date_1",
            "year_1_runtime_1_type_1"
        ]
    );
    assert_eq!(movies.indexes[3].keys.len(), 3);
}

#[test]
fn ejson_exports_transcode_to_the_same_bytes_as_the_dump() {
    let Some(data) = shared_data() else { return };
    let dump = read_all(
        &[data.join("mongo/atlas-sample-dump/sample_analytics")],
        InputFormat::Auto,
        true,
    );
    let json = read_all(
        &[data.join("mongo/atlas-sample-ejson/sample_analytics")],
        InputFormat::Auto,
        true,
    );
    assert!(
        dump.errors.is_empty() && json.errors.is_empty(),
        "{:?} {:?}",
        dump.errors,
        json.errors
    );
    for coll in ["sample_analytics.accounts", "sample_analytics.customers"] {
        // The export lists documents in another order than the dump.
        let (mut a, mut b) = (dump.docs[coll].clone(), json.docs[coll].clone());
        a.sort();
        b.sort();
        assert_eq!(a.len(), b.len(), "{coll}");
        let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert_eq!(
            differing, 0,
            "{coll}: {differing} documents differ between the dump and the export"
        );
    }
}

#[test]
fn json_datasets_and_mongo_tools_json_read() {
    let Some(data) = shared_data() else { return };
    let r = read_all(
        &[data.join("mongo/json-datasets/datasets")],
        InputFormat::Auto,
        false,
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.counts["datasets.countries-big"], 21640);
    assert!(r.counts.values().all(|&n| n > 0), "{:?}", r.counts);
    let tools = data.join("mongo/mongo-tools-testdata");
    let r = read_all(
        &[
            tools.join("mongoimport/testdata/test_array.json"),
            tools.join("mongoimport/testdata/test_plain2.json"),
            tools.join("mongoimport/testdata/test_bom.json"),
            tools.join("bsondump/testdata/sample.json"),
            tools.join("mongodump/testdata/importCollection.json"),
        ],
        InputFormat::Auto,
        false,
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.counts["-.test_array"], 27);
}

#[test]
fn mongo_tools_archives_and_gzip_dumps_read() {
    let Some(data) = shared_data() else { return };
    let t = data.join("mongo/mongo-tools-testdata/mongorestore/testdata");
    let r = read_all(&[t.join("test.bar.archive")], InputFormat::Auto, false);
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.counts["test.bar"], 1);
    assert_eq!(r.counts["admin.system.version"], 1);
    // Time series: the archive holds the buckets under `system.buckets.<name>`.
    let r = read_all(
        &[t.join("timeseries_tests/dump.archive")],
        InputFormat::Auto,
        false,
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert!(
        r.counts["timeseries_test.system.buckets.foo_ts"] > 0,
        "{:?}",
        r.counts
    );
    let r = read_all(&[t.join("dump-w-oplog.archive")], InputFormat::Auto, false);
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.counts["test.foo"], 25, "{:?}", r.counts);
    let r = read_all(
        &[t.join("prelude_test/prelude_gzip")],
        InputFormat::Auto,
        false,
    );
    assert!(r.errors.is_empty(), "{:#?}", r.errors);
    assert_eq!(r.counts["test.foo"], 1, "{:?}", r.counts);
    assert_eq!(r.inputs.collections[0].indexes.len(), 1);
    // A prelude entry whose metadata is not JSON: reported, the data still read.
    let r = read_all(&[t.join("bad-format.archive")], InputFormat::Auto, false);
    assert_eq!(r.errors.len(), 1, "{:#?}", r.errors);
    assert!(
        r.errors[0].contains("bad-format.archive: byte 106: archive: metadata of test.ixtest"),
        "{:?}",
        r.errors
    );
}

#[test]
fn mongo_tools_malformed_bson_is_reported_with_offsets() {
    let Some(data) = shared_data() else { return };
    let b = data.join("mongo/mongo-tools-testdata/bsondump/testdata");
    for file in [
        "sample.bson",
        "all_types.bson",
        "all_in_one_doc.bson",
        "broken_array.bson",
    ] {
        let r = read_all(&[b.join(file)], InputFormat::Auto, false);
        assert!(r.errors.is_empty(), "{file}: {:?}", r.errors);
        assert!(r.counts.values().sum::<u64>() > 0, "{file}");
    }
    // (file, message, documents still delivered)
    let expected = [
        (
            "bad_cstring.bson",
            "byte 37: invalid BSON document: string length",
            4,
        ),
        (
            "bad_type.bson",
            "byte 21: invalid BSON document: unknown element type byte 0xaa",
            4,
        ),
        (
            "deep_nested.bson",
            "byte 917: invalid BSON document: nesting deeper than 100 levels",
            1,
        ),
        (
            "invalid_field_name.bson",
            "byte 283: stream ends inside a document (1 trailing bytes)",
            4,
        ),
        (
            "partial_file.bson",
            "byte 164: stream ends inside a document (declared 48 bytes, 13 remain)",
            2,
        ),
        ("random_bytes.bson", "byte 0: not a recognised input", 0),
    ];
    for (file, message, docs) in expected {
        let r = read_all(&[b.join(file)], InputFormat::Auto, false);
        assert_eq!(r.errors.len(), 1, "{file}: {:?}", r.errors);
        assert!(
            r.errors[0].contains(&format!("{file}: {message}")),
            "{file}: {:?}",
            r.errors
        );
        assert_eq!(r.counts.values().sum::<u64>(), docs, "{file}");
    }
}

#[test]
fn mongorestore_testdirs_read() {
    let Some(data) = shared_data() else { return };
    let t = data.join("mongo/mongo-tools-testdata/mongorestore/testdata");
    let r = read_all(std::slice::from_ref(&t), InputFormat::Auto, false);
    // The one damaged file there: an empty metadata file beside c3.bson.
    assert_eq!(r.errors.len(), 1, "{:#?}", r.errors);
    assert!(r.errors[0].ends_with(
        "testdirs/db1/c3.metadata.json: metadata: EOF while parsing a value at line 1 column 0"
    ));
    assert!(r.counts.len() > 50, "{:?}", r.counts);
}
