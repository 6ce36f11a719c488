//! References of sampled collections, checked against the whole referenced
//! collection. A sample of orders checked against a sample of customers
//! finds half the orders dangling when half the customers were sampled
//! (issue 46); looked up on the server's `_id` index, every order matches.
//!
//! Candidates are the kept fields of every collection a live scan read whose
//! values have the class of another collection's `_id` (ObjectIds always;
//! strings and numbers when the name says so, as for a dump). A probe of a
//! few values rules out the collections that hold none of them; the rest of
//! the sampled values are then looked up, in batches.

use super::super::estimate::{MatchMethod, RelationshipEstimate};
use super::super::relationships::name_says_reference;
use super::super::report::{
    CollectionRef, CollectionReport, Direction, RelationshipReport, ScanReport,
};
use super::fan_out::{self, Side};
use super::stats::wilson;
use super::{SampledCollection, Spend};
use crate::inputs::sampled::{Lookup, RefValue};
use crate::settings::Settings;
use std::collections::BTreeSet;

/// Values probed before the rest: one matching value is enough to go on.
const PROBE: usize = 20;

/// The class of a value, as a key's type: references of another class never
/// match it.
fn class(v: &RefValue) -> &'static str {
    match v {
        RefValue::ObjectId(_) => "objectId",
        RefValue::String(_) => "string",
        RefValue::Int(_) => "int",
    }
}

/// The class most of `values` have.
fn main_class(values: &[RefValue]) -> Option<&'static str> {
    let mut counts = [("objectId", 0), ("string", 0), ("int", 0)];
    for v in values {
        if let Some(c) = counts.iter_mut().find(|(n, _)| *n == class(v)) {
            c.1 += 1;
        }
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(_, n)| *n)
        .map(|(c, _)| c)
}

fn cref(c: &SampledCollection<'_>) -> CollectionRef {
    CollectionRef {
        database: Some(c.database.to_string()),
        collection: c.collection.to_string(),
    }
}

fn report_of<'r>(
    report: &'r ScanReport,
    c: &SampledCollection<'_>,
) -> Option<&'r CollectionReport> {
    report
        .collections
        .iter()
        .find(|r| r.name == c.collection && r.database.as_deref() == Some(c.database))
}

/// Replaces the relationships a sample matched to a sample with the ones the
/// server confirms, estimated for the collections.
pub(super) fn estimate(
    report: &mut ScanReport,
    collections: &[SampledCollection<'_>],
    server: &mut dyn Lookup,
    settings: &Settings,
    spend: &mut Spend,
) {
    let sampled = |r: &CollectionRef| {
        report
            .collections
            .iter()
            .any(|c| c.name == r.collection && c.database == r.database && c.sampled_from.is_some())
    };
    // Matched sample to sample: kept only as a fallback when the server
    // cannot be asked, with the share marked unknown.
    let (stale, mut kept): (Vec<_>, Vec<_>) = std::mem::take(&mut report.relationships)
        .into_iter()
        .partition(|r| sampled(&r.from) || sampled(&r.to));
    let mut found = Vec::new();
    for from in collections {
        let Some(from_report) = report_of(report, from) else {
            continue;
        };
        for (field, values) in &from.kept.fields {
            if field == "_id" || values.values.is_empty() {
                continue;
            }
            let Some(value_class) = main_class(&values.values) else {
                continue;
            };
            let mut best: Option<(f64, RelationshipReport)> = None;
            for to in collections.iter().filter(|t| t.database == from.database) {
                let Some(to_report) = report_of(report, to) else {
                    continue;
                };
                if from_report.sampled_from.is_none() && to_report.sampled_from.is_none() {
                    continue; // both read whole: the dump's matching is exact
                }
                if to.kept.ids().first().map(class) != Some(value_class)
                    || (value_class != "objectId"
                        && !name_says_reference(field, to.collection, "_id"))
                {
                    continue;
                }
                let candidate = Candidate {
                    from,
                    from_report,
                    to,
                    to_report,
                    field,
                    values: &values.values,
                    array_lengths: &values.array_lengths,
                };
                let fallback = stale.iter().find(|r| {
                    r.from == cref(from) && r.to == cref(to) && r.field == *field && r.key == "_id"
                });
                let Some((share, rel)) = candidate.check(server, settings, spend, fallback) else {
                    continue;
                };
                if best.as_ref().is_none_or(|(s, _)| share > *s) {
                    best = Some((share, rel));
                }
            }
            found.extend(best.map(|(_, r)| r));
        }
    }
    // A reference to another unique key than `_id` is not looked up: kept
    // as the samples matched it, its dangling share unknown.
    kept.extend(stale.iter().filter(|r| r.key != "_id").map(|r| {
        let mut r = r.clone();
        r.estimate = Some(unknown_estimate(&r));
        r
    }));
    kept.extend(found);
    report.relationships = kept;
}

/// One sampled field against one collection's `_id`.
struct Candidate<'a> {
    from: &'a SampledCollection<'a>,
    from_report: &'a CollectionReport,
    to: &'a SampledCollection<'a>,
    to_report: &'a CollectionReport,
    field: &'a str,
    values: &'a [RefValue],
    array_lengths: &'a [u64],
}

impl Candidate<'_> {
    /// The relationship, if the server confirms it, with its share matched.
    fn check(
        &self,
        server: &mut dyn Lookup,
        settings: &Settings,
        spend: &mut Spend,
        fallback: Option<&RelationshipReport>,
    ) -> Option<(f64, RelationshipReport)> {
        let distinct: Vec<RefValue> = self
            .values
            .iter()
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let (probe, rest) = distinct.split_at(distinct.len().min(PROBE));
        let batches = rest.len().div_ceil(1_000) as u64;
        let unknown = || {
            fallback.map(|r| {
                let mut r = r.clone();
                r.estimate = Some(unknown_estimate(&r));
                (r.match_share, r)
            })
        };
        if !spend.take(1) {
            return unknown();
        }
        let (db, coll) = (self.to.database, self.to.collection);
        let Ok(mut existing) = server.existing(db, coll, "_id", probe) else {
            return unknown();
        };
        if existing.is_empty() {
            return None;
        }
        if !rest.is_empty() {
            if !spend.take(batches) {
                return unknown();
            }
            match server.existing(db, coll, "_id", rest) {
                Ok(more) => existing.extend(more),
                Err(_) => return unknown(),
            }
        }
        let existing: BTreeSet<RefValue> = existing.into_iter().collect();
        let matched: Vec<&RefValue> = self
            .values
            .iter()
            .filter(|v| existing.contains(v))
            .collect();
        let checked = self.values.len() as u64;
        let share = matched.len() as f64 / checked as f64;
        if share < settings.scan.min_match_share.value {
            return None;
        }
        let dangling = wilson(checked - matched.len() as u64, checked);
        let array_like = !self.array_lengths.is_empty()
            || self.from_report.fields.iter().any(|f| {
                f.array.is_some()
                    && (self.field == f.path || self.field.starts_with(&format!("{}.", f.path)))
            });
        let side = Side {
            from: self.from,
            from_report: self.from_report,
            to: self.to,
            to_report: self.to_report,
            field: self.field,
            matched: &matched,
            share,
            array_lengths: self.array_lengths,
        };
        let fan = if array_like {
            fan_out::of_array(&side)
        } else {
            fan_out::of_parent_reference(&side, server, spend)
        };
        let (from, to) = (cref(self.from), cref(self.to));
        let (direction, parent, child) = if array_like {
            (Direction::ChildReferenceArray, from.clone(), to.clone())
        } else {
            (Direction::ParentReference, to.clone(), from.clone())
        };
        let mut estimate = RelationshipEstimate {
            confidence: super::super::estimate::CONFIDENCE,
            match_method: MatchMethod::ServerLookup,
            dangling,
            ..fan.estimate
        };
        estimate.notes.sort_by_key(|n| format!("{n:?}"));
        let card = fan.cardinality;
        let class = settings.cardinality.classify(fan.kind, &card);
        Some((
            share,
            RelationshipReport {
                from,
                field: self.field.to_string(),
                to,
                key: "_id".to_string(),
                value_type: class_name(self.values),
                reference_number_types: number_types(self.from_report, self.field),
                key_number_types: number_types(self.to_report, "_id"),
                direction,
                parent,
                child,
                values_checked: checked,
                values_matched: matched.len() as u64,
                match_share: round4(share),
                dangling_share: round4(1.0 - share),
                sample_rate: self.from.kept.documents as f64 / self.from.estimated.max(1) as f64,
                fan_out: fan.distribution,
                max_parents_per_child: fan.max_parents_per_child,
                estimate: Some(estimate),
                kind: fan.kind,
                class,
            },
        ))
    }
}

fn class_name(values: &[RefValue]) -> &'static str {
    main_class(values).unwrap_or("objectId")
}

/// The number types a field's values have in the report of its collection.
fn number_types(c: &CollectionReport, path: &str) -> Vec<&'static str> {
    let Some(f) = c.fields.iter().find(|f| f.path == path) else {
        return Vec::new();
    };
    let mut names: Vec<&'static str> = f
        .types
        .iter()
        .chain(f.array.iter().flat_map(|a| a.element_types.iter()))
        .map(|t| t.ty)
        .filter(|t| ["int", "long", "double", "decimal"].contains(t))
        .collect();
    let order = |t: &&str| {
        ["int", "long", "double", "decimal"]
            .iter()
            .position(|o| o == t)
    };
    names.sort_by_key(order);
    names.dedup();
    names
}

/// A relationship the server could not be asked about: its share of
/// dangling references is unknown, not the sample's mismatch.
fn unknown_estimate(r: &RelationshipReport) -> RelationshipEstimate {
    RelationshipEstimate {
        confidence: super::super::estimate::CONFIDENCE,
        match_method: MatchMethod::Unknown,
        dangling: None,
        fan_out_method: super::super::estimate::FanOutMethod::ChildSample,
        children: 0,
        parents_with_any: 0,
        typical: r.fan_out.mean,
        parents_measured: 0,
        percentiles: Vec::new(),
        largest_seen: r.fan_out.max,
        notes: vec![super::super::estimate::EstimateNote::LimitReached],
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
