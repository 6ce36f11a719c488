//! `missing-id-index`: A collection's metadata lists no _id index.

crate::rules::declare_rule! {
    id: "missing-id-index",
    summary: "A collection's metadata lists no _id index",
    kind: Data,
    severity: Warning,
    sources: ["MongoDB manual: indexes"],
}
