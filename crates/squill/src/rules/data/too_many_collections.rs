//! `too-many-collections`: A database or a dump has more collections than the profile allows.

crate::rules::declare_rule! {
    id: "too-many-collections",
    summary: "A database or a dump has more collections than the profile allows",
    kind: Data,
    severity: Warning,
    sources: ["Compass performance insights", "Atlas schema advice", "Schaefer & Coupal anti-patterns"],
}
