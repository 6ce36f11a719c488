//! `long-reference-array`: An array of references holds more ids than a few thousand.

crate::rules::declare_rule! {
    id: "long-reference-array",
    summary: "An array of references holds more ids than a few thousand",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
}
