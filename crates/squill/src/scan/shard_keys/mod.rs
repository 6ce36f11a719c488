//! `scan --shard-keys`: the metrics MongoDB's `analyzeShardKey` reports,
//! computed offline and exactly from a dump and the logged query shapes,
//! for candidate keys found in both (docs/shard-keys.md).
//!
//! The scan's report says which fields exist and how many values they
//! have, the workload report which filters run how often; `candidates`
//! picks the keys, `extract` reads their values from the dump a second
//! time (in record order, which stands for insertion order; looked up, not
//! walked, in the files the scan read without an error),
//! `characteristics` and `distribution` measure each key, and `rank`
//! orders them with their reasons. `each` measures a collection as soon as
//! its sources are read and drops its values, so only one collection's
//! values at a time (per thread) are held.

pub mod candidates;
pub mod characteristics;
pub mod code;
pub mod column;
pub mod distribution;
pub mod each;
pub mod extract;
pub mod key;
pub mod lookup;
pub mod rank;
pub mod reason;
pub mod report;
pub mod value;

#[cfg(test)]
mod tests;

pub use key::{KeyError, ShardKey};
pub use report::ShardKeyReport;

use crate::inputs::dump::{InputError, Inputs};
use crate::scan::report::{CollectionReport, ScanReport};
use crate::workload::WorkloadReport;
use crate::workload::report::ShapeReport;
use report::{Candidate, NamespaceKeys};

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--shard-key`: keys to analyse besides the ones found.
    pub named: Vec<ShardKey>,
    /// `--show-values`: the most common values themselves, not only their
    /// frequencies.
    pub show_values: bool,
}

/// `db.coll`, or the bare name when the input has no database.
pub fn namespace(c: &CollectionReport) -> String {
    match &c.database {
        Some(db) => format!("{db}.{}", c.name),
        None => c.name.clone(),
    }
}

/// The logged shapes of one collection: by namespace, or by collection
/// name when the dump does not say the database.
fn shapes_of<'w>(workload: &'w WorkloadReport, c: &CollectionReport) -> (&'w [ShapeReport], u64) {
    let found = workload.namespaces.iter().find(|n| match &c.database {
        Some(db) => n.database == *db && n.collection == c.name,
        None => n.collection == c.name,
    });
    match found {
        Some(n) => (&n.shapes, n.shapes_not_kept.operations),
        None => (&[], 0),
    }
}

/// Analyses every collection of `report` that has documents. `inputs` is
/// the dump opened again: its documents are read a second time.
pub fn analyze(
    report: &ScanReport,
    workload: &WorkloadReport,
    inputs: &Inputs,
    options: &Options,
) -> (ShardKeyReport, Vec<InputError>) {
    let plan = Plan::new(report, workload, inputs, options);
    // Each collection measured once its sources are read, and its columns
    // dropped then: only the report of its keys is kept.
    let (keys, errors) = each::read_each(inputs, &plan.wanted, plan.failed(), |i, columns| {
        plan.measure(i, &columns, workload, options)
    });
    let out = ShardKeyReport {
        shard_keys: keys.into_iter().flatten().collect(),
    };
    (out, errors)
}

/// The candidate keys of each collection of the inputs (by the index the
/// inputs give it), and the fields to read for them.
struct Plan<'r> {
    /// The scan's report of each collection with documents.
    by_input: Vec<Option<&'r CollectionReport>>,
    found: Vec<std::collections::BTreeMap<ShardKey, Vec<candidates::Origin>>>,
    wanted: Vec<Vec<String>>,
    /// The files the scan found an error in; `None` when some error names
    /// no file, and then no file is trusted.
    failed: Option<Vec<std::path::PathBuf>>,
}

impl<'r> Plan<'r> {
    fn new(
        report: &'r ScanReport,
        workload: &WorkloadReport,
        inputs: &Inputs,
        options: &Options,
    ) -> Plan<'r> {
        // The scan's collections, by the index the inputs give them.
        let by_input: Vec<Option<&CollectionReport>> = inputs
            .collections
            .iter()
            .map(|info| {
                report
                    .collections
                    .iter()
                    .find(|c| c.database == info.database && c.name == info.name && c.documents > 0)
            })
            .collect();
        let mut found = Vec::with_capacity(by_input.len());
        let mut wanted: Vec<Vec<String>> = Vec::with_capacity(by_input.len());
        for c in &by_input {
            let Some(c) = c else {
                found.push(Default::default());
                wanted.push(Vec::new());
                continue;
            };
            let (shapes, _) = shapes_of(workload, c);
            let named: Vec<ShardKey> = options
                .named
                .iter()
                .filter(|k| {
                    k.fields
                        .iter()
                        .all(|f| c.fields.iter().any(|r| r.path == f.path))
                })
                .cloned()
                .collect();
            let keys = candidates::collect(c, shapes, &named);
            let mut paths: Vec<String> = keys
                .keys()
                .flat_map(|k| k.fields.iter().map(|f| f.path.clone()))
                .collect();
            paths.sort();
            paths.dedup();
            wanted.push(paths);
            found.push(keys);
        }
        let failed = report.errors.iter().map(|e| e.file.clone()).collect();
        Plan {
            by_input,
            found,
            wanted,
            failed,
        }
    }

    fn failed(&self) -> Option<&[std::path::PathBuf]> {
        self.failed.as_deref()
    }

    /// Collection `i`'s keys measured on its columns; `None` when it has no
    /// documents in the scan or no candidate.
    fn measure(
        &self,
        i: usize,
        columns: &extract::Columns,
        workload: &WorkloadReport,
        options: &Options,
    ) -> Option<NamespaceKeys> {
        let c = self.by_input.get(i).copied().flatten()?;
        collection_keys(c, &self.found[i], columns, workload, options)
    }
}

/// The candidates `keys` of collection `c`, measured on its `columns` and
/// ranked; `None` when it has no candidate.
fn collection_keys(
    c: &CollectionReport,
    keys: &std::collections::BTreeMap<ShardKey, Vec<candidates::Origin>>,
    columns: &extract::Columns,
    workload: &WorkloadReport,
    options: &Options,
) -> Option<NamespaceKeys> {
    if keys.is_empty() {
        return None;
    }
    let (shapes, not_kept) = shapes_of(workload, c);
    let mut list: Vec<Candidate> = Vec::new();
    for (key, origins) in keys {
        if let Some(candidate) = measure(c, columns, shapes, key.clone(), origins.clone(), options)
        {
            list.push(candidate);
        }
    }
    // Hashed against ranged: a monotonic single field, hashed. Its
    // values, so its cardinality and frequencies, are the ranged key's:
    // only the monotonicity differs (a hashed field is never monotonic).
    let monotonic: Vec<(ShardKey, Option<report::KeyCharacteristics>)> = list
        .iter()
        .filter(|k| k.key.fields.len() == 1 && !k.key.is_hashed())
        .filter(|k| {
            k.reason
                .warnings
                .iter()
                .any(|w| matches!(w, reason::Warning::Monotonic { .. }))
        })
        .map(|k| {
            let mut h = k.key.clone();
            h.fields[0].hashed = true;
            let characteristics = k.key_characteristics.clone().map(|mut ch| {
                ch.is_unique = false;
                ch.monotonicity = characteristics::hashed_monotonicity();
                ch
            });
            (h, characteristics)
        })
        .filter(|(h, _)| !list.iter().any(|k| k.key == *h))
        .collect();
    for (key, known) in monotonic {
        let origins = vec![candidates::Origin::HashedAlternative];
        if let Some(candidate) =
            measure_with(c, columns, shapes, key, origins, options, Some(known))
        {
            list.push(candidate);
        }
    }
    rank::rank(&mut list);
    Some(NamespaceKeys {
        namespace: namespace(c),
        candidates: list,
        indexes_known: c.indexes.is_some(),
        operations_not_classified: not_kept,
        data_bytes: c.bytes,
    })
}

fn measure(
    c: &CollectionReport,
    columns: &extract::Columns,
    shapes: &[ShapeReport],
    key: ShardKey,
    origins: Vec<candidates::Origin>,
    options: &Options,
) -> Option<Candidate> {
    measure_with(c, columns, shapes, key, origins, options, None)
}

/// `measure`, with the key characteristics when they are known already.
fn measure_with(
    c: &CollectionReport,
    columns: &extract::Columns,
    shapes: &[ShapeReport],
    key: ShardKey,
    origins: Vec<candidates::Origin>,
    options: &Options,
    known: Option<Option<report::KeyCharacteristics>>,
) -> Option<Candidate> {
    let fields: Vec<usize> = key
        .fields
        .iter()
        .map(|f| columns.column(&f.path))
        .collect::<Option<_>>()?;
    let characteristics = known.unwrap_or_else(|| {
        characteristics::measure(
            columns,
            &fields,
            &key,
            candidates::is_unique(c, &key),
            options.show_values,
        )
    });
    let (read_distribution, write_distribution) = distribution::distributions(&key, shapes);
    let arrays = fields.iter().map(|&f| columns.arrays[f]).max().unwrap_or(0);
    let documents_as_values = fields
        .iter()
        .map(|&f| columns.documents_as_values[f])
        .max()
        .unwrap_or(0);
    let operations = read_distribution.sample_size.total + write_distribution.sample_size.total;
    let mut candidate = Candidate {
        supporting_index: candidates::supporting_index(c, &key),
        key,
        read_distribution,
        write_distribution,
        rank: 0,
        reason: reason::Reason {
            origins,
            operations,
            single_shard: read_distribution.counts.single_shard
                + write_distribution.counts.single_shard,
            scatter_gather: read_distribution.counts.scatter_gather
                + write_distribution.counts.scatter_gather,
            distinct: characteristics.as_ref().map(|k| k.num_distinct_values),
            warnings: Vec::new(),
        },
        key_characteristics: characteristics,
    };
    candidate.reason.warnings = rank::warnings(&candidate, arrays, documents_as_values);
    Some(candidate)
}
