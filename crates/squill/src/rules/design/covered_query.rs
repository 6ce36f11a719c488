//! `covered-query`: A query answered from an index alone never reads documents.

crate::rules::declare_rule! {
    id: "covered-query",
    summary: "A query answered from an index alone never reads documents",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt"],
}
