//! What can stop `advise`.

/// Why `advise` could not produce a design.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum AdviseError {
    /// The mix named on the command line is not in the model.
    #[error("model `{model}` has no workload mix `{wanted}`{}", closest.as_ref().map(|c| format!("; did you mean `{c}`?")).unwrap_or_default())]
    #[diagnostic(code(squill::advise::unknown_mix), help("the model's mixes are: {}", available.join(", ")))]
    UnknownMix {
        model: String,
        wanted: String,
        closest: Option<String>,
        available: Vec<String>,
    },
    /// The model has nothing to design.
    #[error("model `{model}` has no entities")]
    #[diagnostic(code(squill::advise::empty_model))]
    EmptyModel { model: String },
    /// The model breaks an invariant a `Model` is supposed to guarantee.
    #[error("model `{model}` is inconsistent: {problem}")]
    #[diagnostic(code(squill::advise::inconsistent_model))]
    Inconsistent { model: String, problem: String },
    /// A relationship is pinned to a layout it cannot have.
    #[error(
        "model `{model}`: relationship `{relationship}` is pinned to `layout: {layout}`, which is not a candidate for it"
    )]
    #[diagnostic(code(squill::advise::pinned_layout), help("{}its candidates are: {}", needs.map(|n| format!("`{layout}` needs {n}; ")).unwrap_or_default(), candidates.join(", ")))]
    PinnedLayout {
        model: String,
        relationship: String,
        layout: &'static str,
        candidates: Vec<&'static str>,
        /// What the model must say for the layout to be a candidate.
        needs: Option<&'static str>,
    },
    /// A count of a many-to-many's parents that the links as an entity
    /// cannot carry.
    #[error(
        "model `{model}`: a read counts the parents through many-to-many `{relationship}`, which squill prices with the links as an entity of their own, and the model uses `{relationship}` in a way that rewrite cannot say"
    )]
    #[diagnostic(
        code(squill::advise::child_side_count),
        help(
            "an operation filters through it, sums a field over it, inserts with a link to it, re-points it or deletes one of its sides; write the links as an entity of your own, with a one-to-many from each side"
        )
    )]
    ChildSideCount { model: String, relationship: String },
    /// No combination of candidates could be laid out (every one conflicts).
    #[error("model `{model}`: no combination of layouts fits together ({problem})")]
    #[diagnostic(code(squill::advise::no_design))]
    NoDesign { model: String, problem: String },
}

/// What a model must say for a layout that only some relationships get.
pub(super) fn needs(kind: crate::model::LayoutKind) -> Option<&'static str> {
    use crate::model::LayoutKind as K;
    match kind {
        K::Outlier => Some(
            "a one-to-many whose `children` give a `p95` or `p99` within what an embedded array may hold and a `max` above it, with a child that is not `standalone`",
        ),
        K::Subset => {
            Some("a read of a parent's latest children (`limit` with a newest-first `sort`)")
        }
        K::Bucket => Some(
            "children read in pages (`limit`), or arriving over time (`growth_per_day`) and read by a time window",
        ),
        K::SharedId => Some("a one-to-one between two different entities"),
        K::ExtendedReference => Some("reads that take a few fields of the other side"),
        K::EdgeCollection => Some(
            "a many-to-many between two different entities whose operations use it only through includes, counts, `link` and `unlink`",
        ),
        K::TwoWayExtendedReference => {
            Some("a many-to-many read from both sides for a few fields of the other")
        }
        K::ManyToManyOneWay | K::ManyToManyTwoWay => {
            Some("a many-to-many, or a child `shared` by several parents")
        }
        K::EmbedParentInChild => {
            Some("a one-to-one, or a parent with no other relationship to fold into its children")
        }
        _ => None,
    }
}
