//! `bloated-document`: Documents are larger than the profile allows.

crate::rules::declare_rule! {
    id: "bloated-document",
    summary: "Documents are larger than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "Compass performance insights", "Atlas schema advice"],
}
