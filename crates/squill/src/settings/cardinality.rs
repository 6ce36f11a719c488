//! Where "few", "many" and "squillions" begin, and the array bounds of
//! 004_16209cf0db7b32ff.txt rule 4.

use crate::model::{Cardinality, CardinalityClass, Count, RelationshipKind};
use serde::Deserialize;

/// `[cardinality]` as the file gives it; the three counts are checked
/// together once read (`CardinalityOptions::try_from`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CardinalityFile {
    pub few_max: Option<u64>,
    pub embed_max: Option<u64>,
    pub reference_array_max: Option<u64>,
    #[serde(default, deserialize_with = "super::checked::document_bytes")]
    pub embed_document_bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(try_from = "CardinalityFile")]
pub struct CardinalityOptions {
    pub few_max: Option<u64>,
    pub embed_max: Option<u64>,
    pub reference_array_max: Option<u64>,
    pub embed_document_bytes: Option<u64>,
}

/// What may be embedded stays within what may be kept as ids: an
/// `embed-max` past `reference-array-max` leaves no count between them
/// (the embedding bound is clamped into that range), so it is refused
/// where the table is. `few-max` may pass `embed-max` (a small test
/// setting embeds 3 and still calls 10 "few").
impl TryFrom<CardinalityFile> for CardinalityOptions {
    type Error = String;

    fn try_from(f: CardinalityFile) -> Result<Self, String> {
        let o = CardinalityOptions {
            few_max: f.few_max,
            embed_max: f.embed_max,
            reference_array_max: f.reference_array_max,
            embed_document_bytes: f.embed_document_bytes,
        };
        let r = o.clone().resolve();
        if r.reference_array_max == 0 {
            return Err("reference-array-max must be at least 1".into());
        }
        if r.embed_max > r.reference_array_max {
            return Err(format!(
                "embed-max ({}) must not pass reference-array-max ({}), defaults filled in",
                r.embed_max, r.reference_array_max
            ));
        }
        Ok(o)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardinalitySettings {
    /// Up to this many children (at the maximum) is "one-to-few". Zola gives no
    /// number; a person's addresses are the example. Default 10.
    pub few_max: u64,
    /// More children than this are not embedded: "a couple of hundred"
    /// (004_16209cf0db7b32ff.txt rule 4). Default 200.
    pub embed_max: u64,
    /// More children than this are not kept as an array of ids: "a few thousand"
    /// (004_16209cf0db7b32ff.txt rule 4; parts "never more than a couple thousand"
    /// still fit, 000_34acd10fa9a500cb.txt). Default 5,000.
    pub reference_array_max: u64,
    /// A bounded array that is always read whole with its parent may hold
    /// more than `embed_max` children, as long as the parent document at
    /// the stated maximum stays within this many bytes. The count cap
    /// guards against growth nobody stated; a stated maximum and a byte
    /// budget decide better. Default 1 MiB: MongoDB's schema-design
    /// guidance ("Keep Documents Small": aim for documents under 1 MB,
    /// the 16 MiB limit being a safety net, not a target).
    pub embed_document_bytes: u64,
}

impl CardinalityOptions {
    pub fn resolve(self) -> CardinalitySettings {
        CardinalitySettings {
            few_max: self.few_max.unwrap_or(10),
            embed_max: self.embed_max.unwrap_or(200),
            reference_array_max: self.reference_array_max.unwrap_or(5_000),
            embed_document_bytes: self.embed_document_bytes.unwrap_or(1024 * 1024),
        }
    }
}

impl CardinalitySettings {
    /// The seeds' class of a relationship from its maximum cardinality.
    pub fn classify(&self, kind: RelationshipKind, children: &Cardinality) -> CardinalityClass {
        if kind == RelationshipKind::OneToOne {
            return CardinalityClass::OneToOne;
        }
        match children.max {
            Count::Finite(n) if n <= self.few_max => CardinalityClass::OneToFew,
            Count::Finite(n) if n <= self.reference_array_max => CardinalityClass::OneToMany,
            _ => CardinalityClass::OneToSquillions,
        }
    }
}
