//! The search space: every candidate of every relationship (with the rules
//! that forbid or support it) and every entity-level candidate; a `State`
//! picks one of each. The rules fill it (`rules::design::space`): candidates
//! know what can be built, not what is allowed.

use crate::candidates::EntityCandidate;
use crate::design::{Layout, RuleHit};
use crate::model::LayoutKind;

#[derive(Debug, Clone)]
pub struct Candidate {
    pub layout: Layout,
    /// The first rule that forbids it.
    pub forbidden: Option<RuleHit>,
    /// Rules that support it, with their reasons.
    pub support: Vec<RuleHit>,
}

#[derive(Debug, Clone)]
pub struct Space {
    pub rels: Vec<Vec<Candidate>>,
    pub entity: Vec<EntityCandidate>,
    /// Rules that support each entity-level candidate (an empty list means no
    /// rule applies and the candidate is never enabled).
    pub entity_support: Vec<Vec<RuleHit>>,
    /// Per relationship, the layout the model pins it to.
    pub pinned: Vec<Option<LayoutKind>>,
    /// Per relationship pinned to the layout it has today, that exact
    /// layout when the model gives its copies.
    pub pinned_exact: Vec<Option<Layout>>,
}

/// One choice per relationship (an index into `Space::rels[r]`) and per
/// entity-level candidate (on or off).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    pub rel: Vec<usize>,
    pub entity: Vec<bool>,
}

impl Space {
    /// Allowed options of each relationship (indexes of candidates no rule forbids).
    /// When every candidate breaks a rule, all of them stay in play (the
    /// decision then shows the rule each one breaks, and findings say so).
    /// A pinned relationship has only the candidates of its layout: the
    /// model says that is the design. Of those, the ones no rule forbids
    /// when there are any (a bucket pinned where a bucket per device-day
    /// breaks a bound and buckets filled by count do not), else all.
    pub fn allowed(&self, rel: usize) -> Vec<usize> {
        if let Some(exact) = self.pinned_exact.get(rel).and_then(Option::as_ref) {
            let same: Vec<usize> = self.rels[rel]
                .iter()
                .enumerate()
                .filter(|(_, c)| &c.layout == exact)
                .map(|(i, _)| i)
                .collect();
            if !same.is_empty() {
                return same;
            }
        }
        if let Some(kind) = self.pinned.get(rel).copied().flatten() {
            let of_kind: Vec<usize> = self.rels[rel]
                .iter()
                .enumerate()
                .filter(|(_, c)| c.layout.layout_kind() == kind)
                .map(|(i, _)| i)
                .collect();
            let ok: Vec<usize> = of_kind
                .iter()
                .copied()
                .filter(|i| self.rels[rel][*i].forbidden.is_none())
                .collect();
            return if ok.is_empty() { of_kind } else { ok };
        }
        let ok: Vec<usize> = self.rels[rel]
            .iter()
            .enumerate()
            .filter(|(_, c)| c.forbidden.is_none())
            .map(|(i, _)| i)
            .collect();
        if ok.is_empty() {
            (0..self.rels[rel].len()).collect()
        } else {
            ok
        }
    }
}
