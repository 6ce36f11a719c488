//! The figures of a sampled scan as estimates: each with the interval it
//! holds to and the method behind it, so a report can say how far it may
//! be trusted (issue 46). Values only; `outputs` puts them in words.

use serde::Serialize;

/// The confidence of every interval a sampled scan states. A scan states
/// dozens of intervals: at 95 % one in twenty would miss its true value.
pub const CONFIDENCE: f64 = 0.99;

/// The normal quantile for `CONFIDENCE`, two-sided.
pub const Z: f64 = 2.575_829_303_548_901;

/// A share estimated from `sampled` observations: the point and its Wilson
/// interval at `CONFIDENCE`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ShareEstimate {
    pub share: f64,
    pub low: f64,
    pub high: f64,
    pub sampled: u64,
}

/// How the share of references that match was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchMethod {
    /// Each sampled reference looked up in the whole referenced collection
    /// (`find` with `$in` on its `_id` index).
    ServerLookup,
    /// Not looked up (the limit on lookups was reached): the share of
    /// dangling references is unknown.
    Unknown,
}

/// How the children per parent were estimated for the collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FanOutMethod {
    /// Exact child counts (`countDocuments` on the reference, served by its
    /// index) for a random sample of parents.
    ParentSampleCounts,
    /// Each parent's occurrences in the sample of children; the parents the
    /// sample missed estimated from those seen once and twice (Chao1).
    ChildSample,
    /// Every child read: each parent's children counted exactly.
    ChildrenWhole,
    /// A child-reference array measured whole in each sampled parent.
    ArrayLengths,
}

/// One percentile of the children per parent, with its distribution-free
/// interval (order statistics of the sampled parents) at `CONFIDENCE`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Percentile {
    /// 0.5, 0.95, 0.99.
    pub p: f64,
    pub value: u64,
    pub low: u64,
    pub high: u64,
}

/// What limits a sampled relationship's figures, for the report to say.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum EstimateNote {
    /// The reference has no index: counting each sampled parent's children
    /// would scan the collection once per parent, so it was not done.
    NoIndexOnReference,
    /// The limit on lookups or counts was reached before this relationship.
    LimitReached,
    /// This percentile needs more sampled parents than there are.
    PercentileUnsupported { p: f64, parents: u64 },
    /// A sample of the children holds a thinned share of each parent's:
    /// no percentile of whole parents follows from it.
    ChildSampleHasNoPercentiles,
}

/// How a relationship found in sampled collections was estimated for the
/// collections whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RelationshipEstimate {
    pub confidence: f64,
    pub match_method: MatchMethod,
    /// The share of references that match no document; `None` when unknown.
    pub dangling: Option<ShareEstimate>,
    pub fan_out_method: FanOutMethod,
    /// Children (documents or array entries) with a parent, estimated.
    pub children: u64,
    /// Parents having any child, estimated.
    pub parents_with_any: u64,
    /// Children ÷ parents having any: the typical fan-out.
    pub typical: f64,
    /// Parents whose children were counted or measured.
    pub parents_measured: u64,
    /// Percentiles the sample supports.
    pub percentiles: Vec<Percentile>,
    /// The most children of one parent seen (scaled up by the child sample's
    /// share for `child-sample`): a floor for the true largest.
    pub largest_seen: u64,
    pub notes: Vec<EstimateNote>,
}
