//! `document-near-size-limit`: Documents come close to the 16 MiB limit.

crate::rules::declare_rule! {
    id: "document-near-size-limit",
    summary: "Documents come close to the 16 MiB limit",
    kind: Data,
    severity: Error,
    sources: ["MongoDB manual: limits"],
}
