//! `mixed-field-types`: The same field holds values of several types.

crate::rules::declare_rule! {
    id: "mixed-field-types",
    summary: "The same field holds values of several types",
    kind: Data,
    severity: Warning,
    sources: ["Compass schema analysis"],
}
