//! `dangling-reference`: References whose target _id is not in the referenced collection.

crate::rules::declare_rule! {
    id: "dangling-reference",
    summary: "References whose target _id is not in the referenced collection",
    kind: Data,
    severity: Warning,
    sources: ["000_34acd10fa9a500cb.txt"],
}
