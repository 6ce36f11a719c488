//! The scan's hot path on one thread, in memory (no I/O): walking the BSON
//! alone (the floor) against profiling it (walk + visitor + fingerprints).
//! Input: every .bson of ../shared/data/mongo/atlas-sample-dump, read once.
//! Run: `cargo bench -p squill --bench scan`.

use squill::inputs::bson::{Container, Scalar, Visitor, walk};
use squill::scan::{CollectionProfile, Limits};
use std::path::Path;

fn main() {
    divan::main();
}

struct NoOp;

impl Visitor for NoOp {
    fn enter(&mut self, _: &str, _: Container, _: u32, _: u32) {}
    fn leave(&mut self, _: Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: Scalar<'_>, _: u32, _: u32) {}
}

/// (collection file, its documents) for every non-empty .bson file.
fn corpus() -> Vec<Vec<Vec<u8>>> {
    let root =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/mongo/atlas-sample-dump");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "bson") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|bytes| {
            let mut docs = Vec::new();
            let mut at = 0;
            while at + 4 <= bytes.len() {
                let n = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
                if n < 5 || at + n > bytes.len() {
                    break;
                }
                docs.push(bytes[at..at + n].to_vec());
                at += n;
            }
            docs
        })
        .filter(|d: &Vec<Vec<u8>>| !d.is_empty())
        .collect()
}

fn total_bytes(c: &[Vec<Vec<u8>>]) -> usize {
    c.iter().flatten().map(Vec::len).sum()
}

#[divan::bench(sample_count = 10)]
fn walk_only(b: divan::Bencher) {
    let c = corpus();
    b.counter(divan::counter::BytesCount::new(total_bytes(&c)))
        .bench(|| {
            for docs in &c {
                for d in docs {
                    let _ = walk(divan::black_box(d), &mut NoOp);
                }
            }
        });
}

#[divan::bench(sample_count = 10)]
fn profile(b: divan::Bencher) {
    let c = corpus();
    b.counter(divan::counter::BytesCount::new(total_bytes(&c)))
        .bench(|| {
            for docs in &c {
                let mut p = CollectionProfile::new(Limits::default());
                for d in docs {
                    let _ = p.add(divan::black_box(d));
                }
                p.finish();
                divan::black_box(&p);
            }
        });
}
