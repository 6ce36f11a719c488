//! Reader tests on small fixtures made here (the shared real data is covered
//! by the CLI crate's `readers` integration tests).

use super::framing::tests::doc;
use super::*;
use std::io::Write;

pub(crate) struct Tmp(pub PathBuf);

impl Tmp {
    pub(crate) fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "squill-readers-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Tmp(dir)
    }
    pub(crate) fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Reads every source; returns "collection:i" per document and messages per error.
pub(crate) fn collect(inputs: &Inputs) -> Vec<String> {
    let mut out: Vec<String> = inputs
        .errors
        .iter()
        .map(|e| format!("open error: {e}"))
        .collect();
    for s in &inputs.sources {
        let r = s.read(&mut |e| match e {
            Event::Document {
                collection, bytes, ..
            } => {
                let c = &inputs.collections[collection];
                out.push(format!("{}:{}", c.name, bytes[7]));
            }
            Event::Error(e) => out.push(format!("error: {e}")),
        });
        if let Err(e) = r {
            out.push(format!("read failed: {e}"));
        }
    }
    out
}

const META: &[u8] = br#"{"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},{"v":2,"key":{"a":1},"name":"a_1","unique":true}],"collectionName":"orders"}"#;

#[test]
fn reads_a_dump_directory_with_metadata_and_gzip() {
    let t = Tmp::new("dump");
    t.write("shop/orders.bson", &[doc(1), doc(2)].concat());
    t.write("shop/orders.metadata.json", META);
    t.write("shop/users.bson.gz", &gzip(&doc(3)));
    t.write("shop/users.metadata.json.gz", &gzip(br#"{"indexes":[]}"#));
    t.write("shop/empty.bson", b"");
    t.write(
        "shop/nodata.metadata.json",
        br#"{"indexes":[{"key":{"x":1},"name":"x_1"}]}"#,
    );
    t.write("shop/README.txt", b"not data");
    t.write("other/things.bson", &doc(4));
    let inputs = open(std::slice::from_ref(&t.0), InputFormat::Auto);
    let names: Vec<_> = inputs
        .collections
        .iter()
        .map(|c| {
            format!(
                "{}.{} ({} indexes)",
                c.database.as_deref().unwrap_or("-"),
                c.name,
                c.indexes.len()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "other.things (0 indexes)",
            "shop.empty (0 indexes)",
            "shop.orders (2 indexes)",
            "shop.users (0 indexes)",
            "shop.nodata (1 indexes)"
        ]
    );
    assert!(inputs.collections[2].indexes[1].unique);
    assert_eq!(
        collect(&inputs),
        ["things:4", "orders:1", "orders:2", "users:3"]
    );
}

#[test]
fn reports_unreadable_empty_and_unknown_files() {
    let t = Tmp::new("bad");
    let empty = t.write("empty.bson", b"");
    let text = t.write("notes.txt", b"hello");
    let missing = t.0.join("missing.bson");
    let inputs = open(&[empty, text, missing], InputFormat::Auto);
    let msgs: Vec<_> = inputs.errors.iter().map(ToString::to_string).collect();
    assert!(msgs[0].ends_with("empty.bson: file is empty"), "{msgs:?}");
    assert!(
        msgs[1].contains("notes.txt: byte 0: not a recognised input"),
        "{msgs:?}"
    );
    assert!(msgs[2].contains("missing.bson: cannot read"), "{msgs:?}");
    assert!(inputs.sources.is_empty());
}

#[test]
fn damaged_bson_file_reports_offsets_and_keeps_reading() {
    let t = Tmp::new("damage");
    let mut bytes = [doc(1), doc(2), doc(3), doc(4)].concat();
    bytes[12 + 11] = 7; // doc 2 loses its terminator
    let p = t.write("c.bson", &bytes);
    let out = collect(&open(&[p], InputFormat::Auto));
    assert_eq!(out[0], "c:1");
    assert!(
        out[1].contains("c.bson: byte 12: document of declared length 12 is not terminated"),
        "{out:?}"
    );
    assert!(out[1].contains("resumed at byte 24"), "{out:?}");
    assert_eq!(out[2..], ["c:3", "c:4"]);
}

#[test]
fn gzip_that_ends_early_is_reported_after_the_documents_before_it() {
    let t = Tmp::new("gz");
    let docs: Vec<u8> = (0..200).flat_map(doc).collect();
    let gz = gzip(&docs);
    let p = t.write("c.bson.gz", &gz[..gz.len() / 2]);
    let out = collect(&open(&[p], InputFormat::Auto));
    let last = out.last().unwrap();
    assert!(
        last.contains("c.bson.gz: byte ") && last.contains("gzip"),
        "{out:?}"
    );
    assert!(out.len() > 2, "{out:?}");
}

#[test]
fn splits_big_files_at_document_boundaries() {
    let t = Tmp::new("split");
    // ~10 MiB of 12-byte documents.
    let docs: Vec<u8> = (0..900_000).flat_map(|i| doc(i % 100)).collect();
    let p = t.write("big.bson", &docs);
    let inputs = open(&[p], InputFormat::Auto);
    let parts = inputs.sources[0].split(2);
    assert_eq!(parts.len(), 2);
    let mut total = 0;
    let mut offsets = Vec::new();
    for part in &parts {
        let s = part
            .read(&mut |e| {
                if let Event::Document { position, .. } = e {
                    offsets.push(position.byte_offset);
                }
            })
            .unwrap();
        assert_eq!(s.errors, 0);
        total += s.documents;
    }
    assert_eq!(total, 900_000);
    assert_eq!(
        parts[0].len_bytes().unwrap() + parts[1].len_bytes().unwrap(),
        docs.len() as u64
    );
    assert!(offsets.iter().all(|o| o % 12 == 0));
    // Small files and gzip are not split.
    let t2 = Tmp::new("nosplit");
    let q = t2.write("s.bson", &doc(1));
    assert_eq!(open(&[q], InputFormat::Auto).sources[0].split(4).len(), 1);
}

/// An archive with two collections, blocks interleaved, built as mongodump does.
pub(crate) fn archive_bytes() -> Vec<u8> {
    archive(
        &[
            (
                "test",
                "bar",
                r#"{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"}]}"#,
            ),
            ("test", "baz", ""),
        ],
        &[
            (0, vec![doc(1), doc(2)]),
            (1, vec![doc(3)]),
            (0, vec![doc(4)]),
        ],
    )
}

/// An archive as mongodump writes one: the prelude with each namespace
/// `(db, collection, metadata)`, then the blocks of documents `(namespace,
/// documents)` in the order given, then each namespace's end.
pub(crate) fn archive(
    namespaces: &[(&str, &str, &str)],
    blocks: &[(usize, Vec<Vec<u8>>)],
) -> Vec<u8> {
    fn cstr_field(t: u8, k: &str, v: &str) -> Vec<u8> {
        let mut f = vec![t];
        f.extend(k.as_bytes());
        f.push(0);
        f.extend(((v.len() + 1) as i32).to_le_bytes());
        f.extend(v.as_bytes());
        f.push(0);
        f
    }
    fn document(fields: &[Vec<u8>]) -> Vec<u8> {
        let body: Vec<u8> = fields.concat();
        let mut d = ((body.len() + 5) as i32).to_le_bytes().to_vec();
        d.extend(body);
        d.push(0);
        d
    }
    let header = |db: &str, c: &str, eof: bool| {
        document(&[
            cstr_field(2, "db", db),
            cstr_field(2, "collection", c),
            vec![8, b'E', b'O', b'F', 0, u8::from(eof)],
            [&[0x12u8, b'C', b'R', b'C', 0][..], &[0; 8]].concat(),
        ])
    };
    let term = [0xFFu8; 4];
    let mut a = format::ARCHIVE_MAGIC.to_vec();
    a.extend(document(&[cstr_field(2, "version", "0.1")]));
    for (db, c, metadata) in namespaces {
        a.extend(document(&[
            cstr_field(2, "db", db),
            cstr_field(2, "collection", c),
            cstr_field(2, "metadata", metadata),
        ]));
    }
    a.extend(term);
    for (ns, docs) in blocks {
        let (db, c, _) = namespaces[*ns];
        a.extend(header(db, c, false));
        for d in docs {
            a.extend(d);
        }
        a.extend(term);
    }
    for (db, c, _) in namespaces {
        a.extend(header(db, c, true));
        a.extend(term);
    }
    a
}

#[test]
fn reads_archives_plain_and_gzip() {
    let t = Tmp::new("archive");
    let plain = t.write("dump.archive", &archive_bytes());
    let gz = t.write("dump.archive.gz", &gzip(&archive_bytes()));
    let inputs = open(&[plain, gz], InputFormat::Auto);
    assert_eq!(inputs.collections.len(), 4);
    assert_eq!(inputs.collections[0].indexes.len(), 1);
    assert_eq!(inputs.collections[1].database.as_deref(), Some("test"));
    let out = collect(&inputs);
    assert_eq!(
        out,
        [
            "bar:1", "bar:2", "baz:3", "bar:4", "bar:1", "bar:2", "baz:3", "bar:4"
        ]
    );
}

#[test]
fn truncated_archive_reports_where_it_ends() {
    let t = Tmp::new("archive-cut");
    let a = archive_bytes();
    let p = t.write("cut.archive", &a[..a.len() - 60]);
    let out = collect(&open(&[p], InputFormat::Auto));
    assert_eq!(out[..4], ["bar:1", "bar:2", "baz:3", "bar:4"]);
    assert!(
        out[4].starts_with("error: ") && out[4].contains("cut.archive: byte "),
        "{out:?}"
    );
}

#[test]
fn reads_stdin_once_with_detection_and_gzip() {
    let mut inputs = Inputs::default();
    let bytes = gzip(&[doc(1), doc(2)].concat());
    let source = inputs
        .stdin_source(Box::new(std::io::Cursor::new(bytes)), InputFormat::Auto)
        .unwrap()
        .unwrap();
    inputs.sources.push(source);
    assert_eq!(collect(&inputs), ["stdin:1", "stdin:2"]);
    let again = collect(&inputs);
    assert!(again[0].contains("already read"), "{again:?}");

    let mut inputs = Inputs::default();
    let source = inputs
        .stdin_source(
            Box::new(std::io::Cursor::new(archive_bytes())),
            InputFormat::Auto,
        )
        .unwrap()
        .unwrap();
    inputs.sources.push(source);
    assert_eq!(collect(&inputs), ["bar:1", "bar:2", "baz:3", "bar:4"]);

    let mut inputs = Inputs::default();
    let err = inputs
        .stdin_source(
            Box::new(std::io::Cursor::new(Vec::new())),
            InputFormat::Auto,
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "-: file is empty");
}

#[test]
fn sources_can_be_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Source>();
    send_sync::<Inputs>();
}

/// Makes a FIFO with the system's `mkfifo` (std has no call for it).
fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", path.display());
}

/// Issue 23: a FIFO given by path lost its first documents (the format was
/// detected from a head read on one open, and the data read on another).
/// It is read once, as a stream, and every document arrives.
#[test]
fn a_fifo_given_by_path_is_read_whole_as_a_stream() {
    let t = Tmp::new("fifo");
    let fifo = t.0.join("things.bson");
    mkfifo(&fifo);
    let bytes: Vec<u8> = (0..100).flat_map(doc).collect();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, bytes).unwrap())
    };
    let inputs = open(std::slice::from_ref(&fifo), InputFormat::Auto);
    let seen = collect(&inputs);
    writer.join().unwrap();
    assert_eq!(seen.len(), 100, "{seen:?}");
    assert!(seen.iter().all(|s| s.starts_with("things:")), "{seen:?}");
    assert_eq!(seen[0], "things:0");
    assert_eq!(seen[99], "things:99");
}

/// Issue 23: a FIFO inside a dump directory hung the whole scan. It is
/// skipped with a note; the regular files beside it are read.
#[test]
fn a_fifo_inside_a_directory_is_skipped_with_a_note() {
    let t = Tmp::new("fifo-dir");
    t.write("db/a.bson", &[doc(1), doc(2)].concat());
    mkfifo(&t.0.join("db/b.bson"));
    mkfifo(&t.0.join("db/c.metadata.json"));
    let inputs = open(std::slice::from_ref(&t.0), InputFormat::Auto);
    assert_eq!(collect(&inputs), ["a:1", "a:2"]);
    let skipped: Vec<String> = inputs.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped.iter().all(|s| s.contains("not a regular file")),
        "{skipped:?}"
    );
    assert!(skipped[0].contains("b.bson"), "{skipped:?}");
}

/// Issue 23: a symbolic link back to the dump's root was followed 40 levels
/// deep (one file counted 41 times). Each real path is read once; the links
/// are noted.
#[test]
fn a_symlink_loop_is_followed_once_and_noted() {
    let t = Tmp::new("loop");
    t.write("db/things.bson", &doc(7));
    std::os::unix::fs::symlink(&t.0, t.0.join("db/again")).unwrap();
    std::os::unix::fs::symlink(t.0.join("db/things.bson"), t.0.join("db/alias.bson")).unwrap();
    let inputs = open(std::slice::from_ref(&t.0), InputFormat::Auto);
    // Name order decides which name of the one file is read: `alias.bson`.
    assert_eq!(collect(&inputs), ["alias:7"]);
    assert_eq!(inputs.collections.len(), 1);
    let skipped: Vec<String> = inputs.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped.iter().all(|s| s.contains("already read as")),
        "{skipped:?}"
    );
}
