//! The parallel driver: reads every source (big plain `.bson` files split at
//! document boundaries so both cores share one collection), profiles each part
//! on a rayon worker, then merges the parts' profiles in input order so the
//! report does not depend on thread timing.

use super::profile::{CollectionProfile, Limits};
use super::report::{CollectionMeta, IndexReport, InputErrorReport, ScanReport};
use crate::inputs::dump::{CollectionInfo, Event, IndexSpec, InputError, Inputs, Source};
use crate::settings::Settings;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a scan runs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub limits: Limits,
    /// Parts to split each big file into (usually the number of threads).
    pub split: usize,
    /// Only walk the BSON (validate and visit nothing): the floor for benchmarks.
    pub walk_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limits: Limits::default(),
            split: rayon::current_num_threads(),
            walk_only: false,
        }
    }
}

/// Bytes and documents so far (read by scan, written by `generate data`),
/// for a progress bar; updated every few megabytes or every batch.
#[derive(Debug, Default)]
pub struct Progress {
    pub bytes: AtomicU64,
    pub documents: AtomicU64,
}

/// Total input size for a progress bar (compressed size for gzip; `None` for stdin).
pub fn total_bytes(inputs: &Inputs) -> Option<u64> {
    inputs.sources.iter().map(|s| s.len_bytes()).sum()
}

struct Part {
    profiles: Vec<Option<CollectionProfile>>,
    errors: Vec<InputError>,
}

/// Scans everything `inputs` holds and analyzes it.
pub fn scan(
    inputs: Inputs,
    settings: &Settings,
    options: Options,
    progress: &Progress,
) -> ScanReport {
    let skipped: Vec<InputErrorReport> = inputs.skipped.iter().map(error_report).collect();
    let Inputs {
        collections,
        sources,
        errors: open_errors,
        ..
    } = inputs;
    let n = collections.len();
    // Splitting a big file reads the length prefixes up to each cut: done per
    // file inside the parallel phase, so it overlaps the scanning of other
    // files instead of running alone before it. Parts come back in input
    // order (rayon's collect keeps it), so the merge does not depend on timing.
    let places: Vec<Vec<&str>> = collections.iter().map(place_keys).collect();
    let results: Vec<Part> = sources
        .par_iter()
        .flat_map(|s| {
            s.split(options.split.max(1))
                .into_par_iter()
                .map(|source| scan_part(&source, &places, options, progress))
        })
        .collect();

    let mut merged: Vec<Option<CollectionProfile>> = vec![None; n];
    let mut errors: Vec<InputErrorReport> = open_errors.iter().map(error_report).collect();
    for part in results {
        for (slot, p) in merged.iter_mut().zip(part.profiles) {
            let Some(p) = p else { continue };
            match slot {
                Some(m) => m.merge(&p),
                None => *slot = Some(p),
            }
        }
        errors.extend(part.errors.iter().map(error_report));
    }
    let profiles = collections
        .iter()
        .zip(merged)
        .map(|(info, p)| {
            (
                meta(info),
                p.unwrap_or_else(|| CollectionProfile::new(options.limits)),
            )
        })
        .collect();
    let mut report = super::analyze::analyze(profiles, errors, settings);
    report.skipped = skipped;
    report
}

/// The keys of `info`'s indexes that make a field a place (`2dsphere`,
/// `2d`): where legacy coordinate pairs are counted.
fn place_keys(info: &CollectionInfo) -> Vec<&str> {
    let mut keys: Vec<&str> = info
        .indexes
        .iter()
        .flat_map(|i| &i.keys)
        .filter(|(_, kind)| matches!(kind.as_str(), Some("2dsphere" | "2d")))
        .map(|(k, _)| k.as_str())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Profiles one part of the input; `places[c]` are collection `c`'s
/// place keys.
fn scan_part(source: &Source, places: &[Vec<&str>], options: Options, progress: &Progress) -> Part {
    let mut part = Part {
        profiles: vec![None; places.len()],
        errors: Vec::new(),
    };
    let mut keys = crate::inputs::bson::KeyCache::default();
    let mut pending_bytes = 0u64;
    let mut pending_docs = 0u64;
    let read = source.read(&mut |event| match event {
        Event::Document {
            collection,
            bytes,
            position,
        } => {
            pending_bytes += bytes.len() as u64;
            pending_docs += 1;
            if pending_bytes >= 4 << 20 {
                progress.bytes.fetch_add(pending_bytes, Ordering::Relaxed);
                progress
                    .documents
                    .fetch_add(pending_docs, Ordering::Relaxed);
                pending_bytes = 0;
                pending_docs = 0;
            }
            let result = if options.walk_only {
                crate::inputs::bson::walk_cached(bytes, &mut NoOp, &mut keys)
            } else {
                let Some(slot) = part.profiles.get_mut(collection) else {
                    return;
                };
                slot.get_or_insert_with(|| {
                    CollectionProfile::new(options.limits)
                        .with_pair_paths(places[collection].iter().copied())
                })
                .add_cached(bytes, &mut keys)
            };
            if let Err(e) = result {
                part.errors
                    .push(InputError::invalid_document(source.path(), position, &e));
            }
        }
        Event::Error(e) => part.errors.push(e),
    });
    if let Err(e) = read {
        part.errors.push(e);
    }
    progress.bytes.fetch_add(pending_bytes, Ordering::Relaxed);
    progress
        .documents
        .fetch_add(pending_docs, Ordering::Relaxed);
    // Each part's last document's counters, before parts merge.
    for p in part.profiles.iter_mut().flatten() {
        p.flush();
    }
    part
}

struct NoOp;

impl crate::inputs::bson::Visitor for NoOp {
    fn enter(&mut self, _: &str, _: crate::inputs::bson::Container, _: u32, _: u32) {}
    fn leave(&mut self, _: crate::inputs::bson::Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: crate::inputs::bson::Scalar<'_>, _: u32, _: u32) {}
}

pub fn error_report(e: &InputError) -> InputErrorReport {
    InputErrorReport {
        file: Some(e.path.clone()),
        byte_offset: e.position.map(|p| p.byte_offset),
        line: e.position.and_then(|p| p.line),
        message: e.to_string(),
    }
}

fn meta(info: &CollectionInfo) -> CollectionMeta {
    CollectionMeta {
        database: info.database.clone(),
        name: info.name.clone(),
        file: Some(info.origin.clone()),
        indexes: if info.indexes.is_empty() && !has_metadata(info) {
            None
        } else {
            Some(info.indexes.iter().map(index_report).collect())
        },
    }
}

/// Whether the collection came with metadata even though it lists no index:
/// the origin is a metadata file or an archive, or a metadata file sits beside
/// the data file.
fn has_metadata(info: &CollectionInfo) -> bool {
    let origin = info.origin.to_string_lossy();
    if origin.ends_with(".metadata.json") || origin.ends_with(".metadata.json.gz") {
        return true;
    }
    let Some(stem) = origin
        .strip_suffix(".bson.gz")
        .or_else(|| origin.strip_suffix(".bson"))
    else {
        return false;
    };
    std::path::Path::new(&format!("{stem}.metadata.json")).is_file()
        || std::path::Path::new(&format!("{stem}.metadata.json.gz")).is_file()
}

fn index_report(spec: &IndexSpec) -> IndexReport {
    let opt = |k: &str| spec.options.get(k);
    IndexReport {
        name: spec.name.clone(),
        key: spec.keys.clone(),
        unique: spec.unique,
        sparse: opt("sparse")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false),
        partial: opt("partialFilterExpression").is_some(),
        expire_after_seconds: opt("expireAfterSeconds").and_then(|v| {
            v.as_i64()
                .or_else(|| v.as_f64().map(|f| f as i64))
                .or_else(|| {
                    v.as_object()
                        .and_then(|o| o.values().next())
                        .and_then(|s| s.as_str()?.parse().ok())
                })
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{B, doc, oid};
    use super::*;
    use crate::inputs::dump::{InputFormat, open};

    /// A file big enough to be split, scanned in one part and in three: the
    /// parts' profiles merge into the same report (the last document of each
    /// part included: its per-document reference counts once went missing).
    #[test]
    fn splitting_a_file_does_not_change_the_report() {
        let dir = std::env::temp_dir().join(format!("squill-split-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("db")).unwrap();
        let mut parents = Vec::new();
        let mut i = 0u64;
        while parents.len() < 9 << 20 {
            let kids: Vec<B<'_>> = (0..i % 7)
                .map(|k| B::Oid(oid(1_000_000 + i * 8 + k)))
                .collect();
            parents.extend(doc(&[
                ("_id", B::Oid(oid(i))),
                ("children", B::Arr(kids)),
                ("pad", B::Str("some padding to make the file big enough")),
            ]));
            i += 1;
        }
        std::fs::write(dir.join("db/parents.bson"), &parents).unwrap();
        let children: Vec<u8> = (0..i * 8)
            .flat_map(|k| doc(&[("_id", B::Oid(oid(1_000_000 + k)))]))
            .collect();
        std::fs::write(dir.join("db/children.bson"), &children).unwrap();
        let report = |split| {
            let inputs = open(std::slice::from_ref(&dir), InputFormat::Auto);
            let options = Options {
                split,
                ..Options::default()
            };
            let r = scan(inputs, &Settings::default(), options, &Progress::default());
            serde_json::to_string(&r).unwrap()
        };
        let (one, three) = (report(1), report(3));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(one.contains("children"), "{one}");
        assert_eq!(one, three);
    }
}
