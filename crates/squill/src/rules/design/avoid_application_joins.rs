//! `avoid-application-joins`: Every application-level join is another round trip; denormalize when reads depend on many joins.

crate::rules::declare_rule! {
    id: "avoid-application-joins",
    summary: "Every application-level join is another round trip; denormalize when reads depend on many joins",
    kind: Design,
    severity: Info,
    sources: ["004_16209cf0db7b32ff.txt", "000_34acd10fa9a500cb.txt"],
}
