//! The top-level documents of a collection, in the order they are written:
//! one per instance of its entities (children grouped under their parent),
//! or one per bucket of a relationship's children.
//!
//! Instances come as runs (`Run`): consecutive instances under one parent,
//! a range rather than a value per document, so listing the roots of a
//! batch costs nothing per document and the calling thread of
//! `generate data` stays free for the writer and the builders.

use super::population::Population;
use crate::design::Collection;
use crate::model::{EntityId, RelationshipId};
use std::ops::Range;

/// One top-level document to build.
#[derive(Debug, Clone, PartialEq)]
pub enum Root {
    /// Instance `index` of `entity`, with the parent it was enumerated under.
    Entity {
        entity: EntityId,
        index: u64,
        parent: Option<(RelationshipId, u64)>,
    },
    /// One bucket of `parent`'s children through `relationship`.
    Bucket {
        relationship: RelationshipId,
        parent: u64,
        children: Vec<u64>,
        number: u64,
        /// Its place among the parent's buckets, from 0 (a bucket of a
        /// count's page number).
        page: u64,
    },
}

/// Consecutive roots.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// Instances `indices` of `entity`, all under the same parent.
    Entities {
        entity: EntityId,
        parent: Option<(RelationshipId, u64)>,
        indices: Range<u64>,
    },
    /// One root of another kind (a bucket).
    One(Root),
}

impl Run {
    /// The number of roots.
    pub fn len(&self) -> u64 {
        match self {
            Run::Entities { indices, .. } => indices.end.saturating_sub(indices.start),
            Run::One(_) => 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `n` roots (at least one), and the rest if any are left.
    pub fn split(self, n: u64) -> (Run, Option<Run>) {
        let n = n.max(1);
        let len = self.len();
        match self {
            Run::Entities {
                entity,
                parent,
                indices,
            } if len > n => {
                let mid = indices.start + n;
                let head = Run::Entities {
                    entity,
                    parent,
                    indices: indices.start..mid,
                };
                let tail = Run::Entities {
                    entity,
                    parent,
                    indices: mid..indices.end,
                };
                (head, Some(tail))
            }
            whole => (whole, None),
        }
    }

    /// Calls `f` with each root, in order.
    pub fn for_each(&self, mut f: impl FnMut(&Root)) {
        match self {
            Run::Entities {
                entity,
                parent,
                indices,
            } => {
                for index in indices.clone() {
                    f(&Root::Entity {
                        entity: *entity,
                        index,
                        parent: *parent,
                    });
                }
            }
            Run::One(root) => f(root),
        }
    }
}

impl Population<'_> {
    /// The timeline (fan-out on write) `coll` is, if it is one.
    pub(super) fn timeline_of(&self, coll: &Collection) -> Option<usize> {
        self.timelines
            .iter()
            .position(|t| t.collection == coll.name)
    }

    /// The entities whose instances are `coll`'s documents, in order: its
    /// entities, or a timeline's reader (one timeline per reader).
    pub fn root_entities(&self, coll: &Collection) -> Vec<EntityId> {
        match self.timeline_of(coll) {
            Some(t) => vec![self.timelines[t].reader],
            None => coll
                .entities
                .iter()
                .filter_map(|n| self.model.entity_by_name(n))
                .collect(),
        }
    }

    /// Calls `f` for every top-level document of `coll`, in order.
    pub fn for_each_root<E>(
        &self,
        coll: &Collection,
        mut f: impl FnMut(Root) -> Result<(), E>,
    ) -> Result<(), E> {
        self.for_each_run(coll, |run| {
            let mut result = Ok(());
            run.for_each(|root| {
                if result.is_ok() {
                    result = f(root.clone());
                }
            });
            result
        })
    }

    /// Calls `f` for every run of top-level documents of `coll`, in order
    /// (empty runs are skipped).
    pub fn for_each_run<E>(
        &self,
        coll: &Collection,
        mut f: impl FnMut(Run) -> Result<(), E>,
    ) -> Result<(), E> {
        if let Some(r) = self.bucket_of(coll) {
            let rel = self.model.relationship(r);
            let mut number = 0;
            for parent in 0..self.count(rel.parent) {
                for (page, children) in (0..).zip(self.buckets(r, &self.children(r, parent))) {
                    f(Run::One(Root::Bucket {
                        relationship: r,
                        parent,
                        children,
                        number,
                        page,
                    }))?;
                    number += 1;
                }
            }
            return Ok(());
        }
        // A timeline's documents are its readers': they are not its entities.
        let timeline = self.timeline_of(coll).is_some();
        for entity in self.root_entities(coll) {
            let mut emit = |run: Run| if run.is_empty() { Ok(()) } else { f(run) };
            match self.owner(entity) {
                Some(r) => {
                    // Under an outlier layout the parent holds its first
                    // children; only those past the threshold are documents.
                    let embedded = match self.layout(r) {
                        Some(crate::design::Layout::Outlier { threshold }) if !timeline => {
                            *threshold
                        }
                        _ => 0,
                    };
                    for parent in 0..self.count(self.model.relationship(r).parent) {
                        let all = self.owned_children(r, parent);
                        emit(Run::Entities {
                            entity,
                            parent: Some((r, parent)),
                            indices: (all.start + embedded).min(all.end)..all.end,
                        })?;
                    }
                }
                None => emit(Run::Entities {
                    entity,
                    parent: None,
                    indices: 0..self.count(entity),
                })?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(indices: Range<u64>) -> Run {
        Run::Entities {
            entity: EntityId::from_index(0),
            parent: None,
            indices,
        }
    }

    #[test]
    fn a_run_splits_into_the_first_n_and_the_rest() {
        assert_eq!(run(3..10).split(4), (run(3..7), Some(run(7..10))));
        assert_eq!(run(3..10).split(7), (run(3..10), None));
        assert_eq!(run(3..10).split(50), (run(3..10), None));
        // At least one root, so that a loop over splits always advances.
        assert_eq!(run(3..10).split(0), (run(3..4), Some(run(4..10))));
    }
}
