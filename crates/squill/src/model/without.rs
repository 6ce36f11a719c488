//! The entity-level patterns the deployment of today does not use (the
//! `without:` entry of a model's `current:` section). The design of today
//! is advised with them left out, so that it is priced as the deployment
//! is; the recommended design is chosen as if the entry were not there.

use super::{EntityId, Model};
use serde::Serialize;

/// The key of `current:` that holds these patterns: no relationship's
/// layout of today can be given under it.
pub const KEY: &str = "without";

/// The entity-level patterns a design may not use, each for some entities
/// or for all of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Without {
    /// No archive collection for these entities: all their instances in one
    /// collection.
    pub archive: Scope,
    /// No polymorphic collection holding any of these entities: each kind in
    /// its own collection.
    pub polymorphic: Scope,
    /// No timeline collection for a feed of or for these entities (its
    /// reader, or its items).
    pub timeline: Scope,
}

/// Which entities a pattern is left out for.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// None: the pattern may be used.
    #[default]
    None,
    /// Every entity.
    All,
    Entities(Vec<EntityId>),
}

impl Scope {
    /// Whether the pattern is left out for entity `e`.
    pub fn covers(&self, e: EntityId) -> bool {
        match self {
            Scope::None => false,
            Scope::All => true,
            Scope::Entities(list) => list.contains(&e),
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Scope::None)
    }

    /// The scope as the model file writes it: `all`, or `[name, …]`.
    pub fn names<'m>(&self, model: &'m Model) -> Option<Vec<&'m str>> {
        match self {
            Scope::None => None,
            Scope::All => Some(Vec::new()),
            Scope::Entities(list) => Some(
                list.iter()
                    .map(|e| model.entity(*e).name.as_str())
                    .collect(),
            ),
        }
    }
}

impl Without {
    /// The patterns' names in the model file, with their scopes.
    pub fn patterns(&self) -> [(&'static str, &Scope); 3] {
        [
            ("archive", &self.archive),
            ("polymorphic", &self.polymorphic),
            ("timeline", &self.timeline),
        ]
    }

    /// Whether every pattern may be used.
    pub fn is_empty(&self) -> bool {
        self.patterns().iter().all(|(_, s)| s.is_none())
    }
}
