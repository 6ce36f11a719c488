//! A live scan's figures for the collections, not for their samples
//! (issue 46). The scan measured each sample as if it were a dump; here the
//! figures that a sample cannot give are asked of the server, read-only and
//! bounded (`Budget`): each sampled reference is looked up in the whole
//! referenced collection, and each relationship's fan-out is estimated by the
//! best method the indexes allow (`fan_out`). Shares get Wilson intervals
//! (`fields`), percentiles order-statistic intervals or a note.

mod fan_out;
mod fields;
mod references;
pub mod stats;

use super::report::ScanReport;
use crate::inputs::sampled::{KeptValues, Lookup};
use crate::settings::Settings;
use std::time::{Duration, Instant};

/// One collection a live scan read, as the server described it.
#[derive(Debug, Clone, Copy)]
pub struct SampledCollection<'a> {
    pub database: &'a str,
    pub collection: &'a str,
    /// The server's estimate of its documents.
    pub estimated: u64,
    /// The possible references of the first documents read.
    pub kept: &'a KeptValues,
}

/// Bounds on what the scan asks the server after sampling.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// `find` and `countDocuments` commands in all.
    pub queries: u64,
    /// Parents whose children are counted, per relationship.
    pub parents_per_relationship: usize,
    /// Wall-clock time for all of it.
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            queries: 2_000,
            parents_per_relationship: 200,
            time: Duration::from_secs(60),
        }
    }
}

/// What is left of a `Budget` as the questions go.
pub(crate) struct Spend {
    queries_left: u64,
    until: Instant,
    parents_per_relationship: usize,
}

impl Spend {
    fn new(b: Budget) -> Self {
        Spend {
            queries_left: b.queries,
            until: Instant::now() + b.time,
            parents_per_relationship: b.parents_per_relationship,
        }
    }

    /// Takes `n` queries if they are left and time is.
    fn take(&mut self, n: u64) -> bool {
        if self.queries_left < n || Instant::now() >= self.until {
            return false;
        }
        self.queries_left -= n;
        true
    }
}

/// Replaces the figures of `report` that its samples cannot give with
/// estimates for the collections, asking `server`. `report` must carry each
/// sampled collection's `sampled_from`. Errors of the server become notes:
/// the relationship's share is then unknown, never the sample's mismatch.
pub fn estimate(
    report: &mut ScanReport,
    collections: &[SampledCollection<'_>],
    server: &mut dyn Lookup,
    settings: &Settings,
    budget: Budget,
) {
    fields::intervals(report);
    let mut spend = Spend::new(budget);
    references::estimate(report, collections, server, settings, &mut spend);
    if report.collections.iter().any(|c| c.sampled_from.is_some()) {
        report.notes.push(SAMPLE_NOTE.to_string());
    }
}

/// What every sampled report says of `$sample` itself.
pub const SAMPLE_NOTE: &str = "Sampled collections are read with $sample. Below 5 % of a \
collection of more than 100 documents the server picks documents with a pseudo-random cursor, \
by storage position: the MongoDB manual warns that it may return a document more than once, \
and the pick is close to uniform but not exactly. Every figure of a sampled collection is an \
estimate, with its 99 % interval or the method behind it; counts come from the collection's \
metadata.";

#[cfg(test)]
mod tests;
