//! `standalone-child`: A child that is read or updated on its own is a compelling reason not to embed it.

crate::rules::declare_rule! {
    id: "standalone-child",
    summary: "A child that is read or updated on its own is a compelling reason not to embed it",
    kind: Design,
    severity: Info,
    sources: ["000_34acd10fa9a500cb.txt", "004_16209cf0db7b32ff.txt"],
}
