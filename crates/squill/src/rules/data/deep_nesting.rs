//! `deep-nesting`: Documents nest deeply (or beyond the 100-level limit).

crate::rules::declare_rule! {
    id: "deep-nesting",
    summary: "Documents nest deeply (or beyond the 100-level limit)",
    kind: Data,
    severity: Warning,
    sources: ["MongoDB manual: limits"],
}
