//! The dump's second reading, collection by collection: every source
//! read in parallel (`extract::read_source`), and each collection's
//! columns measured as soon as the last source that may hold it is read,
//! then dropped. Keeping every collection's columns until the whole dump
//! is read made the peak grow with documents × candidate fields summed
//! over all collections (BENCHMARKS.md, "scan --shard-keys: where the time
//! and memory went (issue 42)"); this bounds it by the collections being
//! read or measured at one time.

use super::extract::{Columns, read_source};
use crate::inputs::dump::{InputError, Inputs};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Mutex;

/// Columns by the index of the collection, or of the source, they belong to.
type Parts = Vec<(usize, Columns)>;

/// Reads the fields `wanted[c]` of each collection `c` of `inputs` and
/// hands each collection's columns to `measure` as soon as every source
/// that may hold it has been read (`Source::collections`), keeping only
/// what `measure` returns: the columns of a collection live from its first
/// source's reading to its measuring, so the memory held is bounded by the
/// collections being read or measured at once, not by the whole dump
/// (BENCHMARKS.md, "scan --shard-keys: where the time and memory went").
///
/// Sources are read in parallel, each whole (a split would lose the record
/// order); a collection's parts are joined in source order, so its columns
/// are the ones reading everything at once would give. `measure` runs on
/// the thread that read the collection's last source, in whatever order
/// the collections complete; the results come back by collection index,
/// and the errors in source order. A collection no source holds is
/// measured last, with no documents. Documents that fail to read are
/// skipped: the first reading reported them already.
///
/// `failed`: the files the first reading found an error in, when it is
/// known. Every document of any other file passed the full walk then, so
/// its fields are looked up (`lookup`) instead of walked again; `None`
/// walks every document.
pub fn read_each<R: Send>(
    inputs: &Inputs,
    wanted: &[Vec<String>],
    failed: Option<&[PathBuf]>,
    measure: impl Fn(usize, Columns) -> R + Sync,
) -> (Vec<R>, Vec<InputError>) {
    let n = inputs.collections.len();
    let paths_of = |c: usize| wanted.get(c).map_or(&[][..], Vec::as_slice);
    let mut left = vec![0usize; n];
    for source in &inputs.sources {
        for c in source.collections() {
            if let Some(l) = left.get_mut(c) {
                *l += 1;
            }
        }
    }
    let state = Mutex::new(Pending {
        parts: (0..n).map(|_| Vec::new()).collect(),
        left,
        errors: (0..inputs.sources.len()).map(|_| Vec::new()).collect(),
    });
    let results: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    inputs
        .sources
        .par_iter()
        .enumerate()
        .for_each(|(s, source)| {
            let (columns, errors) = read_source(source, &source.collections(), n, wanted, failed);
            // The collections this source completes, taken out of the
            // shared state before they are measured, outside the lock.
            let complete: Vec<(usize, Parts)> = {
                let mut pending = state.lock().unwrap_or_else(|e| e.into_inner());
                pending.errors[s] = errors;
                columns
                    .into_iter()
                    .filter_map(|(c, columns)| pending.add(c, s, columns))
                    .collect()
            };
            for (c, parts) in complete {
                let result = measure(c, join(paths_of(c), parts));
                *results[c].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            }
        });
    let pending = state.into_inner().unwrap_or_else(|e| e.into_inner());
    let results = results
        .into_iter()
        .enumerate()
        .map(|(c, r)| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| measure(c, Columns::new(paths_of(c))))
        })
        .collect();
    (results, pending.errors.into_iter().flatten().collect())
}

/// What `read_each` keeps between sources: each collection's parts read
/// so far (with their source's index), how many of its sources are left,
/// and each source's errors.
struct Pending {
    parts: Vec<Parts>,
    left: Vec<usize>,
    errors: Vec<Vec<InputError>>,
}

impl Pending {
    /// Keeps source `s`'s part of collection `c`; the collection's parts
    /// when it was the last source left to hold it.
    fn add(&mut self, c: usize, s: usize, columns: Columns) -> Option<(usize, Parts)> {
        let parts = self.parts.get_mut(c)?;
        parts.push((s, columns));
        let left = &mut self.left[c];
        *left = left.saturating_sub(1);
        (*left == 0).then(|| (c, std::mem::take(parts)))
    }
}

/// One collection's parts joined in source order.
fn join(paths: &[String], mut parts: Parts) -> Columns {
    parts.sort_by_key(|(s, _)| *s);
    let mut out = Columns::new(paths);
    for (_, columns) in parts {
        out.append(columns);
    }
    out
}

/// Every collection's columns at once, as they were read before `read_each`:
/// every source read for every collection, all joined at the end. The
/// reference its tests hold the per-collection measuring to.
#[cfg(test)]
pub fn read(
    inputs: &Inputs,
    wanted: &[Vec<String>],
    failed: Option<&[PathBuf]>,
) -> (Vec<Columns>, Vec<InputError>) {
    let n = inputs.collections.len();
    let all: Vec<usize> = (0..n).collect();
    let parts: Vec<(Parts, Vec<InputError>)> = inputs
        .sources
        .par_iter()
        .map(|source| read_source(source, &all, n, wanted, failed))
        .collect();
    let mut out: Vec<Columns> = (0..n)
        .map(|c| Columns::new(wanted.get(c).map_or(&[][..], Vec::as_slice)))
        .collect();
    let mut errors = Vec::new();
    for (columns, errs) in parts {
        for (c, columns) in columns {
            out[c].append(columns);
        }
        errors.extend(errs);
    }
    (out, errors)
}

#[cfg(test)]
#[path = "each_tests.rs"]
mod tests;
