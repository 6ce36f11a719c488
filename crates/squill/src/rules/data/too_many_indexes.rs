//! `too-many-indexes`: A collection has more indexes than the profile allows.

crate::rules::declare_rule! {
    id: "too-many-indexes",
    summary: "A collection has more indexes than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "Compass performance insights", "Atlas schema advice", "Schaefer & Coupal anti-patterns", "MongoDB manual: limits"],
}
