//! `embedded-array-pagination`: An embedded array cannot be paged by the server; page-wise reads want their own documents or buckets.

crate::rules::declare_rule! {
    id: "embedded-array-pagination",
    summary: "An embedded array cannot be paged by the server; page-wise reads want their own documents or buckets",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt"],
}
