//! How many children a parent has: the first question of every embed-or-reference
//! decision (000_34acd10fa9a500cb.txt: "what is the cardinality of the relationship?").

use serde::Serialize;

/// A count that may have no upper bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    Finite(u64),
    Unbounded,
}

impl Count {
    pub fn finite(self) -> Option<u64> {
        match self {
            Count::Finite(n) => Some(n),
            Count::Unbounded => None,
        }
    }

    pub fn is_unbounded(self) -> bool {
        matches!(self, Count::Unbounded)
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Count::Finite(n) => write!(f, "{n}"),
            Count::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// Related items per owner: min / typical / max, and how fast it grows.
///
/// Invariant (checked by whoever builds the model): `min <= typical <= max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cardinality {
    pub min: u64,
    pub typical: u64,
    pub max: Count,
    /// Items added per owner per day, when the model says so. A bounded maximum with
    /// growth means "capped"; an unbounded maximum with growth lets the advisor say
    /// when a document would cross a limit.
    pub growth_per_day: Option<f64>,
}

impl Cardinality {
    pub const ONE: Cardinality = Cardinality {
        min: 1,
        typical: 1,
        max: Count::Finite(1),
        growth_per_day: None,
    };

    pub fn exactly(n: u64) -> Self {
        Cardinality {
            min: n,
            typical: n,
            max: Count::Finite(n),
            growth_per_day: None,
        }
    }
}

/// The seeds' vocabulary for a cardinality. Where the class boundaries lie is a
/// setting (`rules::settings::CardinalitySettings`), not a constant, because the
/// published numbers disagree; see `CardinalityClass::classify` in `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardinalityClass {
    OneToOne,
    OneToFew,
    OneToMany,
    OneToSquillions,
}

impl std::fmt::Display for CardinalityClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CardinalityClass::OneToOne => "one-to-one",
            CardinalityClass::OneToFew => "one-to-few",
            CardinalityClass::OneToMany => "one-to-many",
            CardinalityClass::OneToSquillions => "one-to-squillions",
        })
    }
}
