//! The sharded cluster the search prices a design on: set by `advise`
//! (never by `squill.toml`) when `--shard` asks for shard keys, or when a
//! projection says collections outgrow one replica set. With it, the cost
//! model charges what a sharded collection adds to a join into it and to
//! a transaction across shards (docs/cost-model.md, "On a sharded
//! cluster"), so the search can choose another layout for it.

/// The shards, and which collections are sharded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cluster {
    /// Shards of the cluster (at least two).
    pub shards: u32,
    /// The sharded collections by name; `None`: every collection.
    pub only: Option<Vec<String>>,
}

impl Cluster {
    /// Whether `collection` is sharded.
    pub fn holds(&self, collection: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == collection))
    }

    /// The shards `values` key values fall on, expected: each value on a
    /// shard of its own chance, `S × (1 − (1 − 1/S)^n)` (the formula the
    /// cost model uses for embedded instances spread over parents).
    pub fn shards_hit(&self, values: f64) -> f64 {
        let s = f64::from(self.shards.max(1));
        if values <= 1.0 {
            return values.clamp(0.0, 1.0);
        }
        s * (1.0 - (1.0 - 1.0 / s).powf(values))
    }

    /// The chance that `values` key values do not all fall on one shard:
    /// `1 − S^(1 − n)`.
    pub fn spread_chance(&self, values: f64) -> f64 {
        let s = f64::from(self.shards.max(1));
        if values <= 1.0 {
            return 0.0;
        }
        1.0 - s.powf(1.0 - values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_spread_over_the_shards_as_draws_do() {
        let c = Cluster {
            shards: 4,
            only: None,
        };
        assert!((c.shards_hit(1.0) - 1.0).abs() < 1e-12);
        // 4 × (1 − 0.75²) = 1.75
        assert!((c.shards_hit(2.0) - 1.75).abs() < 1e-12);
        assert!(c.shards_hit(1_000.0) <= 4.0);
        assert!((c.spread_chance(2.0) - 0.75).abs() < 1e-12);
        assert_eq!(c.spread_chance(1.0), 0.0);
    }

    #[test]
    fn only_the_named_collections_are_sharded() {
        let c = Cluster {
            shards: 2,
            only: Some(vec!["orders".into()]),
        };
        assert!(c.holds("orders"));
        assert!(!c.holds("products"));
        assert!(Cluster::default().holds("anything"));
    }
}
