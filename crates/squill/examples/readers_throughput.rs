//! Measures the readers alone, single thread: framing plus a validating walk
//! for BSON inputs, transcoding plus the walk for JSON inputs.
//!
//! `cargo run --release -p squill --example readers_throughput -- [--repeat N] [--no-walk] PATH…`
//!
//! The machine is shared, so besides wall time it reports the process's own
//! CPU time (from /proc/self/schedstat on Linux) and the rate per CPU second.

use squill::inputs::bson::{Container, Scalar, Visitor, walk};
use squill::inputs::dump::{Event, InputFormat, open};
use std::path::PathBuf;
use std::time::Instant;

struct Count(u64);

impl Visitor for Count {
    fn enter(&mut self, _: &str, _: Container, _: u32, _: u32) {}
    fn leave(&mut self, _: Container, _: u32, _: u32) {}
    fn scalar(&mut self, _: &str, _: Scalar<'_>, _: u32, _: u32) {
        self.0 += 1;
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 5;
    let mut do_walk = true;
    loop {
        match args.first().map(String::as_str) {
            Some("--repeat") => {
                repeat = args[1].parse().expect("--repeat N");
                args.drain(..2);
            }
            Some("--no-walk") => {
                do_walk = false;
                args.remove(0);
            }
            _ => break,
        }
    }
    let paths: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    let inputs = open(&paths, InputFormat::Auto);
    for e in &inputs.errors {
        eprintln!("{e}");
    }
    let (mut input_bytes, mut bson_bytes, mut docs, mut errors) = (0u64, 0u64, 0u64, 0u64);
    let mut scalars = Count(0);
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    for _ in 0..repeat {
        for source in &inputs.sources {
            let summary = source
                .read(&mut |event| match event {
                    Event::Document { bytes, .. } => {
                        bson_bytes += bytes.len() as u64;
                        if do_walk && walk(bytes, &mut scalars).is_err() {
                            errors += 1;
                        }
                    }
                    Event::Error(_) => errors += 1,
                })
                .expect("readable");
            docs += summary.documents;
            input_bytes += summary.bytes;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu_start).map(|(end, begin)| end - begin);
    println!(
        "{docs} documents, {:.1} MB input ({:.1} MB as BSON), {errors} errors, {} scalars; \
         wall {secs:.3} s: {:.0} MB/s of input, {:.0} docs/s",
        input_bytes as f64 / 1e6,
        bson_bytes as f64 / 1e6,
        scalars.0,
        input_bytes as f64 / 1e6 / secs,
        docs as f64 / secs
    );
    if let Some(cpu) = cpu {
        println!(
            "cpu {cpu:.3} s: {:.0} MB/s of input per CPU second, {:.0} MB/s of BSON, {:.0} docs/s",
            input_bytes as f64 / 1e6 / cpu,
            bson_bytes as f64 / 1e6 / cpu,
            docs as f64 / cpu
        );
    }
}

/// CPU time this process spent running, in seconds (Linux only).
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}
