//! The record of the bucket documents a migration wrote, per bucket
//! collection: each document's parent (its children's reference, as text)
//! and `_id` (24 hexadecimal digits), one JSON array a line, in
//! `.squill-migrate.rows/buckets-FINGERPRINT.jsonl`.
//!
//! A bucket's rows cannot name their document once they are gone, and a
//! page's rows shift when one comes or goes. So a run of changes rebuilds
//! every bucket of a parent whose rows changed, came or went (or moved
//! away), and the parent's buckets in the record that it did not write
//! again no longer exist: their `_id`s are deleted. Like the ledger of
//! rows, a run of changes writes the next record beside the old one, put in
//! place once the state is saved; a full run puts it in place when the
//! collection is complete.

use super::error::MigrateError;
use super::ledger::DIR;
use super::state::fingerprint;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The record of `collection`'s buckets in the output directory `dir` (a
/// fingerprint of the name: any name is a safe file name so).
pub fn file(dir: &Path, collection: &str) -> PathBuf {
    dir.join(DIR)
        .join(format!("buckets-{}.jsonl", fingerprint(collection)))
}

fn next_of(file: &Path) -> PathBuf {
    file.with_extension("jsonl.next")
}

/// Whether the last run left a record of `collection`'s buckets.
pub fn exists(dir: &Path, collection: &str) -> bool {
    file(dir, collection).is_file()
}

/// One bucket document: its parent and its `_id`'s hexadecimal digits.
type Entry = (String, String);

/// A key as the bucket query returns it: `["parent", "hex"]`.
fn entry(key: &[u8]) -> Result<Entry, String> {
    serde_json::from_slice::<Entry>(key).map_err(|e| {
        format!(
            "not a bucket's key `{}` ({e})",
            String::from_utf8_lossy(key)
        )
    })
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> MigrateError + '_ {
    move |e| MigrateError::Io(format!("{}: {e}", path.display()))
}

/// Where the keys of a collection's documents go as they are written.
pub enum Keys {
    /// Not a bucket collection.
    Not,
    /// A full run: the record, line by line.
    Record(Writer),
    /// A run of changes: the buckets it wrote, compared with the record
    /// afterwards (`reconcile`).
    Changes(Written),
}

impl Keys {
    /// The key of one document written.
    pub fn push(&mut self, key: &[u8]) -> Result<(), MigrateError> {
        match self {
            Keys::Not => Ok(()),
            Keys::Record(w) => w.push(key),
            Keys::Changes(w) => {
                let (parent, id) = entry(key).map_err(MigrateError::Data)?;
                w.by_parent.entry(parent).or_default().insert(id);
                Ok(())
            }
        }
    }
}

/// A full run's record being written (`NAME.next` until `finish`).
pub struct Writer {
    w: BufWriter<File>,
    next: PathBuf,
    file: PathBuf,
}

impl Writer {
    pub fn create(dir: &Path, collection: &str) -> Result<Writer, MigrateError> {
        let file = file(dir, collection);
        if let Some(d) = file.parent() {
            std::fs::create_dir_all(d).map_err(io(d))?;
        }
        let next = next_of(&file);
        let w = BufWriter::new(File::create(&next).map_err(io(&next))?);
        Ok(Writer { w, next, file })
    }

    fn push(&mut self, key: &[u8]) -> Result<(), MigrateError> {
        entry(key).map_err(MigrateError::Data)?;
        self.w.write_all(key).map_err(io(&self.next))?;
        self.w.write_all(b"\n").map_err(io(&self.next))
    }

    /// The collection is complete: the record in place.
    pub fn finish(self) -> Result<(), MigrateError> {
        let Writer { w, next, file } = self;
        w.into_inner()
            .map_err(|e| io(&next)(e.into_error()))?
            .sync_all()
            .map_err(io(&next))?;
        std::fs::rename(&next, &file).map_err(io(&file))
    }
}

/// The buckets a run of changes wrote: by parent, their `_id`s.
#[derive(Debug, Default)]
pub struct Written {
    by_parent: BTreeMap<String, BTreeSet<String>>,
}

/// Writes the next record of `collection` (the record's lines of other
/// parents, then every bucket `written`) and returns the `_id`s of the
/// buckets in the record that no longer exist: those of a parent the run
/// rebuilt (it wrote one of its buckets, or `parents` names it: it lost or
/// gained a row) that it did not write again. `None` when there is no
/// record: nothing can be told, and the next record holds what was written.
pub fn reconcile<'a>(
    dir: &Path,
    collection: &str,
    written: &Written,
    parents: impl IntoIterator<Item = &'a String>,
) -> Result<Option<Vec<String>>, MigrateError> {
    let file = file(dir, collection);
    let next = next_of(&file);
    let mut w = BufWriter::new(File::create(&next).map_err(io(&next))?);
    let mut gone = None;
    match File::open(&file) {
        Ok(f) => {
            let mut rebuilt: BTreeSet<&str> = parents.into_iter().map(String::as_str).collect();
            rebuilt.extend(written.by_parent.keys().map(String::as_str));
            let mut ids = Vec::new();
            for (n, line) in BufReader::new(f).lines().enumerate() {
                let bad = |why: String| {
                    MigrateError::State(format!(
                        "{}:{}: {why}; remove {DIR} to start over",
                        file.display(),
                        n + 1
                    ))
                };
                let line = line.map_err(|e| bad(e.to_string()))?;
                let (parent, id) = entry(line.as_bytes()).map_err(bad)?;
                if !rebuilt.contains(parent.as_str()) {
                    writeln!(w, "{line}").map_err(io(&next))?;
                } else if !written
                    .by_parent
                    .get(&parent)
                    .is_some_and(|s| s.contains(&id))
                {
                    ids.push(id);
                }
            }
            gone = Some(ids);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(&file)(e)),
    }
    for (parent, ids) in &written.by_parent {
        for id in ids {
            let line = serde_json::to_string(&(parent, id))
                .map_err(|e| MigrateError::Io(e.to_string()))?;
            writeln!(w, "{line}").map_err(io(&next))?;
        }
    }
    w.into_inner()
        .map_err(|e| io(&next)(e.into_error()))?
        .sync_all()
        .map_err(io(&next))?;
    Ok(gone)
}

/// Puts the record `reconcile` wrote in place.
pub fn commit(dir: &Path, collection: &str) -> Result<(), MigrateError> {
    let file = file(dir, collection);
    std::fs::rename(next_of(&file), &file).map_err(io(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("squill-buckets-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn written(keys: &[&str]) -> Written {
        let mut k = Keys::Changes(Written::default());
        for key in keys {
            k.push(key.as_bytes()).unwrap();
        }
        match k {
            Keys::Changes(w) => w,
            _ => unreachable!(),
        }
    }

    fn record(dir: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(file(dir, "pages")).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.sort();
        lines
    }

    #[test]
    fn a_rebuilt_parents_buckets_not_written_again_are_gone_and_others_kept() {
        let dir = temp("gone");
        let mut w = Writer::create(&dir, "pages").unwrap();
        for key in [
            r#"["7","a0"]"#,
            r#"["7","a1"]"#,
            r#"["8","b0"]"#,
            r#"["9","c0"]"#,
        ] {
            w.push(key.as_bytes()).unwrap();
        }
        w.finish().unwrap();
        // Parent 7 lost a page; 8 lost its last row (touched, nothing
        // written); 9 untouched; 10 is new.
        let now = written(&[r#"["7","a0"]"#, r#"["10","d0"]"#]);
        let eight = ["8".to_string()];
        let gone = reconcile(&dir, "pages", &now, &eight).unwrap().unwrap();
        assert_eq!(gone, ["a1", "b0"]);
        // Not in place before `commit`.
        assert_eq!(record(&dir).len(), 4);
        commit(&dir, "pages").unwrap();
        assert_eq!(
            record(&dir),
            [r#"["10","d0"]"#, r#"["7","a0"]"#, r#"["9","c0"]"#]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn without_a_record_nothing_is_told_and_one_starts() {
        let dir = temp("none");
        std::fs::create_dir_all(dir.join(DIR)).unwrap();
        let now = written(&[r#"["7","a0"]"#]);
        assert_eq!(reconcile(&dir, "pages", &now, []).unwrap(), None);
        commit(&dir, "pages").unwrap();
        assert_eq!(record(&dir), [r#"["7","a0"]"#]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_record_is_named_by_line() {
        let dir = temp("bad");
        std::fs::create_dir_all(dir.join(DIR)).unwrap();
        std::fs::write(file(&dir, "pages"), "[\"7\",\"a0\"]\n{oops\n").unwrap();
        let err = reconcile(&dir, "pages", &Written::default(), [])
            .unwrap_err()
            .to_string();
        assert!(err.contains(".jsonl:2: not a bucket's key"), "{err}");
        assert!(Keys::Not.push(b"anything").is_ok());
        assert!(written(&[]).by_parent.is_empty());
        let mut k = Keys::Changes(Written::default());
        assert!(k.push(b"[1]").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
