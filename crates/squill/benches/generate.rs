//! Data generation throughput: `squill generate data` on the host → log
//! messages design (000_34acd10fa9a500cb.txt), sized to about
//! SQUILL_BENCH_BYTES of output (default 1 GB, EJSON + BSON together) in
//! SQUILL_BENCH_DIR (default target/bench-generate). Prints documents/s and
//! MB/s for writing the files, and for building and encoding the same
//! documents without writing them, to tell CPU-bound from disk-bound.
//!
//!     cargo bench -p squill --features fixtures --bench generate

use squill::generate::{Builder, DataOptions, Fanout, Population, data, fixtures};
use std::time::Instant;

fn main() {
    let target: u64 = std::env::var("SQUILL_BENCH_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000_000);
    let dir = std::env::var("SQUILL_BENCH_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from("target/bench-generate"));
    let (model, design) = fixtures::host_logs();

    // Size one host's worth of output, then scale to the target.
    let probe = dir.join("probe");
    let _ = std::fs::remove_dir_all(&probe);
    let small = data::write(&model, &design, &DataOptions::new(4, 1), &probe).expect("probe");
    let _ = std::fs::remove_dir_all(&probe);
    let per_host = small.bytes() / 4;
    let scale = (target / per_host.max(1)).max(1);

    // CPU only: build and encode every document, write nothing.
    let pop = Population::new(&model, &design, scale, 1);
    let builder = Builder {
        pop: &pop,
        fanout: Fanout::Drawn,
    };
    let started = Instant::now();
    let (mut docs, mut bytes) = (0u64, 0u64);
    let mut text = String::new();
    let mut bin = Vec::new();
    for coll in &design.collections {
        pop.for_each_root(coll, |root| -> Result<(), ()> {
            let doc = builder.document(coll, &root);
            text.clear();
            bin.clear();
            doc.write_ejson_line(&mut text);
            doc.write_bson(&mut bin);
            docs += 1;
            bytes += (text.len() + bin.len()) as u64;
            Ok(())
        })
        .expect("build");
    }
    let cpu = started.elapsed().as_secs_f64();
    println!(
        "build+encode only: {docs} documents, {bytes} bytes in {cpu:.2} s: {:.0} documents/s, {:.1} MB/s",
        docs as f64 / cpu,
        bytes as f64 / cpu / 1e6
    );

    let out = dir.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let started = Instant::now();
    let summary = data::write(&model, &design, &DataOptions::new(scale, 1), &out).expect("write");
    let secs = started.elapsed().as_secs_f64();
    println!(
        "generate data (scale {scale}, EJSON + BSON, fsync at close): {} documents, {} bytes in {secs:.2} s: {:.0} documents/s, {:.1} MB/s",
        summary.documents(),
        summary.bytes(),
        summary.documents() as f64 / secs,
        summary.bytes() as f64 / secs / 1e6
    );
    let _ = std::fs::remove_dir_all(&out);
}
