//! `document-size-limit`: A document may not exceed 16 MiB at the relationship's maximum cardinality.

crate::rules::declare_rule! {
    id: "document-size-limit",
    summary: "A document may not exceed 16 MiB at the relationship's maximum cardinality",
    kind: Design,
    severity: Error,
    sources: ["000_34acd10fa9a500cb.txt", "003_8caca105590b9080.txt", "MongoDB manual: limits"],
}
