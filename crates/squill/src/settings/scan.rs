//! Thresholds of the data rules (`squill scan`), per named profile.
//!
//! The published numbers disagree (../shared/BRIEF.md, "Published numbers"), so
//! each profile takes its numbers from one source and every number carries the
//! source it came from, which reports print next to it. Where a source publishes
//! no number for a rule, the profile says which other source it falls back to,
//! or that the number is squill's own default. Any threshold and any rule's
//! severity can be overridden in `squill.toml`:
//!
//! ```toml
//! profile = "atlas"
//! [scan.massive-array]
//! max-elements = 500
//! severity = "error"
//! ```

use super::{CardinalitySettings, Profile};
use crate::finding::Severity;
use serde::Deserialize;

/// A number and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit<T> {
    pub value: T,
    pub source: &'static str,
}

const FROM_FILE: &str = "squill.toml";

fn limit<T: Copy>(over: Option<T>, value: T, source: &'static str) -> Limit<T> {
    match over {
        Some(value) => Limit {
            value,
            source: FROM_FILE,
        },
        None => Limit { value, source },
    }
}

// Sources, quoted once so every profile cites them the same way.
const SEEDS_EMBED: &str = "seeds: \"a couple of hundred\" (004_16209cf0db7b32ff.txt, rule 4)";
const SEEDS_IDS: &str = "seeds: \"a few thousand\" ids (004_16209cf0db7b32ff.txt, rule 4; cardinality.reference-array-max)";
const COMPASS_ARRAY: &str = "Compass performance insights: array of 250 elements or more";
const ATLAS_ARRAY: &str = "Atlas schema advice: array over 10,000 entries";
const ARTICLES_ARRAY: &str =
    "anti-pattern articles (Schaefer & Coupal): outlier example caps arrays at 1,000";
const COMPASS_DOC: &str = "Compass performance insights: document over 10,000,000 bytes";
const ATLAS_DOC: &str = "Atlas schema advice: document over 2 MB (2,000,000 bytes)";
const ATLAS_DOC_FALLBACK: &str =
    "Atlas schema advice: document over 2 MB (2,000,000 bytes); this source gives no byte size";
const NEAR_LIMIT: &str =
    "squill default: half of the 16 MiB document limit (MongoDB manual, limits)";
const COMPASS_INDEXES: &str = "Compass performance insights: more than 10 indexes";
const ATLAS_INDEXES: &str = "Atlas schema advice: more than 30 indexes";
const ATLAS_INDEXES_FALLBACK: &str =
    "Atlas schema advice: more than 30 indexes; the seeds give no number";
const ARTICLES_INDEXES: &str =
    "anti-pattern articles (Schaefer & Coupal): at most 50 indexes per collection";
const ATLAS_COLLECTIONS_DB: &str = "Atlas schema advice: more than 100 collections per database";
const COMPASS_COLLECTIONS: &str = "Compass performance insights: 10,000 collections or more";
const ARTICLES_COLLECTIONS: &str =
    "anti-pattern articles (Schaefer & Coupal): at most 10,000 collections per replica set";
const DEPTH: &str =
    "squill default: a tenth of the 100-level nesting limit (MongoDB manual, limits)";
const TYPES: &str = "squill default: one type per field, null and the number types counted as one";
const NAMES: &str = "squill default: field names over half of the document bytes";
const DANGLING: &str = "squill default: any reference without its target";
const MATCH: &str = "squill default: at least half of a field's values match the keys";

/// What `squill.toml` may say under `[scan.<rule-id>]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ScanOptions {
    pub massive_array: Option<MaxOptions<MaxElements>>,
    pub long_reference_array: Option<MaxOptions<MaxElements>>,
    pub bloated_document: Option<MaxOptions<MaxBytes>>,
    pub document_near_size_limit: Option<MaxOptions<MaxBytes>>,
    pub too_many_indexes: Option<MaxOptions<MaxIndexes>>,
    pub redundant_index: Option<SeverityOnly>,
    pub missing_id_index: Option<SeverityOnly>,
    pub expiry_without_ttl: Option<SeverityOnly>,
    pub reference_type_mismatch: Option<SeverityOnly>,
    pub pre_allocation: Option<SeverityOnly>,
    pub too_many_collections: Option<CollectionsOptions>,
    pub deep_nesting: Option<MaxOptions<MaxDepth>>,
    pub mixed_field_types: Option<MaxOptions<MaxTypes>>,
    pub field_name_overhead: Option<MaxOptions<MaxShare>>,
    pub dangling_reference: Option<MaxOptions<MaxShare>>,
    /// How relationships are recognised (not a rule).
    pub relationships: Option<RelationshipOptions>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SeverityOnly {
    pub severity: Option<Severity>,
}

/// A rule's severity and its one threshold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MaxOptions<T> {
    pub severity: Option<Severity>,
    #[serde(flatten)]
    pub max: T,
}

macro_rules! threshold_key {
    ($name:ident, $key:literal, $ty:ty) => {
        #[derive(Debug, Clone, Default, Deserialize)]
        pub struct $name {
            #[serde(rename = $key)]
            pub value: Option<$ty>,
        }
    };
}
threshold_key!(MaxElements, "max-elements", u64);
threshold_key!(MaxBytes, "max-bytes", u64);
threshold_key!(MaxIndexes, "max-indexes", u64);
threshold_key!(MaxDepth, "max-depth", u64);
threshold_key!(MaxTypes, "max-types", u64);
/// `max-share`: a share, from 0 to 1.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct MaxShare {
    #[serde(
        rename = "max-share",
        default,
        deserialize_with = "super::checked::share"
    )]
    pub value: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CollectionsOptions {
    pub severity: Option<Severity>,
    pub max_per_database: Option<u64>,
    pub max_per_dump: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RelationshipOptions {
    #[serde(default, deserialize_with = "super::checked::share")]
    pub min_match_share: Option<f64>,
}

/// A rule's threshold, resolved, and its severity as `squill.toml` sets it
/// (`None`: the rule's default, which the rule itself declares).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleLimit<T> {
    pub severity: Option<Severity>,
    pub max: Limit<T>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectionLimits {
    pub severity: Option<Severity>,
    pub per_database: Option<Limit<u64>>,
    pub per_dump: Option<Limit<u64>>,
}

/// Resolved thresholds of every data rule.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanSettings {
    pub massive_array: RuleLimit<u64>,
    pub long_reference_array: RuleLimit<u64>,
    pub bloated_document: RuleLimit<u64>,
    pub document_near_size_limit: RuleLimit<u64>,
    pub too_many_indexes: RuleLimit<u64>,
    pub redundant_index: Option<Severity>,
    pub missing_id_index: Option<Severity>,
    pub expiry_without_ttl: Option<Severity>,
    pub reference_type_mismatch: Option<Severity>,
    pub pre_allocation: Option<Severity>,
    pub too_many_collections: CollectionLimits,
    pub deep_nesting: RuleLimit<u64>,
    pub mixed_field_types: RuleLimit<u64>,
    pub field_name_overhead: RuleLimit<f64>,
    pub dangling_reference: RuleLimit<f64>,
    /// A field is a reference when at least this share of its values match.
    pub min_match_share: Limit<f64>,
}

impl Default for ScanSettings {
    fn default() -> Self {
        ScanOptions::default().resolve(
            Profile::Seeds,
            &super::CardinalityOptions::default().resolve(),
        )
    }
}

fn rule<T: Copy, O: Into<Option<T>>>(
    opts: Option<MaxOptions<O>>,
    value: T,
    source: &'static str,
) -> RuleLimit<T> {
    let (severity, over) = match opts {
        Some(o) => (o.severity, o.max.into()),
        None => (None, None),
    };
    RuleLimit {
        severity,
        max: limit(over, value, source),
    }
}

macro_rules! into_option {
    ($($name:ident: $ty:ty),*) => {$(
        impl From<$name> for Option<$ty> {
            fn from(v: $name) -> Self {
                v.value
            }
        }
    )*};
}
into_option!(MaxElements: u64, MaxBytes: u64, MaxIndexes: u64, MaxDepth: u64, MaxTypes: u64, MaxShare: f64);

impl ScanOptions {
    pub fn resolve(self, profile: Profile, cardinality: &CardinalitySettings) -> ScanSettings {
        use Profile as P;
        let (array, array_src) = match profile {
            P::Seeds => (cardinality.embed_max, SEEDS_EMBED),
            P::Compass => (249, COMPASS_ARRAY),
            P::Atlas => (10_000, ATLAS_ARRAY),
            P::Articles => (1_000, ARTICLES_ARRAY),
        };
        let (doc, doc_src) = match profile {
            P::Compass => (10_000_000, COMPASS_DOC),
            P::Atlas => (2_000_000, ATLAS_DOC),
            P::Seeds | P::Articles => (2_000_000, ATLAS_DOC_FALLBACK),
        };
        let (indexes, indexes_src) = match profile {
            P::Seeds => (30, ATLAS_INDEXES_FALLBACK),
            P::Compass => (10, COMPASS_INDEXES),
            P::Atlas => (30, ATLAS_INDEXES),
            P::Articles => (50, ARTICLES_INDEXES),
        };
        let (per_db, per_dump) = match profile {
            P::Seeds => (
                Some((100, ATLAS_COLLECTIONS_DB)),
                Some((10_000, ARTICLES_COLLECTIONS)),
            ),
            P::Compass => (None, Some((9_999, COMPASS_COLLECTIONS))),
            P::Atlas => (Some((100, ATLAS_COLLECTIONS_DB)), None),
            P::Articles => (None, Some((10_000, ARTICLES_COLLECTIONS))),
        };
        let colls = self.too_many_collections.unwrap_or_default();
        let pick = |over: Option<u64>, default: Option<(u64, &'static str)>| match (over, default) {
            (Some(v), _) => Some(Limit {
                value: v,
                source: FROM_FILE,
            }),
            (None, Some((value, source))) => Some(Limit { value, source }),
            (None, None) => None,
        };
        ScanSettings {
            massive_array: rule(self.massive_array, array, array_src),
            long_reference_array: rule(
                self.long_reference_array,
                cardinality.reference_array_max,
                SEEDS_IDS,
            ),
            bloated_document: rule(self.bloated_document, doc, doc_src),
            document_near_size_limit: rule(
                self.document_near_size_limit,
                8 * 1024 * 1024,
                NEAR_LIMIT,
            ),
            too_many_indexes: rule(self.too_many_indexes, indexes, indexes_src),
            redundant_index: self.redundant_index.and_then(|o| o.severity),
            missing_id_index: self.missing_id_index.and_then(|o| o.severity),
            expiry_without_ttl: self.expiry_without_ttl.and_then(|o| o.severity),
            reference_type_mismatch: self.reference_type_mismatch.and_then(|o| o.severity),
            pre_allocation: self.pre_allocation.and_then(|o| o.severity),
            too_many_collections: CollectionLimits {
                severity: colls.severity,
                per_database: pick(colls.max_per_database, per_db),
                per_dump: pick(colls.max_per_dump, per_dump),
            },
            deep_nesting: rule(self.deep_nesting, 10, DEPTH),
            mixed_field_types: rule(self.mixed_field_types, 1, TYPES),
            field_name_overhead: rule(self.field_name_overhead, 0.5, NAMES),
            dangling_reference: rule(self.dangling_reference, 0.0, DANGLING),
            min_match_share: limit(
                self.relationships.and_then(|o| o.min_match_share),
                0.5,
                MATCH,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_take_their_own_numbers() {
        let card = super::super::CardinalityOptions::default().resolve();
        let max = |p| {
            ScanOptions::default()
                .resolve(p, &card)
                .massive_array
                .max
                .value
        };
        assert_eq!(
            [
                max(Profile::Seeds),
                max(Profile::Compass),
                max(Profile::Atlas),
                max(Profile::Articles)
            ],
            [200, 249, 10_000, 1_000]
        );
    }

    #[test]
    fn squill_toml_overrides_a_threshold_and_a_severity() {
        let s = super::super::parse(
            std::path::Path::new("squill.toml"),
            "profile = \"atlas\"\n[scan.massive-array]\nmax-elements = 5\nseverity = \"error\"\n",
        )
        .unwrap();
        assert_eq!(s.scan.massive_array.max.value, 5);
        assert_eq!(s.scan.massive_array.max.source, "squill.toml");
        assert_eq!(s.scan.massive_array.severity, Some(Severity::Error));
        assert_eq!(s.scan.too_many_indexes.max.value, 30);
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert!(
            super::super::parse(
                std::path::Path::new("squill.toml"),
                "[scan.massive-array]\nmax = 5\n"
            )
            .is_err()
        );
    }
}
