//! `embed-read-together`: Data read together, one-to-one or one-to-few and bounded, belongs in one document.

crate::rules::declare_rule! {
    id: "embed-read-together",
    summary: "Data read together, one-to-one or one-to-few and bounded, belongs in one document",
    kind: Design,
    severity: Info,
    sources: ["002_6843193bac1933d0.txt"],
}
