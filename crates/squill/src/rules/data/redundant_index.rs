//! `redundant-index`: An index duplicates another or is a prefix of another.

crate::rules::declare_rule! {
    id: "redundant-index",
    summary: "An index duplicates another or is a prefix of another",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt"],
}
