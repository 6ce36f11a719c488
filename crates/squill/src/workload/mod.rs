//! mongod and mongos logs as a workload: the structured JSON log (4.4 and
//! later) and the legacy text log (2.4–4.2), plain or gzip, several files at
//! once, streamed line by line; and the profiler's `system.profile`, exported
//! as JSON (`profile`) or dumped as BSON (`profile_dump`). Each operation becomes a query shape
//! (`shape`), its executions statistics (`stats`), and the report
//! (`report::WorkloadReport`) lists them per namespace. Literal values are
//! never kept unless asked for (`Options::show_values`): logs hold personal
//! data. Lines that cannot be read are counted with their place and reason
//! (`problem`), and the rest is analysed.

mod collect;
mod entry;
mod geo_area;
mod json_line;
mod legacy_line;
mod lines;
mod node;
pub mod problem;
mod profile;
mod profile_dump;
pub mod report;
pub mod shape;
pub mod shape_table;
mod shell_syntax;
mod sketch;
mod source;
mod stats;
mod timestamp;

pub use report::WorkloadReport;

use std::path::PathBuf;

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Keep one example filter per shape, with its literal values.
    pub show_values: bool,
}

/// Reads every file into one report. A file that cannot be opened is in
/// `report.errors`; the others are still read.
pub fn read(paths: &[PathBuf], options: Options) -> WorkloadReport {
    let mut collector = collect::Collector::default();
    for path in paths {
        source::read_file(path, &options, &mut collector);
    }
    collector.finish(options.show_values)
}

/// Reads log bytes held in memory (tests, standard input) as a file named `name`.
pub fn read_bytes(name: &str, bytes: &[u8], options: Options) -> WorkloadReport {
    let mut collector = collect::Collector::default();
    let reader = std::io::BufReader::new(bytes);
    match source::read_any(reader, name, &options, &mut collector) {
        Ok(summary) => collector.file(summary),
        Err(e) => collector.error(name, format!("cannot read {name}: {e}")),
    }
    collector.finish(options.show_values)
}

#[cfg(test)]
mod tests;
