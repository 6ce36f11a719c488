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
//! *owning* relationship (`owners`: the first one that gives its parents
//! children typically): parent 0's children come first, then parent 1's,
//! and so on. A many-to-many relationship, or a one-to-many whose children
//! are shared by several parents, links edge `e` (parent `e / a`, `a` the
//! typical children per parent) to child `e mod n`, which is invertible, so
//! both sides' id arrays agree; both sides then have their typical counts
//! (a child of several shared relationships is numbered for the one that
//! needs the most: the others' children have fewer parents than typical).
//!
//! Children per parent follow the relationship's distribution over its
//! parents, not only parent by parent: parent `i` takes the quantile
//! `spread(i)` of the distribution (`draw`), and the first `n` parents'
//! quantiles are spread evenly over [0, 1) whatever `n`. So the children of
//! `n` parents add up to about `n` × the mean, even where the typical
//! parent has none and a few have them all (a median of 0 and a tail).
//!
//! Under a tenant (`tenant: store`), every reference of a scoped instance
//! is drawn among its own tenant's instances (`tenancy`): an order's
//! customer is one of its store's customers.

use super::rng::{Rng, mix};
use super::tenancy::{Grouped, Members, Scope, scopes};
use super::value::Value;
use super::values;
use crate::design::{BucketBy, Collection, Design, FieldOrigin, Layout};
use crate::model::{
    Cardinality, Count, EntityId, KeyPart, Model, Relationship, RelationshipId, RelationshipKind,
};
use std::cell::RefCell;
use std::collections::HashMap;

/// Examples "at maximum cardinality" stop here when the model's maximum is
/// larger or unbounded, so an example file stays readable.
pub(super) const EXAMPLE_CAP: u64 = 1_000;

/// The parents whose children `Numbering::for_examples` counts before it
/// cuts the children at `EXAMPLE_CAP`: a few milliseconds of draws.
const EXAMPLE_PARENTS: u64 = 100_000;

/// Where a cardinality's long tail stops when the model gives no maximum:
/// four times the typical count, and at least its highest percentile.
pub fn effective_max(card: &Cardinality) -> u64 {
    card.max.finite().unwrap_or_else(|| {
        let percentile = card.highest_percentile().map_or(0, |(_, p)| p);
        card.typical
            .saturating_mul(4)
            .max(card.typical + 1)
            .max(percentile)
    })
}

/// Children of a parent at quantile `u` (in [0, 1)) of the relationship's
/// distribution. With the model's percentiles (p95, p99), the quantiles
/// through them: from `min` to `typical` (the median), to each percentile,
/// to the maximum. Without, mostly around `typical` (a triangle from `min`
/// to `typical` to its mirror), and the top 2% an outlier up to the
/// maximum, so the data has both the typical shape and the long tail.
pub fn draw(card: &Cardinality, u: f64) -> u64 {
    let max = effective_max(card);
    let min = card.min.min(max);
    // A mean that is a fraction (0.2 deals per contact), with no
    // percentiles to shape it: each parent has the whole part or one
    // more, one more at the quantiles below the fraction, so the parents
    // average the mean (audit48 C7). The busiest parent still has the
    // maximum (`children_count`).
    if let Some(mean) = card.mean
        && card.p95.is_none()
        && card.p99.is_none()
    {
        let whole = mean.floor();
        let n = whole as u64 + u64::from(u.clamp(0.0, 1.0) < mean - whole);
        return n.clamp(min, max);
    }
    let typ = card.typical.clamp(min, max);
    if card.p95.is_some() || card.p99.is_some() {
        // Knots of the quantile function, each at least the one before.
        let mut knots = [(0.0, min); 5];
        let mut len = 1;
        for (q, v) in [
            (0.5, Some(typ)),
            (0.95, card.p95),
            (0.99, card.p99),
            (1.0, Some(max)),
        ] {
            if let Some(v) = v {
                knots[len] = (q, v.clamp(knots[len - 1].1, max));
                len += 1;
            }
        }
        let u = u.clamp(0.0, 1.0);
        let i = knots[1..len]
            .iter()
            .position(|k| u <= k.0)
            .unwrap_or(len - 2);
        let ((u0, a), (u1, b)) = (knots[i], knots[i + 1]);
        // Geometric between the knots (linear in the logarithm of one
        // more than the count): a count spread as a log-normal through its
        // percentiles, as the advisor reads them (`Cardinality::share_above`),
        // most parents close to the median and a few far above it.
        let t = (u - u0) / (u1 - u0);
        let (a1, b1) = (a as f64 + 1.0, b as f64 + 1.0);
        let x = a1 * (b1 / a1).powf(t) - 1.0;
        return (x.round() as u64).clamp(a, b);
    }
    let mut u = u.clamp(0.0, 1.0);
    if max > typ {
        if u >= 0.98 {
            let w = (u - 0.98) / 0.02;
            return (typ + 1 + (w * (max - typ) as f64) as u64).min(max);
        }
        u /= 0.98;
    }
    let hi = (2 * typ - min).min(max);
    if hi == min {
        return min;
    }
    // triangular(min, typ, hi)
    let (a, c, b) = (min as f64, typ as f64, hi as f64);
    let f = (c - a) / (b - a);
    let x = if u < f {
        a + ((b - a) * (c - a) * u).sqrt()
    } else {
        b - ((b - a) * (b - c) * (1.0 - u)).sqrt()
    };
    (x.round() as u64).clamp(min, hi)
}

/// `Numbering::parents_for_max` for `generated` parents.
pub(super) fn parents_for_max(model: &Model, rel: &Relationship, generated: u64) -> u64 {
    model.entity(rel.parent).count.max(generated)
}

/// Whether the parent at quantile `u` is the busiest of `parents`: in the
/// top `2^-k`-th of [0, 1), `2^k` the largest power of two up to
/// `parents`. `spread` puts one quantile of every aligned block of `2^k`
/// parents in each such stratum, so one parent of the first `2^k` is
/// there, and at most one more among the rest; with one parent, none.
fn busiest(parents: u64, u: f64) -> bool {
    if parents < 2 {
        return false;
    }
    let k = 63 - parents.leading_zeros();
    u >= 1.0 - 1.0 / (1u64 << k) as f64
}

/// The quantile parent `i` takes in its relationship's distribution, for
/// the stream `seed`: an Owen-scrambled van der Corput sequence. Any `2^k`
/// parents of an aligned block take one quantile in each `2^-k`-th of
/// [0, 1), so any first `n` parents are spread evenly (the rare quantiles
/// of a tail are reached by every 50th parent, not by chance), and the
/// scrambling keeps the order of parents random.
pub fn spread(seed: u64, i: u64) -> f64 {
    // Bit k of the result depends on the bits at or below k only: on the
    // bit-reversed index that is a nested permutation of the strata.
    fn nested(mut x: u64, seed: u64) -> u64 {
        x ^= x.wrapping_mul(0x3d20_adea_5f6b_1c8e);
        x = x.wrapping_add(seed);
        x = x.wrapping_mul((seed >> 16) | 1);
        x ^= x.wrapping_mul(0x0552_6c56_9e2d_4b7a);
        x ^= x.wrapping_mul(0x53a2_2864_d1c5_f0e4);
        x
    }
    let (s1, s2) = (mix(seed), mix(seed ^ 0x0ddb_a115));
    // The order of parents shuffled within every aligned block…
    let index = nested(i.reverse_bits(), s1).reverse_bits();
    // …and their quantiles scrambled, the strata kept.
    (nested(index, s2).reverse_bits() >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether a child can have several parents: many-to-many, or a one-to-many
/// whose children are shared (a part used by three products). Both sides then
/// use their typical counts, through the invertible edge numbering.
pub fn is_shared(rel: &Relationship) -> bool {
    rel.kind == RelationshipKind::ManyToMany || rel.parents.typical > 1
}

/// The relationship that numbers each entity's instances (`Numbering`
/// numbers a child parent after parent through it), `None` for an entity
/// numbered otherwise: a root, a child of a shared relationship, or a node
/// of a tree. It is the first one-to-one or one-to-many (not shared, not of
/// the entity with itself) whose parents typically have children: one whose
/// typical parent has none (5 languages without films, one with all 1,000)
/// would leave the entity's count to the few parents of its tail. Without
/// such a relationship, a shared one numbers the child when there is one,
/// else the first whose children are only in the tail, counted as `scale`
/// × their mean. Owners that would go round in a cycle (a store's manager
/// and a staff member's store) are cut: the cycle's first entity in the
/// model is numbered as if it had no owner (`scale` of them, or through a
/// shared relationship).
pub fn owners(model: &Model) -> Vec<Option<RelationshipId>> {
    // Each entity's relationships as the child, in the model's order (one
    // pass: asking the model per entity was quadratic in it).
    let mut to: Vec<Vec<RelationshipId>> = vec![Vec::new(); model.entities.len()];
    for r in model.relationship_ids() {
        to[model.relationship(r).child.index()].push(r);
    }
    let mut owners: Vec<Option<RelationshipId>> = model
        .entity_ids()
        .map(|e| {
            let to = &to[e.index()];
            let candidates = || {
                to.iter().copied().filter(|r| {
                    let rel = model.relationship(*r);
                    !is_shared(rel) && rel.parent != rel.child
                })
            };
            candidates()
                .find(|r| model.relationship(*r).children.mean_or_typical() > 0.0)
                .or_else(|| {
                    let shared = to.iter().any(|r| is_shared(model.relationship(*r)));
                    if shared { None } else { candidates().next() }
                })
        })
        .collect();
    // Each entity has one owner at most, so each chain of owners holds one
    // cycle at most: cut each at its first entity in the model. A walk up
    // stops at an entity an earlier walk finished (linear in the model;
    // walking from every entity to the top was cubic on a long chain).
    const NEW: u8 = 0;
    const ON_WALK: u8 = 1;
    const DONE: u8 = 2;
    let mut mark = vec![NEW; model.entities.len()];
    let mut path: Vec<EntityId> = Vec::new();
    for start in model.entity_ids() {
        let mut cur = start;
        while mark[cur.index()] == NEW {
            mark[cur.index()] = ON_WALK;
            path.push(cur);
            let Some(r) = owners[cur.index()] else {
                break;
            };
            let parent = model.relationship(r).parent;
            if mark[parent.index()] == ON_WALK {
                let at = path.iter().position(|e| *e == parent).unwrap_or(0);
                let first = path[at..].iter().map(|e| e.index()).min();
                owners[first.unwrap_or(parent.index())] = None;
                break;
            }
            cur = parent;
        }
        for e in path.drain(..) {
            mark[e.index()] = DONE;
        }
    }
    owners
}

/// `owners`, with each child kept as an outlier numbered under that
/// relationship: its parent's array holds its first children and only the
/// rest are documents of their own (`roots`), which needs the children
/// numbered per that parent. An edge with two parents (a follow: its
/// follower and the followed member, whose array holds it) was numbered
/// under the first, and the arrays held other parents' edges.
fn owners_in(model: &Model, design: &Design) -> Vec<Option<RelationshipId>> {
    let mut owners = owners(model);
    for d in &design.relationships {
        if !matches!(d.chosen, crate::design::Layout::Outlier { .. }) {
            continue;
        }
        let Some(r) = model
            .relationship_ids()
            .find(|&r| model.relationship(r).name == d.relationship)
        else {
            continue;
        };
        let rel = model.relationship(r);
        let child = rel.child.index();
        if owners[child].is_some() && !is_shared(rel) && rel.parent != rel.child {
            owners[child] = Some(r);
        }
    }
    owners
}

/// Who exists at one scale and seed, and who is whose child: the numbering
/// every other part of the population is derived from (`Population` adds the
/// timelines worked out from it). `Clone` gives each builder thread its own
/// (the cursors are only a cache of where the last lookup ended).
#[derive(Debug, Clone)]
pub struct Numbering<'a> {
    pub model: &'a Model,
    pub design: &'a Design,
    pub seed: u64,
    /// Children per parent are cut at this many (quick looks and tests of
    /// models whose typical fan-out is in the millions).
    max_children: Option<u64>,
    counts: Vec<u64>,
    owner: Vec<Option<RelationshipId>>,
    /// Per relationship: the seed of `spread`, the quantile of each parent
    /// in the distribution of its children.
    spreads: Vec<u64>,
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
    /// Counting children stops at an owner with more parents than this
    /// (`for_examples`): the sum walks every parent.
    parent_limit: u64,
    /// Whether an owner had more parents than `parent_limit`: the counts
    /// are then not to be used.
    over_limit: bool,
    /// Per entity: how its instances' tenant is found.
    scopes: Vec<Scope>,
    /// Per entity whose instances of one tenant are not consecutive, built
    /// on first use: its instances grouped by tenant.
    grouped: RefCell<HashMap<EntityId, std::sync::Arc<Grouped>>>,
}

impl<'a> Numbering<'a> {
    pub fn with_max_children(
        model: &'a Model,
        design: &'a Design,
        scale: u64,
        seed: u64,
        max_children: Option<u64>,
    ) -> Self {
        Self::counted(model, design, (scale, seed), max_children, u64::MAX)
    }

    /// The numbering example documents are built from: one instance of
    /// each root entity (scale 1), as `with_max_children`, unless an owner
    /// then has more than `EXAMPLE_PARENTS` parents. Counting its children
    /// walks every one of them, and a single root drawn in the long tail
    /// of a wide relationship (a workspace with 4 million issues, each
    /// with its comments) made advise spend seconds on one example per
    /// collection, more or less depending on the order of the model's
    /// relationships (which decides the streams the draws take). Such a
    /// model is numbered with children cut at `EXAMPLE_CAP`, the most an
    /// example document shows.
    pub fn for_examples(
        model: &'a Model,
        design: &'a Design,
        seed: u64,
        max_children: Option<u64>,
    ) -> Self {
        let n = Self::counted(model, design, (1, seed), max_children, EXAMPLE_PARENTS);
        if !n.over_limit {
            return n;
        }
        let cap = max_children.map_or(EXAMPLE_CAP, |c| c.min(EXAMPLE_CAP));
        Self::counted(model, design, (1, seed), Some(cap), u64::MAX)
    }

    fn counted(
        model: &'a Model,
        design: &'a Design,
        (scale, seed): (u64, u64),
        max_children: Option<u64>,
        parent_limit: u64,
    ) -> Self {
        // An entity is not numbered under itself: a tree is numbered
        // level by level (`tree`).
        let owner = owners_in(model, design);
        let scopes = scopes(model, &owner, is_shared);
        let spreads = model
            .relationship_ids()
            .map(|r| Rng::prefix(&[seed, 0xc41d, r.index() as u64]))
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
        let mut p = Numbering {
            model,
            design,
            seed,
            max_children,
            counts: vec![u64::MAX; model.entities.len()],
            owner,
            spreads,
            unique_cap: vec![None; model.relationships.len()],
            cursors: RefCell::default(),
            starts: RefCell::default(),
            optional_prefix: Rng::prefix(&[seed, 0x0b7]),
            seed_byte: (mix(seed) & 0xff) as u8,
            trees,
            parent_limit,
            over_limit: false,
            scopes,
            grouped: RefCell::default(),
        };
        for e in model.entity_ids() {
            p.count_of(e, scale, 0);
            if p.over_limit {
                break;
            }
        }
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
            if np > self.parent_limit || self.over_limit {
                self.over_limit = true;
                return np;
            }
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
        } else if self
            .model
            .relationships_to(e)
            .any(|r| is_shared(self.model.relationship(r)))
        {
            // Enough children for each parent of every shared relationship
            // to list its typical count without the ids coming round again
            // (a category's 61 films and an actor's 27).
            let shared: Vec<RelationshipId> = self
                .model
                .relationships_to(e)
                .filter(|r| is_shared(self.model.relationship(*r)))
                .collect();
            let mut n = 1;
            for r in shared {
                let rel = self.model.relationship(r);
                let na = self.count_of(rel.parent, scale, depth + 1);
                let a = self.edges_per_parent(rel);
                let b = rel.parents.typical.max(1);
                // And at least `a`: a parent lists `a` different children
                // (a student's 5 courses, when 20 students share one).
                n = n.max((na * a).div_ceil(b)).max(a);
            }
            n
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

    /// Children of parent `i` through `r`, drawn from its cardinality (with
    /// the spread its growth states, `Cardinality::spread_from_growth`) at
    /// the parent's quantile (`spread`). A stated maximum is the busiest
    /// parent's: the parent in the top stratum of the parents' quantiles
    /// (`busiest`) has it, so the data reaches it (a quantile interpolated
    /// towards 1 never quite does).
    pub fn children_count(&self, r: RelationshipId, i: u64) -> u64 {
        let rel = self.model.relationship(r);
        let card = rel.children.spread_from_growth();
        let u = spread(self.spreads[r.index()], i);
        let n = match card.max {
            Count::Finite(max) if busiest(self.parents_for_max(rel), u) => max,
            _ => draw(&card, u),
        };
        let n = self.unique_cap[r.index()].map_or(n, |cap| n.min(cap));
        self.max_children.map_or(n, |cap| n.min(cap))
    }

    /// The parents among which a stated maximum is the busiest's: the
    /// model's count of them, or the generated count when it is larger. A
    /// run scaled down generates a sample of the model's parents, and has
    /// the busiest one about as often as a sample that size would.
    fn parents_for_max(&self, rel: &Relationship) -> u64 {
        parents_for_max(self.model, rel, self.counts[rel.parent.index()])
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
        // A second parent of a child numbered elsewhere: a random sample,
        // of the parent's tenant's children under a tenant.
        let mut rng = Rng::new(&[self.seed, 0x5a3e, r.index() as u64, i]);
        let within = self
            .in_tenant(rel.parent, rel.child)
            .then(|| self.tenant_of(rel.parent, i))
            .flatten()
            .map(|t| self.members(rel.child, t));
        let mut ids: Vec<u64> = match within {
            Some(m) if m.len() == 0 => Vec::new(),
            Some(m) => (0..self.children_count(r, i))
                .map(|_| m.at(rng.below(m.len())))
                .collect(),
            None => (0..self.children_count(r, i))
                .map(|_| rng.below(n_child))
                .collect(),
        };
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
        if let Some(p) = self.parent_in_tenant(r, j) {
            return p;
        }
        self.drawn_parent(r, j)
    }

    /// The parent through `r` of child `j`, among every parent: a random
    /// draw, or for a parent in a unique combination of the child, the
    /// next parent after an offset.
    fn drawn_parent(&self, r: RelationshipId, j: u64) -> u64 {
        let rel = self.model.relationship(r);
        let n_parent = self.count(rel.parent);
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

/// Tenants (`tenancy`): which tenant an instance is of, and the instances
/// of one tenant that its references are drawn among.
impl Numbering<'_> {
    /// Whether a reference from an instance of `a` to one of `b` is drawn
    /// within a tenant: both are scoped and there are several tenants
    /// (with one, every instance is its, and the draws are the plain ones).
    pub(super) fn in_tenant(&self, a: EntityId, b: EntityId) -> bool {
        let scoped = |e: EntityId| self.scopes[e.index()] != Scope::Global;
        let tenants = self.model.tenant.map_or(0, |t| self.count(t.entity));
        tenants > 1 && scoped(a) && scoped(b)
    }

    /// The tenant of instance `j` of `e`; `None` outside every tenant.
    pub(super) fn tenant_of(&self, e: EntityId, j: u64) -> Option<u64> {
        match self.scopes[e.index()] {
            Scope::Global => None,
            Scope::Tenant => Some(j),
            Scope::Owner(r) => {
                let p = self.parent_of(r, j);
                self.tenant_of(self.model.relationship(r).parent, p)
            }
            Scope::Drawn(r) => {
                let p = self.drawn_parent(r, j);
                self.tenant_of(self.model.relationship(r).parent, p)
            }
        }
    }

    /// The instances of scoped entity `e` in tenant `t`.
    pub(super) fn members(&self, e: EntityId, t: u64) -> Members {
        match self.scopes[e.index()] {
            Scope::Tenant => Members::Range(t..t + 1),
            Scope::Owner(r) => match self.members(self.model.relationship(r).parent, t) {
                // Numbered parent after parent: the children of a run of
                // parents are a run.
                Members::Range(parents) => {
                    let starts = self.starts(r);
                    let n = self.count(e);
                    let at = |i: u64| starts.get(i as usize).copied().unwrap_or(n);
                    Members::Range(at(parents.start)..at(parents.end))
                }
                Members::List { .. } => self.grouped(e, t),
            },
            Scope::Drawn(_) => self.grouped(e, t),
            Scope::Global => Members::Range(0..self.count(e)),
        }
    }

    fn grouped(&self, e: EntityId, t: u64) -> Members {
        let tenants = self.model.tenant.map_or(1, |x| self.count(x.entity));
        let g = self
            .grouped
            .borrow_mut()
            .entry(e)
            .or_insert_with(|| {
                let of = |j| self.tenant_of(e, j).unwrap_or(0).min(tenants - 1);
                std::sync::Arc::new(Grouped::new(self.count(e), tenants, of))
            })
            .clone();
        g.members(t)
    }

    /// The parent through `r` of child `j` among the child's tenant's
    /// instances, when the reference is drawn within a tenant and that
    /// tenant has any; `None` for the plain draw (which decides the tenant
    /// of a child whose scope is drawn through `r`).
    fn parent_in_tenant(&self, r: RelationshipId, j: u64) -> Option<u64> {
        let rel = self.model.relationship(r);
        let child = self.scopes[rel.child.index()];
        if !self.in_tenant(rel.child, rel.parent) || child == Scope::Drawn(r) {
            return None;
        }
        if child == Scope::Owner(r) {
            return Some(self.parent_of(r, j));
        }
        let t = self.tenant_of(rel.child, j)?;
        let m = self.members(rel.parent, t);
        if m.len() == 0 {
            return None;
        }
        // Dealt round the tenant's parents from a random start, in the
        // order of the tenant's children: each parent has its share (the
        // first customer of a store has orders when the store has as many
        // orders as customers), and the children of one owner, numbered
        // next to each other, have different parents (one star per user
        // and repository).
        let start = Rng::new(&[self.seed, 0x9a4f, r.index() as u64]).below(m.len());
        let k = (self.members(rel.child, t).position(j) + start) % m.len();
        Some(m.at(k))
    }

    /// An instance of `e` for instance `key` of `of`, which it is not
    /// related to (`u` draws it): of the same tenant when both are scoped.
    pub(super) fn unrelated(&self, e: EntityId, of: Option<(EntityId, u64)>, u: &mut Rng) -> u64 {
        let within = of
            .filter(|(o, _)| self.in_tenant(*o, e))
            .and_then(|(o, key)| self.tenant_of(o, key))
            .map(|t| self.members(e, t))
            .filter(|m| m.len() > 0);
        match within {
            Some(m) => m.at(u.below(m.len())),
            None => u.below(self.count(e).max(1)),
        }
    }
}

/// The design's layout of each relationship, as the numbering needs it
/// (buckets number their documents by the children they hold).
impl<'a> Numbering<'a> {
    pub fn layout(&self, r: RelationshipId) -> Option<&'a Layout> {
        let name = &self.model.relationship(r).name;
        self.design
            .relationships
            .iter()
            .find(|d| &d.relationship == name)
            .map(|d| &d.chosen)
    }

    fn rel_by_name(&self, name: &str) -> Option<RelationshipId> {
        self.model.relationship_by_name(name)
    }

    /// The bucket relationship a collection holds, when its documents are
    /// buckets of a relationship's children rather than entity instances.
    pub fn bucket_of(&self, coll: &Collection) -> Option<RelationshipId> {
        coll.shape.fields.iter().find_map(|f| match &f.origin {
            FieldOrigin::Embedded { relationship } => {
                let r = self.rel_by_name(relationship)?;
                let rel = self.model.relationship(r);
                let holds_parent = coll
                    .entities
                    .iter()
                    .any(|e| *e == self.model.entity(rel.parent).name);
                matches!(self.layout(r), Some(Layout::Bucket { .. }))
                    .then_some(r)
                    .filter(|_| !holds_parent)
            }
            _ => None,
        })
    }

    /// Splits one parent's children into buckets: `per_bucket` at a time, or
    /// by the time unit of their date field.
    pub fn buckets(&self, r: RelationshipId, children: &[u64]) -> Vec<Vec<u64>> {
        let Some(Layout::Bucket { by, per_bucket, .. }) = self.layout(r) else {
            return vec![children.to_vec()];
        };
        let per = (*per_bucket).max(1) as usize;
        match by {
            BucketBy::Count => children.chunks(per).map(<[u64]>::to_vec).collect(),
            BucketBy::Time { field, unit } => {
                let child = self.model.relationship(r).child;
                let unit_ms = unit_ms(unit);
                let time = self.field_spec(child, field, "date");
                let mut scratch = values::Scratch::default();
                let mut out: Vec<Vec<u64>> = Vec::new();
                let mut current = None;
                for &c in children {
                    let slot = match time.value(c, &mut scratch) {
                        Value::Date(ms) => ms.div_euclid(unit_ms),
                        _ => 0,
                    };
                    if current != Some(slot) || out.last().is_some_and(|b| b.len() >= per) {
                        out.push(Vec::new());
                        current = Some(slot);
                    }
                    if let Some(last) = out.last_mut() {
                        last.push(c);
                    }
                }
                out
            }
        }
    }

    /// The value of an entity's own field for one instance.
    pub fn field_value(&self, entity: EntityId, key: u64, field: &str, bson_type: &str) -> Value {
        self.field_spec(entity, field, bson_type)
            .value(key, &mut values::Scratch::default())
    }

    /// What an entity's own field's values are drawn from, worked out once
    /// for a loop over many instances: `field_value` for each would work it
    /// out again from the field's name every time (the name's words decide
    /// what a value looks like): a parent's aggregate of its children's
    /// field did so once per child, a third of the samples of the debug
    /// test `every_generated_document_validates_against_its_collection`
    /// (perf, issue 47).
    pub fn field_spec<'s>(
        &'s self,
        entity: EntityId,
        field: &str,
        bson_type: &'s str,
    ) -> values::ScalarSpec<'s> {
        let e = self.model.entity(entity);
        let model_field = e.field(field);
        let enum_values = model_field.map(|f| f.enum_values.as_slice()).unwrap_or(&[]);
        values::ScalarSpec::new(
            self.seed,
            &e.name,
            field,
            bson_type,
            model_field,
            enum_values,
        )
        .under(super::relations::ceilings(
            self.model,
            self.seed,
            entity,
            field,
            &mut Vec::new(),
        ))
    }
}

/// Milliseconds of a bucket's time unit.
pub fn unit_ms(unit: &str) -> i64 {
    match unit {
        "minute" => 60_000,
        "day" => 86_400_000,
        _ => 3_600_000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Count;

    /// Audit48 C7: 0.2 deals per contact: one contact in five has one,
    /// none has more, and the parents average 0.2.
    #[test]
    fn a_fractional_mean_is_drawn_with_its_mean() {
        let card = Cardinality {
            mean: Some(0.2),
            min: 0,
            typical: 0,
            max: Count::Finite(40),
            growth: None,
            p95: None,
            p99: None,
        };
        let n = 10_000;
        let total: u64 = (0..n).map(|i| draw(&card, spread(5, i))).sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 0.2).abs() < 0.01, "{mean}");
        assert!((0..n).all(|i| draw(&card, spread(5, i)) <= 1));
    }

    #[test]
    fn draws_stay_within_bounds_and_center_on_typical() {
        let card = Cardinality {
            mean: None,
            min: 1,
            typical: 20,
            max: Count::Finite(500),
            growth: None,
            p95: None,
            p99: None,
        };
        let mut rng = Rng::new(&[7]);
        let draws: Vec<u64> = (0..10_000).map(|_| draw(&card, rng.unit())).collect();
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

    /// Any first `n` parents take quantiles spread over [0, 1): one in
    /// each `2^-k`-th for an aligned block of `2^k`, and for other `n` at
    /// most a few in any `1/n`-th, whatever the seed.
    #[test]
    fn the_quantiles_of_the_first_parents_are_spread_evenly() {
        for seed in [0, 1, 7, 0xdead_beef] {
            for k in [1, 3, 6, 10] {
                let n = 1u64 << k;
                let mut strata = vec![0; n as usize];
                for i in 0..n {
                    strata[(spread(seed, i) * n as f64) as usize] += 1;
                }
                assert!(strata.iter().all(|c| *c == 1), "seed {seed}, {n} parents");
            }
            for n in [3u64, 5, 20, 50, 131, 1000] {
                let mut strata = vec![0; n as usize];
                for i in 0..n {
                    strata[(spread(seed, i) * n as f64) as usize] += 1;
                }
                let most = strata.iter().max().unwrap();
                let bound = 1 + (n as f64).log2().ceil() as u64;
                assert!(*most <= bound, "seed {seed}, {n} parents: {most} in one");
                // The tail: the top 2 % is reached once in every 50 parents.
                let top = (0..n).filter(|i| spread(seed, *i) >= 0.98).count() as f64;
                assert!(
                    (top - n as f64 * 0.02).abs() <= 1.5,
                    "seed {seed}, {n}: {top}"
                );
            }
        }
        // Parents do not come in the order of their quantiles.
        let rising = (0..64).filter(|i| spread(3, i + 1) > spread(3, *i)).count();
        assert!((16..=48).contains(&rising), "{rising} of 64 rise");
    }

    /// With the model's percentiles, the quantiles go through them: a
    /// median of 0 with a tail (5 languages without films, one with all
    /// 1,000) gives half the parents children, and a mean far above the
    /// median.
    #[test]
    fn draws_go_through_the_percentiles() {
        let card = Cardinality {
            mean: None,
            min: 0,
            typical: 0,
            max: Count::Finite(1000),
            growth: None,
            p95: Some(1000),
            p99: Some(1000),
        };
        assert_eq!(draw(&card, 0.3), 0);
        assert_eq!(draw(&card, 0.96), 1000);
        let n = 10_000;
        let draws: Vec<u64> = (0..n).map(|i| draw(&card, spread(5, i))).collect();
        let mean = draws.iter().sum::<u64>() as f64 / n as f64;
        assert!(mean > 100.0, "mean {mean}");
        let some = draws.iter().filter(|d| **d > 0).count() as f64 / n as f64;
        assert!(
            (0.4..0.5).contains(&some),
            "{some} of the parents have films"
        );
        // Skewed: the median and the percentiles where the model puts them.
        let card = Cardinality {
            mean: None,
            min: 1,
            typical: 2,
            max: Count::Finite(60),
            growth: None,
            p95: Some(28),
            p99: Some(53),
        };
        let mut draws: Vec<u64> = (0..n).map(|i| draw(&card, spread(5, i))).collect();
        draws.sort_unstable();
        let at = |q: f64| draws[(q * n as f64) as usize];
        assert_eq!((at(0.0), at(0.5), at(0.95), at(0.99)), (1, 2, 28, 53));
        assert_eq!(draws[n as usize - 1], 60);
        // Unbounded: the tail reaches past the highest percentile.
        let card = Cardinality {
            mean: None,
            max: Count::Unbounded,
            p99: Some(41),
            p95: Some(35),
            ..Cardinality::exactly(27)
        };
        assert!(effective_max(&card) >= 41);
        assert!(draw(&card, 0.999) > 41);
    }

    #[test]
    fn exact_cardinality_is_exact() {
        let mut rng = Rng::new(&[1]);
        assert!((0..100).all(|_| draw(&Cardinality::exactly(3), rng.unit()) == 3));
    }
}
