//! `two-way-references`: Reference both ways when both directions are queried; reassigning then takes two non-atomic updates.

crate::rules::declare_rule! {
    id: "two-way-references",
    summary: "Reference both ways when both directions are queried; reassigning then takes two non-atomic updates",
    kind: Design,
    severity: Info,
    sources: ["001_5782b55841006ac6.txt"],
}
