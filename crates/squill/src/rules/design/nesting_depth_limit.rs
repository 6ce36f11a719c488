//! `nesting-depth-limit`: Documents may not nest more than 100 levels.

crate::rules::declare_rule! {
    id: "nesting-depth-limit",
    summary: "Documents may not nest more than 100 levels",
    kind: Design,
    severity: Error,
    sources: ["MongoDB manual: limits"],
}
