//! Growth over time and the deployment it runs on: what a capacity
//! projection (`advise --horizon`) reads of a model. An entity's count
//! grows by a share or by a number per period; children per parent grow
//! by the relationship's `Growth` (the per-parent spread) or, without one,
//! with the ratio of the two sides' counts. The deployment is RAM, disk,
//! shards and the compression ratio of data on disk, each optional: a
//! limit whose figure is not given is not checked.

use super::growth::Period;
use super::{Count, Model};
use serde::Serialize;

/// How an entity's count grows: a share of itself (compounded) or a
/// number of instances, per period.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum CountGrowth {
    /// `percent` % more per `per`, compounded (8 % a month is ×1.08 each month).
    Percent { percent: f64, per: Period },
    /// `count` more instances per `per`.
    Added { count: f64, per: Period },
}

impl CountGrowth {
    /// The count `days` after a count of `now`.
    pub fn after(&self, now: f64, days: f64) -> f64 {
        match *self {
            CountGrowth::Percent { percent, per } => {
                now * (1.0 + percent / 100.0).powf(days / per.days())
            }
            CountGrowth::Added { count, per } => now + per.to_per_day(count) * days,
        }
    }
}

/// Bytes in one GiB.
pub const GIB: u64 = 1 << 30;

/// The deployment a design runs on, as far as the model, `squill.toml`
/// or the command line say. Per member of a replica set (one shard):
/// each shard has this RAM and this disk.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Deployment {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ram_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    /// On-disk bytes per byte of BSON data (0.4: the data takes 40 % of
    /// its size on disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<f64>,
}

impl Deployment {
    pub fn is_empty(&self) -> bool {
        *self == Deployment::default()
    }

    /// Each figure of `self`, else of `other` (the command line over the
    /// model file over `squill.toml`).
    #[must_use]
    pub fn or(self, other: Deployment) -> Deployment {
        Deployment {
            ram_bytes: self.ram_bytes.or(other.ram_bytes),
            disk_bytes: self.disk_bytes.or(other.disk_bytes),
            shards: self.shards.or(other.shards),
            compression: self.compression.or(other.compression),
        }
    }

    /// The WiredTiger cache of a member with this RAM: 50 % of (RAM −
    /// 1 GiB), at least 256 MiB (MongoDB manual, WiredTiger storage
    /// engine, "Memory Use").
    pub fn cache_bytes(&self) -> Option<u64> {
        self.ram_bytes
            .map(|ram| (ram.saturating_sub(GIB) / 2).max(256 * 1024 * 1024))
    }
}

/// A size as people write it: `64GiB`, `4 TiB`, `512MB`, `1.5TB`, or a
/// number of bytes. Binary units (KiB, MiB, GiB, TiB) are powers of 1,024,
/// decimal ones (KB, MB, GB, TB) of 1,000. `None` for anything else.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number.parse().ok()?;
    let k: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => GIB as f64,
        "tib" => GIB as f64 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return None,
    };
    let bytes = n * k;
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then(|| bytes.round() as u64)
}

/// How far ahead a projection looks, in whole months (30 days each):
/// `36m`, `3y` (36 months), `90d` (3 months, rounded up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Horizon {
    pub months: u32,
}

/// The longest horizon a projection takes (50 years): one row per month.
pub const MAX_HORIZON_MONTHS: u32 = 600;

impl Horizon {
    /// `36m`, `3y`, `90d` (or with the words: `36 months`, `3 years`,
    /// `90 days`); `None` for anything else, a zero or past 50 years.
    pub fn parse(text: &str) -> Option<Horizon> {
        let t = text.trim();
        let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let n: u32 = number.parse().ok()?;
        let months = match unit.trim() {
            "m" | "month" | "months" => n,
            "y" | "year" | "years" => n.checked_mul(12)?,
            "d" | "day" | "days" => n.div_ceil(30),
            _ => return None,
        };
        (months > 0 && months <= MAX_HORIZON_MONTHS).then_some(Horizon { months })
    }
}

/// Days in a projected month (as `Period::Month` counts them).
pub const DAYS_A_MONTH: f64 = 30.0;

/// How many instances of `e` there will be `days` from now (before now
/// for a negative `days`): by its `growth`, else by what the
/// relationships it is the child of add per parent (the least mean a
/// stated spread allows, `Growth::mean_bounds`), else as today.
pub fn count_at(model: &Model, e: super::ids::EntityId, days: f64) -> f64 {
    let entity = model.entity(e);
    let now = entity.count as f64;
    let later = match &entity.growth {
        Some(g) => g.after(now, days),
        None => {
            now + model
                .relationships
                .iter()
                .filter(|r| r.child == e)
                .filter_map(|r| {
                    let g = r.children.growth?;
                    let parents = model.entity(r.parent).count as f64;
                    Some(parents * g.mean_bounds().0 * days)
                })
                .sum::<f64>()
        }
    };
    later.max(0.0)
}

/// `model` as it will be `days` from now: every entity's count grown by
/// its `growth` (an entity without one keeps its count, unless it is the
/// child of relationships whose children per parent are stated to grow:
/// then it gains what they add), and every relationship's children per
/// parent grown by its `Growth` (its figures per day added to the typical
/// parent, the percentiles and the busiest) or, without one, in proportion
/// to its child count over its parent count (members per channel follow
/// the users while the channels keep their number; the largest owner
/// never shrinks). A child's parents per child are kept.
pub fn grown(model: &Model, days: f64) -> Model {
    let mut out = model.clone();
    let factors: Vec<f64> = model
        .entity_ids()
        .map(|e| {
            let now = model.entity(e).count as f64;
            if now > 0.0 {
                count_at(model, e, days) / now
            } else {
                1.0
            }
        })
        .collect();
    for (e, f) in out.entities.iter_mut().zip(&factors) {
        e.count = (e.count as f64 * f).round() as u64;
    }
    for r in &mut out.relationships {
        let c = &mut r.children;
        let grow = |n: u64, per_day: f64| (n as f64 + per_day * days).round() as u64;
        match c.growth {
            Some(g) => {
                let (_, busiest) = g.busiest();
                // A fractional mean grows as the typical does.
                c.mean = c.mean.map(|m| m + g.typical * days);
                c.typical = grow(c.typical, g.typical);
                c.p95 = c.p95.map(|p| grow(p, g.p95.unwrap_or(g.typical)));
                c.p99 = c.p99.map(|p| grow(p, g.p99.or(g.p95).unwrap_or(g.typical)));
                if let Count::Finite(m) = c.max {
                    c.max = Count::Finite(grow(m, busiest));
                }
            }
            None => {
                let f = factors[r.child.index()] / factors[r.parent.index()];
                let scale = |n: u64, f: f64| (n as f64 * f).round() as u64;
                c.mean = c.mean.map(|m| m * f);
                c.typical = scale(c.typical, f);
                c.p95 = c.p95.map(|p| scale(p, f));
                c.p99 = c.p99.map(|p| scale(p, f));
                if let Count::Finite(m) = c.max {
                    c.max = Count::Finite(scale(m, f.max(1.0)));
                }
            }
        }
        c.min = c.min.min(c.typical);
        c.typical = c.typical.max(c.min);
        if let Count::Finite(m) = c.max {
            c.max = Count::Finite(m.max(c.typical));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_binary_and_decimal_units() {
        assert_eq!(parse_bytes("64GiB"), Some(64 * GIB));
        assert_eq!(parse_bytes("4 TiB"), Some(4 * 1024 * GIB));
        assert_eq!(parse_bytes("1.5TB"), Some(1_500_000_000_000));
        assert_eq!(parse_bytes("2048"), Some(2048));
        assert_eq!(parse_bytes("64 gigs"), None);
        assert_eq!(parse_bytes("-1GiB"), None);
        assert_eq!(parse_bytes("0"), None);
    }

    #[test]
    fn horizons_count_months() {
        assert_eq!(Horizon::parse("36m"), Some(Horizon { months: 36 }));
        assert_eq!(Horizon::parse("3y"), Some(Horizon { months: 36 }));
        assert_eq!(Horizon::parse("90d"), Some(Horizon { months: 3 }));
        assert_eq!(Horizon::parse("91 days"), Some(Horizon { months: 4 }));
        assert_eq!(Horizon::parse("0m"), None);
        assert_eq!(Horizon::parse("51y"), None);
        assert_eq!(Horizon::parse("36w"), None);
    }

    /// 50 % of (RAM − 1 GiB), at least 256 MiB.
    #[test]
    fn the_cache_is_half_of_ram_less_a_gib() {
        let with = |gib: u64| Deployment {
            ram_bytes: Some(gib * GIB),
            ..Deployment::default()
        };
        assert_eq!(with(64).cache_bytes(), Some(63 * GIB / 2));
        assert_eq!(with(1).cache_bytes(), Some(256 * 1024 * 1024));
        assert_eq!(Deployment::default().cache_bytes(), None);
    }

    #[test]
    fn shares_compound_and_numbers_add() {
        let pct = CountGrowth::Percent {
            percent: 8.0,
            per: Period::Month,
        };
        assert!((pct.after(100.0, 60.0) - 116.64).abs() < 1e-9);
        let add = CountGrowth::Added {
            count: 10.0,
            per: Period::Day,
        };
        assert!((add.after(100.0, 30.0) - 400.0).abs() < 1e-9);
    }

    fn model(yaml: &str) -> Model {
        crate::inputs::model_file::parse("m.yaml", yaml).expect("model")
    }

    /// Users grow 8 % a month, channels keep their number: members per
    /// channel follow; a channel's messages grow by the stated spread.
    #[test]
    fn children_per_parent_follow_the_counts_or_the_stated_growth() {
        let m = model(
            "entities:
  user: {count: 1000000, growth: {percent: 8, per: month}}
  channel: {count: 1000}
  message: {count: 1000000}
relationships:
  members: {kind: many-to-many, parent: channel, child: user,
    children: {typical: 1000, max: 100000}, parents: {typical: 1, max: 50}}
  messages: {parent: channel, child: message,
    children: {typical: 1000, max: 100000, growth: {typical: 10, max: 100, per: day}}}
",
        );
        let g = grown(&m, 30.0);
        assert_eq!(g.entities[0].count, 1_080_000);
        assert_eq!(g.entities[1].count, 1000);
        // 1,000 channels add at least 10 × 0.5 a day each… the least mean.
        assert!(g.entities[2].count > 1_000_000);
        let members = &g.relationships[0];
        assert_eq!(members.children.typical, 1080);
        assert_eq!(members.children.max, Count::Finite(108_000));
        assert_eq!(members.parents.typical, 1);
        let messages = &g.relationships[1];
        assert_eq!(messages.children.typical, 1300);
        assert_eq!(messages.children.max, Count::Finite(103_000));
    }
}
