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
    #[diagnostic(code(squill::advise::pinned_layout), help("its candidates are: {}", candidates.join(", ")))]
    PinnedLayout {
        model: String,
        relationship: String,
        layout: &'static str,
        candidates: Vec<&'static str>,
    },
    /// No combination of candidates could be laid out (every one conflicts).
    #[error("model `{model}`: no combination of layouts fits together ({problem})")]
    #[diagnostic(code(squill::advise::no_design))]
    NoDesign { model: String, problem: String },
}
