//! The plan of a migration as a value: its steps, what the final step
//! removes, what undoes them, and its first stage when it goes through an
//! intermediate design (`through`). Every layout's file adds to it and
//! `plan` (the orchestration) calls them all, so it sits below both; with
//! it the one test of a field kept as it is that the layouts share.

use super::action::{Action, Check, Cleanup, Undo};
use crate::design::{Design, ShapeField, ShapeType};

/// The steps, what the final step removes, and what undoes them.
#[derive(Debug, Clone, Default)]
pub(super) struct Plan {
    pub actions: Vec<Action>,
    pub cleanup: Vec<Cleanup>,
    pub undo: Vec<Undo>,
    /// Figures of data no step moves (a path, or a parent's collection,
    /// that the final step drops).
    pub checks: Vec<Check>,
    /// Relationships whose layout changes, and entities an archive splits
    /// or joins: `(name, today, recommended)`.
    pub changes: Vec<(String, String, String)>,
    /// Why no script can be written (empty when one can).
    pub refused: Vec<String>,
    /// Collections whose recommended validator the final step sets (it
    /// would reject the writes of today's application before).
    pub deferred: Vec<String>,
    /// Collections whose recommended validator is set before the steps
    /// (today's would reject what a step writes in place).
    pub early: Vec<String>,
    /// Relationships whose change no step covers directly, each with its
    /// reason (also in `refused`): the ones a migration may take through
    /// a parent reference.
    pub blocked: Vec<(String, String)>,
    /// The first of two stages, when the steps above are the second: the
    /// migration passes through an intermediate design (see `through`).
    pub through: Option<Box<Through>>,
    /// Builds the final step runs (and checks) before its removals: a
    /// parent's field of today rebuilt under its name in another shape,
    /// which today's application reads until then.
    pub last: Vec<Action>,
    /// Relationships whose layout changes while one of their entities
    /// moves into or out of a polymorphic collection (also in `refused`):
    /// their layouts may change first, in the collections of today.
    pub with_kinds: Vec<String>,
}

/// What the intermediate design changes in the design of today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// The relationships as parent references.
    ParentReference,
    /// The relationships on their recommended layouts, in the collections
    /// of today: kinds then merge into (or leave) a polymorphic collection
    /// in the second stage, their documents in the recommended shape.
    Layouts,
}

/// The first stage: the intermediate design and the steps into it.
#[derive(Debug, Clone)]
pub(super) struct Through {
    /// The design of today with `relationships` changed as `via` says.
    pub design: Design,
    pub relationships: Vec<String>,
    pub via: Via,
    pub actions: Vec<Action>,
    pub checks: Vec<Check>,
    /// A field of today the first stage's final step would remove and the
    /// second stage builds again under its name, in another shape (the
    /// array of ids of child references and an outlier's array): today's
    /// application reads it until the final step, so the final step builds
    /// it (`rebuilt`, checked there), after running again the first stage's
    /// steps that read it (`again`: the children added since).
    pub again: Vec<Action>,
    pub rebuilt: Vec<Action>,
}

/// The same field in both designs: name, origin, and type (an array's bound
/// apart: a bound is the validator's business, not the data's).
pub(super) fn same_field(a: &ShapeField, b: &ShapeField) -> bool {
    fn same_type(a: &ShapeType, b: &ShapeType) -> bool {
        match (a, b) {
            (ShapeType::Array { items: x, .. }, ShapeType::Array { items: y, .. }) => {
                same_type(x, y)
            }
            (ShapeType::Object { shape: x }, ShapeType::Object { shape: y }) => {
                x.fields.len() == y.fields.len()
                    && x.fields
                        .iter()
                        .zip(&y.fields)
                        .all(|(f, g)| same_field(f, g))
            }
            _ => a == b,
        }
    }
    a.name == b.name && a.origin == b.origin && same_type(&a.ty, &b.ty)
}
