//! `update-with-operators`: Change documents with update operators, never by replacing the whole document.

crate::rules::declare_rule! {
    id: "update-with-operators",
    summary: "Change documents with update operators, never by replacing the whole document",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
