//! Changing a built placement in place. One move of the search (a
//! relationship given another layout, an entity-level candidate switched on
//! or off) alters only the entities of the moved relationships, the guests
//! they embed (and what those hold), and the documents above them. Building
//! the whole placement again for every move the search tries made the
//! search quadratic in the model (issue 45, BENCHMARKS.md "advise at
//! scale"). `change` updates just those entries, with the arithmetic `build`
//! uses, so the result is `build`'s to the bit (a test checks every move of
//! every example against `build`); `revert` puts them back and `keep` makes
//! them the placement.

use super::{Home, Placement, guest};
use crate::candidates::EntityCandidate;
use crate::candidates::facts::Facts;
use crate::candidates::space::Space;
use crate::design::Layout;
use crate::model::{EntityId, RelationshipId};

/// One move: relationships given another option (an index into
/// `Space::rels[r]`), entity-level candidates switched on or off.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Change {
    pub rels: Vec<(usize, usize)>,
    pub entities: Vec<(usize, bool)>,
}

/// An entity's entries before a change.
#[derive(Debug, Clone)]
struct Saved {
    e: usize,
    home: Home,
    root: EntityId,
    per_root: f64,
    typical: f64,
    max: Option<f64>,
    depth: u32,
    poly: Option<usize>,
}

/// What the change in progress altered, to put back.
#[derive(Debug, Clone, Default)]
pub(super) struct Journal<'s> {
    saved: Vec<Saved>,
    layouts: Vec<(usize, &'s Layout)>,
    computed: Option<Vec<usize>>,
    timelines: Option<Vec<usize>>,
    /// Per entity: saved by this change (all false between changes).
    marked: Vec<bool>,
    /// Per entity: sized (all true between changes): `size`'s own marks,
    /// kept here so that a change does not allocate one per entity.
    sized: Vec<bool>,
}

impl<'s> Placement<'s> {
    /// Applies `change`. `false`, with the placement as it was, when the
    /// result cannot exist (`build` would give `None`). Otherwise the
    /// placement is `build`'s for the changed state until `revert` or `keep`.
    pub fn change(&mut self, facts: &Facts<'_>, space: &'s Space, change: &Change) -> bool {
        let n = self.home.len();
        if self.journal.marked.len() != n {
            self.journal.marked = vec![false; n];
            self.journal.sized = vec![true; n];
        }
        if self.apply(facts, space, change) == Some(true) {
            true
        } else {
            self.revert();
            false
        }
    }

    /// Applies `change` and keeps it, whether or not the documents fit: for
    /// a placement from `sized`, which `repair` changes until they do. The
    /// entities whose entries changed (only theirs can start or stop
    /// fitting); `None`, with the placement as it was, when the result
    /// cannot exist whatever the sizes.
    pub fn force(
        &mut self,
        facts: &Facts<'_>,
        space: &'s Space,
        change: &Change,
    ) -> Option<Vec<usize>> {
        let n = self.home.len();
        if self.journal.marked.len() != n {
            self.journal.marked = vec![false; n];
            self.journal.sized = vec![true; n];
        }
        if self.apply(facts, space, change).is_none() {
            self.revert();
            return None;
        }
        let changed = self.journal.saved.iter().map(|s| s.e).collect();
        self.keep();
        Some(changed)
    }

    /// Puts back what the last `change` altered.
    pub fn revert(&mut self) {
        let j = &mut self.journal;
        for s in j.saved.drain(..).rev() {
            self.home[s.e] = s.home;
            self.roots[s.e] = s.root;
            if let Some(n) = self.per_root.get_mut(s.e) {
                *n = s.per_root;
            }
            self.typical[s.e] = s.typical;
            self.max[s.e] = s.max;
            self.depth[s.e] = s.depth;
            self.poly[s.e] = s.poly;
            j.marked[s.e] = false;
        }
        for (r, l) in j.layouts.drain(..).rev() {
            self.layouts[r] = l;
        }
        if let Some(c) = j.computed.take() {
            self.computed = c;
        }
        if let Some(t) = j.timelines.take() {
            self.timelines = t;
        }
    }

    /// Makes the last `change` the placement.
    pub fn keep(&mut self) {
        let j = &mut self.journal;
        for s in j.saved.drain(..) {
            j.marked[s.e] = false;
        }
        j.layouts.clear();
        j.computed = None;
        j.timelines = None;
    }

    /// Whether `e`'s sizes differ, to the bit, from those saved before the
    /// change in progress.
    fn resized(&self, e: usize) -> bool {
        self.journal
            .saved
            .iter()
            .rev()
            .find(|s| s.e == e)
            .is_none_or(|s| {
                (s.typical.to_bits(), s.max.map(f64::to_bits), s.depth)
                    != (
                        self.typical[e].to_bits(),
                        self.max[e].map(f64::to_bits),
                        self.depth[e],
                    )
            })
    }

    fn save(&mut self, e: EntityId) {
        let e = e.index();
        if self.journal.marked[e] {
            return;
        }
        self.journal.marked[e] = true;
        self.journal.saved.push(Saved {
            e,
            home: self.home[e],
            root: self.roots[e],
            per_root: self.per_root.get(e).copied().unwrap_or(f64::NAN),
            typical: self.typical[e],
            max: self.max[e],
            depth: self.depth[e],
            poly: self.poly[e],
        });
    }

    fn save_lists(&mut self) {
        if self.journal.computed.is_none() {
            self.journal.computed = Some(self.computed.clone());
            self.journal.timelines = Some(self.timelines.clone());
        }
    }

    /// Applies `change`: `None` when the result cannot exist whatever the
    /// sizes, otherwise whether every re-sized document fits.
    fn apply(&mut self, facts: &Facts<'_>, space: &'s Space, change: &Change) -> Option<bool> {
        let model = facts.model;
        // Entities whose own size can change, and guests whose home changed.
        let mut starts: Vec<EntityId> = Vec::new();
        let mut moved: Vec<EntityId> = Vec::new();
        let mut claims: Vec<(EntityId, Home)> = Vec::new();
        // Every old guest leaves before any new one arrives: within one
        // change, a guest may go from one relationship to another.
        for &(r, o) in &change.rels {
            let new = &space.rels[r][o].layout;
            let old = self.layouts[r];
            if std::ptr::eq(old, new) {
                continue;
            }
            self.journal.layouts.push((r, old));
            self.layouts[r] = new;
            let rid = RelationshipId::from_index(r);
            let rel = model.relationship(rid);
            starts.extend([rel.parent, rel.child]);
            if let Some((g, _)) = guest(model, rid, old) {
                self.save(g);
                self.home[g.index()] = Home::Own;
                moved.push(g);
            }
            claims.extend(guest(model, rid, new));
        }
        for (g, h) in claims {
            if self.home[g.index()] != Home::Own {
                return None;
            }
            self.save(g);
            self.home[g.index()] = h;
            moved.push(g);
        }
        for &(i, on) in &change.entities {
            if !self.switch(facts, space, i, on, &mut starts) {
                return None;
            }
        }
        if moved
            .iter()
            .any(|g| self.home[g.index()] != Home::Own && self.poly[g.index()].is_some())
            || !self.timelines_hold(facts, space)
        {
            return None;
        }
        for g in &moved {
            if self.embeds_itself(*g) {
                return None;
            }
        }
        for g in &moved {
            self.rehome(facts, *g);
        }
        // Each start is sized again (guests first: `size` walks down to the
        // ones not sized yet), then the documents above it, one level at a
        // time while a level's sizes change. Going up only as far as they
        // change, rather than to the root, kept repairing a chain embedded
        // thousands deep from being quadratic (issue 45): above the level
        // where the sizes reach infinity and the depth its cap, nothing
        // changes. A host is sized again after each change of a guest, so
        // it ends with its guests' last sizes, as `build` would give them.
        let mut again: Vec<EntityId> = Vec::new();
        for s in starts {
            if self.journal.sized[s.index()] {
                self.save(s);
                self.journal.sized[s.index()] = false;
                again.push(s);
            }
        }
        let mut sized = std::mem::take(&mut self.journal.sized);
        for x in &again {
            self.size(facts, space, *x, &mut sized);
        }
        self.journal.sized = sized;
        let mut up: Vec<EntityId> = again
            .iter()
            .copied()
            .filter(|x| self.resized(x.index()))
            .collect();
        while let Some(x) = up.pop() {
            let Home::Embedded { host, .. } = self.home[x.index()] else {
                continue;
            };
            let h = host.index();
            let before = (
                self.typical[h].to_bits(),
                self.max[h].map(f64::to_bits),
                self.depth[h],
            );
            if !self.journal.marked[h] {
                again.push(host);
            }
            self.save(host);
            self.size_one(facts, space, host);
            if before
                != (
                    self.typical[h].to_bits(),
                    self.max[h].map(f64::to_bits),
                    self.depth[h],
                )
            {
                up.push(host);
            }
        }
        Some(again.iter().all(|x| self.fits(facts, x.index())))
    }

    /// Switches entity-level candidate `i`, as `build` would have it.
    fn switch(
        &mut self,
        facts: &Facts<'_>,
        space: &Space,
        i: usize,
        on: bool,
        starts: &mut Vec<EntityId>,
    ) -> bool {
        match &space.entity[i] {
            EntityCandidate::Polymorphic { entities, .. } => {
                for e in entities {
                    let mine = self.poly[e.index()] == Some(i);
                    if on == mine {
                        continue;
                    }
                    if on && (self.home[e.index()] != Home::Own || self.poly[e.index()].is_some()) {
                        return false;
                    }
                    self.save(*e);
                    self.poly[e.index()] = on.then_some(i);
                    starts.push(*e);
                }
            }
            EntityCandidate::Computed { relationship, .. } => {
                self.save_lists();
                if set(&mut self.computed, i, on) {
                    starts.push(facts.model.relationship(*relationship).parent);
                }
            }
            EntityCandidate::Timeline { .. } => {
                self.save_lists();
                set(&mut self.timelines, i, on);
            }
        }
        true
    }

    /// Whether every timeline switched on still finds its items and edges
    /// where `build` requires them.
    fn timelines_hold(&self, facts: &Facts<'_>, space: &Space) -> bool {
        self.timelines.iter().all(|&i| {
            let EntityCandidate::Timeline { feed, .. } = &space.entity[i] else {
                return true;
            };
            super::timeline_can_be_kept(facts.model, feed, &self.home, &self.layouts)
        })
    }

    /// Whether the walk up from `g` comes back to it (a cycle of embedding).
    /// The walk stops after as many steps as there are entities: a cycle
    /// elsewhere on it holds another moved guest, whose own walk finds it.
    fn embeds_itself(&self, g: EntityId) -> bool {
        let mut cur = g;
        for _ in 0..self.home.len() {
            match self.home[cur.index()] {
                Home::Embedded { host, .. } if host == g => return true,
                Home::Embedded { host, .. } => cur = host,
                _ => return false,
            }
        }
        true
    }

    /// Gives `g` and every entity it holds their root and instances per
    /// root under the changed homes.
    fn rehome(&mut self, facts: &Facts<'_>, g: EntityId) {
        let mut top = g;
        while let Home::Embedded { host, .. } = self.home[top.index()] {
            top = host;
        }
        let mut stack = vec![g];
        while let Some(x) = stack.pop() {
            self.save(x);
            self.roots[x.index()] = top;
            // A placement from `sized` has no counts to keep up to date.
            if !self.per_root.is_empty() {
                self.per_root[x.index()] = self.walk_per_root(facts, x);
            }
            let guests: Vec<EntityId> = self.guests(facts, x).collect();
            stack.extend(guests);
        }
    }

    /// Puts into `out` root `root` and every entity its documents hold.
    pub fn members(&self, facts: &Facts<'_>, root: EntityId, out: &mut Vec<EntityId>) {
        let mut stack = vec![root];
        while let Some(x) = stack.pop() {
            out.push(x);
            let guests: Vec<EntityId> = self.guests(facts, x).collect();
            stack.extend(guests);
        }
    }

    /// The entities embedded in `x`'s documents.
    pub(super) fn guests<'p>(
        &'p self,
        facts: &'p Facts<'_>,
        x: EntityId,
    ) -> impl Iterator<Item = EntityId> + 'p {
        let model = facts.model;
        let down = facts.rels_from[x.index()]
            .iter()
            .filter(|r| matches!(self.layouts[r.index()], Layout::Embed))
            .map(move |r| model.relationship(*r).child);
        let up = facts.rels_to[x.index()]
            .iter()
            .filter(|r| matches!(self.layouts[r.index()], Layout::EmbedParentInChild))
            .map(move |r| model.relationship(*r).parent);
        down.chain(up)
    }
}

/// Puts `i` in or out of the sorted list `list`; whether it changed.
fn set(list: &mut Vec<usize>, i: usize, on: bool) -> bool {
    match (list.binary_search(&i), on) {
        (Err(at), true) => {
            list.insert(at, i);
            true
        }
        (Ok(at), false) => {
            list.remove(at);
            true
        }
        _ => false,
    }
}
