//! Who exists in the synthetic data, and who is related to whom, as pure
//! functions of the seed: how many instances each entity has, how many
//! children a parent has (drawn from the relationship's cardinality), which
//! children those are, and each instance's ObjectId. Nothing is remembered
//! between documents except one cursor per relationship, so generating N
//! documents takes memory independent of N, and any collection can be written
//! on its own and still agree with the others.
//!
//! Numbering: every entity that is nobody's child has `scale` instances. A
//! child of a one-to-one or one-to-many relationship is numbered through its
//! *owning* relationship (the first one it is the child of): parent 0's
//! children come first, then parent 1's, and so on. A many-to-many
//! relationship, or a one-to-many whose children are shared by several
//! parents, links edge `e` (parent `e / a`, `a` the typical children per
//! parent) to child `e mod n`, which is invertible, so both sides' id arrays
//! agree; both sides then have their typical counts.

use crate::design::Design;
use crate::model::{
    Cardinality, EntityId, KeyPart, Model, Relationship, RelationshipId, RelationshipKind,
};
use std::cell::RefCell;
use std::collections::HashMap;

/// SplitMix64: a tiny, good-enough mixer for reproducible pseudo-random values.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// FNV-1a of a name, to key random streams by field and relationship names.
pub fn name_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A reproducible random stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(parts: &[u64]) -> Self {
        Self::resume(0x5151_1a11, parts)
    }

    /// The state `Rng::new(parts)` starts in, for streams whose leading parts
    /// are the same for every value: mixed once, then `resume`d per value.
    pub fn prefix(parts: &[u64]) -> u64 {
        Self::new(parts).0
    }

    /// `Rng::new` of the prefix's parts followed by `parts`.
    pub fn resume(prefix: u64, parts: &[u64]) -> Self {
        Rng(parts.iter().fold(prefix, |h, p| mix(h ^ p)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Where a cardinality's long tail stops when the model gives no maximum.
pub fn effective_max(card: &Cardinality) -> u64 {
    card.max
        .finite()
        .unwrap_or_else(|| card.typical.saturating_mul(4).max(card.typical + 1))
}

/// Children of one parent: mostly around `typical` (a triangle from `min` to
/// `typical` to its mirror), and in 2% of parents an outlier up to the maximum,
/// so the data has both the typical shape and the long tail.
pub fn draw(card: &Cardinality, rng: &mut Rng) -> u64 {
    let max = effective_max(card);
    let (min, typ) = (card.min.min(max), card.typical.clamp(card.min, max));
    if max > typ && rng.unit() < 0.02 {
        return typ + 1 + rng.below(max - typ);
    }
    let hi = (2 * typ - min).min(max);
    if hi == min {
        return min;
    }
    // triangular(min, typ, hi)
    let (a, c, b) = (min as f64, typ as f64, hi as f64);
    let u = rng.unit();
    let f = (c - a) / (b - a);
    let x = if u < f {
        a + ((b - a) * (c - a) * u).sqrt()
    } else {
        b - ((b - a) * (b - c) * (1.0 - u)).sqrt()
    };
    (x.round() as u64).clamp(min, hi)
}

/// Whether a child can have several parents: many-to-many, or a one-to-many
/// whose children are shared (a part used by three products). Both sides then
/// use their typical counts, through the invertible edge numbering.
pub fn is_shared(rel: &Relationship) -> bool {
    rel.kind == RelationshipKind::ManyToMany || rel.parents.typical > 1
}

/// The synthetic population of one model at one scale and seed.
/// `Clone` gives each builder thread its own (the cursors are only a
/// cache of where the last lookup ended).
#[derive(Debug, Clone)]
pub struct Population<'a> {
    pub model: &'a Model,
    pub design: &'a Design,
    pub seed: u64,
    /// Children per parent are cut at this many (quick looks and tests of
    /// models whose typical fan-out is in the millions).
    max_children: Option<u64>,
    counts: Vec<u64>,
    owner: Vec<Option<RelationshipId>>,
    /// Per owning relationship: at most this many children per parent, when
    /// the children are unique per parent and another parent (one star per
    /// user and repository: a user stars at most every repository).
    unique_cap: Vec<Option<u64>>,
    /// Per owning relationship: (next parent index, first child of that parent).
    cursors: RefCell<HashMap<RelationshipId, (u64, u64)>>,
    /// Per owning relationship, built on first use: each parent's first
    /// child, to find the parent a child was numbered under.
    starts: RefCell<HashMap<RelationshipId, std::sync::Arc<Vec<u64>>>>,
    /// `Rng::prefix` of the stream that decides whether an optional field
    /// is present.
    pub(super) optional_prefix: u64,
    /// The seed's byte in every ObjectId, mixed once.
    seed_byte: u8,
    /// Per relationship of an entity with itself: its roots and fan-out
    /// (`tree`).
    trees: Vec<Option<(u64, u64)>>,
    /// The design's timelines (fan-out on write), with the follower counts
    /// worked out once: shared by the clones of the builder threads.
    pub(super) timelines: std::sync::Arc<Vec<super::timeline::TimelineGen>>,
}

impl<'a> Population<'a> {
    pub fn new(model: &'a Model, design: &'a Design, scale: u64, seed: u64) -> Self {
        Self::with_max_children(model, design, scale, seed, None)
    }

    pub fn with_max_children(
        model: &'a Model,
        design: &'a Design,
        scale: u64,
        seed: u64,
        max_children: Option<u64>,
    ) -> Self {
        // An entity is not numbered under itself: a tree is numbered
        // level by level (`tree`).
        let owner = model
            .entity_ids()
            .map(|e| {
                model.relationships_to(e).find(|r| {
                    let rel = model.relationship(*r);
                    !is_shared(rel) && rel.parent != rel.child
                })
            })
            .collect();
        let trees = model
            .relationships
            .iter()
            .map(|rel| {
                let fan = rel
                    .children
                    .typical
                    .clamp(2, max_children.unwrap_or(u64::MAX).max(2));
                (rel.parent == rel.child && !is_shared(rel)).then_some((scale.max(1), fan))
            })
            .collect();
        let mut p = Population {
            model,
            design,
            seed,
            max_children,
            counts: vec![u64::MAX; model.entities.len()],
            owner,
            unique_cap: vec![None; model.relationships.len()],
            cursors: RefCell::default(),
            starts: RefCell::default(),
            optional_prefix: Rng::prefix(&[seed, 0x0b7]),
            seed_byte: (mix(seed) & 0xff) as u8,
            trees,
            timelines: std::sync::Arc::default(),
        };
        for e in model.entity_ids() {
            p.count_of(e, scale, 0);
        }
        p.timelines = std::sync::Arc::new(super::timeline::timelines(&p));
        p
    }

    fn count_of(&mut self, e: EntityId, scale: u64, depth: usize) -> u64 {
        if self.counts[e.index()] != u64::MAX {
            return self.counts[e.index()];
        }
        let n = if depth > self.model.entities.len() {
            scale // a cycle of ownership: cut it
        } else if let Some(r) = self.owner[e.index()] {
            let parent = self.model.relationship(r).parent;
            let np = self.count_of(parent, scale, depth + 1);
            let others: Vec<RelationshipId> = self
                .model
                .entity(e)
                .unique
                .iter()
                .filter(|c| c.contains(&KeyPart::Parent(r)))
                .flat_map(|c| c.iter())
                .filter_map(|k| match k {
                    KeyPart::Parent(o) if *o != r => Some(*o),
                    _ => None,
                })
                .collect();
            for o in others {
                let n = self.count_of(self.model.relationship(o).parent, scale, depth + 1);
                self.unique_cap[r.index()] =
                    Some(self.unique_cap[r.index()].map_or(n, |c| c.min(n)));
            }
            (0..np).map(|i| self.children_count(r, i)).sum()
        } else if let Some(r) = self
            .model
            .relationships_to(e)
            .find(|r| is_shared(self.model.relationship(*r)))
        {
            let rel = self.model.relationship(r);
            let na = self.count_of(rel.parent, scale, depth + 1);
            let a = self.edges_per_parent(rel);
            let b = rel.parents.typical.max(1);
            (na * a).div_ceil(b).max(1)
        } else if let Some((r, (roots, fan))) = self
            .model
            .relationships_to(e)
            .find_map(|r| Some((r, self.trees[r.index()]?)))
        {
            // A forest of `scale` roots, each with two levels below it (or
            // fewer: no path longer than the tree's `levels`).
            let levels = self.model.relationship(r).levels.unwrap_or(3).clamp(1, 3);
            roots * (0..levels).map(|i| fan.pow(i)).sum::<u64>()
        } else {
            scale
        };
        self.counts[e.index()] = n;
        n
    }

    /// A relationship of an entity with itself, numbered as a forest: its
    /// first `roots` instances are roots, and instance `j` past them has
    /// parent `(j - roots) / fan`. `None` for other relationships.
    pub fn tree(&self, r: RelationshipId) -> Option<(u64, u64)> {
        self.trees[r.index()]
    }

    /// The parent of instance `j` in tree `r`; `None` for a root.
    pub fn tree_parent(&self, r: RelationshipId, j: u64) -> Option<u64> {
        let (roots, fan) = self.tree(r)?;
        (j >= roots).then(|| (j - roots) / fan)
    }

    /// The nodes from the root of tree `r` down to instance `j`, `j` last:
    /// the walk up `tree_parent`, reversed. Just `[j]` for a root, or when
    /// `r` is not numbered as a tree.
    pub fn tree_path(&self, r: RelationshipId, j: u64) -> Vec<u64> {
        let mut nodes = vec![j];
        // Each parent is numbered before its children: the walk ends.
        while let Some(p) = nodes.last().and_then(|&n| self.tree_parent(r, n)) {
            nodes.push(p);
        }
        nodes.reverse();
        nodes
    }

    /// Children of each parent of a shared relationship: its typical count
    /// (under the cap).
    fn edges_per_parent(&self, rel: &Relationship) -> u64 {
        let a = rel.children.typical.max(1);
        self.max_children.map_or(a, |cap| a.min(cap.max(1)))
    }

    pub fn count(&self, e: EntityId) -> u64 {
        self.counts[e.index()]
    }

    pub fn owner(&self, e: EntityId) -> Option<RelationshipId> {
        self.owner[e.index()]
    }

    /// Children of parent `i` through `r`, drawn from its cardinality.
    pub fn children_count(&self, r: RelationshipId, i: u64) -> u64 {
        let rel = self.model.relationship(r);
        let mut rng = Rng::new(&[self.seed, 0xc41d, r.index() as u64, i]);
        let n = draw(&rel.children, &mut rng);
        let n = self.unique_cap[r.index()].map_or(n, |cap| n.min(cap));
        self.max_children.map_or(n, |cap| n.min(cap))
    }

    /// The first of parent `i`'s children through `r`, without numbering
    /// the others (a symbol's 130 M ticks).
    pub fn first_child_of(&self, r: RelationshipId, i: u64) -> Option<u64> {
        let rel = self.model.relationship(r);
        if self.tree(r).is_none() && !is_shared(rel) && self.owner(rel.child) == Some(r) {
            return self.owned_children(r, i).next();
        }
        self.children(r, i).first().copied()
    }

    /// The indices of parent `i`'s children through `r`, in order.
    pub fn children(&self, r: RelationshipId, i: u64) -> Vec<u64> {
        let rel = self.model.relationship(r);
        let n_child = self.count(rel.child);
        if let Some((roots, fan)) = self.tree(r) {
            let first = roots.saturating_add(i.saturating_mul(fan));
            return (first..first.saturating_add(fan).min(n_child)).collect();
        }
        if is_shared(rel) {
            let a = self.edges_per_parent(rel);
            let mut ids: Vec<u64> = (i * a..(i + 1) * a).map(|e| e % n_child.max(1)).collect();
            ids.sort_unstable();
            ids.dedup();
            return ids;
        }
        if self.owner(rel.child) == Some(r) {
            return self.owned_children(r, i).collect();
        }
        // A second parent of a child numbered elsewhere: a random sample.
        let mut rng = Rng::new(&[self.seed, 0x5a3e, r.index() as u64, i]);
        let mut ids: Vec<u64> = (0..self.children_count(r, i))
            .map(|_| rng.below(n_child))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The children of parent `i` through `r`, which owns them (numbers
    /// them parent after parent).
    pub fn owned_children(&self, r: RelationshipId, i: u64) -> std::ops::Range<u64> {
        let start = self.first_child(r, i);
        start..start + self.children_count(r, i)
    }

    /// The parent of child `j` through `r`: the one it was numbered under
    /// when `r` owns the child, as its own reference says.
    pub fn parent_of(&self, r: RelationshipId, j: u64) -> u64 {
        let rel = self.model.relationship(r);
        if self.owner(rel.child) != Some(r) {
            return self.first_parent(r, j);
        }
        let starts = self.starts(r);
        // The last parent whose first child is at or before `j`.
        starts.partition_point(|s| *s <= j).saturating_sub(1) as u64
    }

    /// The children of parent `i` through `r`, which owns them, found in
    /// any order of parents (`owned_children` walks from the last one
    /// asked for: cheap only in increasing order).
    pub fn owned_range(&self, r: RelationshipId, i: u64) -> std::ops::Range<u64> {
        let start = self.starts(r).get(i as usize).copied().unwrap_or(0);
        start..start + self.children_count(r, i)
    }

    /// Each parent's first child through `r`, built on first use.
    fn starts(&self, r: RelationshipId) -> std::sync::Arc<Vec<u64>> {
        let rel = self.model.relationship(r);
        let mut cache = self.starts.borrow_mut();
        cache
            .entry(r)
            .or_insert_with(|| {
                let n = self.count(rel.parent);
                let mut v = Vec::with_capacity(n as usize);
                let mut at = 0;
                for i in 0..n {
                    v.push(at);
                    at += self.children_count(r, i);
                }
                std::sync::Arc::new(v)
            })
            .clone()
    }

    /// The first child index of parent `i` (sum of the earlier parents'
    /// counts), cheap when parents are asked for in increasing order.
    fn first_child(&self, r: RelationshipId, i: u64) -> u64 {
        let mut cursors = self.cursors.borrow_mut();
        let (mut at, mut start) = cursors.get(&r).copied().unwrap_or((0, 0));
        if i < at {
            (at, start) = (0, 0);
        }
        while at < i {
            start += self.children_count(r, at);
            at += 1;
        }
        cursors.insert(r, (at, start));
        start
    }

    /// The parent index(es) of child `j` through `r`.
    pub fn parents(&self, r: RelationshipId, j: u64) -> Vec<u64> {
        let rel = self.model.relationship(r);
        let n_parent = self.count(rel.parent);
        if is_shared(rel) {
            let a = self.edges_per_parent(rel);
            let n_child = self.count(rel.child).max(1);
            let edges = n_parent * a;
            let mut ids: Vec<u64> = (0..)
                .map(|k| j + k * n_child)
                .take_while(|e| *e < edges)
                .map(|e| e / a)
                .collect();
            ids.dedup();
            return ids;
        }
        vec![self.first_parent(r, j)]
    }

    /// The first of `parents(r, j)` (0 when there is none), without the
    /// `Vec`: most children have one parent, and a document asks per value.
    pub fn first_parent(&self, r: RelationshipId, j: u64) -> u64 {
        if self.tree(r).is_some() {
            return self.tree_parent(r, j).unwrap_or(j);
        }
        let rel = self.model.relationship(r);
        let n_parent = self.count(rel.parent);
        if is_shared(rel) {
            let a = self.edges_per_parent(rel);
            return if j < n_parent * a { j / a } else { 0 };
        }
        // A parent that is part of a unique combination of the child (one
        // star per user and repository): children numbered next to each
        // other (the children of one owner) get different parents.
        let unique = self
            .model
            .entity(rel.child)
            .unique
            .iter()
            .flatten()
            .any(|k| *k == KeyPart::Parent(r));
        if unique && self.owner(rel.child) != Some(r) {
            let offset = Rng::new(&[self.seed, 0x9a4f, r.index() as u64]).below(n_parent.max(1));
            return (j + offset) % n_parent.max(1);
        }
        let mut rng = Rng::new(&[self.seed, 0x9a4e, r.index() as u64, j]);
        rng.below(n_parent)
    }

    /// A reproducible ObjectId for instance `key` of entity `e`: a timestamp in
    /// 2023–2024 rising with the key, then the seed, the entity, the key.
    pub fn object_id(&self, e: EntityId, key: u64) -> [u8; 12] {
        let ts = 1_700_000_000u32.wrapping_add((key / 64) as u32 % 40_000_000);
        let mut id = [0u8; 12];
        id[..4].copy_from_slice(&ts.to_be_bytes());
        id[4] = self.seed_byte;
        id[5] = (e.index() & 0xff) as u8;
        id[6..].copy_from_slice(&key.to_be_bytes()[2..]);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Count;

    #[test]
    fn draws_stay_within_bounds_and_center_on_typical() {
        let card = Cardinality {
            min: 1,
            typical: 20,
            max: Count::Finite(500),
            growth_per_day: None,
            p95: None,
            p99: None,
        };
        let mut rng = Rng::new(&[7]);
        let draws: Vec<u64> = (0..10_000).map(|_| draw(&card, &mut rng)).collect();
        assert!(draws.iter().all(|d| (1..=500).contains(d)));
        let mut sorted = draws.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        assert!((18..=22).contains(&median), "median {median}");
        assert!(draws.iter().any(|d| *d > 40), "the tail is drawn");
    }

    #[test]
    fn a_resumed_stream_is_the_whole_one() {
        let mut whole = Rng::new(&[1, 2, 3, 4]);
        let mut resumed = Rng::resume(Rng::prefix(&[1, 2]), &[3, 4]);
        assert!((0..10).all(|_| whole.next_u64() == resumed.next_u64()));
    }

    #[test]
    fn exact_cardinality_is_exact() {
        let mut rng = Rng::new(&[1]);
        assert!((0..100).all(|_| draw(&Cardinality::exactly(3), &mut rng) == 3));
    }
}
