//! The cost model: prices a candidate design on the workload (round trips,
//! documents and index keys examined, bytes read and written, sync writes,
//! transactions), weighted by the operations' rates. See docs/cost-model.md.
//!
//! `plan` turns one operation into the steps it runs under a placement; each
//! step carries its own cost, so the plan a user reads and the number the
//! optimizer minimizes come from the same code.

pub(crate) mod plan;

use crate::design::Cost;
use crate::settings::CostCoefficients;

impl Cost {
    /// Adds `other` scaled by `k`.
    pub fn add_scaled(&mut self, other: &Cost, k: f64) {
        self.round_trips += other.round_trips * k;
        self.documents_examined += other.documents_examined * k;
        self.index_keys_examined += other.index_keys_examined * k;
        self.bytes_read += other.bytes_read * k;
        self.bytes_written += other.bytes_written * k;
        self.sync_writes += other.sync_writes * k;
        self.transactions += other.transactions * k;
        self.documents_written += other.documents_written * k;
        self.shard_requests += other.shard_requests * k;
        self.index_entries += other.index_entries * k;
        self.score += other.score * k;
    }

    /// `self - other`, component-wise.
    pub fn minus(&self, other: &Cost) -> Cost {
        let mut d = *self;
        d.add_scaled(other, -1.0);
        d
    }

    /// Sets `score` from the components (index entries excluded: they are
    /// standing costs priced by `index_score`).
    pub fn rescore(&mut self, c: &CostCoefficients) {
        self.score = self.round_trips * c.round_trip
            + self.documents_examined * c.document_examined
            + self.index_keys_examined * c.index_key
            + self.bytes_read * c.byte_read
            + self.bytes_written * c.byte_written
            + self.documents_written * c.document_written
            + self.sync_writes * c.sync_write
            + self.transactions * c.transaction
            + self.shard_requests * c.round_trip;
    }
}

/// Standing cost of an index per second: its entries held in memory, and one
/// key written per entry for every write of the indexed documents.
pub(crate) fn index_score(
    entries: f64,
    writes_per_second: f64,
    keys_per_document: f64,
    c: &CostCoefficients,
) -> f64 {
    entries * c.index_entry + writes_per_second * keys_per_document * c.index_key
}
