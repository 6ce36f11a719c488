//! Tests of `data::write` around its writer thread: the bytes do not depend
//! on how they are handed over, and a failure on the writer's side comes back
//! to the caller with the path, promptly, leaving no temporary file.

use super::GenerateError;
use super::data::{self, DataOptions};
use super::write_thread::Tuning;
use crate::fixtures;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A hand-over far smaller than any collection: the queue fills and the
/// generating thread blocks on it, many times.
const TINY: Tuning = Tuning {
    chunk: 64,
    queue: 1,
    sync_every: 64 << 10,
};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("squill-gen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out.sort();
    out
}

fn temporaries(dir: &Path) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".tmp-"))
        .collect()
}

/// Runs `write_tuned` on host → logs at `options` into `dir` on its own
/// thread, and fails the test if it does not return within a minute (a
/// deadlock between the two threads).
fn write_or_hang(
    dir: &Path,
    options: DataOptions,
    tuning: Tuning,
) -> Result<data::DataSummary, GenerateError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let (m, d) = fixtures::host_logs();
        let _ = tx.send(data::write_tuned(&m, &d, &options, &dir, tuning));
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("data::write neither finished nor failed within a minute")
}

#[test]
fn the_bytes_do_not_depend_on_the_hand_over() {
    let a = scratch("handover-default");
    let b = scratch("handover-tiny");
    let options = DataOptions::new(3, 7);
    let big = write_or_hang(&a, options.clone(), Tuning::DEFAULT).unwrap();
    let small = write_or_hang(&b, options, TINY).unwrap();
    assert_eq!(big.collections, small.collections);
    let (fa, fb) = (walk(&a), walk(&b));
    assert_eq!(fa.len(), 6, "{fa:?}");
    assert_eq!(fa.len(), fb.len());
    for (x, y) in fa.iter().zip(&fb) {
        assert_eq!(x.strip_prefix(&a).unwrap(), y.strip_prefix(&b).unwrap());
        assert!(
            std::fs::read(x).unwrap() == std::fs::read(y).unwrap(),
            "{} differs",
            x.display()
        );
    }
    // The summary lists the files in the order they were committed.
    assert_eq!(big.files.len(), 6);
    assert!(big.files[0].ends_with("data/host.json"), "{:?}", big.files);
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

/// Every fixture written by one builder thread and by four, with batches of
/// a few documents (so that they finish out of order): the same files.
#[test]
fn the_bytes_do_not_depend_on_the_number_of_threads() {
    for (name, model, design) in fixtures::all() {
        let dirs = [1, 4].map(|threads| {
            let dir = scratch(&format!("threads-{name}-{threads}"));
            let options = DataOptions {
                max_children: Some(50),
                threads,
                ..DataOptions::new(3, 9)
            };
            let tiny = Tuning { chunk: 256, ..TINY };
            data::write_tuned(&model, &design, &options, &dir, tiny).unwrap();
            dir
        });
        let (a, b) = (walk(&dirs[0]), walk(&dirs[1]));
        assert!(!a.is_empty());
        assert_eq!(a.len(), b.len(), "{name}");
        for (x, y) in a.iter().zip(&b) {
            assert!(
                std::fs::read(x).unwrap() == std::fs::read(y).unwrap(),
                "{name}: {} differs with four threads",
                x.display()
            );
        }
        for d in dirs {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

#[test]
fn a_file_where_a_directory_should_be_stops_generation_with_its_path() {
    let dir = scratch("in-the-way");
    // `data/` must be a directory for the EJSON files.
    std::fs::write(dir.join("data"), b"not a directory").unwrap();
    // Hundreds of gigabytes if generation went on: it must stop at the
    // first hand-over after the writer failed, not at the end.
    let err = write_or_hang(&dir, DataOptions::new(100_000, 1), TINY).unwrap_err();
    assert!(
        matches!(&err, GenerateError::Io { path, .. } if *path == dir.join("data")),
        "{err:?}"
    );
    // Nothing but the obstacle: no temporary file, no BSON file either.
    assert_eq!(walk(&dir), vec![dir.join("data")]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_rename_is_reported_with_the_path_and_leaves_no_temporary_file() {
    let dir = scratch("rename");
    let bson = dir.join("dump/host-logs/logmsg.bson");
    // A non-empty directory where the last big file goes (--force skips the
    // refusal): written in full, its rename fails.
    std::fs::create_dir_all(bson.join("in-the-way")).unwrap();
    let mut options = DataOptions::new(2, 1);
    options.force = true;
    let err = write_or_hang(&dir, options, TINY).unwrap_err();
    assert!(
        matches!(&err, GenerateError::Io { path, .. } if *path == bson),
        "{err:?}"
    );
    assert_eq!(temporaries(&dir), Vec::<PathBuf>::new());
    // The metadata that would follow it was not written.
    assert!(!dir.join("dump/host-logs/logmsg.metadata.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A model whose entities are named like paths: an absolute path (into a
/// folder of the test's own, so a failure writes nowhere else), one with a
/// slash, a percent sign, a backslash.
fn path_named_model(outside: &Path) -> (crate::model::Model, crate::design::Design) {
    let abs = format!("{}/escaped", outside.display());
    let text = format!(
        "name: paths\nentities:\n  {abs:?}: {{count: 2, fields: {{x: int}}}}\n  \"a/b\": {{count: 2, fields: {{x: int}}}}\n  \"100%\": {{count: 2, fields: {{x: int}}}}\n  \"back\\\\slash\": {{count: 2, fields: {{x: int}}}}\n"
    );
    let model = crate::inputs::model_file::parse("paths.yaml", &text).unwrap();
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
    (model, design)
}

/// Issue 40, item 1: a collection named like a path writes its files in the
/// dump's and the data's folders, named as mongodump names them, and the
/// dump reads back (as mongorestore reads it) with the names themselves.
#[test]
fn names_like_paths_stay_in_the_output_folder() {
    let root = scratch("path-names");
    let (out, outside) = (root.join("out"), root.join("outside"));
    let (model, design) = path_named_model(&outside);
    data::write(&model, &design, &DataOptions::new(1, 3), &out).unwrap();
    let escaped = outside.exists();
    if escaped {
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(!escaped, "a file was written outside --out");
    let db = out.join("dump").join(data::database_name(&design));
    for file in walk(&root) {
        let dir = file.parent().unwrap();
        assert!(dir == out.join("data") || dir == db, "{}", file.display());
    }
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let encoded = outside.display().to_string().replace('/', "%2F");
    assert_eq!(
        names(&out.join("data")),
        [
            format!("{encoded}%2Fescaped.json"),
            "100%25.json".into(),
            "a%2Fb.json".into(),
            "back%5Cslash.json".into()
        ]
    );
    let read = crate::inputs::dump::open(&[db], crate::inputs::dump::InputFormat::Auto);
    let mut back: Vec<&str> = read.collections.iter().map(|c| c.name.as_str()).collect();
    back.sort_unstable();
    let mut expected: Vec<&str> = design.collections.iter().map(|c| c.name.as_str()).collect();
    expected.sort_unstable();
    assert_eq!(back, expected);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 40, item 1: names no model file takes but a design may hold (a
/// leading dot, `..`) name files in their folder too, not hidden; two
/// collections of one name are refused, not written over each other.
#[test]
fn dotted_names_stay_in_their_folder_and_one_file_is_not_written_twice() {
    let (_, mut design) = path_named_model(Path::new("/nowhere"));
    let out = Path::new("/out");
    for (c, name) in design
        .collections
        .iter_mut()
        .zip(["../x", ".hidden", "..", "."])
    {
        c.name = name.into();
    }
    let paths = data::paths(&design, out, data::DataFormat::Both).unwrap();
    assert_eq!(paths.len(), 12);
    for p in &paths {
        let dir = p.parent().unwrap();
        assert!(
            dir == out.join("data") || dir == out.join("dump/paths"),
            "{}",
            p.display()
        );
        assert!(
            !p.file_name().unwrap().to_string_lossy().starts_with('.'),
            "{}",
            p.display()
        );
    }
    assert!(paths.contains(&out.join("dump/paths/%2E.%2Fx.bson")));
    design.collections[1].name = "../x".into();
    assert!(matches!(
        data::paths(&design, out, data::DataFormat::Both),
        Err(GenerateError::SameFile { path }) if path == out.join("data/%2E.%2Fx.json")
    ));
}
