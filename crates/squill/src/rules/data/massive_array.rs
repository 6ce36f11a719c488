//! `massive-array`: An array in the data is longer than the profile allows.

crate::rules::declare_rule! {
    id: "massive-array",
    summary: "An array in the data is longer than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["004_16209cf0db7b32ff.txt", "Compass performance insights", "Atlas schema advice", "Schaefer & Coupal anti-patterns"],
}
