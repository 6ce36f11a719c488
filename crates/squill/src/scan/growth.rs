//! How fast a running deployment's collections grow, measured: from two
//! scans of it some time apart (`scan DUMP --since OLD_DUMP`), or from the
//! inserts its logs show (`scan DUMP --workload LOG --horizon …`). The
//! capacity projection (`advise::deployment_capacity`) grows today's
//! measured collections by these rates; docs/capacity.md says why each
//! rule is what it is.
//!
//! Growth is linear: documents added per day, not a share compounded.
//! Two points cannot tell a steady insert rate from a compounding one, and
//! over a horizon of years a share measured over a few weeks, compounded,
//! runs far past anything the deployment showed; a steady rate is what
//! both sources measure directly (inserts per second, documents added
//! between two dates). A model that knows its growth compounds states it
//! (`growth: {percent: 8, per: month}`) and uses `advise --horizon`.

use super::report::{CollectionReport, ScanReport};
use super::shard_keys::value::KeyValue;
use crate::inputs::dump::{InputError, Inputs};
use crate::workload::WorkloadReport;
use crate::workload::shape::OpKind;
use serde::Serialize;

/// Seconds in a day.
const DAY: f64 = 86_400.0;

/// Where the rates came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum GrowthSource {
    /// Two scans `days` apart.
    Dumps { days: f64, interval: Interval },
    /// The inserts logged over `days` (the logs' span).
    Inserts { days: f64 },
}

/// How the time between two dumps was known.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum Interval {
    /// Given on the command line (`--interval`).
    Stated,
    /// The newest ObjectId time of each dump (seconds since the epoch):
    /// the last insert before each dump was taken.
    ObjectIds { old: i64, new: i64 },
}

/// One collection's growth per day.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rate {
    pub database: Option<String>,
    pub collection: String,
    pub documents_per_day: f64,
    /// The largest document's bytes added per day (two dumps only; the
    /// logs do not say how documents grow).
    pub largest_bytes_per_day: f64,
    /// The longest array's elements added per day, and its field (two
    /// dumps only).
    pub largest_array_per_day: f64,
}

/// The rates, and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Growth {
    pub source: GrowthSource,
    pub rates: Vec<Rate>,
}

impl Growth {
    /// The rate of `c`, if measured.
    pub fn of(&self, c: &CollectionReport) -> Option<&Rate> {
        self.rates
            .iter()
            .find(|r| r.database == c.database && r.collection == c.name)
    }
}

/// Why the growth could not be measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrowthError {
    /// Two dumps and no interval: neither stated nor told by ObjectIds.
    NoInterval,
    /// The newer dump's newest ObjectId is not after the older one's.
    NotLater { old: i64, new: i64 },
    /// Logs with no time span (one line, or no dates).
    NoSpan,
}

impl std::fmt::Display for GrowthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrowthError::NoInterval => f.write_str(
                "the dumps hold no ObjectId _id to date them: give the time between them with --interval (`30d`, `2m`)",
            ),
            GrowthError::NotLater { old, new } => write!(
                f,
                "the newer dump's newest ObjectId ({new}) is not later than the older dump's ({old}): give --interval"
            ),
            GrowthError::NoSpan => f.write_str(
                "the logs cover no time span (one entry, or no dates): an insert rate needs two dated entries",
            ),
        }
    }
}

impl std::error::Error for GrowthError {}

/// The time between two dumps: `stated` days when given, else the
/// difference of the newest ObjectId time in each (`newest_object_id`).
pub fn interval(
    stated: Option<f64>,
    old_newest: Option<i64>,
    new_newest: Option<i64>,
) -> Result<(f64, Interval), GrowthError> {
    if let Some(days) = stated {
        return Ok((days, Interval::Stated));
    }
    match (old_newest, new_newest) {
        (Some(old), Some(new)) if new > old => {
            Ok(((new - old) as f64 / DAY, Interval::ObjectIds { old, new }))
        }
        (Some(old), Some(new)) => Err(GrowthError::NotLater { old, new }),
        _ => Err(GrowthError::NoInterval),
    }
}

/// Each collection of `new`, grown since `old` over `days` (> 0): the
/// documents, the largest document and the longest array added per day.
/// A collection `old` lacks grew from nothing; a count that fell grows
/// at a negative rate, as measured.
pub fn between(old: &ScanReport, new: &ScanReport, days: f64, interval: Interval) -> Growth {
    let rates = new
        .collections
        .iter()
        .map(|c| {
            let before = old
                .collections
                .iter()
                .find(|o| o.database == c.database && o.name == c.name);
            let per_day = |now: u64, was: u64| (now as f64 - was as f64) / days;
            Rate {
                database: c.database.clone(),
                collection: c.name.clone(),
                documents_per_day: per_day(documents_today(c), before.map_or(0, documents_today)),
                largest_bytes_per_day: per_day(c.size.max, before.map_or(0, |o| o.size.max))
                    .max(0.0),
                largest_array_per_day: per_day(longest_array(c), before.map_or(0, longest_array))
                    .max(0.0),
            }
        })
        .collect();
    Growth {
        source: GrowthSource::Dumps { days, interval },
        rates,
    }
}

/// The documents `c` holds: a live scan's sampled collection counts the
/// server's (`sampled_from`), not the sample's.
pub fn documents_today(c: &CollectionReport) -> u64 {
    c.sampled_from.unwrap_or(c.documents)
}

/// The longest array of any field of `c`.
pub fn longest_array(c: &CollectionReport) -> u64 {
    c.fields
        .iter()
        .filter_map(|f| f.array.as_ref().map(|a| a.lengths.max))
        .max()
        .unwrap_or(0)
}

/// Each collection of `report` grown by the inserts `workload` logged, at
/// the rate over the logs' span: one document per logged insert (a batch
/// insert logs once, and a log keeps only the operations slower than
/// `slowms` unless the profiler logs all: a lower bound; docs/capacity.md).
pub fn from_inserts(report: &ScanReport, workload: &WorkloadReport) -> Result<Growth, GrowthError> {
    let span = workload
        .span
        .as_ref()
        .map(|s| s.seconds)
        .filter(|s| *s > 0.0)
        .ok_or(GrowthError::NoSpan)?;
    let rates = report
        .collections
        .iter()
        .map(|c| {
            let inserts: u64 = workload
                .namespaces
                .iter()
                .filter(|n| {
                    n.collection == c.name && c.database.as_ref().is_none_or(|db| *db == n.database)
                })
                .flat_map(|n| &n.shapes)
                .filter(|s| s.shape.kind == OpKind::Insert)
                .map(|s| s.count)
                .sum();
            Rate {
                database: c.database.clone(),
                collection: c.name.clone(),
                documents_per_day: inserts as f64 / span * DAY,
                largest_bytes_per_day: 0.0,
                largest_array_per_day: 0.0,
            }
        })
        .collect();
    Ok(Growth {
        source: GrowthSource::Inserts { days: span / DAY },
        rates,
    })
}

/// The newest ObjectId `_id` time in a dump, seconds since the epoch:
/// when its last insert ran, which a dump taken under a steady load
/// follows closely. `None` when no collection has an ObjectId `_id`.
/// Reads the `_id` of every document a second time.
pub fn newest_object_id(inputs: &Inputs) -> (Option<i64>, Vec<InputError>) {
    let wanted: Vec<Vec<String>> = inputs
        .collections
        .iter()
        .map(|_| vec!["_id".to_string()])
        .collect();
    // Each collection's newest kept, and its column dropped, as soon as it
    // is read.
    let (each, errors) = super::shard_keys::each::read_each(inputs, &wanted, None, |_, c| {
        c.columns
            .iter()
            .flat_map(|column| (0..column.distinct()).filter_map(|r| column.distinct_value(r)))
            .filter_map(|v| match v {
                KeyValue::ObjectId(b) => {
                    Some(i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
                }
                _ => None,
            })
            .max()
    });
    let newest = each.into_iter().flatten().max();
    (newest, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_interval_wins_and_object_ids_must_move_forward() {
        assert_eq!(
            interval(Some(30.0), Some(5), Some(1)),
            Ok((30.0, Interval::Stated))
        );
        assert_eq!(
            interval(None, Some(0), Some(2 * 86_400)),
            Ok((
                2.0,
                Interval::ObjectIds {
                    old: 0,
                    new: 172_800
                }
            ))
        );
        assert_eq!(
            interval(None, Some(10), Some(10)),
            Err(GrowthError::NotLater { old: 10, new: 10 })
        );
        assert_eq!(interval(None, None, Some(10)), Err(GrowthError::NoInterval));
    }
}
