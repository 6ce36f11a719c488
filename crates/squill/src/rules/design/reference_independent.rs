//! `reference-independent`: Reference what is large, updated on its own, shared by several parents, or many-to-many.

crate::rules::declare_rule! {
    id: "reference-independent",
    summary: "Reference what is large, updated on its own, shared by several parents, or many-to-many",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
}
